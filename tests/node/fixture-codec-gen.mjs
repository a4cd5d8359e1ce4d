// The codec fuzzer's value generator (codec-fuzz.test.mjs, tests/fuzz/run.mjs). Loaded on the
// main thread and, as a task module, in every worker, so both sides can build the same value
// from a seed. `build(seed)` returns { value, expected, error }: what the codec must produce
// (a structural copy) or the error class it must refuse with ('TypeError' | 'RangeError'),
// the first problem in the codec's own traversal order winning.

export const MAX_DEPTH = 128;

export function rng(seed) {
  let x = (seed >>> 0) || 0x9e3779b9;
  return () => {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    return x / 4294967296;
  };
}

const KEYS = ['a', 'b', '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '0', '7', '', 'x y', 'ключ', '😀', 'valueOf'];
const NUMBERS = [0, -0, 1, -1, 0.5, NaN, Infinity, -Infinity, 2 ** 53, -(2 ** 31), 1e308, 5e-324];
const TYPED = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array',
  'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array'];

function define(o, k, v) {
  Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
}

function randomString(r) {
  const n = Math.floor(r() * 12);
  let s = '';
  for (let i = 0; i < n; i++) {
    const pick = r();
    // Mostly ASCII, some BMP, astral pairs, and lone surrogates (which cross as U+FFFD).
    s += pick < 0.6 ? String.fromCharCode(32 + Math.floor(r() * 95))
      : pick < 0.8 ? String.fromCharCode(0x400 + Math.floor(r() * 0x4000))
      : pick < 0.95 ? String.fromCodePoint(0x1f600 + Math.floor(r() * 64))
      : String.fromCharCode(0xd800 + Math.floor(r() * 0x800));
  }
  return s;
}

function randomBytes(r, n) {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = Math.floor(r() * 256);
  return b;
}

/** A node: `value` to send, `expected` copy, `error` if it must be refused. */
function gen(r, depth, ancestors, budget) {
  const ok = (value, expected = value) => ({ value, expected, error: null });
  const refuse = (value, error) => ({ value, expected: undefined, error });
  const containerAllowed = budget.nodes < 400;
  const roll = r();
  if (!containerAllowed || roll < 0.35) {
    // Primitives, never refused.
    const p = Math.floor(r() * 8);
    if (p === 0) return ok(undefined);
    if (p === 1) return ok(null);
    if (p === 2) return ok(r() < 0.5);
    if (p === 3) { const n = NUMBERS[Math.floor(r() * NUMBERS.length)]; return ok(n); }
    if (p === 4) { const n = (r() - 0.5) * 10 ** Math.floor(r() * 20); return ok(n); }
    if (p === 5) { const b = BigInt(Math.floor((r() - 0.5) * 2 ** 52)) * BigInt(Math.floor(r() * 2 ** 40)); return ok(b); }
    const s = randomString(r);
    return ok(s, s.toWellFormed());
  }
  budget.nodes++;
  if (depth >= MAX_DEPTH) {
    // Any container this deep is refused (a cycle is reported first if it is one).
    return refuse([], 'RangeError');
  }
  const k = Math.floor(r() * 20);
  const children = (n) => Array.from({ length: n }, () => gen(r, depth + 1, ancestors, budget));
  const firstError = (nodes) => nodes.find((c) => c.error)?.error ?? null;
  switch (k) {
    case 0: case 1: case 2: {
      const arr = [];
      ancestors.push(arr);
      const kids = children(Math.floor(r() * 5));
      ancestors.pop();
      kids.forEach((c, i) => { arr[i] = c.value; });
      if (r() < 0.1) arr[kids.length + 1] = 1; // a hole, which stays a hole
      const expected = kids.map((c) => c.expected);
      if (arr.length > kids.length) expected[kids.length + 1] = 1;
      const error = firstError(kids);
      return error ? refuse(arr, error) : ok(arr, expected);
    }
    case 3: case 4: case 5: {
      const value = r() < 0.2 ? Object.create(null) : {};
      ancestors.push(value);
      const nodes = new Map();
      const n = Math.floor(r() * 5);
      for (let i = 0; i < n; i++) {
        const key = KEYS[Math.floor(r() * KEYS.length)];
        const node = gen(r, depth + 1, ancestors, budget);
        define(value, key, node.value);
        nodes.set(key, node);
      }
      ancestors.pop();
      // The codec walks Object.keys order (integer-like keys first).
      const expected = {};
      let error = null;
      for (const key of Object.keys(value)) {
        define(expected, key, nodes.get(key).expected);
        error ??= nodes.get(key).error;
      }
      return error ? refuse(value, error) : ok(value, expected);
    }
    case 6: {
      const kids = children(2 * Math.floor(r() * 3));
      const m = new Map();
      for (let i = 0; i < kids.length; i += 2) m.set(kids[i].value, kids[i + 1].value);
      const node = (v) => kids.find((c) => Object.is(c.value, v) || c.value === v);
      const walked = [...m].flatMap(([key, v]) => [node(key), node(v)]);
      const error = firstError(walked);
      if (error) return refuse(m, error);
      const em = new Map();
      for (let i = 0; i < walked.length; i += 2) em.set(walked[i].expected, walked[i + 1].expected);
      return ok(m, em);
    }
    case 7: {
      const kids = children(Math.floor(r() * 4));
      const s = new Set(kids.map((c) => c.value));
      const walked = [...s].map((v) => kids.find((c) => Object.is(c.value, v) || c.value === v));
      const error = firstError(walked);
      return error ? refuse(s, error) : ok(s, new Set(walked.map((c) => c.expected)));
    }
    case 8: {
      const t = r() < 0.2 ? NaN : Math.floor((r() - 0.5) * 4e12);
      return ok(new Date(t), new Date(t));
    }
    case 9: {
      const name = TYPED[Math.floor(r() * TYPED.length)];
      const Ctor = globalThis[name];
      const len = Math.floor(r() * 6);
      const offset = Math.floor(r() * 3);
      const buf = randomBytes(r, (len + offset) * Ctor.BYTES_PER_ELEMENT).buffer;
      const view = new Ctor(buf, offset * Ctor.BYTES_PER_ELEMENT, len);
      return ok(view, view.slice());
    }
    case 10: {
      const bytes = randomBytes(r, Math.floor(r() * 16));
      return r() < 0.5 ? ok(bytes.buffer, bytes.buffer.slice(0)) : ok(new DataView(bytes.buffer, 0), new DataView(bytes.buffer.slice(0)));
    }
    case 11: {
      const Ctor = [Error, TypeError, RangeError, SyntaxError][Math.floor(r() * 4)];
      const e = new Ctor(randomString(r).toWellFormed());
      return ok(e, e);
    }
    case 12: {
      // Refused with a TypeError: things that are not data.
      const h = Math.floor(r() * 7);
      // (No promise: a task that returns one is awaited, which is not a refusal.)
      const values = [() => 1, Symbol('s'), new (class Pixel {})(), new WeakMap(), new URLSearchParams('a=1'), new Proxy(function () {}, {}), /re/g];
      return refuse(values[h], 'TypeError');
    }
    case 13: {
      // Values whose reading throws: getters, proxy traps, revoked proxies, detached buffers.
      const h = Math.floor(r() * 5);
      if (h === 0) {
        const o = {};
        Object.defineProperty(o, 'boom', { enumerable: true, get() { throw new Error('getter'); } });
        return refuse(o, 'TypeError');
      }
      if (h === 1) return refuse(new Proxy({}, { ownKeys() { throw new Error('ownKeys'); } }), 'TypeError');
      if (h === 2) { const { proxy, revoke } = Proxy.revocable({}, {}); revoke(); return refuse(proxy, 'TypeError'); }
      if (h === 3) {
        const arr = [1, 2];
        Object.defineProperty(arr, 1, { get() { throw new Error('index getter'); } });
        return refuse(arr, 'TypeError');
      }
      const buf = new ArrayBuffer(8);
      const view = new Uint8Array(buf);
      structuredClone(buf, { transfer: [buf] });
      return refuse(r() < 0.5 ? buf : view, 'TypeError');
    }
    case 14: {
      // A reference back to an ancestor: a cycle.
      if (ancestors.length) return refuse(ancestors[Math.floor(r() * ancestors.length)], 'RangeError');
      return ok(null);
    }
    case 15: {
      // A long chain that may cross the depth limit.
      const n = 120 + Math.floor(r() * 16);
      let value = 0, expected = 0;
      for (let i = 0; i < n; i++) { value = [value]; expected = [expected]; }
      // The chain's outermost array sits at `depth`; its innermost at depth + n - 1.
      return depth + n - 1 >= MAX_DEPTH ? refuse(value, 'RangeError') : ok(value, expected);
    }
    case 16: {
      // A proxy that behaves: crosses as the plain object it shows.
      const target = { x: 1, y: 'two' };
      return ok(new Proxy(target, {}), { x: 1, y: 'two' });
    }
    default: {
      // JSON with own __proto__ keys: plain data, never a prototype.
      const v = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}');
      return ok(v, JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}'));
    }
  }
}

