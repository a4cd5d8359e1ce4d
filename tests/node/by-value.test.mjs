// Buffers passed by value (not in `options.transfer`): the task gets the bytes as they were
// when the call returned, on a buffer of its own, and the caller keeps its buffer, attached and
// unchanged, whatever happens to the task: queued, running, cancelled, refused, waiting for
// space, or one of a batch, a map or a broadcast.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, QueueFullError } from 'ringpool';
import { SharedBuffer, assertInvariant, detached, gate, gated, hash, occupy, rejection } from './helpers.mjs';

/** On the worker: what arrived, and a hash of all its bytes. */
const look = function (x) {
  const b = x instanceof ArrayBuffer ? x : x.buffer;
  const u = new Uint8Array(b, x.byteOffset ?? 0, x.byteLength);
  let s = 0;
  for (let i = 0; i < u.length; i++) s = (s * 31 + u[i]) >>> 0;
  return [x.constructor.name, x.byteLength, b.byteLength, b instanceof ArrayBuffer, s];
};
const KiB = 1024;
const SIZES = [1 * KiB, 1024 * KiB];
const filled = (n, seed) => new Uint8Array(n).map((_, i) => (i * 131 + seed) & 0xff);

test('the task gets the bytes as they were at the call, though the caller changes them while the task waits or runs', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 8 });
  for (const n of SIZES) {
    // Queued behind a task that holds the only worker ...
    const held = await occupy(pool);
    const a = filled(n, 1);
    const want = hash(a);
    const queued = pool.trySubmit(look, [a]);
    a.fill(0);
    held.open();
    await held.blocker;
    assert.deepEqual(await queued, ['Uint8Array', n, n, true, want], `${n} bytes, queued`);
    // ... and taken by an idle worker at once, held at a gate until the caller has overwritten
    // its own.
    const g = gate(pool);
    const b = filled(n, 2);
    const wantB = hash(b);
    const running = pool.trySubmit(gated(g, look), [g.g, b]);
    await g.reached(1);
    b.fill(0);
    g.open();
    assert.deepEqual(await running, ['Uint8Array', n, n, true, wantB], `${n} bytes, running`);
    assert.ok(!detached(a.buffer) && !detached(b.buffer) && a.length === n && b.length === n);
  }
  assertInvariant(pool);
  await pool.shutdown();
});

test('what the task does to its bytes stays its own; views arrive alone on a buffer of their bytes; shared ones as plain copies', async () => {
  const pool = await Pool.create({ workers: 2 });
  for (const n of SIZES) {
    const mine = new Uint8Array(n).fill(5);
    assert.deepEqual(await pool.trySubmit((x, y) => { x.fill(9); return [x === y, x[0], y[0], x.buffer === y.buffer]; }, [mine, mine]), [false, 9, 5, false]);
    assert.ok(mine.every((x) => x === 5), 'the caller\'s bytes are unchanged');
    // A view in the middle of a larger buffer, the bare buffer, a DataView, and a view of a
    // SharedArrayBuffer that is not the pool's memory, at any depth.
    const buf = new ArrayBuffer(n + 64);
    new Uint8Array(buf).set(filled(n + 64, 3));
    const mid = new Float64Array(buf, 32, Math.floor(n / 8));
    const dv = new DataView(buf, 8, n);
    const sab = new SharedBuffer(n);
    new Uint8Array(sab).set(filled(n, 4));
    const sv = new Int16Array(sab, 0, Math.floor(n / 2));
    const bytesOf = (v) => new Uint8Array(v.buffer ?? v, v.byteOffset ?? 0, v.byteLength);
    const got = await pool.trySubmit((o) => [o.mid, o.deep[0].get('b'), o.dv, o.sv].map((x) => {
      const b = x instanceof ArrayBuffer ? x : x.buffer;
      const u = new Uint8Array(b, x.byteOffset ?? 0, x.byteLength);
      let s = 0;
      for (let i = 0; i < u.length; i++) s = (s * 31 + u[i]) >>> 0;
      return [x.constructor.name, x.byteOffset ?? 0, x.byteLength, b.byteLength, b.constructor.name, s];
    }), [{ mid, deep: [new Map([['b', buf]])], dv, sv }]);
    assert.deepEqual(got, [
      ['Float64Array', 0, mid.byteLength, mid.byteLength, 'ArrayBuffer', hash(bytesOf(mid))],
      ['ArrayBuffer', 0, n + 64, n + 64, 'ArrayBuffer', hash(bytesOf(buf))],
      ['DataView', 0, n, n, 'ArrayBuffer', hash(bytesOf(dv))],
      ['Int16Array', 0, sv.byteLength, sv.byteLength, 'ArrayBuffer', hash(bytesOf(sv))],
    ], `${n} bytes`);
    assert.ok(!detached(buf));
  }
  await pool.shutdown();
});

