// timeout: a pool keeps one timer, for the earliest deadline, and an entry per task that is
// forgotten as soon as the task settles. So a long timeout keeps nothing for tasks that
// finished, a later task with an earlier deadline still times out first, and Node can exit as
// soon as the work is done instead of when the last timeout would have expired.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, TimeoutError } from 'ringpool';
import { assertInvariant, memoryGrowth, occupy, rejection } from './helpers.mjs';

test('a long timeout keeps no memory for tasks that finished, in batches or one at a time', async () => {
  const pool = await Pool.create({ workers: 2, queueCapacity: 512 });
  const opts = { timeout: 600_000 };
  // A timer per task kept each finished task's record until its deadline (~4 MB for these
  // 15,000 in batches); a timer callback per task leaked whenever its timer was cleared
  // (~0.8 MB for these 15,000 one at a time).
  const grown = await memoryGrowth(async () => {
    await Promise.all(Array.from({ length: 250 }, (_, i) => pool.trySubmit((i) => i, [i], opts)));
    for (let i = 0; i < 250; i++) await pool.trySubmit((i) => i, [i], opts);
  });
  assert.ok(grown <= 256 << 10, `30,000 finished tasks grew wasm memory by ${grown} bytes`);
  await pool.shutdown();
});

test('deadlines expire in time order, whatever the order they were set in', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 3 });
  const { blocker, open } = await occupy(pool);
  let longSettled = false;
  const order = [];
  const noted = (name) => (e) => { order.push(name); throw e; };
  // Set latest-first except the long one; they must expire earliest-first. The gap (20 ms vs
  // 400 ms) is wide so that a stalled timer on a loaded machine cannot reorder them.
  const long = pool.trySubmit(() => 'long', [], { timeout: 600_000 }).finally(() => { longSettled = true; });
  const short = pool.trySubmit(() => 'never', [], { timeout: 400 }).catch(noted('short'));
  const filler = pool.trySubmit(() => 'filler');
  const waiting = pool.submit(() => 'never either', [], { timeout: 20 }).catch(noted('waiting')); // the queue is full
  try {
    assert.ok(await rejection(waiting) instanceof TimeoutError);
    assert.ok(await rejection(short) instanceof TimeoutError);
    assert.deepEqual(order, ['waiting', 'short'], 'expired in deadline order');
    assert.equal(longSettled, false, 'the later deadline has not expired');
  } finally {
    open();
  }
  assert.equal(await blocker, 'gated');
  assert.equal(await long, 'long');
  assert.equal(await filler, 'filler');
  await pool.shutdown();
  assert.equal(assertInvariant(pool).timedOut, 1, 'the short one (the waiting submit never got in)');
});

if (typeof process === 'object' && process.versions?.node) {
  test('Node exits once the work is done, not when a long timeout would expire', async () => {
    const { spawnSync } = await import('node:child_process');
    const { fileURLToPath } = await import('node:url');
    const t = performance.now();
    const r = spawnSync(process.execPath, [fileURLToPath(new URL('./fixture-long-timeout.mjs', import.meta.url))], {
      encoding: 'utf8', timeout: 60_000,
    });
    assert.equal(r.stdout.trim(), '42', r.stderr);
    assert.equal(r.status, 0, `exit status ${r.status}, signal ${r.signal} after ${Math.round(performance.now() - t)} ms`);
  });
} else {
  // Listed, not silently left out, where Node is not (the browser run).
  test('Node exits once the work is done, not when a long timeout would expire', { skip: 'needs Node: a child process' }, () => {});
}
