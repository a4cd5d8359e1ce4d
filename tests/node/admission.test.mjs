// Admission: a full queue answers at once, never more than workers + queueCapacity accepted
// and unfinished, shutdown drains what was accepted and then refuses with PoolClosedError.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, QueueFullError, PoolClosedError, diagnostics } from 'ringpool';
import { assertInvariant, channel, gate, gated, occupy, rejection } from './helpers.mjs';

test('queue full rejects at once; accepted ≤ workers + queueCapacity', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 1 });
  // The worker is held by a latch, so exactly one more task fits (the one slot).
  const { blocker, open } = await occupy(pool);
  const queued = pool.trySubmit(diagnostics.spin(0));
  const refused = [pool.trySubmit(diagnostics.spin(0)), pool.trySubmit(() => 1)];
  for (const p of refused) {
    const e = await rejection(p);
    assert.ok(e instanceof QueueFullError, String(e));
    assert.equal(e.code, 'QUEUE_FULL');
    assert.equal(e.message, 'the task queue is full');
  }
  let s = assertInvariant(pool);
  assert.deepEqual([s.accepted, s.rejected, s.running, s.queued], [2, 2, 1, 1]);
  open();
  await blocker;
  assert.equal(typeof await queued, 'number');
  s = assertInvariant(pool);
  assert.equal(s.accepted + s.rejected, 4);
  await pool.shutdown();
});

test('shutdown drains accepted tasks, then refuses', async () => {
  const pool = await Pool.create({ workers: 2, queueCapacity: 16 });
  const accepted = Array.from({ length: 12 }, () => pool.trySubmit(diagnostics.spin(1)));
  const done = pool.shutdown();
  const late = await rejection(pool.trySubmit(diagnostics.noop()));
  assert.ok(late instanceof PoolClosedError);
  assert.equal(late.code, 'POOL_CLOSED');
  await done;
  const values = await Promise.all(accepted);
  assert.equal(values.length, 12);
  const s = assertInvariant(pool);
  assert.equal(s.completed, 12);
  await pool.shutdown(); // a second call resolves at once
});

test('shutdown({timeout}) expiring rejects with TimeoutError and keeps tasks running', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 4 });
  const running = pool.trySubmit(diagnostics.spin(200));
  const queued = pool.trySubmit(diagnostics.noop());
  const err = await rejection(pool.shutdown({ timeout: 1 }));
  assert.equal(err.code, 'TIMEOUT');
  assert.ok(await rejection(pool.trySubmit(diagnostics.noop())) instanceof PoolClosedError);
  await pool.shutdown();
  assert.ok((await running) >= 200);
  assert.equal(await queued, undefined);
  await pool.shutdown({ timeout: 0 }); // already done: resolves whatever the timeout
});

test('shutdown({force: true}) rejects queued and running tasks with PoolClosedError at once', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 8 });
  const at = gate(pool);
  const report = channel();
  // Held until the gate opens; then it reports how many bodies ran on its worker meanwhile
  // (message mode: a queued task posted to a busy worker would run while this one awaits).
  const running = pool.trySubmit(gated(at, report.task(async () => {
    await report(globalThis.ran ?? 0);
    return 'late';
  })), [at.g]);
  await at.reached(1);
  const queued = Array.from({ length: 4 }, () => pool.trySubmit(() => { globalThis.ran = (globalThis.ran ?? 0) + 1; }));
  const stopping = pool.shutdown({ force: true });
  // All settle while the running body is still held: it only returns once the gate opens.
  const settled = await Promise.allSettled([running, ...queued]);
  at.open();
  for (const r of settled) {
    assert.equal(r.status, 'rejected');
    assert.ok(r.reason instanceof PoolClosedError);
  }
  assert.equal(await report.next(), 0, 'no queued body ran while the running one was held');
  await stopping;
  assert.equal(assertInvariant(pool).failed, 5);
});
