// `options.transfer`: listed ArrayBuffers are detached from the caller once the task is
// admitted (or queued by `submit`), the task still gets the bytes, and a list that cannot be
// transferred is a TypeError naming the entry, with nothing admitted and nothing detached.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, QueueFullError } from 'ringpool';
import { SharedBuffer, assertInvariant, detached, gate, gated, hash, occupy, rejection, sharedMemory } from './helpers.mjs';

const sum = (a) => { let s = 0; for (let i = 0; i < a.length; i++) s += a[i]; return s; };

function filled(n) {
  const a = new Uint8Array(n);
  for (let i = 0; i < n; i++) a[i] = i & 0xff;
  return { a, expected: sum(a) };
}

test('trySubmit with transfer: the task gets the bytes, the caller\'s buffer is detached', async () => {
  const pool = await Pool.create({ workers: 2 });
  for (const n of [0, 1, 7, 8, 9, 4095, 65536, 262145]) {
    const { a, expected } = filled(n);
    const p = pool.trySubmit((x) => { let s = 0; for (let i = 0; i < x.length; i++) s += x[i]; return [x.length, s]; }, [a], { transfer: [a.buffer] });
    assert.ok(detached(a.buffer), `the ${n}-byte buffer is detached once admitted`);
    assert.equal(a.length, 0);
    assert.deepEqual(await p, [n, expected]);
  }
  // Every kind of view, a DataView, and a bare ArrayBuffer; a listed buffer not among the
  // arguments is detached too, as postMessage does.
  const f = new Float64Array([1.5, NaN, -0, Infinity]);
  const d = new DataView(new ArrayBuffer(4)); d.setInt32(0, -7);
  const bare = new Uint16Array([1, 2, 3]).buffer;
  const extra = new ArrayBuffer(16);
  const got = await pool.trySubmit((x, y, z) => [Array.from(x), y.getInt32(0), new Uint16Array(z)[2]], [f, d, bare], { transfer: [f.buffer, d.buffer, bare, extra] });
  assert.deepEqual(got, [[1.5, NaN, -0, Infinity], -7, 3]);
  for (const b of [f.buffer, d.buffer, bare, extra]) assert.ok(detached(b));
  await pool.shutdown();
});

test('a list that cannot be transferred is a TypeError naming the entry; nothing is admitted or detached', async () => {
  const pool = await Pool.create({ workers: 1 });
  const keep = new Uint8Array([1, 2, 3]);
  const gone = new ArrayBuffer(8);
  structuredClone(gone, { transfer: [gone] });
  const cases = [
    [7, /options\.transfer must be an array of ArrayBuffers, got number/],
    [keep.buffer, /options\.transfer must be an array of ArrayBuffers, got object/],
    [[keep.buffer, keep], /options\.transfer\[1\] is a Uint8Array; list its buffer/],
    [[new SharedBuffer(8)], /options\.transfer\[0\] is a SharedArrayBuffer/],
    [[keep.buffer, 'x'], /options\.transfer\[1\] must be an ArrayBuffer, got string/],
    [[null], /options\.transfer\[0\] must be an ArrayBuffer, got null/],
    [[{}], /options\.transfer\[0\] must be an ArrayBuffer, got Object/],
    [[gone], /options\.transfer\[0\] is a detached ArrayBuffer/],
    [[keep.buffer, keep.buffer], /options\.transfer\[1\] is listed twice/],
    ...(sharedMemory ? [[[pool.alloc(Uint8Array, 4).buffer], /options\.transfer\[0\] is a SharedArrayBuffer/]] : []),
  ];
  for (const [transfer, message] of cases) {
    for (const call of [
      () => pool.trySubmit((x) => x.length, [keep], { transfer }),
      () => pool.submit((x) => x.length, [keep], { transfer }),
      () => pool.submitAll([[(x) => x.length, [keep]]], { transfer }),
    ]) {
      const e = await rejection(call());
      assert.ok(e instanceof TypeError, String(e));
      assert.match(e.message, message);
    }
    assert.deepEqual(Array.from(keep), [1, 2, 3], 'the caller\'s buffer is untouched');
  }
  const s = assertInvariant(pool);
  assert.equal(s.accepted, 0);
  assert.equal(await pool.trySubmit((x) => x.length, [keep], { transfer: [keep.buffer] }), 3);
  await pool.shutdown();
});

