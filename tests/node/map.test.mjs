// pool.map: lazy, bounded look-ahead; input or completion order; leaving early, a failure or
// the signal cancels the map's tasks that have not started (their bodies never run) and stops
// pulling inputs; bad arguments throw a TypeError/RangeError naming them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, TimeoutError } from 'ringpool';
import { assertInvariant, probe, rejection } from './helpers.mjs';

async function collect(iterable) {
  const out = [];
  for await (const v of iterable) out.push(v);
  return out;
}

// Tasks get one input, `[g, x]`, with the probe's `g` (helpers.mjs: a gate and counters that
// work in either mode): every body counts itself as run; input 0 is held.
const heldTask = (p) => p.task(async (x) => { ran(); if (x === 0) await hold(); return x; }, { input: true });

test('results come in input order by default, from sync and async iterables', async () => {
  const pool = await Pool.create({ workers: 2, queueCapacity: 4 });
  const p = probe(pool);
  // Input 0 is held until every other input has run: they finish first, yet come out after it.
  const m = pool.map(heldTask(p), Array.from({ length: 6 }, (_, x) => [p.g, x]));
  const first = m.next();
  await p.reached(1);
  await p.ran(6); // every body ran
  p.open();
  assert.deepEqual(await first, { value: 0, done: false });
  assert.deepEqual(await collect(m), [1, 2, 3, 4, 5]);
  async function* numbers() { for (let i = 0; i < 20; i++) { await null; yield i; } }
  assert.deepEqual(await collect(pool.map((x) => x * x, numbers())), Array.from({ length: 20 }, (_, i) => i * i));
  assert.deepEqual(await collect(pool.map((x) => x, [])), []);
  assert.equal(assertInvariant(pool).accepted, 26);
  await pool.shutdown();
});

test('ordered: false yields in completion order', async () => {
  const pool = await Pool.create({ workers: 2, queueCapacity: 4 });
  const p = probe(pool);
  const got = [];
  for await (const x of pool.map(heldTask(p), [[p.g, 0], [p.g, 1], [p.g, 2]], { ordered: false })) {
    got.push(x);
    // 0 stays held until both others were yielded.
    if (got.length === 2) p.open();
  }
  assert.deepEqual(got.slice(0, 2).sort(), [1, 2]);
  assert.equal(got[2], 0);
  await pool.shutdown();
});

test('look-ahead stays within workers + queueCapacity while the head is held, also for an endless generator', async () => {
  const pool = await Pool.create({ workers: 2, queueCapacity: 3 });
  const p = probe(pool);
  let pulled = 0;
  let closed = false;
  function* endless() {
    try {
      for (let x = 0; ; x++) { pulled++; yield [p.g, x]; }
    } finally { closed = true; }
  }
  const m = pool.map(heldTask(p), endless());
  const first = m.next();
  // The map pulls from a sync iterable up to its limit before it first waits, and then only
  // after it yields; so once every body it submitted ran, it has pulled all it ever will.
  await p.reached(1);
  await p.ran(5);
  assert.equal(pulled, 5, 'pulled and not yet yielded: at most workers + queueCapacity');
  p.open();
  assert.deepEqual(await first, { value: 0, done: false });
  const more = [];
  for await (const x of m) { more.push(x); if (x === 40) break; }
  assert.deepEqual(more, Array.from({ length: 40 }, (_, i) => i + 1));
  assert.ok(closed, 'break closed the generator');
  assert.ok(pulled <= 41 + 5, `pulled ${pulled}`);
  await pool.shutdown();
});

test('break cancels the tasks not yet started: their bodies never run', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 8 });
  const p = probe(pool);
  const inputs = [[p.g, 1], [p.g, 0], ...Array.from({ length: 7 }, (_, i) => [p.g, i + 2])];
  const got = [];
  for await (const x of pool.map(heldTask(p), inputs)) {
    got.push(x);
    await p.reached(1); // input 0 is running (held); the 7 behind it are queued
    break;
  }
  assert.deepEqual(got, [1]);
  p.open();
  assert.equal((await p.counts()).ran, 2, 'only the two started bodies ran');
  await pool.shutdown();
  const s = assertInvariant(pool);
  assert.equal(s.cancelled, 8, JSON.stringify(s));
});

