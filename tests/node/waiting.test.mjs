// stats().waiting counts the tasks waiting for queue space (each submit call, each submitAll
// item), and maxWaiting bounds them: the call that would take waiting past it is refused at
// once with PoolOverloadError and nothing of it is admitted; trySubmit is unaffected. Workers
// are held with gates (occupy), never with sleeps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, PoolClosedError, PoolOverloadError, TimeoutError } from 'ringpool';
import { assertInvariant, occupy, rejection } from './helpers.mjs';

/** A pool of one worker held by a gated task, with its `queueCapacity` slots taken: every submit now waits. */
async function full(options = {}) {
  const pool = await Pool.create({ workers: 1, queueCapacity: 1, ...options });
  const { blocker, open } = await occupy(pool);
  const queued = Array.from({ length: pool.queueCapacity }, (_, i) => pool.trySubmit((i) => i, [i]));
  return { pool, open, held: Promise.all([blocker, ...queued]) };
}

function assertOverload(err, limit) {
  assert.ok(err instanceof PoolOverloadError, String(err));
  assert.equal(err.code, 'POOL_OVERLOAD');
  assert.equal(err.name, 'PoolOverloadError');
  assert.match(err.message, new RegExp(`maxWaiting \\(${limit}\\)`), 'the message names the limit');
}

test('stats().waiting counts each submit call and each submitAll item, and falls to 0 as they are admitted', async () => {
  const { pool, open, held } = await full();
  assert.equal(pool.stats().waiting, 0);
  const one = pool.submit(() => 'one');
  assert.equal(pool.stats().waiting, 1);
  const all = pool.submitAll([() => 'a', () => 'b', () => 'c']);
  const s = pool.stats();
  assert.equal(s.waiting, 4, JSON.stringify(s));
  assert.equal(s.accepted, 2, 'waiting tasks are not accepted yet');
  assert.equal(s.rejected, 0, 'nor refused');
  open();
  assert.equal(await one, 'one');
  assert.deepEqual(await all, ['a', 'b', 'c']);
  await held;
  const end = assertInvariant(pool);
  assert.equal(end.waiting, 0);
  assert.equal(end.accepted, 6);
  await pool.shutdown();
});

test('maxWaiting: the submit that would wait past it is refused at once, naming the limit; trySubmit is unaffected', async () => {
  const { pool, open, held } = await full({ maxWaiting: 2 });
  const a = pool.submit(() => 'a');
  const b = pool.submit(() => 'b');
  assert.equal(pool.stats().waiting, 2);
  assertOverload(await rejection(pool.submit(() => 'c')), 2);
  const s = pool.stats();
  assert.equal(s.waiting, 2, 'the refused call does not wait');
  assert.equal(s.rejected, 1, 'it counts as refused');
  assert.equal((await rejection(pool.trySubmit(() => 'x'))).code, 'QUEUE_FULL', 'trySubmit answers as ever');
  open();
  assert.deepEqual(await Promise.all([a, b]), ['a', 'b']);
  await held;
  assert.equal(assertInvariant(pool).waiting, 0);
  assert.equal(await pool.submit(() => 'later'), 'later', 'the pool keeps working');
  await pool.shutdown();
});

test('maxWaiting: a submitAll whose items would take waiting past it is refused whole, nothing admitted', async () => {
  const { pool, open, held } = await full({ maxWaiting: 3 });
  const first = pool.submit(() => 'first');
  const before = pool.stats();
  const err = await rejection(pool.submitAll([() => 1, () => 2, () => 3]));
  assertOverload(err, 3);
  assert.match(err.message, /submitAll of 3 tasks/);
  const after = pool.stats();
  assert.equal(after.waiting, 1, 'none of its items waits');
  assert.equal(after.accepted, before.accepted, 'none was admitted');
  assert.equal(after.rejected, before.rejected + 3, 'each of its tasks counts as refused');
  const fits = pool.submitAll([() => 'x', () => 'y']);
  assert.equal(pool.stats().waiting, 3, 'two items fit under the limit');
  open();
  assert.equal(await first, 'first');
  assert.deepEqual(await fits, ['x', 'y']);
  await held;
  assert.equal(assertInvariant(pool).waiting, 0);
  await pool.shutdown();
});

