// signal and timeout: a queued task settles at once (abort reason / TimeoutError) and its body
// never runs; an already-aborted signal is refused at admission.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, TimeoutError } from 'ringpool';
import { assertInvariant, rejection } from './helpers.mjs';

// A gate in pool memory: the blocker waits on it with Atomics.wait (fine on a worker).
async function blockedPool() {
  const pool = await Pool.create({ workers: 1, queueCapacity: 8 });
  const gate = pool.alloc(Int32Array, 2); // [0] = released, [1] = blocker state: 1 running, 2 done
  const blocker = pool.trySubmit((g) => {
    Atomics.store(g, 1, 1);
    Atomics.notify(g, 1);
    while (Atomics.load(g, 0) === 0) Atomics.wait(g, 0, 0);
    Atomics.store(g, 1, 2);
    return 'released';
  }, [gate]);
  while (Atomics.load(gate, 1) === 0) await Atomics.waitAsync(gate, 1, 0).value;
  const release = () => { Atomics.store(gate, 0, 1); Atomics.notify(gate, 0); };
  return { pool, gate, blocker, release };
}

test('abort while queued rejects at once with the reason; the body never runs', async () => {
  const { pool, gate, blocker, release } = await blockedPool();
  const ran = pool.alloc(Int32Array, 1);
  const ac = new AbortController();
  const p = pool.trySubmit((r) => { Atomics.store(r, 0, 1); }, [ran], { signal: ac.signal });
  ac.abort(new Error('user gave up'));
  const err = await rejection(p); // resolves while the worker is still blocked
  assert.equal(err.message, 'user gave up');
  assert.equal(Atomics.load(gate, 1), 1, 'the blocker was still running');
  assert.equal(pool.stats().running, 1);
  release();
  assert.equal(await blocker, 'released');
  assert.equal(await pool.trySubmit(() => 'next'), 'next');
  assert.equal(Atomics.load(ran, 0), 0, 'the aborted body never ran');
  assert.equal(assertInvariant(pool).cancelled, 1);
  await pool.shutdown();
});

test('timeout while queued rejects with TimeoutError; the body never runs', async () => {
  const { pool, gate, blocker, release } = await blockedPool();
  const ran = pool.alloc(Int32Array, 1);
  const err = await rejection(pool.trySubmit((r) => { Atomics.store(r, 0, 1); }, [ran], { timeout: 20 }));
  assert.ok(err instanceof TimeoutError);
  assert.equal(err.code, 'TIMEOUT');
  assert.equal(Atomics.load(gate, 1), 1, 'the blocker was still running');
  assert.equal(pool.stats().running, 1);
  release();
  await blocker;
  await pool.trySubmit(() => 0);
  assert.equal(Atomics.load(ran, 0), 0);
  assert.equal(assertInvariant(pool).timedOut, 1);
  await pool.shutdown();
});

test('an already-aborted signal is refused at admission with its reason', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 2 });
  const err = await rejection(pool.trySubmit(() => 1, [], { signal: AbortSignal.abort(new Error('early')) }));
  assert.equal(err.message, 'early');
  const s = assertInvariant(pool);
  assert.equal(s.accepted, 0);
  await pool.shutdown();
});

// A running task is cancelled cooperatively: its promise rejects at once, and the body sees it
// through `this.isCancelled()` (any time) or `this.signal` (while it awaits).
async function startedTask(pool, body, options) {
  const flags = pool.alloc(Int32Array, 2); // [0] = started, [1] = what the body saw
  const p = pool.trySubmit(body, [flags], options);
  while (Atomics.load(flags, 0) === 0) await Atomics.waitAsync(flags, 0, 0).value;
  return { p, flags };
}

test('a running async task sees this.signal abort when its signal is aborted', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 4 });
  const ac = new AbortController();
  const { p, flags } = await startedTask(pool, async function (f) {
    const signal = this.signal; // made while running: only the watch can abort it later
    Atomics.store(f, 0, 1); Atomics.notify(f, 0);
    await new Promise((resolve) => signal.addEventListener('abort', resolve));
    Atomics.store(f, 1, this.signal.reason?.name === 'AbortError' && this.isCancelled() ? 7 : 9);
    return 'late result';
  }, { signal: ac.signal });
  ac.abort(new Error('stop'));
  assert.equal((await rejection(p)).message, 'stop');
  // One worker: this runs only after the cancelled body returned, which it does only by
  // observing the abort (otherwise the test times out).
  assert.equal(await pool.trySubmit((f) => Atomics.load(f, 1), [flags]), 7);
  assert.equal(assertInvariant(pool).cancelled, 1);
  await pool.shutdown();
});

// A timeout's clock starts at admission, so on a slow engine (WebKit under load) it can expire
// before the body starts (the body then never runs: verdict 0) or before its first poll
// (verdict 2). Such a try says nothing about a running task and is repeated with twice the
// timeout, at most 6 times; a body that never sees the flag turn makes every try fail.
// `body` stores its verdict in flags[0]: 1 when it saw isCancelled() turn true while running.
async function verdictOnTimeout(pool, body) {
  let verdict = 0, tries = 0;
  for (let timeout = 30; tries < 6 && verdict !== 1; timeout *= 2, tries++) {
    const flags = pool.alloc(Int32Array, 1);
    assert.ok((await rejection(pool.trySubmit(body, [flags], { timeout }))) instanceof TimeoutError);
    // One worker: this runs only after the cancelled body returned.
    verdict = await pool.trySubmit((f) => Atomics.load(f, 0), [flags]);
    pool.free(flags);
  }
  return { verdict, tries };
}

test('a running synchronous task sees this.isCancelled() turn true on timeout', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 4 });
  const { verdict, tries } = await verdictOnTimeout(pool, function (f) {
    let polls = 0;
    while (!this.isCancelled()) polls++;
    Atomics.store(f, 0, polls > 0 ? 1 : 2);
    return 'late result';
  });
  assert.equal(verdict, 1);
  assert.equal(assertInvariant(pool).timedOut, tries);
  await pool.shutdown();
});

test('isCancelled works detached from this (destructured), and the context is a TaskContext', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 4 });
  const { verdict } = await verdictOnTimeout(pool, function (f) {
    const { isCancelled } = this;
    let polls = 0;
    while (!isCancelled()) polls++;
    Atomics.store(f, 0, polls > 0 && this.isCancelled() && this.constructor.name === 'TaskContext' ? 1 : 2);
    return 'late result';
  });
  assert.equal(verdict, 1);
  assert.equal(await pool.trySubmit(function () { return this.isCancelled === this.isCancelled && !this.isCancelled(); }), true);
  await pool.shutdown();
});

test('a task that finishes normally never sees cancellation', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 4 });
  const ac = new AbortController();
  const seen = await pool.trySubmit(async function () {
    await null;
    return [this.isCancelled(), this.signal.aborted];
  }, [], { signal: ac.signal });
  ac.abort();
  assert.deepEqual(seen, [false, false]);
  assertInvariant(pool);
  await pool.shutdown();
});
