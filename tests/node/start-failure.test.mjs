// A pool whose workers cannot start rejects `Pool.create` with a clear error and leaves
// nothing behind: no worker keeps the process alive, memory does not grow, the next pool works.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, memoryBytes } from 'ringpool';
import { rejection } from './helpers.mjs';
import { MEMORY_SLACK } from './memory-allowance.mjs';

const missing = new URL('./fixture-does-not-exist.mjs', import.meta.url);
const throwing = new URL('./fixture-throwing.mjs', import.meta.url);

test('a task module that is not there: Pool.create rejects naming it', async () => {
  const err = await rejection(Pool.create({ workers: 2, module: missing }));
  assert.ok(err instanceof Error);
  assert.match(err.message, /failed to start/);
  assert.match(err.message, /fixture-does-not-exist\.mjs/);
  assert.match(err.message, /did not load/);
});

test('a task module whose initialisation throws: Pool.create rejects with its error', async () => {
  const err = await rejection(Pool.create({ workers: 2, module: throwing }));
  assert.match(err.message, /init failed: this module refuses to load/);
});

test('failed starts leak nothing and the next pool works', async () => {
  // Warm-up with both kinds of failure (each has one-time costs of its own on its first run:
  // Deno once grew the memory by a page at the first missing module), then repeated failures
  // must not grow the shared memory. `Pool.create` rejects only once every worker of the
  // failed pool has ended: when it rejected at the first failure, the pool's state was still
  // held by its other worker while the next pool allocated its own, and under load (Deno
  // beside Bun) the memory grew by two pages now and then.
  await rejection(Pool.create({ workers: 2, module: throwing }));
  await rejection(Pool.create({ workers: 2, module: missing }));
  const before = memoryBytes();
  for (let i = 0; i < 20; i++) {
    await rejection(Pool.create({ workers: 2, module: i % 2 ? throwing : missing }));
  }
  assert.ok(memoryBytes() - before <= MEMORY_SLACK, `20 failed starts grew the memory by ${memoryBytes() - before} bytes`);
  const pool = await Pool.create({ workers: 2 });
  assert.equal(await pool.trySubmit((a) => a + 1, [1]), 2);
  await pool.shutdown();
});
