// A trap that is not a panic kills its worker: that task rejects with WorkerCrashedError, the
// worker is replaced (the count stays), and the pool keeps working.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, WorkerCrashedError, diagnostics } from 'ringpool';
import { assertInvariant, rejection } from './helpers.mjs';

test('trap → WorkerCrashedError and a replacement worker', async () => {
  const pool = await Pool.create({ workers: 2, queueCapacity: 8 });
  const err = await rejection(pool.trySubmit(diagnostics.trap()));
  assert.ok(err instanceof WorkerCrashedError);
  assert.equal(err.code, 'WORKER_CRASHED');
  const results = await Promise.all(Array.from({ length: 8 }, () => pool.trySubmit(diagnostics.spin(1))));
  assert.equal(results.length, 8);
  assert.equal(pool.workers, 2);
  const s = assertInvariant(pool);
  assert.equal(s.crashed, 1);
  assert.equal(s.completed, 8);
  await pool.shutdown();
});
