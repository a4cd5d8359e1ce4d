// The app a user of any bundler writes: import ringpool, create a pool, submit, map, shut
// down. tests/bundlers/run.mjs builds it with each bundler and reads window.__result.
import { Pool, PanicError, diagnostics } from 'ringpool';

const out = {};
try {
  const pool = await Pool.create({ workers: 2, queueCapacity: 16 });
  out.mode = pool.mode;
  out.sum = await pool.trySubmit((a, b) => a + b, [2, 3]);
  out.submitted = await pool.submit(async (x) => { await null; return x * 2; }, [21]);
  out.mapped = [];
  for await (const y of pool.map((x) => x * x, [1, 2, 3, 4])) out.mapped.push(y);
  try {
    await pool.trySubmit(diagnostics.panic('boom'));
  } catch (e) {
    out.panic = e instanceof PanicError ? e.panicMessage : `not a PanicError: ${e}`;
  }
  // Both workers ran (each task reports the worker it ran on; a broadcast reaches every one).
  out.workers = (await pool.broadcast(function () { return this.workerIndex; })).sort();
  await pool.shutdown();
  out.ok = true;
} catch (e) {
  out.error = String(e?.stack ?? e);
}
window.__result = out;
document.getElementById('out').textContent = JSON.stringify(out, null, 2);
