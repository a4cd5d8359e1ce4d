// Admission cost on the owner thread, per task: the synchronous `submitAll`/`trySubmit` call
// ("admit") and the time until every result is back ("total"), for Rust tasks, JS functions,
// JS functions with a (long) timeout, and JS functions sharing one AbortSignal. One worker, N tasks per call, the cases interleaved
// round by round; medians. `node bench/admission.mjs` (N=1000 ROUNDS=30; PKG=path/to/index.js
// runs another build, for an A/B in one sitting).
import { warnIfStale, median } from './harness.mjs';

if (!process.env.PKG) await warnIfStale(['pkg']);
const { Pool, diagnostics } = await import(process.env.PKG ?? '../pkg/index.js');
const N = Number(process.env.N ?? 1000);
const ROUNDS = Number(process.env.ROUNDS ?? 30);

const pool = await Pool.create({ workers: 1, queueCapacity: N });
const echo = (x) => x;
const pairs = () => Array.from({ length: N }, (_, i) => [echo, [i]]);
// Each case builds its tasks, then returns [start, promise] with the clock started at admission.
const cases = {
  'submitAll, Rust tasks': () => {
    const items = Array.from({ length: N }, () => diagnostics.noop());
    return [performance.now(), pool.submitAll(items)];
  },
  'submitAll, JS': () => {
    const items = pairs();
    return [performance.now(), pool.submitAll(items)];
  },
  'submitAll, JS + signal': () => {
    const items = pairs();
    const signal = new AbortController().signal;
    return [performance.now(), pool.submitAll(items, { signal })];
  },
  'trySubmit, JS': () => {
    const t = performance.now();
    const ps = [];
    for (let i = 0; i < N; i++) ps.push(pool.trySubmit(echo, [i]));
    return [t, Promise.all(ps)];
  },
  'trySubmit, JS + timeout': () => {
    const options = { timeout: 600_000 };
    const t = performance.now();
    const ps = [];
    for (let i = 0; i < N; i++) ps.push(pool.trySubmit(echo, [i], options));
    return [t, Promise.all(ps)];
  },
  'trySubmit, JS + signal': () => {
    const options = { signal: new AbortController().signal };
    const t = performance.now();
    const ps = [];
    for (let i = 0; i < N; i++) ps.push(pool.trySubmit(echo, [i], options));
    return [t, Promise.all(ps)];
  },
};

const res = Object.fromEntries(Object.keys(cases).map((k) => [k, { admit: [], total: [] }]));
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, run] of Object.entries(cases)) {
    const [t0, p] = run();
    const t1 = performance.now();
    const out = await p;
    const t2 = performance.now();
    if (out.length !== N) throw new Error(`${name}: ${out.length} results for ${N} tasks`);
    res[name].admit.push(((t1 - t0) * 1000) / N);
    res[name].total.push(((t2 - t0) * 1000) / N);
  }
}
await pool.shutdown();
console.log(`admission on the owner thread: 1 worker, ${N} tasks per call, ${ROUNDS} interleaved rounds (medians)`);
console.table(Object.fromEntries(Object.entries(res).map(([k, v]) => [k, {
  'admit µs/task': median(v.admit).toFixed(2),
  'total µs/task': median(v.total).toFixed(2),
}])));
// An older build (PKG=…) leaves the timeout case's timers pending for 10 minutes: do not wait.
process.exit(0);
