// signal and timeout: a queued task settles at once (abort reason / TimeoutError) and its body
// never runs; an already-aborted signal is refused at admission.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, TimeoutError } from 'ringpool';
import { assertInvariant, rejection } from './helpers.mjs';

// A gate in pool memory: the blocker waits on it with Atomics.wait (fine on a worker).
async function blockedPool() {
  const pool = await Pool.create({ workers: 1, queueCapacity: 8 });
  const gate = pool.alloc(Int32Array, 2); // [0] = released, [1] = blocker running
  const blocker = pool.trySubmit((g) => { Atomics.store(g, 1, 1); Atomics.notify(g, 1); while (Atomics.load(g, 0) === 0) Atomics.wait(g, 0, 0); return 'released'; }, [gate]);
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
  assert.equal(Atomics.load(gate, 0), 0, 'the worker was still blocked');
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
  assert.equal(Atomics.load(gate, 0), 0);
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
