// priority: a worker takes the oldest queued task of the highest level present; FIFO within a
// level; queueCapacity bounds every level together; a bad value is refused by name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, QueueFullError } from 'ringpool';
import { assertInvariant, occupy, rejection } from './helpers.mjs';

// The one worker logs the ids in the order it ran them, in its global scope.
const record = (id) => { (globalThis.log ??= []).push(id); return id; };
const ranOrder = (pool) => pool.trySubmit(() => globalThis.log);

test('tasks run highest level first, oldest first within a level', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 16 });
  const { blocker, open } = await occupy(pool);
  const plan = [[1, 'low'], [2, 'normal'], [3, 'high'], [4, 'low'], [5, undefined], [6, 'high'], [7, 'normal']];
  const all = plan.map(([id, priority]) => pool.trySubmit(record, [id], priority ? { priority } : {}));
  open();
  await blocker;
  assert.deepEqual(await Promise.all(all), [1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual(await ranOrder(pool), [3, 6, 2, 5, 7, 1, 4]);
  assertInvariant(pool);
  await pool.shutdown();
});

test('queueCapacity bounds the levels together; submit and submitAll take a priority too', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 3 });
  const { blocker, open } = await occupy(pool);
  const queued = [
    pool.trySubmit(record, [1], { priority: 'low' }),
    pool.trySubmit(record, [2], { priority: 'high' }),
    pool.trySubmit(record, [3]),
  ];
  for (const priority of ['high', 'normal', 'low']) {
    assert.ok(await rejection(pool.trySubmit(record, [9], { priority })) instanceof QueueFullError, priority);
  }
  assert.equal(pool.stats().queued, 3);
  // Waiting for space, then admitted in call order, each into its own lane.
  const waiting = pool.submit(record, [4], { priority: 'low' });
  const batch = pool.submitAll([[record, [5]], [record, [6]]], { priority: 'high' });
  open();
  await blocker;
  assert.deepEqual(await Promise.all([...queued, waiting, batch]), [1, 2, 3, 4, [5, 6]]);
  // The waiting ones are admitted as space frees, so when they run against the three queued
  // depends on the worker; what is fixed is the order by level, and FIFO within one.
  const order = await ranOrder(pool);
  const ran = (ids) => order.filter((id) => ids.includes(id));
  assert.deepEqual(ran([1, 2, 3]), [2, 3, 1], `the three queued ran by level: ${order}`);
  assert.deepEqual(ran([1, 4]), [1, 4], `FIFO within low: ${order}`);
  assert.deepEqual(ran([5, 6]), [5, 6], `FIFO within high: ${order}`);
  assert.deepEqual([...order].sort(), [1, 2, 3, 4, 5, 6]);
  assert.equal(assertInvariant(pool).rejected, 3);
  await pool.shutdown();
});

test('a bad priority is a TypeError or RangeError naming it, and the pool keeps working', async () => {
  const pool = await Pool.create({ workers: 1 });
  for (const [priority, kind] of [['urgent', RangeError], ['HIGH', RangeError], [1, TypeError], [null, TypeError], [{}, TypeError]]) {
    const e = await rejection(pool.trySubmit(() => 1, [], { priority }));
    assert.ok(e instanceof kind, `${priority}: ${e}`);
    assert.match(e.message, /^options\.priority must be 'high', 'normal' or 'low', got /);
    const s = await rejection(pool.submitAll([() => 1], { priority }));
    assert.ok(s instanceof kind, `submitAll ${priority}: ${s}`);
  }
  assert.equal(await pool.trySubmit(() => 2, [], { priority: 'low' }), 2);
  assert.equal(assertInvariant(pool).accepted, 1);
  await pool.shutdown();
});