test('maxWaiting: submitAll items that the free queue places take do not count as waiting', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 4, maxWaiting: 1 });
  const { blocker, open } = await occupy(pool);
  const before = pool.stats();
  assertOverload(await rejection(pool.submitAll(Array.from({ length: 6 }, (_, i) => [(i) => i, [i]]))), 1);
  assert.equal(pool.stats().accepted, before.accepted, 'four would fit, two would wait: refused whole');
  const five = pool.submitAll(Array.from({ length: 5 }, (_, i) => [(i) => i, [i]]));
  const s = pool.stats();
  assert.equal(s.waiting, 1, JSON.stringify(s));
  assert.equal(s.accepted, before.accepted + 4);
  open();
  assert.deepEqual(await five, [0, 1, 2, 3, 4]);
  await blocker;
  assert.equal(assertInvariant(pool).waiting, 0);
  await pool.shutdown();
});

test('a waiter that is aborted or times out leaves the count at once, and a new one fits again', async () => {
  const { pool, open, held } = await full({ maxWaiting: 1 });
  const ac = new AbortController();
  const aborted = pool.submit(() => 'never', [], { signal: ac.signal });
  assert.equal(pool.stats().waiting, 1);
  assertOverload(await rejection(pool.submit(() => 'no room')), 1);
  ac.abort(new Error('off'));
  assert.equal(pool.stats().waiting, 0, 'left as the signal aborted');
  assert.equal((await rejection(aborted)).message, 'off');
  const timed = pool.submit(() => 'never', [], { timeout: 1 });
  assert.equal(pool.stats().waiting, 1);
  assert.ok(await rejection(timed) instanceof TimeoutError);
  assert.equal(pool.stats().waiting, 0, 'left as its timeout passed');
  const fits = pool.submit(() => 'fits');
  assert.equal(pool.stats().waiting, 1);
  open();
  assert.equal(await fits, 'fits');
  await held;
  const s = assertInvariant(pool);
  assert.equal(s.waiting, 0);
  await pool.shutdown();
});

test('shutdown refuses the waiting submissions and the count falls to 0', async () => {
  const { pool, open, held } = await full({ maxWaiting: 10 });
  const waiting = [pool.submit(() => 'w'), pool.submitAll([() => 1, () => 2])];
  assert.equal(pool.stats().waiting, 3);
  const done = pool.shutdown();
  for (const w of waiting) assert.ok(await rejection(w) instanceof PoolClosedError);
  assert.equal(pool.stats().waiting, 0);
  open();
  await held;
  await done;
});

test('maxWaiting: 0 refuses any submit that would wait, and admits one that fits', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 1, maxWaiting: 0 });
  assert.equal(await pool.submit(() => 'fits'), 'fits');
  const { blocker, open } = await occupy(pool);
  const queued = pool.trySubmit(() => 'queued');
  assertOverload(await rejection(pool.submit(() => 'waits')), 0);
  open();
  assert.equal(await queued, 'queued');
  await blocker;
  await pool.shutdown();
});

test('bad maxWaiting values are a TypeError or RangeError naming maxWaiting', async () => {
  for (const [bad, Kind] of [[-1, RangeError], [1.5, RangeError], [NaN, RangeError], [-Infinity, RangeError], ['3', TypeError], [null, TypeError], [{}, TypeError]]) {
    const err = await rejection(Pool.create({ workers: 1, maxWaiting: bad }));
    assert.ok(err instanceof Kind, `${String(bad)}: ${err}`);
    assert.match(err.message, /maxWaiting/, String(bad));
  }
  const unlimited = await Pool.create({ workers: 1, maxWaiting: Infinity });
  assert.equal(await unlimited.submit(() => 'ok'), 'ok');
  await unlimited.shutdown();
});