test('refused for a full queue: the buffer stays the caller\'s; submit detaches when it queues', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 1 });
  const { blocker, open } = await occupy(pool);
  const first = pool.trySubmit(() => 0);
  const a = new Uint8Array([5, 6]);
  const e = await rejection(pool.trySubmit((x) => x[0], [a], { transfer: [a.buffer] }));
  assert.ok(e instanceof QueueFullError);
  assert.ok(!detached(a.buffer));
  assert.deepEqual(Array.from(a), [5, 6]);
  // submit waits for space, holding its copy of the arguments: the caller's buffer goes now.
  const waiting = pool.submit((x) => x[0] + x[1], [a], { transfer: [a.buffer] });
  assert.ok(detached(a.buffer));
  open();
  await blocker;
  assert.equal(await first, 0);
  assert.equal(await waiting, 11);
  await pool.shutdown();
});

test('submitAll and map hand over their buffers', async () => {
  const pool = await Pool.create({ workers: 2 });
  const xs = [filled(1000), filled(3), filled(70000)];
  const all = pool.submitAll(xs.map(({ a }) => [(v) => { let s = 0; for (let i = 0; i < v.length; i++) s += v[i]; return s; }, [a]]), { transfer: xs.map(({ a }) => a.buffer) });
  for (const { a } of xs) assert.ok(detached(a.buffer));
  assert.deepEqual(await all, xs.map((x) => x.expected));

  const inputs = [filled(10), filled(100000), filled(0)];
  const out = [];
  for await (const n of pool.map((v) => v.length, inputs.map((x) => x.a), { transfer: (v) => [v.buffer] })) out.push(n);
  assert.deepEqual(out, [10, 100000, 0]);
  for (const { a } of inputs) assert.ok(detached(a.buffer));
  assert.throws(() => pool.map((v) => v, [], { transfer: [] }), { name: 'TypeError', message: /options\.transfer of map must be a function/ });
  // A bad list from the function fails that input as a refused submission would.
  const bad = new Uint8Array(2);
  const e = await rejection((async () => { for await (const _ of pool.map((v) => v.length, [bad], { transfer: (v) => [v] })) { /* none */ } })());
  assert.ok(e instanceof TypeError, String(e));
  assert.match(e.message, /options\.transfer\[0\] is a Uint8Array/);
  assert.ok(!detached(bad.buffer));
  await pool.shutdown();
});

// Buffers and views are copied into the shared memory and out again (`bufferFrom`,
// src/web/codec.js): every kind, sizes on both sides of each multiple of 8, views at odd
// offsets and NaN payloads must come back bit for bit, in both directions.
test('every typed-array kind crosses both ways bit for bit, at sizes around each multiple of 8', async () => {
  const pool = await Pool.create({ workers: 2 });
  const kinds = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
    Float32Array, Float64Array, BigInt64Array, BigUint64Array];
  const bytesOf = (v) => Array.from(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
  for (const sizeBytes of [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 4096 + 3, 65536 + 8, 65536 + 9]) {
    const backing = new Uint8Array(sizeBytes + 24);
    for (let i = 0; i < backing.length; i++) backing[i] = (i * 37 + 11) & 0xff; // NaN payloads included
    for (const K of kinds) {
      const n = Math.floor(sizeBytes / K.BYTES_PER_ELEMENT);
      const offset = K.BYTES_PER_ELEMENT * 3; // not a multiple of 8 for 1-, 2- and 4-byte kinds
      const v = new K(backing.buffer, offset, n);
      const dv = new DataView(backing.buffer, 5, sizeBytes);
      // The worker sends back the bytes it saw and a fresh copy of the view (a result).
      const [seen, back, dvSeen, dvBack] = await pool.trySubmit((x, d) => [Array.from(new Uint8Array(x.buffer, x.byteOffset, x.byteLength)), x.slice(), Array.from(new Uint8Array(d.buffer, d.byteOffset, d.byteLength)), new DataView(d.buffer.slice(d.byteOffset, d.byteOffset + d.byteLength))], [v, dv]);
      assert.deepEqual(seen, bytesOf(v), `${K.name} of ${n} elements, argument`);
      assert.ok(back instanceof K && back.length === n, `${K.name} result type and length`);
      assert.deepEqual(bytesOf(back), bytesOf(v), `${K.name} of ${n} elements, result`);
      assert.deepEqual(dvSeen, bytesOf(dv));
      assert.deepEqual(bytesOf(dvBack), bytesOf(dv));
    }
    const ab = backing.buffer.slice(3, 3 + sizeBytes);
    const abBack = await pool.trySubmit((b) => b, [ab]);
    assert.ok(abBack instanceof ArrayBuffer);
    assert.deepEqual(Array.from(new Uint8Array(abBack)), Array.from(new Uint8Array(ab)));
  }
  await pool.shutdown();
});

