// pool.map: lazy, bounded look-ahead; input or completion order; leaving early, a failure or
// the signal cancels the map's tasks that have not started (their bodies never run) and stops
// pulling inputs; bad arguments throw a TypeError/RangeError naming them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, TimeoutError } from 'ringpool';
import { assertInvariant, rejection } from './helpers.mjs';

async function collect(iterable) {
  const out = [];
  for await (const v of iterable) out.push(v);
  return out;
}

// Tasks get one input; a gate in pool memory travels inside it (views cross by reference).
// gate: [0] open, [1] how many tasks reached a wait, [2] bodies run.
const held = ([x, g]) => {
  Atomics.add(g, 2, 1); Atomics.notify(g, 2);
  if (x === 0) { Atomics.add(g, 1, 1); Atomics.notify(g, 1); while (Atomics.load(g, 0) === 0) Atomics.wait(g, 0, 0); }
  return x;
};
async function reached(g, n, word = 1) {
  for (let v; (v = Atomics.load(g, word)) < n;) await Atomics.waitAsync(g, word, v).value;
}
const open = (g) => { Atomics.store(g, 0, 1); Atomics.notify(g, 0); };

test('results come in input order by default, from sync and async iterables', async () => {
  const pool = await Pool.create({ workers: 2, queueCapacity: 4 });
  const g = pool.alloc(Int32Array, 3);
  // Input 0 is held until every other input has run: they finish first, yet come out after it.
  const inputs = Array.from({ length: 6 }, (_, x) => [x, g]);
  const m = pool.map(held, inputs);
  const first = m.next();
  await reached(g, 1);
  await reached(g, 6, 2); // every body ran
  open(g);
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
  const g = pool.alloc(Int32Array, 3);
  const got = [];
  for await (const x of pool.map(held, [[0, g], [1, g], [2, g]], { ordered: false })) {
    got.push(x);
    // 0 stays held until both others were yielded.
    if (got.length === 2) open(g);
  }
  assert.deepEqual(got.slice(0, 2).sort(), [1, 2]);
  assert.equal(got[2], 0);
  await pool.shutdown();
});

test('look-ahead stays within workers + queueCapacity while the head is held, also for an endless generator', async () => {
  const pool = await Pool.create({ workers: 2, queueCapacity: 3 });
  const g = pool.alloc(Int32Array, 3);
  let pulled = 0;
  let closed = false;
  function* endless() {
    try {
      for (let x = 0; ; x++) { pulled++; yield [x, g]; }
    } finally { closed = true; }
  }
  const m = pool.map(held, endless());
  const first = m.next();
  // The map pulls from a sync iterable up to its limit before it first waits, and then only
  // after it yields; so once every body it submitted ran, it has pulled all it ever will.
  await reached(g, 1);
  await reached(g, 5, 2);
  assert.equal(pulled, 5, 'pulled and not yet yielded: at most workers + queueCapacity');
  open(g);
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
  const g = pool.alloc(Int32Array, 3);
  const inputs = [[1, g], [0, g], ...Array.from({ length: 7 }, (_, i) => [i + 2, g])];
  const got = [];
  for await (const x of pool.map(held, inputs)) {
    got.push(x);
    await reached(g, 1); // input 0 is running (held); the 7 behind it are queued
    break;
  }
  assert.deepEqual(got, [1]);
  open(g);
  await pool.shutdown();
  assert.equal(Atomics.load(g, 2), 2, 'only the two started bodies ran');
  const s = assertInvariant(pool);
  assert.equal(s.cancelled, 8, JSON.stringify(s));
});

test('a failure is thrown at its position and cancels the rest; the pool keeps working', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 8 });
  const g = pool.alloc(Int32Array, 3);
  const task = ([x, g]) => {
    Atomics.add(g, 2, 1);
    if (x === 2) throw new RangeError(`bad input ${x}`);
    if (x === 3) { Atomics.add(g, 1, 1); Atomics.notify(g, 1); while (Atomics.load(g, 0) === 0) Atomics.wait(g, 0, 0); }
    return x;
  };
  const got = [];
  const e = await rejection((async () => {
    for await (const x of pool.map(task, Array.from({ length: 8 }, (_, x) => [x, g]))) got.push(x);
  })());
  assert.ok(e instanceof RangeError);
  assert.equal(e.message, 'bad input 2');
  assert.deepEqual(got, [0, 1]);
  open(g);
  assert.equal(await pool.trySubmit(() => 'still working'), 'still working');
  await pool.shutdown();
  assert.ok(Atomics.load(g, 2) <= 4, `bodies after the failure never ran: ${Atomics.load(g, 2)}`);
});

test('the signal ends the map with its reason; timeout applies to each task', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 4 });
  const g = pool.alloc(Int32Array, 3);
  const ac = new AbortController();
  const got = [];
  const e = await rejection((async () => {
    for await (const x of pool.map(held, [[1, g], [0, g], [2, g], [3, g]], { signal: ac.signal })) {
      got.push(x);
      await reached(g, 1);
      ac.abort(new Error('stop the map'));
    }
  })());
  assert.equal(e.message, 'stop the map');
  assert.deepEqual(got, [1]);
  open(g);
  await pool.shutdown();
  assert.equal(Atomics.load(g, 2), 2, 'queued bodies never ran');

  const pool2 = await Pool.create({ workers: 1 });
  const g2 = pool2.alloc(Int32Array, 3);
  const t = await rejection(collect(pool2.map(held, [[0, g2]], { timeout: 30 })));
  assert.ok(t instanceof TimeoutError, String(t));
  open(g2);
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
