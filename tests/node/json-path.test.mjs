// JSON-shaped arguments and results (arrays and plain objects of strings, finite numbers,
// booleans and null) cross as JSON text, everything else through the general reader
// (src/web/codec.rs). The two paths must not be told apart: same values, same limits, same
// errors, getters run once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool } from 'ringpool';
import { assertInvariant, rejection } from './helpers.mjs';

const pool = await Pool.create({ workers: 1, queueCapacity: 8 });
test.after(() => pool.shutdown());

const echo = (v) => v;
/** Deep equality that also tells -0 from 0 and a hole from undefined. */
function same(a, b, path = 'value') {
  if (typeof a !== 'object' || a === null) return assert.ok(Object.is(a, b), `${path}: ${String(a)} vs ${String(b)}`);
  if (a instanceof Date || a instanceof Map || ArrayBuffer.isView(a)) return assert.deepEqual(b, a, path);
  assert.equal(Object.getPrototypeOf(b), Array.isArray(a) ? Array.prototype : Object.prototype, `${path}: prototype`);
  assert.deepEqual(Object.keys(b), Object.keys(a), `${path}: keys`);
  for (const k of Object.keys(a)) {
    assert.ok(Object.hasOwn(b, k), `${path}.${k}: own`);
    same(a[k], b[k], `${path}.${k}`);
  }
}

test('JSON-shaped values and their near misses cross exactly, both ways', async () => {
  const json = { id: 7, name: 'tile', x: 1.5, neg: -2e-300, big: 2 ** 60, ok: true, no: false, nil: null,
    tags: ['a', 'ключ', '😀', ''], nested: [[1, [2, [3]]], { deeper: { still: 'json' } }], '': 'empty key',
    '10': 'integer-like key', 'key "quoted"\n': 'escapes \\ \u0001 \u2028' };
  const nearMisses = [
    { ...json, minusZero: -0 },
    { ...json, nan: NaN },
    { ...json, inf: [Infinity] },
    { ...json, undef: undefined },
    { ...json, lone: 'a\ud800b' }, // crosses as U+FFFD on the general path, and so here
    [1, , 3], // a hole crosses as undefined
    { ...json, big: 10n },
    { ...json, when: new Date(0) },
    { ...json, bytes: new Uint8Array([1, 2]) },
    { ...json, map: new Map([[1, 2]]) },
    Object.assign(Object.create(null), json),
  ];
  // A proxy's get trap answers on either path, as it always has.
  const proxied = new Proxy({ a: 1, b: [2] }, { get: (t, k) => (k === 'a' ? 42 : t[k]) });
  assert.deepEqual(await pool.trySubmit(echo, [proxied]), { a: 42, b: [2] });
  for (const v of [json, [json, json], ...nearMisses]) {
    const back = await pool.trySubmit(echo, [v]);
    if (v === nearMisses[4]) {
      assert.equal(back.lone, 'a\ufffdb');
      continue;
    }
    if (Array.isArray(v) && v.length === 3 && !(1 in v)) {
      assert.equal(back.length, 3);
      assert.deepEqual(Object.keys(back), ['0', '2'], 'the hole stays a hole');
      assert.equal(back[2], 3);
      continue;
    }
    same(v, back);
  }
  assertInvariant(pool);
});

test('a JSON-shaped result is a fresh plain object with own data properties only', async () => {
  let calls = 0;
  Object.defineProperty(Object.prototype, 'sneaky', { set() { calls++; }, configurable: true });
  try {
    const out = await pool.trySubmit(() => JSON.parse('{"__proto__": {"polluted": true}, "sneaky": 1, "toString": 2}'));
    assert.equal(calls, 0);
    assert.ok(Object.hasOwn(out, '__proto__') && Object.hasOwn(out, 'sneaky'));
    assert.deepEqual([out.sneaky, out.toString], [1, 2]);
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.equal(({}).polluted, undefined);
  } finally {
    delete Object.prototype.sneaky;
  }
});

