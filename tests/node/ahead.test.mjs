// Message mode hands a busy worker its next task ahead, so that it never waits a round trip
// for work (src/README.md, "Message mode"). The task handed ahead still counts as queued and
// keeps its place in queueCapacity; a task a signal or a timeout may settle is never handed
// ahead; an idle worker takes over what a busy one holds; a worker that dies hands its task on.
// Every pool here is made in message mode, so these run in the shared-memory runs too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, QueueFullError, diagnostics, WorkerCrashedError } from 'ringpool';
import { assertInvariant, occupy, rejection } from './helpers.mjs';

// Node's own: a BroadcastChannel shares a SharedArrayBuffer with a worker in another memory,
// and the main thread may block in Atomics.wait.
const realNode = typeof process === 'object' && process.versions?.node != null && !globalThis.Deno && !globalThis.Bun;
const syncGate = !realNode && 'needs Node: a worker blocked synchronously on a SharedArrayBuffer its BroadcastChannel brought';

/**
 * A gate that blocks a message-mode worker's thread synchronously: `task` first takes the
 * buffer from the BroadcastChannel (kept in the worker's global scope for later tasks), says it
 * arrived ([1]), and blocks until `open()` ([0]).
 */
async function blockedWorker(pool) {
  const name = `ringpool-ahead-${Math.random().toString(36).slice(2)}`;
  const flags = new Int32Array(new SharedArrayBuffer(16)); // [0] open, [1] reached, [2] a later task began
  const task = async function (name) {
    const c = new BroadcastChannel(name);
    const f = await new Promise((resolve) => { c.onmessage = (e) => resolve(e.data); });
    c.close();
    globalThis.flags = f;
    Atomics.store(f, 1, 1);
    Atomics.notify(f, 1);
    while (Atomics.load(f, 0) === 0) Atomics.wait(f, 0, 0);
    return 'first';
  };
  const first = pool.trySubmit(task, [name]);
  const c = new BroadcastChannel(name);
  // Until the task has it: its channel may not be listening yet when the first one goes.
  while (Atomics.load(flags, 1) === 0) {
    c.postMessage(flags);
    await Atomics.waitAsync(flags, 1, 0, 20).value;
  }
  c.close();
  return { first, flags, open: () => { Atomics.store(flags, 0, 1); Atomics.notify(flags, 0); } };
}

test('a busy worker holds its next task and begins it without waiting for the page', { skip: syncGate }, async () => {
  const pool = await Pool.create({ workers: 1, mode: 'message' });
  const { first, flags, open } = await blockedWorker(pool);
  const second = pool.trySubmit(() => { Atomics.store(globalThis.flags, 2, 1); Atomics.notify(globalThis.flags, 2); return 'second'; });
  // The pump that hands it over runs in a microtask after the submission.
  await null;
  open();
  // This thread now blocks: it cannot hear the first task's reply, so the second task begins
  // only if its worker already holds it.
  assert.notEqual(Atomics.wait(flags, 2, 0, 10_000), 'timed-out', 'the second task began while the page was blocked');
  assert.deepEqual(await Promise.all([first, second]), ['first', 'second']);
  assertInvariant(pool);
  await pool.shutdown();
});

test('a task with a signal or a timeout is never handed ahead: aborted while a synchronous task runs, its body never runs', { skip: syncGate }, async () => {
  const pool = await Pool.create({ workers: 1, mode: 'message' });
  const { first, open } = await blockedWorker(pool);
  const ac = new AbortController();
  const watched = [
    pool.trySubmit(() => { globalThis.ran = (globalThis.ran ?? 0) + 1; }, [], { signal: ac.signal }),
    pool.trySubmit(() => { globalThis.ran = (globalThis.ran ?? 0) + 1; }, [], { timeout: 60_000, signal: ac.signal }),
  ];
  await null;
  // Had it been handed over, the worker would begin it before it hears of the abort: its
  // thread is blocked in the first task until the gate opens.
  ac.abort(new Error('stop'));
  for (const p of watched) assert.equal((await rejection(p)).message, 'stop');
  open();
  assert.equal(await first, 'first');
  assert.equal(await pool.trySubmit(() => globalThis.ran ?? 0), 0);
  assertInvariant(pool);
  await pool.shutdown();
});

test('the task handed ahead counts as queued and keeps its place in queueCapacity', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 2, mode: 'message' });
  const { blocker, open } = await occupy(pool);
  const queued = [pool.trySubmit((x) => x, [1]), pool.trySubmit((x) => x, [2])];
  await null; // the pump: the first of them is handed to the busy worker
  assert.ok((await rejection(pool.trySubmit((x) => x, [3]))) instanceof QueueFullError);
  const s = pool.stats();
  assert.equal(s.queued, 2, JSON.stringify(s));
  assert.equal(s.running, 1, JSON.stringify(s));
  open();
  assert.equal(await blocker, 'gated');
  assert.deepEqual(await Promise.all(queued), [1, 2]);
  assert.equal(assertInvariant(pool).rejected, 1);
  await pool.shutdown();
});

test('running never exceeds the workers and the counts add up while tasks are handed ahead', async () => {
  const pool = await Pool.create({ workers: 2, queueCapacity: 512, mode: 'message' });
  const seen = [];
  const look = () => {
    const s = pool.stats();
    seen.push(s);
    return s;
  };
  await Promise.all(Array.from({ length: 300 }, (_, i) => pool.trySubmit((i) => i * 2, [i]).then(look)));
  for (const s of seen) {
    assert.ok(s.running <= 2, JSON.stringify(s));
    assert.equal(s.accepted, s.completed + s.failed + s.queued + s.running, JSON.stringify(s));
  }
  assert.ok(seen.some((s) => s.queued > 0), 'tasks were queued while others ran');
  assert.equal(assertInvariant(pool).completed, 300);
  await pool.shutdown();
});

test('an idle worker takes over what a busy one holds: a watched task at once, a handed one given back', async () => {
  const pool = await Pool.create({ workers: 2, queueCapacity: 16, mode: 'message' });
  const { blocker, open } = await occupy(pool);
  // The idle worker takes the first; the busy one holds the watched one (in its slot, never
  // posted) and the idle one is handed the third ahead.
  const one = [pool.trySubmit((x) => x, ['a']), pool.trySubmit((x) => x, ['d'], { timeout: 60_000 }), pool.trySubmit((x) => x, ['b'])];
  assert.deepEqual(await Promise.all(one), ['a', 'd', 'b'], 'all ran while the gate was closed');
  // Now the busy worker is handed one for real: the idle one asks for it back.
  const two = [pool.trySubmit((x) => x, ['a2']), pool.trySubmit((x) => x, ['b2']), pool.trySubmit((x) => x, ['c2'])];
  assert.deepEqual(await Promise.all(two), ['a2', 'b2', 'c2'], 'all ran while the gate was closed');
  open();
  assert.equal(await blocker, 'gated');
  assertInvariant(pool);
  await pool.shutdown();
});

test('a task handed to a worker that dies runs on its replacement', async () => {
  const pool = await Pool.create({ workers: 1, mode: 'message' });
  // In one turn: the trap goes to the idle worker, the next one is handed to it ahead.
  const trap = pool.trySubmit(diagnostics.trap());
  const next = pool.trySubmit((x) => x + 1, [41]);
  assert.ok((await rejection(trap)) instanceof WorkerCrashedError);
  assert.equal(await next, 42);
  const s = assertInvariant(pool);
  assert.equal(s.crashed, 1);
  assert.equal(s.completed, 1);
  await pool.shutdown();
});
