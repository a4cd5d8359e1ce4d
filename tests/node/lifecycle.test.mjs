// Pools under churn: a forced shutdown in the middle of a load settles every task exactly
// once (done or PoolClosedError); 100 create/shutdown cycles with tasks in flight lose no
// task and leave memory flat (freed stacks are reused whole and ended workers' externref
// slabs freed: src/web/worker_alloc.rs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, PoolClosedError, diagnostics, memoryBytes } from 'ringpool';
import { MEMORY_SLACK } from './memory-allowance.mjs';
import { assertInvariant } from './helpers.mjs';

test('shutdown({force: true}) during load: every task settles once, as done or PoolClosedError', async () => {
  const pool = await Pool.create({ workers: 2, queueCapacity: 16 });
  let done = 0, forced = null;
  const tasks = Array.from({ length: 200 }, (_, i) => pool.submit(i % 3 ? (x) => x : diagnostics.spin(1), [i]).then(
    (v) => { done++; if (done === 20) forced = pool.shutdown({ force: true }); return { ok: true, v }; },
    (e) => ({ ok: false, e }),
  ));
  const outcomes = await Promise.all(tasks);
  await forced;
  const closed = outcomes.filter((o) => !o.ok);
  assert.ok(closed.length > 0, 'the force came before the end');
  for (const o of closed) assert.ok(o.e instanceof PoolClosedError, String(o.e));
  assert.equal(outcomes.length, 200);
  const s = assertInvariant(pool);
  assert.equal(s.queued + s.running, 0);
});

test('100 create/shutdown cycles with tasks in flight: nothing lost, memory flat', async () => {
  let before = 0;
  for (let cycle = 0; cycle < 100; cycle++) {
    if (cycle === 10) before = memoryBytes();
    const pool = await Pool.create({ workers: 2, queueCapacity: 8 });
    // As many as the queue holds, so all are accepted (a waiting submit is refused at shutdown).
    const tasks = Array.from({ length: 8 }, (_, i) => pool.trySubmit((c, i) => c * 100 + i, [cycle, i]));
    if (cycle % 10 === 9) {
      // Forced: tasks done or closed, none lost.
      const stopping = pool.shutdown({ force: true });
      const settled = await Promise.allSettled(tasks);
      await stopping;
      for (const r of settled) assert.ok(r.status === 'fulfilled' || r.reason instanceof PoolClosedError, String(r.reason));
    } else {
      const stopping = pool.shutdown();
      // Graceful: every accepted task runs.
      assert.deepEqual(await Promise.all(tasks), Array.from({ length: 8 }, (_, i) => cycle * 100 + i));
      await stopping;
    }
  }
  // 90 cycles × 2 workers; a stack per cycle (the failure this guards) would be 180 MiB.
  const grown = memoryBytes() - before;
  assert.ok(grown <= MEMORY_SLACK, `90 cycles grew memory by ${grown} bytes`);
});
