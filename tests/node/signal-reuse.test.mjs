// One AbortSignal for many tasks (an app-wide or per-component controller): the pool adds one
// abort listener per signal however many tasks are in flight, removes it when the last one
// settles, keeps no memory for settled tasks, and the signal still cancels what is in flight.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool } from 'ringpool';
import { assertInvariant, memoryGrowth, occupy } from './helpers.mjs';

// A real AbortSignal whose 'abort' listeners are counted as they are added and removed.
function countedSignal() {
  const ac = new AbortController();
  const { signal } = ac;
  const live = new Set();
  let peak = 0;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = (type, fn, opts) => {
    if (type === 'abort') { live.add(fn); peak = Math.max(peak, live.size); }
    add(type, fn, opts);
  };
  signal.removeEventListener = (type, fn, opts) => {
    if (type === 'abort') live.delete(fn);
    remove(type, fn, opts);
  };
  return { ac, signal, live: () => live.size, peak: () => peak };
}

test('one listener for all tasks of a signal (trySubmit, submit, submitAll), none once they settle', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 40 });
  const { blocker, open } = await occupy(pool);
  const s = countedSignal();
  const opts = { signal: s.signal };
  const tried = Array.from({ length: 20 }, (_, i) => pool.trySubmit((i) => i, [i], opts));
  const batch = pool.submitAll(Array.from({ length: 15 }, (_, i) => [(i) => -i, [i]]), opts);
  // 35 queued of 40; 5 fit and 5 wait for space.
  const submitted = Array.from({ length: 10 }, (_, i) => pool.submit((i) => i * 10, [i], opts));
  try {
    assert.equal(s.live(), 1, '45 tasks in flight on one signal, one listener');
  } finally {
    open();
  }
  assert.equal(await blocker, 'gated');
  assert.deepEqual(await Promise.all(tried), Array.from({ length: 20 }, (_, i) => i));
  assert.deepEqual(await batch, Array.from({ length: 15 }, (_, i) => -i));
  assert.deepEqual(await Promise.all(submitted), Array.from({ length: 10 }, (_, i) => i * 10));
  assert.equal(s.peak(), 1);
  assert.equal(s.live(), 0, 'the listener is removed once the last task settled');
  // The signal still works for the next tasks: a new listener, removed again.
  assert.equal(await pool.trySubmit(() => 'again', [], opts), 'again');
  assert.equal(s.live(), 0);
  assert.equal(s.peak(), 1);
  await pool.shutdown();
  assertInvariant(pool);
});

test('a long-lived signal keeps no memory for settled tasks', async () => {
  const pool = await Pool.create({ workers: 2, queueCapacity: 512 });
  const s = countedSignal();
  const opts = { signal: s.signal };
  // Each settled task used to keep its listener, token and task record: ~10 MiB for these 30,000.
  const grown = await memoryGrowth(async () => {
    await pool.submitAll(Array.from({ length: 250 }, (_, i) => [(i) => i, [i]]), opts);
    await Promise.all(Array.from({ length: 250 }, (_, i) => pool.trySubmit((i) => i, [i], opts)));
  });
  assert.ok(grown <= 1 << 20, `30,000 settled tasks grew wasm memory by ${grown} bytes`);
  assert.equal(s.live(), 0);
  await pool.shutdown();
});

test('aborting a shared signal cancels every task of it, queued or waiting, and nothing else', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 4 });
  const { blocker, open } = await occupy(pool);
  // A body marks in its worker's global scope that it ran; the one worker is asked afterwards.
  const body = () => { globalThis.ran = (globalThis.ran ?? 0) + 1; };
  const s = countedSignal();
  const other = new AbortController();
  const queued = [pool.trySubmit(body, [], { signal: s.signal }), pool.trySubmit(body, [], { signal: s.signal })];
  const bystander = pool.trySubmit(() => 'bystander', [], { signal: other.signal });
  const batch = pool.submitAll([[body, []], [body, []]], { signal: s.signal }); // one fits, one waits
  const waiting = pool.submit(body, [], { signal: s.signal });
  try {
    assert.equal(s.live(), 1);
  } finally {
    s.ac.abort(new Error('stop this job'));
  }
  for (const r of await Promise.allSettled([...queued, batch, waiting])) {
    assert.equal(r.status, 'rejected');
    assert.equal(r.reason.message, 'stop this job');
  }
  open();
  assert.equal(await blocker, 'gated');
  assert.equal(await bystander, 'bystander');
  assert.equal(await pool.trySubmit(() => globalThis.ran ?? 0), 0, 'no body of the aborted signal ran');
  assert.equal(await pool.trySubmit(() => 'after'), 'after');
  await pool.shutdown();
  assertInvariant(pool);
});
