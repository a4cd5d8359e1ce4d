import assert from 'node:assert/strict';
import { memoryBytes } from 'ringpool';

/** `accepted = completed + failed + queued + running`, once the pool is quiet. */
export function assertInvariant(pool) {
  const s = pool.stats();
  assert.equal(s.accepted, s.completed + s.failed + s.queued + s.running, JSON.stringify(s));
  return s;
}

/** The rejection reason of `promise` (fails if it fulfils). */
export async function rejection(promise) {
  try {
    const v = await promise;
    assert.fail(`expected a rejection, got ${v}`);
  } catch (e) {
    if (e instanceof assert.AssertionError) throw e;
    return e;
  }
}

/**
 * Whether this run's pools share memory with their workers: not in message mode (a page that is
 * not cross-origin isolated, or the message-mode run of scripts/test.sh, message-mode.mjs).
 */
export const sharedMemory = globalThis.RINGPOOL_TEST_MODE !== 'message' && globalThis.crossOriginIsolated !== false;

/** The `skip` of a test that needs memory the workers share (false where they have it). */
export function needsShared(why) {
  return sharedMemory ? false : `needs shared memory, which message mode does not have: ${why}`;
}

/**
 * A gate: tasks `[wait, [g]]` wait at it until `open()`; `await reached(n)` waits until `n`
 * tasks reached it. With shared memory it is two words of pool memory (the task blocks in
 * Atomics.wait, fine on a worker); in message mode a BroadcastChannel named `g` (the task
 * awaits, which keeps its worker as busy).
 */
export function gate(pool) {
  if (pool.mode === 'message') return channelGate();
  const g = pool.alloc(Int32Array, 2);
  const wait = (g) => { Atomics.add(g, 1, 1); Atomics.notify(g, 1); while (Atomics.load(g, 0) === 0) Atomics.wait(g, 0, 0); return 'gated'; };
  const reached = async (n) => { for (let v; (v = Atomics.load(g, 1)) < n;) await Atomics.waitAsync(g, 1, v).value; };
  const open = () => { Atomics.store(g, 0, 1); Atomics.notify(g, 0); };
  return { g, wait, reached, open };
}

let gates = 0;
function channelGate() {
  const g = `ringpool-test-gate-${gates++}-${Math.random().toString(36).slice(2)}`;
  const wait = async (name) => {
    const c = new BroadcastChannel(name);
    await new Promise((resolve) => {
      c.onmessage = (e) => { if (e.data === 'open') resolve(); };
      c.postMessage('reached');
    });
    c.close();
    return 'gated';
  };
  let count = 0, opened = false;
  const waiters = [];
  // Kept open: a task may reach the gate after it opened, and is told at once.
  const c = new BroadcastChannel(g);
  c.unref?.();
  c.onmessage = (e) => {
    if (e.data !== 'reached') return;
    count++;
    if (opened) c.postMessage('open');
    for (const w of waiters.splice(0)) w();
  };
  const reached = async (n) => { while (count < n) await new Promise((r) => waiters.push(r)); };
  const open = () => { opened = true; c.postMessage('open'); };
  return { g, wait, reached, open };
}

/**
 * How many bytes the wasm memory grew over 60 calls of `round` (500 tasks each, say), after 10
 * calls to warm up the allocator's and the pool's own buffers.
 */
export async function memoryGrowth(round) {
  for (let i = 0; i < 10; i++) await round();
  const before = memoryBytes();
  for (let i = 0; i < 60; i++) await round();
  return memoryBytes() - before;
}

/** Occupies a worker with a gated task and returns once it runs; `open()` lets it finish as 'gated'. */
export async function occupy(pool) {
  const { g, wait, reached, open } = gate(pool);
  const blocker = pool.trySubmit(wait, [g]);
  await reached(1);
  return { blocker, open };
}
