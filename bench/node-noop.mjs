// No-op task throughput (closed loop, same workers, same tasks in flight) and single-task
// round-trip latency: ringpool vs piscina, measured side by side in one run with interleaved
// rounds; medians reported. `npm run build` first; run with `node bench/node-noop.mjs`.
import Piscina from 'piscina';
import { Pool, diagnostics } from '../pkg/index.js';

const WORKERS = 2, IN_FLIGHT = 64, TASKS = 20000, LAT = 2000, ROUNDS = 5;
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

async function closedLoop(submit) {
  let started = 0;
  const t0 = performance.now();
  const lane = async () => { while (started < TASKS) { started++; await submit(); } };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  return TASKS / ((performance.now() - t0) / 1000);
}

async function latency(submit) {
  const xs = [];
  for (let i = 0; i < LAT; i++) { const t = performance.now(); await submit(); xs.push((performance.now() - t) * 1000); }
  return median(xs);
}

const sides = {
  'ringpool (JS fn)': async () => {
    const pool = await Pool.create({ workers: WORKERS, queueCapacity: IN_FLIGHT });
    const noop = () => undefined;
    return { submit: () => pool.trySubmit(noop), close: () => pool.shutdown() };
  },
  'ringpool (Rust task)': async () => {
    const pool = await Pool.create({ workers: WORKERS, queueCapacity: IN_FLIGHT });
    return { submit: () => pool.trySubmit(diagnostics.noop()), close: () => pool.shutdown() };
  },
  piscina: async () => {
    const pool = new Piscina({ filename: new URL('./piscina-noop-worker.mjs', import.meta.url).href, minThreads: WORKERS, maxThreads: WORKERS });
    return { submit: () => pool.run(null), close: () => pool.destroy() };
  },
};

const results = Object.fromEntries(Object.keys(sides).map((k) => [k, { tput: [], p50: [] }]));
for (let r = 0; r < ROUNDS; r++) {
  const order = Object.keys(sides);
  if (r % 2) order.reverse();
  for (const name of order) {
    const s = await sides[name]();
    for (let i = 0; i < 500; i++) await s.submit(); // warm-up
    results[name].tput.push(await closedLoop(s.submit));
    results[name].p50.push(await latency(s.submit));
    await s.close();
  }
}
const base = results.piscina;
console.log(`no-op tasks, Node ${process.version}, ${WORKERS} workers, ${IN_FLIGHT} in flight, ${ROUNDS} interleaved rounds (medians)`);
console.table(Object.fromEntries(Object.entries(results).map(([k, v]) => [k, {
  'tasks/s': Math.round(median(v.tput)), 'vs piscina': (median(v.tput) / median(base.tput)).toFixed(2) + '×',
  'p50 latency (µs)': median(v.p50).toFixed(1), 'p50 vs piscina': (median(v.p50) / median(base.p50)).toFixed(2) + '×',
}])));
