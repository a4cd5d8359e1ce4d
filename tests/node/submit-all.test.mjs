// submitAll: many items, one promise. Results come back in item order, the first failure
// rejects at once, items wait for queue space like submit, bad input refuses the whole call,
// and members that finish quietly (without waking this thread) are never stranded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, PoolClosedError, diagnostics } from 'ringpool';
import { assertInvariant, gate, occupy, rejection } from './helpers.mjs';

test('results come back in item order: functions, [function, args] pairs and Rust tasks', async () => {
  const pool = await Pool.create({ workers: 2, queueCapacity: 64 });
  const items = [];
  for (let i = 0; i < 40; i++) items.push(i % 3 === 0 ? [(a, b) => a * b, [i, 2]] : i % 3 === 1 ? () => 'plain' : diagnostics.worker());
  const results = await pool.submitAll(items);
  assert.equal(results.length, 40);
  results.forEach((r, i) => {
    if (i % 3 === 0) assert.equal(r, i * 2);
    else if (i % 3 === 1) assert.equal(r, 'plain');
    else assert.match(r, /^[01]:\d+$/);
  });
  assert.deepEqual(await pool.submitAll([]), []);
  assert.equal(assertInvariant(pool).completed, 40);
  await pool.shutdown();
});

test('quiet members are delivered with the last one, whichever finishes last', async () => {
  const pool = await Pool.create({ workers: 2, queueCapacity: 8 });
  const { g, wait, reached, open } = gate(pool);
  // The first item is held at the gate, so the other 7 all finish (quietly) before it.
  const all = pool.submitAll([[wait, [g]], ...Array.from({ length: 7 }, (_, i) => [(x) => x + 1, [i]])]);
  await reached(1);
  while (pool.stats().completed < 7) await new Promise((r) => setTimeout(r, 1));
  open();
  assert.deepEqual(await all, ['gated', 1, 2, 3, 4, 5, 6, 7]);
  await pool.shutdown();
});

test('the first failure rejects at once while other items still run', async () => {
  const pool = await Pool.create({ workers: 2, queueCapacity: 8 });
  const { g, wait, reached, open } = gate(pool);
  const failed = rejection(pool.submitAll([[wait, [g]], () => { throw new RangeError('tile 1 failed'); }, () => 'fine']));
  await reached(1);
  // Rejected while item 0 is still at the gate: the failure woke this thread itself.
  const e = await failed;
  assert.ok(e instanceof RangeError);
  assert.equal(e.message, 'tile 1 failed');
  open();
  await pool.shutdown();
  assert.equal(assertInvariant(pool).failed, 1);
});

test('a panic in a Rust item rejects the batch; the pool keeps working', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 4 });
  const e = await rejection(pool.submitAll([diagnostics.noop(), diagnostics.panic('bad tile'), diagnostics.noop()]));
  assert.equal(e.code, 'PANIC');
  assert.deepEqual(await pool.submitAll([() => 1, () => 2]), [1, 2]);
  await pool.shutdown();
});

test('backpressure: 100 items through a 2-slot queue run in order; a later submit is not starved', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 2 });
  // The one worker logs the order it ran them in, in its global scope.
  const items = Array.from({ length: 100 }, (_, i) => [(i) => { (globalThis.order ??= []).push(i); return i; }, [i]]);
  const all = pool.submitAll(items);
  const after = pool.submit(() => 'after the batch');
  assert.deepEqual(await all, Array.from({ length: 100 }, (_, i) => i));
  assert.equal(await after, 'after the batch');
  assert.deepEqual((await pool.trySubmit(() => globalThis.order)).slice(0, 100), Array.from({ length: 100 }, (_, i) => i), 'FIFO');
  const s = assertInvariant(pool);
  assert.equal(s.accepted, 101 + 1, 'and the one that read the log');
  assert.equal(s.rejected, 0, 'waiting for space is not a refusal');
  await pool.shutdown();
});

test('bad input refuses the whole call with the item named; nothing is admitted', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 8 });
  const before = pool.stats().accepted;
  let e = await rejection(pool.submitAll('tasks'));
  assert.ok(e instanceof TypeError);
  assert.match(e.message, /items must be an array/);
  e = await rejection(pool.submitAll([() => 1, 42, () => 3]));
  assert.ok(e instanceof TypeError);
  assert.match(e.message, /^items\[1\]: task must be a function/);
  e = await rejection(pool.submitAll([[(a) => a, 'not an array']]));
  assert.ok(e instanceof TypeError);
  assert.match(e.message, /^items\[0\]: args must be an array/);
  e = await rejection(pool.submitAll([() => 1], { timeout: -1 }));
  assert.ok(e instanceof RangeError);
  assert.equal(e.message, 'options.timeout must be a finite number of ms >= 0, got -1');
  assert.equal(pool.stats().accepted, before);
  assert.deepEqual(await pool.submitAll([() => 'still works']), ['still works']);
  await pool.shutdown();
});

test('abort while items wait for space: the batch rejects, the pool drains and stays usable', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 1 });
  const { blocker, open } = await occupy(pool);
  const ac = new AbortController();
  // 'queued' takes the one slot; the other two wait for space.
  const all = pool.submitAll([() => 'queued', () => 'waits', () => 'waits too'], { signal: ac.signal });
  ac.abort(new Error('cancel the job'));
  assert.equal((await rejection(all)).message, 'cancel the job');
  open();
  assert.equal(await blocker, 'gated');
  assert.deepEqual(await pool.submitAll([() => 'next']), ['next']);
  await pool.shutdown();
  assertInvariant(pool);
});

test('shutdown refuses waiting items with PoolClosedError and still drains the admitted one', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 1 });
  const { blocker, open } = await occupy(pool);
  const all = pool.submitAll([() => 'queued', () => 'never admitted']);
  const done = pool.shutdown();
  assert.ok(await rejection(all) instanceof PoolClosedError);
  open();
  await done;
  assert.equal(await blocker, 'gated');
  const s = assertInvariant(pool);
  assert.equal(s.completed, 2, 'the blocker and the admitted item ran');
});

test('a plain task next to a batch still settles on its own', async () => {
  const pool = await Pool.create({ workers: 2, queueCapacity: 8 });
  const { g, wait, reached, open } = gate(pool);
  const all = pool.submitAll([[wait, [g]], () => 1, () => 2]);
  await reached(1);
  assert.equal(await pool.trySubmit(() => 'alone'), 'alone');
  open();
  assert.deepEqual(await all, ['gated', 1, 2]);
  await pool.shutdown();
});