test('a call that lists another buffer: the listed one is handed over, the unlisted ones copied and kept', async () => {
  const pool = await Pool.create({ workers: 2 });
  const listed = filled(256 * KiB, 5), kept = filled(256 * KiB, 6), small = filled(KiB, 7);
  const want = [hash(listed), hash(kept), hash(small)];
  const got = await pool.trySubmit((a, b, c) => [a, b, c].map((x) => { let s = 0; for (let i = 0; i < x.length; i++) s = (s * 31 + x[i]) >>> 0; return s; }), [listed, kept, small], { transfer: [listed.buffer] });
  assert.deepEqual(got, want);
  assert.ok(detached(listed.buffer));
  assert.ok(!detached(kept.buffer) && !detached(small.buffer));
  assert.equal(hash(kept), want[1]);
  await pool.shutdown();
});

test('tasks that never run, refused, or waiting for space: the caller keeps its buffer, the pool keeps working', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 2 });
  const held = await occupy(pool);
  const x = filled(512 * KiB, 8), y = filled(512 * KiB, 9);
  const c = new AbortController();
  const aborted = pool.trySubmit(look, [x], { signal: c.signal });
  const timed = pool.trySubmit(look, [y], { timeout: 1 });
  c.abort();
  assert.equal((await rejection(aborted)).name, 'AbortError');
  assert.equal((await rejection(timed)).name, 'TimeoutError');
  held.open();
  await held.blocker;
  // (`submit`: the worker may not have passed over the two settled tasks' places yet.)
  assert.deepEqual(await pool.submit(look, [x]), ['Uint8Array', x.length, x.length, true, hash(x)]);
  assertInvariant(pool);
  await pool.shutdown();
  // The queue is full: refused at once, nothing taken from the caller.
  const full = await Pool.create({ workers: 1, queueCapacity: 1 });
  const busy = await occupy(full);
  const first = full.trySubmit(() => 1);
  const z = filled(512 * KiB, 10);
  const wantZ = hash(z);
  assert.ok((await rejection(full.trySubmit(look, [z]))) instanceof QueueFullError);
  // submit waits for space with its copy taken at the call.
  const waiting = full.submit(look, [z]);
  z.fill(1);
  busy.open();
  await busy.blocker;
  assert.equal(await first, 1);
  assert.deepEqual(await waiting, ['Uint8Array', z.length, z.length, true, wantZ]);
  for (const b of [x, y, z]) assert.ok(!detached(b.buffer) && b.length === 512 * KiB);
  assert.equal(hash(x), hash(filled(512 * KiB, 8)));
  assertInvariant(full);
  await full.shutdown();
});

test('submitAll, map and broadcast: every task gets its own copy of a by-value buffer', async () => {
  const pool = await Pool.create({ workers: 2 });
  const a = filled(300 * KiB, 11);
  const want = ['Uint8Array', a.length, a.length, true, hash(a)];
  assert.deepEqual(await pool.submitAll([[look, [a]], [look, [a]], [look, [a]]]), [want, want, want]);
  const seen = [];
  for await (const r of pool.map(look, [a, a, a])) seen.push(r);
  assert.deepEqual(seen, [want, want, want]);
  assert.deepEqual(await pool.broadcast(look, [a]), [want, want]);
  assert.ok(!detached(a.buffer));
  assert.deepEqual(Array.from(a.subarray(0, 4)), Array.from(filled(4, 11)));
  await pool.shutdown();
});
