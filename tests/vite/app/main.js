// A small app a Vite user would write; tests/vite/run.mjs reads window.__result.
import { Pool, PanicError, diagnostics } from 'ringpool';

const out = {};
try {
  const pool = await Pool.create({ workers: 2, queueCapacity: 16 });
  out.sum = await pool.trySubmit((a, b) => a + b, [2, 3]);
  const view = pool.alloc(Int32Array, 4);
  await pool.trySubmit((v) => { for (let i = 0; i < v.length; i++) Atomics.store(v, i, (i + 1) * 10); }, [view]);
  out.view = Array.from(view);
  pool.free(view);
  out.async = await pool.trySubmit(async (x) => { await null; return x * 2; }, [21]);
  try {
    await pool.trySubmit(diagnostics.panic('boom'));
  } catch (e) {
    out.panic = e instanceof PanicError ? e.panicMessage : `not a PanicError: ${e}`;
  }
  // Two tasks that each wait (up to 10 s) for the other: each sees the other only if both
  // workers run at once. One worker would give 1 (the first gives up, then the second runs).
  const met = pool.alloc(Int32Array, 1);
  const meet = (m) => {
    Atomics.add(m, 0, 1);
    Atomics.notify(m, 0);
    const until = Date.now() + 10_000;
    let v;
    while ((v = Atomics.load(m, 0)) < 2 && Date.now() < until) Atomics.wait(m, 0, v, until - Date.now());
    return Atomics.load(m, 0) >= 2 && v >= 2;
  };
  out.workersSeen = (await Promise.all([pool.trySubmit(meet, [met]), pool.trySubmit(meet, [met])])).filter((met) => met).length;
  await pool.shutdown();
  out.ok = true;
} catch (e) {
  out.error = String(e?.stack ?? e);
}
window.__result = out;
document.getElementById('out').textContent = JSON.stringify(out, null, 2);