/** The value for `seed` and what the codec must make of it. */
export function generate(seed) {
  const r = rng(seed);
  return gen(r, 0, [], { nodes: 0 });
}

// Task exports (this file is also the fuzz pool's task module).
export function echo(v) { return v; }
export function build(seed) { return generate(seed).value; }
/** Enumerable or unexpected own properties on the prototypes a pollution would reach. */
export function prototypeFingerprint() {
  return [Object.prototype, Array.prototype, Function.prototype]
    .map((p) => Object.getOwnPropertyNames(p).sort().join(',')).join('|') + `|${({}).polluted}`;
}

/** Structural equality the codec promises (NaN and -0 exact, errors by name and message). */
export function same(a, b) {
  if (typeof a !== typeof b) return false;
  if (typeof a === 'number') return Object.is(a, b);
  if (a === null || typeof a !== 'object') return a === b;
  if (b === null) return false;
  if (a instanceof Error) return b instanceof Error && a.name === b.name && a.message === b.message;
  if (a instanceof Date) return b instanceof Date && Object.is(a.getTime(), b.getTime());
  if (a instanceof ArrayBuffer) return b instanceof ArrayBuffer && same(new Uint8Array(a), new Uint8Array(b));
  if (ArrayBuffer.isView(a)) {
    if (!ArrayBuffer.isView(b) || Object.prototype.toString.call(a) !== Object.prototype.toString.call(b)) return false;
    const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength), y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    return x.length === y.length && x.every((v, i) => v === y[i]);
  }
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    const x = [...a], y = [...b];
    return x.every(([k, v], i) => same(k, y[i][0]) && same(v, y[i][1]));
  }
  if (a instanceof Set) {
    if (!(b instanceof Set) || a.size !== b.size) return false;
    const x = [...a], y = [...b];
    return x.every((v, i) => same(v, y[i]));
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    // Holes must stay holes: `every` would skip them.
    for (let i = 0; i < a.length; i++) if ((i in a) !== (i in b) || !same(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b) || Object.getPrototypeOf(b) !== Object.prototype) return false;
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && same(a[k], b[k]));
}
