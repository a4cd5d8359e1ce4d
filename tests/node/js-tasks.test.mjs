// JS-function tasks: sent as source, compiled once per worker, sync or async; values cross by
// value with their types; throws keep name, message and the worker-side stack.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, diagnostics } from 'ringpool';
import { assertInvariant, rejection, needsShared } from './helpers.mjs';

const pool = await Pool.create({ workers: 2, queueCapacity: 64 });
test.after(() => pool.shutdown());

test('a function with arguments', async () => {
  assert.equal(await pool.trySubmit((a, b) => a + b, [2, 3]), 5);
  assert.equal(await pool.trySubmit(function named(s) { return s.toUpperCase(); }, ['ok']), 'OK');
  assert.equal(await pool.trySubmit(() => 7), 7);
});

test('values keep their types both ways', async () => {
  const input = {
    n: 1.5, s: 'x', b: true, nil: null, u: undefined, big: 2n ** 70n, date: new Date(86400000),
    list: [1, [2, [3]]], map: new Map([['k', { v: 1 }], [2, 'two']]), set: new Set([1, 'a']),
    bytes: new Uint8Array([1, 2, 255]), floats: new Float64Array([0.5, -1]), buf: new Uint8Array([9, 8]).buffer,
  };
  const out = await pool.trySubmit((v) => v, [input]);
  assert.deepEqual(out, input);
  assert.ok(out.map instanceof Map && out.set instanceof Set && out.date instanceof Date);
  assert.ok(out.floats instanceof Float64Array && out.buf instanceof ArrayBuffer);
  assert.equal(typeof out.big, 'bigint');
  assert.ok('u' in out);
});

test('async functions: the promise settles the task', async () => {
  const v = await pool.trySubmit(async (x) => { await new Promise((r) => setTimeout(r, 5)); return x * 2; }, [21]);
  assert.equal(v, 42);
  const err = await rejection(pool.trySubmit(async () => { await null; throw new RangeError('late'); }));
  assert.ok(err instanceof RangeError);
  assert.equal(err.message, 'late');
  // Many async tasks interleaved with sync ones on 2 workers.
  const values = await Promise.all(Array.from({ length: 20 }, (_, i) =>
    i % 2 ? pool.trySubmit(async (i) => { await null; return i; }, [i]) : pool.trySubmit((i) => i, [i])));
  assert.deepEqual(values, Array.from({ length: 20 }, (_, i) => i));
});

test('an async task that awaits only another thread keeps its worker until it settles', { skip: needsShared('the task awaits Atomics.waitAsync on a word of pool memory') }, async () => {
  // Node ends a worker thread whose event loop runs dry, and a pending Atomics.waitAsync does
  // not count: the task would lose its worker (WorkerCrashedError) unless the pool keeps the
  // thread alive while a task is suspended. The 20 ms pause only gives a broken pool time to
  // lose the thread; a correct one passes whatever the timing.
  const p1 = await Pool.create({ workers: 1, queueCapacity: 2 });
  const flags = p1.alloc(Int32Array, 2);
  const before = await p1.trySubmit(diagnostics.worker());
  const task = p1.trySubmit(async (f) => {
    Atomics.store(f, 0, 1); Atomics.notify(f, 0);
    await Atomics.waitAsync(f, 1, 0).value;
    return 'woken';
  }, [flags]);
  while (Atomics.load(flags, 0) === 0) await Atomics.waitAsync(flags, 0, 0).value;
  Atomics.store(flags, 1, 1); Atomics.notify(flags, 1);
  assert.equal(await task, 'woken');
  assert.equal(await p1.trySubmit(diagnostics.worker()), before, 'the same worker incarnation');
  assert.equal(p1.stats().crashed, 0);
  await p1.shutdown();
});

test('a throw keeps name, message and the worker-side stack', async () => {
  const err = await rejection(pool.trySubmit(function failing() {
    class PixelError extends Error { constructor(m) { super(m); this.name = 'PixelError'; } }
    throw new PixelError('bad pixel 7');
  }));
  assert.equal(err.name, 'PixelError');
  assert.equal(err.message, 'bad pixel 7');
  assert.match(err.stack, /failing/);
  const t = await rejection(pool.trySubmit(() => { throw new TypeError('typed'); }));
  assert.ok(t instanceof TypeError);
});

test('a closure over outer variables fails with an error that says why', async () => {
  // `let` and changed: a transpiler (Bun's test runner) may inline a `const` into the source.
  let outer = 40;
  outer++;
  const err = await rejection(pool.trySubmit(() => outer + 1));
  assert.equal(err.name, 'ReferenceError');
  assert.match(err.message, /not captured/);
});

test('object-literal methods (method shorthand source) run as tasks', async () => {
  const tasks = { triple(x) { return 3 * x; }, async later(x) { await null; return x + 1; } };
  assert.equal(await pool.trySubmit(tasks.triple, [5]), 15);
  assert.equal(await pool.trySubmit(tasks.later, [5]), 6);
  // Named `async`: JavaScriptCore prints it without its `async` modifier (src/web/worker/jsfn.js).
  const odd = { async async(x) { await null; return x * 2; } };
  assert.equal(await pool.trySubmit(odd.async, [4]), 8);
});

test('a function that does not compile in the worker says so', async () => {
  // A class method using a private field: its source alone is not valid outside the class.
  class Counter { #n = 1; get() { return this.#n; } }
  const err = await rejection(pool.trySubmit(new Counter().get));
  assert.ok(err instanceof TypeError);
  assert.match(err.message, /does not compile/);
  assert.equal(await pool.trySubmit(() => 'still fine'), 'still fine');
});

test('stats count JS throws as failed', () => {
  const s = assertInvariant(pool);
  assert.ok(s.failed >= 4);
});

test('many distinct functions, interleaved, each run their own source', async () => {
  const pool = await Pool.create({ workers: 2, queueCapacity: 64 });
  // Twelve functions (more than the submitter's recent-source cache holds), twice over.
  const fns = Array.from({ length: 12 }, (_, k) => new Function('x', `return x * ${k + 1};`));
  const got = await Promise.all([...fns, ...fns].map((f) => pool.trySubmit(f, [10])));
  assert.deepEqual(got, [...fns, ...fns].map((_, i) => 10 * ((i % 12) + 1)));
  assertInvariant(pool);
  await pool.shutdown();
});
