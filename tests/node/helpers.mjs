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
 * A gate in pool memory: tasks `[wait, [g]]` block on word 0 (Atomics.wait is fine on a worker)
 * until `open()`; word 1 counts the tasks that reached it, `await reached(n)` waits for `n`.
 */
export function gate(pool) {
  const g = pool.alloc(Int32Array, 2);
  const wait = (g) => { Atomics.add(g, 1, 1); Atomics.notify(g, 1); while (Atomics.load(g, 0) === 0) Atomics.wait(g, 0, 0); return 'gated'; };
  const reached = async (n) => { for (let v; (v = Atomics.load(g, 1)) < n;) await Atomics.waitAsync(g, 1, v).value; };
  const open = () => { Atomics.store(g, 0, 1); Atomics.notify(g, 0); };
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
