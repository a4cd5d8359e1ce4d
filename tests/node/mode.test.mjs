// Pool.create({ mode }): 'shared' (workers share the memory), 'message' (each worker has its
// own memory; tasks, arguments and results travel by postMessage), 'auto'. A message-mode pool
// is made here explicitly, so that every engine of the suite runs it; scripts/test.sh also runs
// the behaviour files with every pool in message mode (message-mode.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, NotIsolatedError, PanicError, WorkerCrashedError, diagnostics } from 'ringpool';
import { assertInvariant, rejection } from './helpers.mjs';

const isolated = globalThis.crossOriginIsolated !== false;

test('mode: a bad value is a TypeError naming mode; the default is shared where the page is isolated', async () => {
  for (const bad of ['fast', 1, null]) {
    const e = await rejection(Pool.create({ workers: 1, mode: bad }));
    assert.ok(e instanceof TypeError, String(e));
    assert.match(e.message, /^mode must be 'auto', 'shared' or 'message', got /);
  }
  const pool = await Pool.create({ workers: 1, mode: globalThis.RINGPOOL_TEST_MODE === 'message' ? 'auto' : undefined });
  assert.equal(pool.mode, isolated ? 'shared' : 'message');
  assert.equal(await pool.trySubmit((a) => a + 1, [1]), 2);
  await pool.shutdown();
});

test("mode 'message': values both ways, JS errors keep their name, Rust tasks run in the worker's own instance", async () => {
  const pool = await Pool.create({ workers: 2, mode: 'message' });
  assert.equal(pool.mode, 'message');
  const value = { n: 1n, d: new Date(5), m: new Map([[1, 'a']]), s: new Set([2]), u: undefined, bytes: new Uint8Array([1, 2, 3]) };
  assert.deepEqual(await pool.trySubmit((v) => v, [value]), value);
  const thrown = await rejection(pool.trySubmit(() => { class CustomError extends Error { name = 'CustomError'; } throw new CustomError('no'); }));
  assert.equal(thrown.name, 'CustomError');
  assert.equal(thrown.message, 'no');
  // Each worker answers with its own index; the package's Rust tasks are made again there.
  const where = await Promise.all([0, 1, 2, 3].map(() => pool.trySubmit(function () { return this.workerIndex; })));
  assert.ok(where.every((i) => i === 0 || i === 1), String(where));
  assert.match(await pool.trySubmit(diagnostics.worker()), /^[01]:\d+$/);
  assert.ok(await pool.trySubmit(diagnostics.spin(1)) >= 1);
  const panic = await rejection(pool.trySubmit(diagnostics.panic('in message mode')));
  assert.ok(panic instanceof PanicError);
  assert.equal(panic.panicMessage, 'in message mode');
  assert.match(panic.location, /\.rs:\d+:\d+$/);
  assertInvariant(pool);
  await pool.shutdown();
});

test("mode 'message': a trap crashes only its worker, which is replaced", async () => {
  const pool = await Pool.create({ workers: 1, mode: 'message' });
  assert.ok(await rejection(pool.trySubmit(diagnostics.trap())) instanceof WorkerCrashedError);
  assert.equal(await pool.trySubmit(() => 'after'), 'after');
  const s = assertInvariant(pool);
  assert.equal(s.crashed, 1);
  await pool.shutdown();
});

test("mode 'message': pool.alloc throws NotIsolatedError naming the headers; the pool keeps working", async () => {
  const pool = await Pool.create({ workers: 1, mode: 'message' });
  const e = (() => { try { pool.alloc(Uint8Array, 4); } catch (e) { return e; } })();
  assert.ok(e instanceof NotIsolatedError, String(e));
  assert.equal(e.code, 'NOT_ISOLATED');
  assert.match(e.message, /^pool\.alloc needs memory the workers share/);
  assert.match(e.message, /Cross-Origin-Opener-Policy: same-origin/);
  assert.match(e.message, /Document-Isolation-Policy: isolate-and-credentialless/);
  assert.equal(await pool.trySubmit(() => 'still'), 'still');
  await pool.shutdown();
});

test("mode 'message': a handed-over buffer moves to the worker; abort reaches this.signal of a running task", async () => {
  const pool = await Pool.create({ workers: 1, mode: 'message' });
  const buffer = new Uint8Array(256 * 1024).fill(7).buffer;
  const sum = pool.trySubmit((b) => new Uint8Array(b).reduce((a, x) => a + x, 0), [buffer], { transfer: [buffer] });
  assert.equal(buffer.byteLength, 0, 'detached from the caller once admitted');
  assert.equal(await sum, 7 * 256 * 1024);
  const ac = new AbortController();
  const running = pool.trySubmit(async function () {
    await new Promise((resolve) => this.signal.addEventListener('abort', resolve));
    return this.isCancelled();
  }, [], { signal: ac.signal });
  // The task has started once the pool counts it running.
  while (pool.stats().running === 0) await new Promise((r) => setTimeout(r, 1));
  ac.abort(new Error('stop'));
  assert.equal((await rejection(running)).message, 'stop');
  // The worker heard it: its body ended, so the next task runs.
  assert.equal(await pool.trySubmit(() => 'next'), 'next');
  assert.equal(assertInvariant(pool).cancelled, 1);
  await pool.shutdown();
});
