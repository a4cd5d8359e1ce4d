// submit waits for queue space (in order) instead of refusing, honours signal/timeout while
// waiting, and rejects with PoolClosedError when shutdown starts first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, PoolClosedError, TimeoutError, QueueFullError } from 'ringpool';
import { assertInvariant, gate, occupy, rejection } from './helpers.mjs';

test('backpressure: 50 submits through a 2-slot queue all run, in order of admission', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 2 });
  // The one worker logs the order it ran them in, in its global scope.
  const all = Array.from({ length: 50 }, (_, i) => pool.submit((i) => { (globalThis.order ??= []).push(i); return i; }, [i]));
  assert.deepEqual(await Promise.all(all), Array.from({ length: 50 }, (_, i) => i));
  assert.deepEqual(await pool.trySubmit(() => globalThis.order), Array.from({ length: 50 }, (_, i) => i), 'FIFO');
  assert.equal(assertInvariant(pool).accepted, 50 + 1, 'and the one that read the log');
  await pool.shutdown();
});

test('waiting submits honour signal and timeout, and shutdown refuses them', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 1 });
  const { blocker, open } = await occupy(pool);
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
  open();
  await done;
  await blocker;
  assert.equal(await queued, 'queued');
});

test('a slot freed by a task that was settled while queued admits a waiting submit', async () => {
  // The worker frees the slot when it pops the settled task, which it skips without a
  // completion; the owner must still hear that there is space. Here no completion follows at
  // all: the blocker was settled too, while it ran, so its late result is dropped.
  const pool = await Pool.create({ workers: 1, queueCapacity: 1 });
  const at = gate(pool);
  const stopBlocker = new AbortController(), stopQueued = new AbortController();
  const blocker = pool.trySubmit(at.wait, [at.g], { signal: stopBlocker.signal });
  await at.reached(1);
  const queued = pool.trySubmit(() => 'never', [], { signal: stopQueued.signal }); // the only slot
  const waiting = pool.submit(() => 'admitted');
  stopQueued.abort(new Error('queued one off'));
  assert.equal((await rejection(queued)).message, 'queued one off');
  stopBlocker.abort(new Error('blocker off'));
  assert.equal((await rejection(blocker)).message, 'blocker off');
  assert.equal(pool.stats().accepted, 2, 'the submit still waits: the settled task holds the slot');
  at.open();
  assert.equal(await waiting, 'admitted');
  const s = assertInvariant(pool);
  assert.equal(s.cancelled, 2, JSON.stringify(s));
  await pool.shutdown();
});
