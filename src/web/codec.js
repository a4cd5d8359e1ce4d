// The JS half of `codec.rs`: inspecting and building the values that cross between threads.
// Everything here may meet hostile values (getters and proxies that throw, detached
// buffers): each import that touches a value is `catch`, so a throw becomes a `TypeError`
// naming the path instead of unwinding through Rust.
// What `v` is, as a number (the `kind` module in Rust). For a string it also says how many
// UTF-8 bytes it takes (`STRING + 32 * bytes`), so that Rust can charge and allocate for it
// before copying it (memory.rs: a refused value must not grow the memory). Never throws for
// a primitive; for an object it may (a revoked proxy), and the caller reads it inside a catch.
// The SharedArrayBuffer constructor, also where a page that is not cross-origin isolated hides
// the global (a shared wasm memory still has such a buffer).
const SharedBuffer = globalThis.SharedArrayBuffer ?? new WebAssembly.Memory({ initial: 0, maximum: 0, shared: true }).buffer.constructor;
/** Whether `b` is a SharedArrayBuffer, on any page. */
export function isSharedBuffer(b) { return b instanceof SharedBuffer; }
export function kindOf(v) {
  switch (typeof v) {
    case 'undefined': return v === undefined ? 0 : 19;
    case 'boolean': return 2;
    case 'number': return 3;
    case 'string': return 4 + 32 * utf8Bytes(v);
    case 'bigint': return 5;
    case 'function': return 6;
    case 'symbol': return 7;
    case 'object': break;
    default: return 19;
  }
  if (v === null) return 1;
  if (Array.isArray(v)) return 8;
  if (v instanceof Map) return 9;
  if (v instanceof Set) return 10;
  if (v instanceof Date) return 11;
  if (v instanceof ArrayBuffer) return 12;
  if (v instanceof SharedBuffer) return 12;
  if (ArrayBuffer.isView(v)) return 13;
  if (v instanceof Error) return 14;
  const proto = Object.getPrototypeOf(v);
  if (proto === Object.prototype || proto === null) return 15;
  return 16;
}
// Whether structured clone copies `v` as the reader in codec.rs reads it: only kinds both take
// alike (no function, symbol, class instance, error or shared buffer), no accessor property
// on an object, no cycle. It runs no getter and copies nothing. A message-mode worker asks it
// of each result and has the codec copy (or refuse, naming the place) any other
// (`__ringpoolResultCopy`, worker/posted.js).
export function clonesAlike(v, ancestors = []) {
  if (v === null || typeof v !== 'object') return typeof v !== 'function' && typeof v !== 'symbol';
  let kind;
  try { kind = kindOf(v); } catch { return false; }
  if (kind === 11) return true;
  if (kind === 12) return !isSharedBuffer(v);
  if (kind === 13) return !isSharedBuffer(v.buffer);
  if (kind < 8 || kind > 15 || kind === 14 || ancestors.includes(v)) return false;
  ancestors.push(v);
  try {
    if (kind === 8) {
      for (let i = 0; i < v.length; i++) if (!clonesAlike(v[i], ancestors)) return false;
    } else if (kind === 9) {
      for (const [k, x] of Map.prototype.entries.call(v)) if (!clonesAlike(k, ancestors) || !clonesAlike(x, ancestors)) return false;
    } else if (kind === 10) {
      for (const x of Set.prototype.values.call(v)) if (!clonesAlike(x, ancestors)) return false;
    } else {
      for (const k of Object.keys(v)) {
        const d = Object.getOwnPropertyDescriptor(v, k);
        if (d === undefined || !('value' in d) || !clonesAlike(d.value, ancestors)) return false;
      }
    }
    return true;
  } catch {
    return false;
  } finally {
    ancestors.pop();
  }
}
// Names that go into error messages are cut short: they cross as Rust strings.
export function instanceName(v) { return String(Object.getPrototypeOf(v)?.constructor?.name || 'unknown').slice(0, 100); }
// The fast path for JSON-shaped payloads (arrays and plain objects of strings, finite
// numbers other than -0, booleans and null): their JSON text crosses in one call and is
// rebuilt with one JSON.parse, where the general reader below crosses into JS several times
// per node. `undefined` means not JSON-shaped (or over `budget`, deeper than `depth`): the
// general reader then runs and says exactly why, if anything is wrong. It never runs a getter:
// an accessor property sends the payload to the general reader, which runs each getter once
// (a proxy's traps may run twice). A data property is still read with `v[k]`, as the general
// reader does, so a proxy's `get` trap answers on both paths alike. The cost it
// returns is what the general reader charges for the same value (8 bytes per value plus the
// UTF-8 bytes of strings and keys), so the payload limit is the same either way.
export function jsonOf(v, budget, depth) {
  const st = { cost: 0, budget, depth };
  const text = jsonWalk(v, 0, st);
  return text === undefined ? undefined : [text, st.cost, utf8Bytes(text)];
}
function jsonWalk(v, depth, st) {
  st.cost += 8;
  switch (typeof v) {
    case 'string': {
      const n = utf8Bytes(v, true);
      st.cost += n;
      return n < 0 || st.cost > st.budget ? undefined : JSON.stringify(v);
    }
    case 'number': return Number.isFinite(v) && !Object.is(v, -0) ? String(v) : undefined;
    case 'boolean': return v ? 'true' : 'false';
    case 'object': break;
    default: return undefined;
  }
  if (v === null) return 'null';
  if (depth >= st.depth || st.cost > st.budget) return undefined;
  const proto = Object.getPrototypeOf(v);
  if (proto === Array.prototype && Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) {
      const d = Object.getOwnPropertyDescriptor(v, i);
      if (d === undefined || !('value' in d)) return undefined;
      const item = jsonWalk(v[i], depth + 1, st);
      if (item === undefined || st.cost > st.budget) return undefined;
      out += i === 0 ? item : ',' + item;
    }
    return out + ']';
  }
  if (proto !== Object.prototype && proto !== null) return undefined;
  if (Array.isArray(v)) return undefined;
  let out = '{', first = true;
  for (const k of Object.keys(v)) {
    const d = Object.getOwnPropertyDescriptor(v, k);
    if (d === undefined || !('value' in d)) return undefined;
    const n = utf8Bytes(k, true);
    if (n < 0) return undefined;
    st.cost += n;
    const item = jsonWalk(v[k], depth + 1, st);
    if (item === undefined || st.cost > st.budget) return undefined;
    out += (first ? '' : ',') + JSON.stringify(k) + ':' + item;
    first = false;
  }
  return out + '}';
}
// The UTF-8 bytes TextEncoder makes of `s` (a lone surrogate becomes U+FFFD, 3 bytes). With
// `strict`, -1 for a string that holds a lone surrogate: JSON would keep it where the general
// reader makes it U+FFFD, so `jsonOf` leaves such strings to the general reader.
export function utf8Bytes(s, strict = false) {
  if (!/[^\x00-\x7f]/.test(s)) return s.length;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if ((c & 0xfc00) === 0xd800 && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) { n += 4; i++; }
    else if (strict && (c & 0xf800) === 0xd800) return -1;
    else n += 3;
  }
  return n;
}
const encoder = new TextEncoder();
// Copies `s` as UTF-8 into the `n` bytes at `ptr` of the wasm memory, which Rust allocated
// after `utf8Bytes` measured it. (`encodeInto` may not write to a shared buffer in every
// engine, so the bytes are made first and copied.) Returns the bytes written.
export function writeUtf8(s, memory, ptr, n) {
  const view = target(memory, ptr, n);
  // A short ASCII string (one byte a char: `utf8Bytes` counted exactly its length) is copied
  // char by char, as wasm-bindgen's glue does: cheaper than making and copying an encoding.
  if (n === s.length && n <= 256) {
    for (let i = 0; i < n; i++) view[i] = s.charCodeAt(i);
    return n;
  }
  const bytes = encoder.encode(s);
  view.set(bytes);
  return bytes.length;
}
// The `n` bytes at `ptr`, which this thread just allocated. If another thread grew the memory
// for them, this thread's `memory.buffer` may still be the shorter one until it catches up:
// `grow(0)` makes it catch up at once and changes nothing else (src/web/growth.rs).
function target(memory, ptr, n) {
  if (ptr + n > memory.buffer.byteLength) memory.grow(0);
  return new Uint8Array(memory.buffer, ptr, n);
}
// A new ArrayBuffer holding the `n` bytes at `ptr` of the wasm memory: the one copy out of
// the shared memory, in one call (wasm-bindgen's `ArrayBuffer::new` + `copy_from` took four).
export function bufferFrom(memory, ptr, n) {
  const out = new ArrayBuffer(n);
  if (n > 0) new Uint8Array(out).set(target(memory, ptr, n));
  return out;
}
// Copies the `n` bytes of the typed array or buffer `v` to `ptr` of the wasm memory.
export function writeBytes(v, memory, ptr, n) {
  const src = v instanceof ArrayBuffer || v instanceof SharedBuffer
    ? new Uint8Array(v) : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  target(memory, ptr, n).set(src.subarray(0, n));
}
export function jsonParse(text) { return JSON.parse(text); }
// The items of array `a`, read once (getters run here, inside the caller's catch), or null
// when it holds more elements than `budget` bytes allow at 8 bytes each. An array without
// holes comes back as a plain copy. One with holes comes back as
// `{ length, entries: [index, value, …] }` of its elements only, so that an array of length
// 1,000,000 holding one element costs one element, and the holes stay holes. Finding the
// first hole is a loop of `in` checks (bounded by the budget); after it, `Object.keys` lists
// only the elements.
export function arrayItems(a, budget) {
  const n = a.length, limit = Math.min(n, Math.floor(budget / 8) + 1);
  let i = 0;
  while (i < limit && i in a) i++;
  if (i === n) return Array.prototype.slice.call(a);
  if (i === limit) return null;
  const entries = [];
  for (const k of Object.keys(a)) {
    const index = Number(k);
    if (index < n && String(index) === k) entries.push(index, a[k]);
    if (entries.length * 4 > budget) return null;
  }
  return { length: n, entries };
}
export function sparseArray(length, entries) {
  const a = new Array(length);
  for (let i = 0; i < entries.length; i += 2) a[entries[i]] = entries[i + 1];
  return a;
}
// Own enumerable keys of `o`, each followed by its UTF-8 length: `[key, bytes, key, bytes, …]`.
export function ownKeys(o) {
  const keys = Object.keys(o), out = new Array(keys.length * 2);
  for (let i = 0; i < keys.length; i++) { out[2 * i] = keys[i]; out[2 * i + 1] = utf8Bytes(keys[i]); }
  return out;
}
export function property(o, k) { return o[k]; }
export function viewName(v) { return Object.prototype.toString.call(v).slice(8, -1); }
export function mapEntries(m) { return Array.from(Map.prototype.entries.call(m)).flat(); }
export function setValues(s) { return Array.from(Set.prototype.values.call(s)); }
export function dateTime(d) { return Date.prototype.getTime.call(d); }
export function viewOffset(v) { return v.byteOffset; }
export function viewLength(v) { return v instanceof DataView ? v.byteLength : v.length; }
// The bytes of a buffer or view; throws (as reading it would) if the buffer is detached,
// where `byteLength` alone would answer 0.
export function byteLength(v) {
  if (ArrayBuffer.isView(v)) new Uint8Array(v.buffer, v.byteOffset, 0);
  else new Uint8Array(v, 0, 0);
  return v.byteLength;
}
export function argsArray(v) { return Array.isArray(v) ? Array.prototype.slice.call(v) : null; }
export function newMap() { return new Map(); }
export function newSet() { return new Set(); }
export function mapSet(m, k, v) { m.set(k, v); }
export function setAdd(s, v) { s.add(v); }
// `o` is a fresh plain object: a key that Object.prototype does not have (no setter, no
// `__proto__`) becomes an own data property by plain assignment, the same as defineProperty
// and several times cheaper.
export function defineValue(o, k, v) {
  if (!(k in Object.prototype)) o[k] = v;
  else Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
}
export function bigintToString(b) { return b.toString(); }
export function bigintFrom(s) { return BigInt(s); }
export function makeView(kind, buffer, offset, length) {
  return kind === 'DataView' ? new DataView(buffer, offset, length) : new globalThis[kind](buffer, offset, length);
}
export function errorOf(name, message, stack) {
  const Ctor = { TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError }[name] ?? Error;
  const e = new Ctor(message);
  if (e.name !== name) Object.defineProperty(e, 'name', { value: name, writable: true, configurable: true });
  if (stack) Object.defineProperty(e, 'stack', { value: stack, writable: true, configurable: true });
  return e;
}
export function describeThrow(e) {
  try { return (e instanceof Error ? `${e.name}: ${e.message}` : String(e)).slice(0, 300); } catch { return 'an exception'; }
}
