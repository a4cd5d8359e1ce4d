// The strict `node:assert` subset tests/node/*.test.mjs use, for the browser run.
export class AssertionError extends Error { constructor(m) { super(m); this.name = 'AssertionError'; } }
const fail = (m) => { throw new AssertionError(m); };
const show = (v) => { try { return typeof v === 'bigint' ? `${v}n` : JSON.stringify(v) ?? String(v); } catch { return String(v); } };

function same(a, b) {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (a instanceof Date) return Object.is(a.getTime(), b.getTime());
  if (a instanceof Map) return a.size === b.size && [...a].every(([k, v]) => b.has(k) && same(v, b.get(k)));
  if (a instanceof Set) return a.size === b.size && [...a].every((v) => b.has(v));
  if (a instanceof ArrayBuffer) return same(new Uint8Array(a), new Uint8Array(b));
  if (ArrayBuffer.isView(a)) return a.length === b.length && Array.prototype.every.call(a, (v, i) => Object.is(v, b[i]));
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
}

const assert = {
  AssertionError,
  ok: (v, m) => { if (!v) fail(m ?? `expected truthy, got ${show(v)}`); },
  equal: (a, b, m) => { if (!Object.is(a, b)) fail(m ?? `${show(a)} !== ${show(b)}`); },
  notEqual: (a, b, m) => { if (Object.is(a, b)) fail(m ?? `${show(a)} === ${show(b)}`); },
  deepEqual: (a, b, m) => { if (!same(a, b)) fail(m ?? `not deep-equal: ${show(a)} vs ${show(b)}`); },
  match: (s, re, m) => { if (!re.test(s)) fail(m ?? `${show(s)} does not match ${re}`); },
  fail: (m) => fail(m ?? 'failed'),
  doesNotThrow: (fn, m) => { try { fn(); } catch (e) { fail(`${m ?? 'threw'}: ${e?.stack ?? e}`); } },
  // Like node's: `expected` is an error class, a RegExp for the message, or a validation
  // function (no prototype: an arrow) that must return true.
  throws: (fn, expected, m) => {
    try { fn(); } catch (e) {
      if (expected instanceof RegExp) { if (!expected.test(String(e?.message ?? e))) fail(m ?? `threw ${e}, not matching ${expected}`); }
      else if (typeof expected === 'function' && expected.prototype === undefined) { if (expected(e) !== true) fail(m ?? `threw ${e}, which failed validation`); }
      else if (typeof expected === 'function' && !(e instanceof expected)) fail(m ?? `threw ${e}, not ${expected.name}`);
      return;
    }
    fail(typeof expected === 'string' ? expected : m ?? 'expected a throw');
  },
};
export default assert;