// A listed buffer (or a view of it) of at least HANDOVER_MIN_BYTES (src/web/transfer.js) is not
// copied: it is moved to the worker by message (the handover protocol, src/README.md), and
// arrives as postMessage delivers it: the whole buffer, views at their offset. A smaller one is
// copied as by value: a view arrives on a buffer of its own bytes.
const HANDOVER_MIN_BYTES = 128 << 10;

test('handed-over buffers: every view kind around the threshold, at any depth, shared by two views', async () => {
  const pool = await Pool.create({ workers: 2 });
  const kinds = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
    Float32Array, Float64Array, BigInt64Array, BigUint64Array, DataView];
  const look = function (x) {
    const b = x instanceof ArrayBuffer ? x : x.buffer;
    const u = new Uint8Array(b, x.byteOffset ?? 0, x.byteLength);
    let s = 0;
    for (let i = 0; i < u.length; i++) s = (s * 31 + u[i]) >>> 0;
    return [x.constructor.name, x.byteOffset ?? 0, x.byteLength, b.byteLength, b instanceof ArrayBuffer, s];
  };
  const around = (t) => [t - 8, t - 1, t, t + 1, t + 8].map((n) => n + 32); // the views below start at 24 and end 8 short
  for (const total of [...around(128 << 10), ...around(512 << 10), 1 << 20]) {
    for (const K of kinds) {
      const buf = new ArrayBuffer(total);
      const bytes = new Uint8Array(buf);
      for (let i = 0; i < total; i++) bytes[i] = (i * 131 + total) & 0xff;
      const size = K.BYTES_PER_ELEMENT ?? 1;
      const offset = 8 * 3;
      const len = Math.floor((total - offset - 8) / size);
      const v = new K(buf, offset, len);
      // Message mode hands every listed buffer over (the task's message moves it).
      const handed = !sharedMemory || len * size >= HANDOVER_MIN_BYTES;
      const expect = [K.name, handed ? offset : 0, len * size, handed ? total : len * size, true, hash(new Uint8Array(buf, offset, len * size))];
      // By value, at any size: a view of its own bytes on a buffer of their own, the caller's
      // kept as it was.
      const own = [K.name, 0, len * size, len * size, true, expect[5]];
      assert.deepEqual(await pool.trySubmit(look, [v]), own, `${K.name} on a ${total}-byte buffer, by value`);
      assert.ok(!detached(buf) && hash(new Uint8Array(buf, offset, len * size)) === expect[5]);
      const seen = await pool.trySubmit(look, [v], { transfer: [buf] });
      assert.deepEqual(seen, expect, `${K.name} on a ${total}-byte buffer`);
      assert.ok(detached(buf));
    }
    // By value, a buffer the task writes to is its own: the caller's bytes stay as they were,
    // and two places holding one buffer arrive as two copies.
    const mine = new Uint8Array(total).fill(5);
    assert.deepEqual(await pool.trySubmit((x, y) => { x.fill(9); return [x === y, x[0], y[0]]; }, [mine, mine]), [false, 9, 5]);
    assert.ok(mine.every((x) => x === 5), 'the caller\'s buffer is unchanged');
    // The buffer itself, nested in an object, in an array, and as a Map value.
    const buf = new Uint8Array(total).map((_, i) => i & 0xff).buffer;
    const h = hash(new Uint8Array(buf));
    const got = await pool.trySubmit(function (o) {
      const [m] = o.list;
      const a = o.nested.buf, b = m.get('k');
      const u = new Uint8Array(a);
      let s = 0;
      for (let i = 0; i < u.length; i++) s = (s * 31 + u[i]) >>> 0;
      return [a === b, a instanceof ArrayBuffer, a.byteLength, s];
    }, [{ nested: { buf }, list: [new Map([['k', buf]])] }], { transfer: [buf] });
    // Handed over, both places hold the one buffer; copied, each holds its own copy.
    assert.deepEqual(got, [total >= HANDOVER_MIN_BYTES, true, total, h], `${total}-byte buffer at depth`);
  }
  // Two views on one listed buffer arrive on one buffer, as postMessage would deliver them.
  const shared = new ArrayBuffer(2 * HANDOVER_MIN_BYTES + 16);
  const [a, b] = [new Uint8Array(shared, 0, HANDOVER_MIN_BYTES), new Float64Array(shared, HANDOVER_MIN_BYTES + 8, HANDOVER_MIN_BYTES / 8)];
  a[0] = 9; b[0] = 2.5;
  assert.deepEqual(await pool.trySubmit((x, y) => [x.buffer === y.buffer, x[0], y[0], y.byteOffset], [a, b], { transfer: [shared] }), [true, 9, 2.5, HANDOVER_MIN_BYTES + 8]);
  // A listed buffer in a call with three or more arguments, with an unlisted one copied.
  const big = new Uint16Array(HANDOVER_MIN_BYTES).fill(7), kept = new Uint16Array(HANDOVER_MIN_BYTES).fill(3);
  assert.deepEqual(await pool.trySubmit((x, y, z) => [x.at(-1), y.at(-1), z, x.buffer.byteLength], [big, kept, 'z'], { transfer: [big.buffer] }), [7, 3, 'z', 2 * HANDOVER_MIN_BYTES]);
  assert.ok(detached(big.buffer));
  assert.equal(kept[0], 3, 'an unlisted buffer stays the caller\'s');
  // An async body awaits as usual.
  const asy = new Uint8Array(HANDOVER_MIN_BYTES).fill(1);
  assert.equal(await pool.trySubmit(async (x) => { await null; return x.length + x[5]; }, [asy], { transfer: [asy.buffer] }), HANDOVER_MIN_BYTES + 1);
  await pool.shutdown();
  // A task module's export (by name) receives handed-over buffers too.
  const named = await Pool.create({ workers: 1, module: new URL('./fixture-tasks.mjs', import.meta.url) });
  const ints = new Int32Array(HANDOVER_MIN_BYTES / 4);
  assert.equal(await named.trySubmit('bump', [ints], { transfer: [ints.buffer] }), HANDOVER_MIN_BYTES / 4);
  assert.ok(detached(ints.buffer));
  await named.shutdown();
});

