// submit waits for queue space (in order) instead of refusing, honours signal/timeout while
// waiting, and rejects with PoolClosedError when shutdown starts first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, PoolClosedError, TimeoutError, QueueFullError } from 'ringpool';
import { assertInvariant, rejection } from './helpers.mjs';

test('backpressure: 50 submits through a 2-slot queue all run, in order of admission', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 2 });
  const order = pool.alloc(Int32Array, 51);
  const all = Array.from({ length: 50 }, (_, i) => pool.submit((o, i) => { o[1 + Atomics.add(o, 0, 1)] = i; return i; }, [order, i]));
  assert.deepEqual(await Promise.all(all), Array.from({ length: 50 }, (_, i) => i));
  assert.deepEqual(Array.from(order.subarray(1)), Array.from({ length: 50 }, (_, i) => i), 'FIFO');
  assert.equal(assertInvariant(pool).accepted, 50);
  await pool.shutdown();
});

test('waiting submits honour signal and timeout, and shutdown refuses them', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 1 });
  const gate = pool.alloc(Int32Array, 2); // [0] released, [1] blocker running
  const blocker = pool.trySubmit((g) => { Atomics.store(g, 1, 1); Atomics.notify(g, 1); while (Atomics.load(g, 0) === 0) Atomics.wait(g, 0, 0); }, [gate]);
  while (Atomics.load(gate, 1) === 0) await Atomics.waitAsync(gate, 1, 0).value;
  const queued = pool.trySubmit(() => 'queued'); // takes the only slot
  assert.ok(await rejection(pool.trySubmit(() => 'x')) instanceof QueueFullError);
  const ac = new AbortController();
  const aborted = pool.submit(() => 'never', [], { signal: ac.signal });
  const timed = pool.submit(() => 'never', [], { timeout: 10 });
  const closed = pool.submit(() => 'never');
  ac.abort(new Error('stop waiting'));
  assert.equal((await rejection(aborted)).message, 'stop waiting');
  assert.ok(await rejection(timed) instanceof TimeoutError);
  const done = pool.shutdown();
  assert.ok(await rejection(closed) instanceof PoolClosedError);
  Atomics.store(gate, 0, 1); Atomics.notify(gate, 0);
  await done;
  await blocker;
  assert.equal(await queued, 'queued');
});

test('a slot freed by a task that was settled while queued admits a waiting submit', async () => {
  // The worker frees the slot when it pops the settled task, which it skips without a
  // completion; the owner must still hear that there is space. Here no completion follows at
  // all: the blocker was settled too, while it ran, so its late result is dropped.
  const pool = await Pool.create({ workers: 1, queueCapacity: 1 });
  const gate = pool.alloc(Int32Array, 2); // [0] released, [1] blocker running
  const stopBlocker = new AbortController(), stopQueued = new AbortController();
  const blocker = pool.trySubmit((g) => { Atomics.store(g, 1, 1); Atomics.notify(g, 1); while (Atomics.load(g, 0) === 0) Atomics.wait(g, 0, 0); }, [gate], { signal: stopBlocker.signal });
  while (Atomics.load(gate, 1) === 0) await Atomics.waitAsync(gate, 1, 0).value;
  const queued = pool.trySubmit(() => 'never', [], { signal: stopQueued.signal }); // the only slot
  const waiting = pool.submit(() => 'admitted');
  stopQueued.abort(new Error('queued one off'));
  assert.equal((await rejection(queued)).message, 'queued one off');
  stopBlocker.abort(new Error('blocker off'));
  assert.equal((await rejection(blocker)).message, 'blocker off');
  assert.equal(pool.stats().accepted, 2, 'the submit still waits: the settled task holds the slot');
  Atomics.store(gate, 0, 1); Atomics.notify(gate, 0);
  assert.equal(await waiting, 'admitted');
  const s = assertInvariant(pool);
  assert.equal(s.cancelled, 2, JSON.stringify(s));
  await pool.shutdown();
});
