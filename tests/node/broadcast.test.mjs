// pool.broadcast: exactly once on every worker (result i from worker i), before that worker's
// next queued task; fails as a whole; the pool keeps working.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, PoolClosedError, QueueFullError, diagnostics } from 'ringpool';
import { assertInvariant, gate, gated, occupy, rejection } from './helpers.mjs';

// A task that keeps state in its worker's global scope, as a loaded model or a cache would.
function load(name) {
  globalThis.loaded = (globalThis.loaded ?? 0) + 1;
  globalThis.model = name;
  return globalThis.loaded;
}

test('runs once on every worker; result i comes from worker i; module state stays', async () => {
  const pool = await Pool.create({ workers: 3 });
  // Each copy waits at a gate that opens once all three reached it: a worker running two
  // copies would never let the count reach 3 (the test would time out), and none may be skipped.
  const meet = gate(pool);
  const copies = pool.broadcast(gated(meet, function () { return this.workerIndex; }), [meet.g]);
  await meet.reached(3);
  meet.open();
  const where = await copies;
  assert.deepEqual(where, [0, 1, 2], 'result i from worker i');
  assert.deepEqual(await pool.broadcast(load, ['weights-v1']), [1, 1, 1], 'once per worker');
  // Every worker has the state; plain tasks see it whichever worker runs them.
  const seen = await Promise.all(Array.from({ length: 12 }, () => pool.trySubmit(() => [globalThis.model, globalThis.loaded])));
  assert.deepEqual(new Set(seen.map(String)), new Set(['weights-v1,1']));
  assertInvariant(pool);
  await pool.shutdown();
});

test('each worker runs it before its next queued task', async () => {
  const pool = await Pool.create({ workers: 2, queueCapacity: 16 });
  const busy = [await occupy(pool), await occupy(pool)];
  // Each worker logs the ids it ran in its global scope: 100 = the broadcast.
  const mark = function (id) { (globalThis.log ??= []).push(id); return id; };
  const queued = Array.from({ length: 6 }, (_, i) => pool.trySubmit(mark, [i]));
  const b = pool.broadcast(mark, [100]);
  for (const { open } of busy) open();
  assert.deepEqual(await b, [100, 100]);
  await Promise.all([...busy.map((o) => o.blocker), ...queued]);
  const logs = await pool.broadcast(() => globalThis.log);
  for (const [w, mine] of logs.entries()) {
    assert.equal(mine[0], 100, `worker ${w} ran its copy first: ${mine}`);
    assert.equal(mine.filter((id) => id === 100).length, 1);
  }
  assert.deepEqual(logs.flat().filter((id) => id !== 100).sort(), [0, 1, 2, 3, 4, 5]);
  await pool.shutdown();
});

test('a failing copy rejects the whole; the other copies run; the pool keeps working', async () => {
  const pool = await Pool.create({ workers: 3 });
  const e = await rejection(pool.broadcast(function () {
    globalThis.ran = (globalThis.ran ?? 0) + 1;
    if (this.workerIndex === 1) throw new RangeError('copy failed');
    return 'ok';
  }));
  assert.ok(e instanceof RangeError);
  assert.equal(e.message, 'copy failed');
  assert.equal(await pool.trySubmit(() => 5), 5);
  assert.deepEqual(await pool.broadcast(() => globalThis.ran), [1, 1, 1], 'every copy ran, once');
  await pool.shutdown();
  assertInvariant(pool);
});

test('bad arguments, a full mailbox and a closed pool are refused and admit nothing', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 4 });
  for (const [task, re] of [[42, /^task must be a function .*got number$/], [diagnostics.noop(), /got a Task, which runs once$/], [null, /got null$/]]) {
    const e = await rejection(pool.broadcast(task));
    assert.ok(e instanceof TypeError, String(e));
    assert.match(e.message, re);
  }
  const args = await rejection(pool.broadcast((a) => a, 'not an array'));
  assert.ok(args instanceof TypeError);
  assert.match(args.message, /^args must be an array/);
  assert.equal(pool.stats().accepted, 0, 'refused calls admitted nothing');
  const { blocker: busy, open } = await occupy(pool);
  // The worker takes nothing while held, so its mailbox fills: 16 wait, the 17th is refused.
  const taken = Array.from({ length: 16 }, (_, i) => pool.broadcast((i) => i, [i]));
  const refused = await rejection(pool.broadcast(() => 'one too many'));
  assert.ok(refused instanceof QueueFullError, String(refused));
  assert.equal(refused.message, 'a worker already has 16 broadcasts to run');
  assert.equal(pool.stats().accepted, 1 + 16, 'the refused one admitted nothing');
  open();
  await busy;
  assert.deepEqual(await Promise.all(taken), Array.from({ length: 16 }, (_, i) => [i]));
  const done = pool.shutdown();
  assert.ok(await rejection(pool.broadcast(() => 1)) instanceof PoolClosedError);
  await done;
  assertInvariant(pool);
});