test('handed-over buffers of tasks that never run are released; the pool keeps working', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 8 });
  const { blocker, open } = await occupy(pool);
  // Queued behind the blocker: one aborted, one timed out, both handing a buffer over.
  const c = new AbortController();
  const x = new Uint8Array(HANDOVER_MIN_BYTES), y = new Uint8Array(HANDOVER_MIN_BYTES);
  const aborted = pool.trySubmit((v) => v.length, [x], { transfer: [x.buffer], signal: c.signal });
  const timed = pool.trySubmit((v) => v.length, [y], { transfer: [y.buffer], timeout: 1 });
  const ran = new Uint8Array(HANDOVER_MIN_BYTES + 3);
  const later = pool.trySubmit((v) => v.length, [ran], { transfer: [ran.buffer] });
  assert.ok(detached(x.buffer) && detached(y.buffer) && detached(ran.buffer));
  c.abort();
  assert.equal((await rejection(aborted)).name, 'AbortError');
  assert.equal((await rejection(timed)).name, 'TimeoutError');
  open();
  await blocker;
  assert.equal(await later, HANDOVER_MIN_BYTES + 3);
  // Behind a queued task the worker claims the buffers from the owner instead of having them
  // posted (routing would overtake the queued task): both ways deliver the bytes, in order.
  const order = [];
  const gated = await occupy(pool);
  const plain = pool.trySubmit(() => 'plain').then((v) => order.push(v));
  const w = new Uint8Array(HANDOVER_MIN_BYTES).fill(6);
  const claimed = pool.trySubmit((v) => v[7] + v.length, [w], { transfer: [w.buffer] }).then((v) => order.push(v));
  assert.ok(detached(w.buffer));
  gated.open();
  await Promise.all([gated.blocker, plain, claimed]);
  assert.deepEqual(order, ['plain', 6 + HANDOVER_MIN_BYTES]);
  // A submit that waits for space holds its buffers until it is admitted and run.
  const pool2 = await Pool.create({ workers: 1, queueCapacity: 1 });
  const held = await occupy(pool2);
  const first = pool2.trySubmit(() => 0);
  const z = new Uint8Array(HANDOVER_MIN_BYTES).fill(4);
  const waiting = pool2.submit((v) => v[1000] + v.length, [z], { transfer: [z.buffer] });
  assert.ok(detached(z.buffer));
  held.open();
  await held.blocker;
  assert.equal(await first, 0);
  assert.equal(await waiting, 4 + HANDOVER_MIN_BYTES);
  assertInvariant(pool);
  await pool.shutdown();
  await pool2.shutdown();
});

