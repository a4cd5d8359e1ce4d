// V8 <= 12 (Node 20 and 22) aborted the whole process when code calling the pool was
// deoptimised while the call was inside wasm: TurboFan inlines the call into the wasm export,
// and its deoptimiser cannot rebuild a JS value (externref) returned from there. JS that the
// pool runs during a call — an options getter here, an abort listener, a task's toString —
// can trigger exactly that. The package turns the inlining off on those versions (index.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool } from 'ringpool';

test('a caller deoptimised by JS the pool runs mid-call keeps working', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 64 });
  const cfg = { k: 1 };
  let trip = false;
  let tripped = 0;
  // Read by the pool inside trySubmit; once, it changes a field the hot caller was optimised on.
  const options = { get timeout() { if (trip) { trip = false; tripped++; cfg.k = { not: 'a small integer' }; } return undefined; } };
  const hot = (i) => [pool.trySubmit((x) => x, [i], options), cfg.k];
  let sum = 0;
  for (let round = 0; round < 200; round++) {
    const calls = [];
    for (let i = 0; i < 50; i++) calls.push(hot(i));
    for (const x of await Promise.all(calls.map(([p]) => p))) sum += x;
    if (round === 150) trip = true; // TurboFan has optimised `hot` by now
  }
  assert.equal(tripped, 1);
  assert.deepEqual(cfg.k, { not: 'a small integer' });
  assert.equal(sum, 200 * (49 * 50) / 2);
  await pool.shutdown();
});

if (typeof process === 'object' && process.versions?.node && !process.versions.bun && !globalThis.Deno) {
  test('the deoptimisation really happens inside the call (V8 natives, in a child process)', async () => {
    const { spawnSync } = await import('node:child_process');
    const r = spawnSync(process.execPath, ['--allow-natives-syntax', new URL('./fixture-deopt-probe.mjs', import.meta.url).pathname],
      { cwd: new URL('.', import.meta.url), encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    const { before, after, value } = JSON.parse(r.stdout);
    const OPTIMIZED = 1 << 4; // V8's OptimizationStatus::kOptimized
    assert.ok(before & OPTIMIZED, `the caller was optimised before the call (status ${before})`);
    assert.ok(!(after & OPTIMIZED), `the getter the pool ran mid-call deoptimised it (status ${after})`);
    assert.equal(value, 4, 'and the call still delivered its task');
  });
} else {
  test('the deoptimisation really happens inside the call (V8 natives, in a child process)', { skip: 'needs Node (V8 natives syntax)' }, () => {});
}
