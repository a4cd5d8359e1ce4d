// pool.alloc views cross by reference (zero copy, Atomics on both sides) and survive memory
// growth; free returns them; misuse is a TypeError.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, memoryBytes } from 'ringpool';
import { needsShared } from './helpers.mjs';

// Message mode refuses pool.alloc with NotIsolatedError (mode.test.mjs).
const views = needsShared('pool.alloc views are pool memory');

const pool = await Pool.create({ workers: 2, queueCapacity: 8 });
test.after(() => pool.shutdown());

test('a task writes into an alloc view and the caller sees it', { skip: views }, async () => {
  const v = pool.alloc(Float32Array, 1024);
  assert.ok(v instanceof Float32Array && v.length === 1024 && v.buffer instanceof SharedArrayBuffer);
  await pool.trySubmit((a) => { for (let i = 0; i < a.length; i++) a[i] = i / 2; }, [v]);
  assert.equal(v[1023], 511.5);
  const sub = v.subarray(10, 20);
  await pool.trySubmit((s) => s.fill(-1), [sub]);
  assert.equal(v[10], -1);
  assert.equal(v[20], 10);
  pool.free(v);
});

test('Atomics work on both sides', { skip: views }, async () => {
  const c = pool.alloc(Int32Array, 1);
  await Promise.all(Array.from({ length: 8 }, () => pool.trySubmit((c) => { for (let i = 0; i < 1000; i++) Atomics.add(c, 0, 1); }, [c])));
  assert.equal(Atomics.load(c, 0), 8000);
  pool.free(c);
});

test('views stay valid after the memory grows', { skip: views }, async () => {
  const early = pool.alloc(Uint8Array, 16);
  early.fill(7);
  const before = memoryBytes();
  const big = pool.alloc(Uint8Array, 64 * 1024 * 1024);
  assert.ok(memoryBytes() > before, 'the memory grew');
  assert.equal(early[3], 7);
  assert.equal(await pool.trySubmit((e) => e[3] + e.length, [early]), 23);
  pool.free(big);
  pool.free(early);
});

test('misuse is refused', { skip: views }, async () => {
  const refused = (f, Ctor, message) => assert.throws(f, (e) => e instanceof Ctor && message.test(e.message));
  refused(() => pool.alloc(Array, 3), TypeError, /^alloc needs a typed array constructor/);
  refused(() => pool.alloc(Float64Array, -1), RangeError, /^length must be an integer >= 0, got -1$/);
  refused(() => pool.alloc(Float64Array, 2 ** 40), RangeError, /^alloc of 8796093022208 bytes exceeds the \d+ byte limit$/);
  const v = pool.alloc(Uint8Array, 4);
  pool.free(v);
  refused(() => pool.free(v), TypeError, /^free needs a view returned by pool\.alloc that was not freed yet$/); // double free
  refused(() => pool.free(new Uint8Array(4)), TypeError, /^free needs a view returned by pool\.alloc/);
});