test('detached and shared buffers: a detached one is a TypeError naming it, a SharedArrayBuffer is copied by value', async () => {
  const pool = await Pool.create({ workers: 1 });
  const gone = new ArrayBuffer(64);
  const goneView = new Float32Array(gone, 4, 2);
  structuredClone(gone, { transfer: [gone] });
  for (const [args, path] of [[[gone], /args\[0\]/], [[1, goneView], /args\[1\]/], [[{ deep: [goneView] }], /args\[0\]\.deep\[0\]/]]) {
    const e = await rejection(pool.trySubmit(() => 0, args));
    assert.ok(e instanceof TypeError, String(e));
    assert.match(e.message, path);
  }
  // A SharedArrayBuffer that is not the pool's memory, and a view of one, cross as copies: the
  // task gets plain buffers, and what it writes does not reach the caller.
  const sab = new SharedBuffer(16);
  const sv = new Int32Array(sab, 4, 2);
  sv[0] = 41;
  const [kinds, seen] = await pool.trySubmit((b, v) => {
    const r = [b.constructor.name, v.buffer.constructor.name, v.length];
    v[0] += 1;
    new Uint8Array(b)[4] = 99;
    return [r, v[0]];
  }, [sab, sv]);
  assert.deepEqual(kinds, ['ArrayBuffer', 'ArrayBuffer', 2]);
  assert.equal(seen, 42);
  assert.equal(sv[0], 41, 'the caller\'s shared buffer is untouched');
  // A result whose buffer the task detached is refused with a TypeError; the worker goes on.
  const e = await rejection(pool.trySubmit(() => { const b = new ArrayBuffer(8); structuredClone(b, { transfer: [b] }); return { b }; }));
  assert.ok(e instanceof TypeError, String(e));
  assert.match(e.message, /result\.b/);
  assert.equal(await pool.trySubmit(() => 'alive'), 'alive');
  assert.equal(assertInvariant(pool).accepted, 3);
  await pool.shutdown();
});

const canExit = typeof process === 'object' && process.versions?.node != null;
// Shared mode routes a handed-over task to the worker that holds its buffers; message mode
// moves the buffers with the task when it is posted, so queued ones run on the replacement.
test('a worker that dies with tasks routed to it: they reject with WorkerCrashedError, the pool goes on', { skip: !canExit && 'needs Node: process.exit in a worker thread' }, async () => {
  const { WorkerCrashedError } = await import('ringpool');
  const pool = await Pool.create({ workers: 1 });
  const at = gate(pool);
  // Gated, then the worker thread ends: the handed-over tasks routed to it behind this one
  // lose their buffers with it.
  const dying = pool.trySubmit(gated(at, () => process.exit(3)), [at.g]);
  await at.reached(1);
  const routed = [0, 1, 2].map(() => {
    const a = new Uint8Array(HANDOVER_MIN_BYTES).fill(1);
    return pool.trySubmit((v) => v.length, [a], { transfer: [a.buffer] });
  });
  at.open();
  assert.ok((await rejection(dying)) instanceof WorkerCrashedError);
  if (sharedMemory) for (const p of routed) assert.ok((await rejection(p)) instanceof WorkerCrashedError);
  else {
    // Message mode: the first was handed ahead to the busy worker, its buffer with it
    // (src/README.md, "Message mode"); the other two waited in the queue and run on the replacement.
    assert.ok((await rejection(routed[0])) instanceof WorkerCrashedError);
    assert.deepEqual(await Promise.all(routed.slice(1)), [HANDOVER_MIN_BYTES, HANDOVER_MIN_BYTES], 'message mode: the queued ones run on the replacement');
  }
  // The replacement takes new ones, by value and handed over.
  const b = new Uint8Array(HANDOVER_MIN_BYTES).fill(2);
  assert.equal(await pool.trySubmit((v) => v[0] + v.length, [b], { transfer: [b.buffer] }), 2 + HANDOVER_MIN_BYTES);
  assert.equal(await pool.trySubmit((v) => v.length, [new Uint8Array(5)]), 5);
  assertInvariant(pool);
  await pool.shutdown();
});

