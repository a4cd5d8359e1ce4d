// The installed npm package in Node worker_threads: shared memory, and the optimised .wasm
// (what ships) still turns a panic into a PanicError and keeps the worker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as ringpool from 'ringpool';
import { Pool, PanicError, wasmMemory, memoryBytes, diagnostics } from 'ringpool';
import { assertInvariant, rejection } from './helpers.mjs';

test('every exported error class carries a code, also when made by hand', () => {
  const codes = {
    RingpoolError: 'RINGPOOL_ERROR', QueueFullError: 'QUEUE_FULL', PoolClosedError: 'POOL_CLOSED', TimeoutError: 'TIMEOUT',
    PanicError: 'PANIC', WorkerCrashedError: 'WORKER_CRASHED', CancelledError: 'CANCELLED', OutOfMemoryError: 'OUT_OF_MEMORY',
    NotIsolatedError: 'NOT_ISOLATED', PoolOverloadError: 'POOL_OVERLOAD',
  };
  const exported = Object.keys(ringpool).filter((k) => /Error$/.test(k)).sort();
  assert.deepEqual(exported, Object.keys(codes).sort(), 'the error classes exported');
  for (const [name, code] of Object.entries(codes)) {
    const e = new ringpool[name]('m');
    assert.equal(e.code, code, name);
    assert.equal(e.name, name, name);
    assert.ok(e instanceof Error, name);
  }
});

test('the wasm memory is a shared WebAssembly.Memory', () => {
  assert.ok(wasmMemory() instanceof WebAssembly.Memory);
  // Shared on any page: a page that is not cross-origin isolated has no SharedArrayBuffer global.
  assert.equal(Object.prototype.toString.call(wasmMemory().buffer), '[object SharedArrayBuffer]');
  assert.equal(memoryBytes(), wasmMemory().buffer.byteLength);
});

test('optimised build: panic rejects with PanicError, the same worker runs the next task', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 4 });
  const before = await pool.trySubmit(diagnostics.worker());
  const err = await rejection(pool.trySubmit(diagnostics.panic('bad pixel')));
  assert.ok(err instanceof PanicError);
  assert.ok(err instanceof Error);
  assert.equal(err.name, 'PanicError');
  assert.equal(err.code, 'PANIC');
  assert.equal(err.panicMessage, 'bad pixel');
  assert.match(err.location, /^src\/web\/api\/task\.rs:\d+:\d+$/);
  assert.equal(await pool.trySubmit(diagnostics.worker()), before, 'same worker incarnation');
  const s = assertInvariant(pool);
  assert.equal(s.panicked, 1);
  assert.equal(s.crashed, 0);
  await pool.shutdown();
});