test('getters run once, whichever path the payload takes', async () => {
  let reads = 0;
  const lazy = { a: 1, get b() { reads++; return [2, 3]; }, c: 'x' };
  assert.deepEqual(await pool.trySubmit(echo, [lazy]), { a: 1, b: [2, 3], c: 'x' });
  assert.equal(reads, 1);
  // A value past the getter that JSON cannot carry: the general reader reads the whole payload.
  const lazier = { a: 1, get b() { reads++; return [2, 3]; }, c: undefined };
  assert.deepEqual(await pool.trySubmit(echo, [lazier]), { a: 1, b: [2, 3], c: undefined });
  assert.equal(reads, 2);
  // A result: the worker counts its getter's calls in its global scope, read back by the
  // next task on the one worker.
  const out = await pool.trySubmit(() => ({ list: [1, 2], get n() { globalThis.reads = (globalThis.reads ?? 0) + 1; return 'read'; }, u: undefined }));
  assert.deepEqual(out, { list: [1, 2], n: 'read', u: undefined });
  assert.equal(await pool.trySubmit(() => globalThis.reads), 1);
});

test('the payload limit and the depth limit are the same on both paths', async () => {
  // 64 MiB: strings of 1 MiB; JSON-shaped, so the fast path meets the limit first.
  const mib = 'x'.repeat(1 << 20);
  const big = Array.from({ length: 65 }, () => mib);
  const e1 = await rejection(pool.trySubmit((a) => a.length, [big]));
  assert.ok(e1 instanceof RangeError && /args\[0\].*larger than/.test(e1.message), String(e1));
  // Just under the limit passes: 63 strings of 1 MiB.
  assert.equal(await pool.trySubmit((a) => a.length, [big.slice(0, 63)]), 63);
  // The exact edge: 8 bytes per value plus the UTF-8 bytes of each string, so 64 strings of
  // 1 MiB - 8 bytes are 8 bytes too many, and one byte less each fits; 'é' is 2 bytes.
  for (const [unit, len] of [['x', (1 << 20) - 8], ['é', ((1 << 20) - 8) / 2]]) {
    const over = Array(64).fill(unit.repeat(len));
    const e = await rejection(pool.trySubmit((a) => a.length, [over]));
    assert.ok(e instanceof RangeError && /larger than/.test(e.message), `${unit}: ${e}`);
    const fits = Array(64).fill(unit.repeat(len - 1));
    assert.equal(await pool.trySubmit((a) => a[63].length, [fits]), len - 1);
  }
  // The limit is per submission: two JSON-shaped arguments share it.
  const e2 = await rejection(pool.trySubmit((a, b) => a.length + b.length, [big.slice(0, 40), big.slice(0, 40)]));
  assert.ok(e2 instanceof RangeError && /args\[1\].*larger than/.test(e2.message), String(e2));
  // 127 nested arrays below the argument are accepted, 128 are not (MAX_DEPTH = 128 levels).
  const nest = (n) => { let v = 'leaf'; for (let i = 0; i < n; i++) v = [v]; return v; };
  const depthOf = (v) => { let d = 0; while (Array.isArray(v)) { v = v[0]; d++; } return d; };
  assert.equal(depthOf(await pool.trySubmit(echo, [nest(128)])), 128);
  const e3 = await rejection(pool.trySubmit(echo, [nest(129)]));
  assert.ok(e3 instanceof RangeError && /deeper than 128/.test(e3.message), String(e3));
  const cyclic = { list: [1, 2] }; cyclic.list.push(cyclic);
  const e4 = await rejection(pool.trySubmit(echo, [cyclic]));
  assert.ok(e4 instanceof RangeError && /args\[0\]\.list\[2\] is cyclic/.test(e4.message), String(e4));
  assert.deepEqual(await pool.trySubmit(echo, [{ still: ['works'] }]), { still: ['works'] });
  assertInvariant(pool);
});