test('a handed-over task goes to an idle worker, not to one busy with a long task', async () => {
  const pool = await Pool.create({ workers: 2 });
  const { blocker, open } = await occupy(pool);
  // If it were routed to the gated worker it would wait for the gate, which opens only after.
  for (let i = 0; i < 3; i++) {
    const a = new Uint8Array(HANDOVER_MIN_BYTES).fill(i);
    assert.equal(await pool.trySubmit((v) => v[0] + v.length, [a], { transfer: [a.buffer] }), i + HANDOVER_MIN_BYTES);
  }
  open();
  assert.equal(await blocker, 'gated');
  await pool.shutdown();
});

test('the handovers of one turn go to each worker in one message: every task gets its own bytes, a dropped one in between changes nothing', async () => {
  const pool = await Pool.create({ workers: 2, queueCapacity: 64 });
  const results = [];
  let aborted;
  // One synchronous turn: every task is routed (the queue stays empty) and its buffers wait
  // in the turn's message for its worker, together with the drop of the aborted one.
  for (let i = 0; i < 24; i++) {
    const a = new Uint8Array(HANDOVER_MIN_BYTES + i).fill(i + 1);
    const c = new AbortController();
    const p = pool.trySubmit((v) => [v.length, v[0], v[v.length - 1]], [a], { transfer: [a.buffer], signal: c.signal });
    assert.ok(detached(a.buffer));
    if (i === 9) { c.abort(); aborted = p; } else results.push(p.then((r) => assert.deepEqual(r, [HANDOVER_MIN_BYTES + i, i + 1, i + 1])));
  }
  assert.equal((await rejection(aborted)).name, 'AbortError');
  await Promise.all(results);
  // And again once the pool is busy: the next turn's batch.
  const more = Array.from({ length: 8 }, (_, i) => {
    const a = new Uint8Array(HANDOVER_MIN_BYTES).fill(100 + i);
    return pool.trySubmit((v) => v[5], [a], { transfer: [a.buffer] });
  });
  assert.deepEqual(await Promise.all(more), Array.from({ length: 8 }, (_, i) => 100 + i));
  assertInvariant(pool);
  await pool.shutdown();
});

test('buffers claimed out of the order they were handed over, and released ones between them, each reach their own task', async () => {
  // Node's owner keeps them in one channel in admission order (transfer.js, `unpark`): a
  // high-priority task's claim takes its buffers from behind older ones, and the released
  // buffers of an aborted task are passed over.
  const pool = await Pool.create({ workers: 1, queueCapacity: 64 });
  const { blocker, open } = await occupy(pool);
  const order = [];
  const run = (tag, fill, priority, signal) => {
    const a = new Uint8Array(HANDOVER_MIN_BYTES + fill).fill(fill);
    const p = pool.trySubmit((v) => [v.length, v[0], v[v.length - 1]], [a], { transfer: [a.buffer], priority, signal });
    assert.ok(detached(a.buffer));
    return p.then((r) => { order.push(tag); return r; });
  };
  // A plain task first, so the others wait in the queue and their workers claim them.
  const plain = pool.trySubmit(() => 'plain').then((v) => order.push(v));
  const c = new AbortController();
  const first = run('first', 1);
  const dropped = run('dropped', 2, 'normal', c.signal);
  const third = run('third', 3);
  const urgent = run('urgent', 4, 'high');
  c.abort();
  assert.equal((await rejection(dropped)).name, 'AbortError');
  open();
  await blocker;
  const got = await Promise.all([first, third, urgent]);
  await plain;
  assert.deepEqual(got, [1, 3, 4].map((f) => [HANDOVER_MIN_BYTES + f, f, f]));
  assert.deepEqual(order, ['urgent', 'plain', 'first', 'third']);
  // Many in flight on a busy pool, aborted at random: every one that runs gets its bytes.
  const all = [];
  for (let i = 0; i < 40; i++) {
    const k = new AbortController();
    const p = run(`n${i}`, i % 7, i % 5 === 0 ? 'high' : 'normal', k.signal);
    if (i % 3 === 1) { k.abort(); all.push(rejection(p).then((e) => e.name)); } else all.push(p.then(([len, x, y]) => len === HANDOVER_MIN_BYTES + (i % 7) && x === i % 7 && y === i % 7));
  }
  const settled = await Promise.all(all);
  assert.deepEqual(settled, Array.from({ length: 40 }, (_, i) => (i % 3 === 1 ? 'AbortError' : true)));
  assertInvariant(pool);
  await pool.shutdown();
});