test('a failure is thrown at its position and cancels the rest; the pool keeps working', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 8 });
  const p = probe(pool);
  const task = p.task(async (x) => {
    ran();
    if (x === 2) throw new RangeError(`bad input ${x}`);
    if (x === 3) await hold();
    return x;
  }, { input: true });
  const got = [];
  const e = await rejection((async () => {
    for await (const x of pool.map(task, Array.from({ length: 8 }, (_, x) => [p.g, x]))) got.push(x);
  })());
  assert.ok(e instanceof RangeError);
  assert.equal(e.message, 'bad input 2');
  assert.deepEqual(got, [0, 1]);
  p.open();
  assert.equal(await pool.trySubmit(() => 'still working'), 'still working');
  const { ran } = await p.counts();
  assert.ok(ran <= 4, `bodies after the failure never ran: ${ran}`);
  await pool.shutdown();
});

test('the signal ends the map with its reason; timeout applies to each task', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 4 });
  const p = probe(pool);
  const ac = new AbortController();
  const got = [];
  const e = await rejection((async () => {
    for await (const x of pool.map(heldTask(p), [[p.g, 1], [p.g, 0], [p.g, 2], [p.g, 3]], { signal: ac.signal })) {
      got.push(x);
      await p.reached(1);
      ac.abort(new Error('stop the map'));
    }
  })());
  assert.equal(e.message, 'stop the map');
  assert.deepEqual(got, [1]);
  p.open();
  assert.equal((await p.counts()).ran, 2, 'queued bodies never ran');
  await pool.shutdown();

  const pool2 = await Pool.create({ workers: 1 });
  const p2 = probe(pool2);
  const t = await rejection(collect(pool2.map(heldTask(p2), [[p2.g, 0]], { timeout: 30 })));
  assert.ok(t instanceof TimeoutError, String(t));
  p2.open();
  async function* never() { await new Promise(() => {}); }
  const ac2 = new AbortController();
  const waiting = rejection(collect(pool2.map((x) => x, never(), { signal: ac2.signal })));
  ac2.abort(new Error('no inputs came'));
  assert.equal((await waiting).message, 'no inputs came');
  await pool2.shutdown();
});

test('bad arguments throw a TypeError or RangeError naming them; the pool keeps working', async () => {
  const pool = await Pool.create({ workers: 1 });
  const cases = [
    [() => pool.map(42, [1]), TypeError, /^task must be a function .*got number$/],
    [() => pool.map((x) => x, 5), TypeError, /^inputs must be an iterable or an async iterable, got number$/],
    [() => pool.map((x) => x, null), TypeError, /^inputs must be .*got null$/],
    [() => pool.map((x) => x, [1], 'fast'), TypeError, /^options must be an object/],
    [() => pool.map((x) => x, [1], { ordered: 'yes' }), TypeError, /^options\.ordered must be a boolean, got string$/],
    [() => pool.map((x) => x, [1], { signal: {} }), TypeError, /^options\.signal must be an AbortSignal$/],
    [() => pool.map((x) => x, [1], { timeout: -1 }), RangeError, /^options\.timeout must be a finite number/],
    [() => pool.map((x) => x, [1], { timeout: '1' }), TypeError, /^options\.timeout must be a number/],
    [() => pool.map((x) => x, [1], { priority: 'top' }), RangeError, /^options\.priority must be 'high', 'normal' or 'low', got "top"$/],
  ];
  for (const [call, kind, message] of cases) assert.throws(call, (e) => e instanceof kind && message.test(e.message));
  assert.deepEqual(await collect(pool.map((x) => x + 1, [1, 2], { priority: 'low', ordered: true })), [2, 3]);
  assert.equal(assertInvariant(pool).accepted, 2);
  await pool.shutdown();
});
