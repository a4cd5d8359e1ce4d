// Pools under churn: a forced shutdown in the middle of a load settles every task exactly
// once (done or PoolClosedError); 100 create/shutdown cycles with tasks in flight lose no
// task and leave memory flat (freed stacks are reused whole and ended workers' externref
// slabs freed: src/web/worker_alloc.rs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, PoolClosedError, diagnostics, memoryBytes } from 'ringpool';
import { MEMORY_SLACK } from './memory-allowance.mjs';
import { assertInvariant, channel } from './helpers.mjs';

test('shutdown({force: true}) during load: every task settles once, as done or PoolClosedError', async () => {
  const pool = await Pool.create({ workers: 2, queueCapacity: 16 });
  let done = 0, forced = null;
  // Each JS body reports its index on a channel (helpers.mjs), in either mode.
  const report = channel();
  const body = report.task(async (i) => { await report(i); return i; });
  const tasks = Array.from({ length: 200 }, (_, i) => (i % 3 ? pool.submit(body, [i]) : pool.submit(diagnostics.spin(1))).then(
    (v) => { done++; if (done === 20) forced = pool.shutdown({ force: true }); return { ok: true, v }; },
    (e) => ({ ok: false, e }),
  ));
  const outcomes = await Promise.all(tasks);
  await forced;
  const closed = outcomes.filter((o) => !o.ok);
  assert.ok(closed.length > 0, 'the force came before the end');
  for (const o of closed) assert.ok(o.e instanceof PoolClosedError, String(o.e));
  assert.equal(outcomes.length, 200);
  // Every body whose task resolved reported; a body ran at most once.
  const runs = new Map(), resolved = outcomes.filter((o, i) => o.ok && i % 3).length;
  for (let seen = 0; seen < resolved;) {
    const i = await report.next();
    runs.set(i, (runs.get(i) ?? 0) + 1);
    if (outcomes[i].ok) seen++;
  }
  for (let i = 0; i < 200; i++) {
    if (i % 3 === 0) continue;
    assert.ok((runs.get(i) ?? 0) <= 1, `body ${i} ran ${runs.get(i)} times`);
    if (outcomes[i].ok) assert.deepEqual([outcomes[i].v, runs.get(i)], [i, 1], `task ${i}`);
  }
  report.close();
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
  // 90 cycles × 2 workers; a stack per cycle (the failure this guards) would be 180 MiB. A
  // shut-down pool keeps its own record (ring, counters, ~1 KB) until its Pool object is
  // garbage-collected (wasm-bindgen's FinalizationRegistry), which the engine may put off:
  // up to 2 KiB per cycle is allowed for that.
  const grown = memoryBytes() - before;
  assert.ok(grown <= MEMORY_SLACK + 90 * 2048, `90 cycles grew memory by ${grown} bytes`);
});
