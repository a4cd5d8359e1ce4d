// A caller awaiting one task at a time: where the owner thread may block (Node, Deno, Bun),
// the pool polls for the result of a task admitted into an idle pool for a few tens of µs
// (the owner's catch, src/README.md) and the worker skips its doorbell message then. Results
// that come inside that window, after it, or while other tasks are admitted must all arrive,
// in order, with nothing lost. (On a page's thread there is no catch; the same tests pass.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, diagnostics } from 'ringpool';
import { assertInvariant, gate, rejection } from './helpers.mjs';

/** Busy-waits `us` µs on the worker, then returns `v`. */
const spin = (us, v) => { const t = performance.now(); while ((performance.now() - t) * 1000 < us); return v; };
// Around the catch window (40 µs) and well past it, so that some catches miss and back off.
const DURATIONS = [0, 2, 10, 30, 38, 45, 80, 200, 1000, 0, 0, 5];

for (const workers of [1, 2, 4]) {
  test(`${workers} worker(s): tasks awaited one at a time all settle with their own results`, async () => {
    const pool = await Pool.create({ workers });
    for (let i = 0; i < 360; i++) {
      const us = DURATIONS[i % DURATIONS.length];
      assert.equal(await pool.trySubmit(spin, [us, i]), i);
      if (i % 7 === 0) assert.equal(await pool.trySubmit(diagnostics.noop()), undefined, 'a Rust task in between');
    }
    const s = assertInvariant(pool);
    assert.equal(s.completed, 360 + Math.ceil(360 / 7));
    assert.equal(s.queued + s.running, 0);
    await pool.shutdown();
  });
}

test('a solo task and a burst admitted in the same turn all settle', async () => {
  const pool = await Pool.create({ workers: 2 });
  for (let round = 0; round < 50; round++) {
    const first = pool.trySubmit(spin, [round % 3 === 0 ? 60 : 0, -1]);
    const burst = Array.from({ length: 8 }, (_, i) => pool.trySubmit(spin, [i, i]));
    assert.deepEqual(await Promise.all([first, ...burst]), [-1, 0, 1, 2, 3, 4, 5, 6, 7]);
    assert.equal(await pool.trySubmit(spin, [0, round]), round, 'then one alone again');
  }
  assertInvariant(pool);
  await pool.shutdown();
});

test('a solo task aborted or timed out while its result is awaited rejects, and the next one runs', async () => {
  const pool = await Pool.create({ workers: 1 });
  // The body waits until the caller opens its gate, so the catch finds nothing, and the
  // abort or the timeout comes while the task runs.
  for (let i = 0; i < 20; i++) {
    const g = gate(pool);
    const ac = new AbortController();
    const aborted = pool.trySubmit(g.wait, [g.g], { signal: ac.signal });
    await null; // the catch (a microtask queued by trySubmit) runs and gives up
    ac.abort(new Error(`stop ${i}`));
    assert.equal((await rejection(aborted)).message, `stop ${i}`);
    g.open();
    const h = gate(pool);
    const timedOut = pool.trySubmit(h.wait, [h.g], { timeout: 1 });
    assert.equal((await rejection(timedOut)).code, 'TIMEOUT');
    h.open();
    assert.equal(await pool.trySubmit(spin, [0, i]), i, 'the next task gets its own result');
  }
  const s = assertInvariant(pool);
  assert.equal(s.completed, 20);
  assert.equal(s.cancelled + s.timedOut, 40);
  await pool.shutdown();
});
