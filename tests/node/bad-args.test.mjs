// Arguments that cannot cross are refused with a TypeError/RangeError naming the argument;
// nothing is accepted and the pool keeps working.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool } from 'ringpool';
import { assertInvariant, rejection } from './helpers.mjs';

const pool = await Pool.create({ workers: 1, queueCapacity: 8 });
test.after(() => pool.shutdown());

test('functions, symbols, class instances and cycles are refused, naming the argument', async () => {
  const cyclic = { a: 1 }; cyclic.self = cyclic;
  class Point { constructor() { this.x = 1; } }
  for (const [args, Ctor, where] of [
    [[1, () => 2], TypeError, /args\[1\]/],
    [[Symbol('s')], TypeError, /args\[0\]/],
    [[{ p: new Point() }], TypeError, /args\[0\]\.p.*Point/],
    [[cyclic], RangeError, /args\[0\]\.self.*cyclic/],
    [[new WeakMap()], TypeError, /args\[0\]/],
    ['not an array', TypeError, /args must be an array/],
  ]) {
    const err = await rejection(pool.trySubmit((x) => x, args));
    assert.ok(err instanceof Ctor, `${err}`);
    assert.match(err.message, where);
  }
  assert.equal(await pool.trySubmit((x) => x, [3]), 3);
  assert.equal(pool.stats().accepted, 1);
});

test('the error names the exact place deep inside an argument or a result', async () => {
  // Paths are built only when something is refused: check that what they say is still exact.
  const throwing = { ok: 1, get bad() { throw new Error('no reading me'); } };
  const sneaky = new (class Sneaky {})();
  Object.defineProperty(Object.getPrototypeOf(sneaky), 'constructor', { get() { throw new Error('nope'); } });
  for (const [args, Ctor, message] of [
    [[1, { list: [0, { 'a b': [7, () => 1] }] }], TypeError, 'args[1].list[1]["a b"][1] cannot be sent to a worker: a function'],
    [[new Map([['k', [1, Symbol('s')]]])], TypeError, 'args[0][1][1] cannot be sent to a worker: a symbol'],
    [[{ rows: [throwing] }], TypeError, 'args[0].rows[0].bad cannot be sent to a worker: reading it threw (Error: no reading me)'],
    [[{ x: sneaky }], TypeError, 'args[0].x cannot be sent to a worker: reading it threw (Error: nope)'],
    [[{ '1x': { y: 1n, z: [new (class Pt {})()] } }], TypeError, 'args[0]["1x"].z[0] cannot be sent to a worker: an instance of Pt'],
  ]) {
    const err = await rejection(pool.trySubmit((...a) => a.length, args));
    assert.ok(err instanceof Ctor, `${err}`);
    assert.ok(err.message.startsWith(message), `${err.message}\n  should start with\n${message}`);
  }
  const fromWorker = await rejection(pool.trySubmit(() => ({ tiles: [{ ok: true }, { ok: true, f: Math.max }] })));
  assert.ok(fromWorker instanceof TypeError, `${fromWorker}`);
  assert.ok(fromWorker.message.startsWith('result.tiles[1].f cannot be sent'), fromWorker.message);
  assert.deepEqual(await pool.trySubmit((a) => a, [{ a: [1, 'two', null, undefined, true, 3n] }]), { a: [1, 'two', null, undefined, true, 3n] });
});

test('deeply nested and oversized payloads are refused with RangeError', async () => {
  let deep = 0;
  for (let i = 0; i < 500; i++) deep = [deep];
  const err = await rejection(pool.trySubmit((x) => x, [deep]));
  assert.ok(err instanceof RangeError);
  assert.match(err.message, /deeper than/);
  const big = new Uint8Array(65 * 1024 * 1024);
  const e2 = await rejection(pool.trySubmit((x) => x.length, [big]));
  assert.ok(e2 instanceof RangeError);
  assert.match(e2.message, /larger than/);
  assert.equal(await pool.trySubmit(() => 'ok'), 'ok');
});

test('__proto__ keys stay plain data and never pollute prototypes', async () => {
  const payload = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"bad": 1}}}');
  const out = await pool.trySubmit((p) => { const probe = {}; return { p, leaked: probe.polluted === true }; }, [payload]);
  assert.equal(out.leaked, false);
  assert.equal(({}).polluted, undefined);
  assert.ok(Object.hasOwn(out.p, '__proto__'));
  assert.deepEqual(out.p.__proto__, { polluted: true });
  assert.equal(Object.getPrototypeOf(out.p), Object.prototype);
});

test('a setter planted on Object.prototype never sees a result key', async () => {
  // Results are rebuilt with plain assignment where that is the same as defining a data
  // property; a key the prototype has (here a hostile setter) must still become own data.
  let calls = 0;
  Object.defineProperty(Object.prototype, 'planted', { set() { calls++; }, get() { return 'from prototype'; }, configurable: true });
  try {
    // JSON-shaped results cross as JSON text (JSON.parse defines own properties); `u:
    // undefined` cannot, so the second result goes through the general reader, whose plain
    // assignments are what this test guards.
    for (const make of [() => ({ planted: 1, plain: 2, toString: 3 }), () => ({ planted: 1, plain: 2, toString: 3, u: undefined })]) {
      const out = await pool.trySubmit(make);
      assert.equal(calls, 0);
      assert.ok(Object.hasOwn(out, 'planted'));
      assert.deepEqual([out.planted, out.plain, out.toString], [1, 2, 3]);
    }
    assert.ok(Object.hasOwn(await pool.trySubmit(() => ({ u: undefined })), 'u'), 'the general reader ran');
  } finally {
    delete Object.prototype.planted;
  }
});

test('bad options are refused', async () => {
  for (const [opts, Ctor, message] of [
    [{ timeout: -1 }, RangeError, /^options\.timeout must be a finite number of ms >= 0, got -1$/],
    [{ timeout: 'soon' }, TypeError, /^options\.timeout must be a number, got string$/],
    [{ signal: {} }, TypeError, /^options\.signal must be an AbortSignal$/],
    [7, TypeError, /^options must be an object, got number$/],
  ]) {
    const err = await rejection(pool.trySubmit(() => 1, [], opts));
    assert.ok(err instanceof Ctor, `${err}`);
    assert.match(err.message, message);
  }
  assertInvariant(pool);
});
