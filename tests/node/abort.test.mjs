// signal and timeout: a queued task settles at once (abort reason / TimeoutError) and its body
// never runs; an already-aborted signal is refused at admission.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, TimeoutError } from 'ringpool';
import { assertInvariant, needsShared, occupy, probe, rejection } from './helpers.mjs';

// The one worker is held at a gate (helpers.mjs, either mode); `ran` is read back from the
// worker's global scope, where a body marks that it ran.
async function blockedPool() {
  const pool = await Pool.create({ workers: 1, queueCapacity: 8 });
  const { blocker, open } = await occupy(pool);
  let settled = false;
  blocker.then(() => { settled = true; }, () => { settled = true; });
  return { pool, blocker, release: open, held: () => !settled && pool.stats().running === 1 };
}
const markRan = () => { globalThis.ran = (globalThis.ran ?? 0) + 1; };
const ranCount = (pool) => pool.trySubmit(() => globalThis.ran ?? 0);

test('abort while queued rejects at once with the reason; the body never runs', async () => {
  const { pool, blocker, release, held } = await blockedPool();
  const ac = new AbortController();
  const p = pool.trySubmit(markRan, [], { signal: ac.signal });
  ac.abort(new Error('user gave up'));
  const err = await rejection(p); // resolves while the worker is still blocked
  assert.equal(err.message, 'user gave up');
  assert.ok(held(), 'the blocker was still running');
  release();
  assert.equal(await blocker, 'gated');
  assert.equal(await pool.trySubmit(() => 'next'), 'next');
  assert.equal(await ranCount(pool), 0, 'the aborted body never ran');
  assert.equal(assertInvariant(pool).cancelled, 1);
  await pool.shutdown();
});

test('timeout while queued rejects with TimeoutError; the body never runs', async () => {
  const { pool, blocker, release, held } = await blockedPool();
  const err = await rejection(pool.trySubmit(markRan, [], { timeout: 20 }));
  assert.ok(err instanceof TimeoutError);
  assert.equal(err.code, 'TIMEOUT');
  assert.ok(held(), 'the blocker was still running');
  release();
  await blocker;
  assert.equal(await ranCount(pool), 0);
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
// through `this.isCancelled()` (any time) or `this.signal` (while it awaits). A body's verdict
// is kept in its worker's global scope and read back by the next task on the one worker.
test('a running async task sees this.signal abort when its signal is aborted', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 4 });
  const ac = new AbortController();
  const started = probe(pool);
  const p = pool.trySubmit(started.task(async function () {
    const signal = this.signal; // made while running: only the watch can abort it later
    ran(); // the probe's: the caller aborts only after this
    await new Promise((resolve) => signal.addEventListener('abort', resolve));
    globalThis.verdict = this.signal.reason?.name === 'AbortError' && this.isCancelled() ? 7 : 9;
    return 'late result';
  }), [started.g], { signal: ac.signal });
  await started.ran(1);
  ac.abort(new Error('stop'));
  assert.equal((await rejection(p)).message, 'stop');
  // One worker: this runs only after the cancelled body returned, which it does only by
  // observing the abort (otherwise the test times out).
  assert.equal(await pool.trySubmit(() => globalThis.verdict), 7);
  assert.equal(assertInvariant(pool).cancelled, 1);
  await pool.shutdown();
});

// A timeout's clock starts at admission, so on a slow engine (WebKit under load) it can expire
// before the body starts (the body then never runs: verdict 0) or before its first poll
// (verdict 2). Such a try says nothing about a running task and is repeated with twice the
// timeout, at most 6 times; a body that never sees the flag turn makes every try fail.
// `body` leaves its verdict in globalThis.verdict: 1 when it saw isCancelled() turn true while running.
// Message mode: a synchronous loop never hears the owner's message, so it polls in vain.
const syncPolls = needsShared('a synchronous body sees isCancelled() turn only through memory it shares with the pool');
async function verdictOnTimeout(pool, body) {
  let verdict = 0, tries = 0;
  for (let timeout = 30; tries < 6 && verdict !== 1; timeout *= 2, tries++) {
    await pool.trySubmit(() => { globalThis.verdict = 0; });
    assert.ok((await rejection(pool.trySubmit(body, [], { timeout }))) instanceof TimeoutError);
    // One worker: this runs only after the cancelled body returned.
    verdict = await pool.trySubmit(() => globalThis.verdict);
  }
  return { verdict, tries };
}

test('a running synchronous task sees this.isCancelled() turn true on timeout', { skip: syncPolls }, async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 4 });
  const { verdict, tries } = await verdictOnTimeout(pool, function () {
    let polls = 0;
    while (!this.isCancelled()) polls++;
    globalThis.verdict = polls > 0 ? 1 : 2;
    return 'late result';
  });
  assert.equal(verdict, 1);
  assert.equal(assertInvariant(pool).timedOut, tries);
  await pool.shutdown();
});

test('isCancelled works detached from this (destructured), and the context is a TaskContext', { skip: syncPolls }, async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 4 });
  const { verdict } = await verdictOnTimeout(pool, function () {
    const { isCancelled } = this;
    let polls = 0;
    while (!isCancelled()) polls++;
    globalThis.verdict = polls > 0 && this.isCancelled() && this.constructor.name === 'TaskContext' ? 1 : 2;
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
