// `npm run bench:doorbell`: how should a worker tell the main thread that results are ready?
// Measures, in one run with interleaved rounds, both doorbells ringpool implements:
//   waitAsync — the worker does memory.atomic.notify; the main thread waits with Atomics.waitAsync;
//   message   — the default: the worker posts one message to the main thread while no more
//               tasks are in flight than workers, and notifies as above otherwise (so the
//               bursts below ring the same way in both modes; the round trips differ).
// Both batch: only the completion that finds the completion stack empty rings.
// Prints the median round-trip latency of one no-op task and the throughput of bursts.
import { Pool, diagnostics } from '../pkg/index.js';

const ROUNDS = 7, SEQUENTIAL = 2000, BURST = 256, BURSTS = 40;
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const workers = 2;

async function round(doorbell) {
  const pool = await Pool.create({ workers, queueCapacity: BURST, doorbell });
  for (let i = 0; i < 200; i++) await pool.trySubmit(diagnostics.noop()); // warm-up
  const lat = [];
  for (let i = 0; i < SEQUENTIAL; i++) {
    const t0 = performance.now();
    await pool.trySubmit(diagnostics.noop());
    lat.push((performance.now() - t0) * 1000);
  }
  const t0 = performance.now();
  for (let b = 0; b < BURSTS; b++) {
    const ps = [];
    for (let i = 0; i < BURST; i++) ps.push(pool.trySubmit(diagnostics.noop()));
    await Promise.all(ps);
  }
  const perSec = (BURST * BURSTS) / ((performance.now() - t0) / 1000);
  await pool.shutdown();
  return { p50: median(lat), p99: [...lat].sort((a, b) => a - b)[Math.floor(lat.length * 0.99)], perSec };
}

const results = { waitAsync: [], message: [] };
for (let r = 0; r < ROUNDS; r++) {
  for (const mode of r % 2 ? ['message', 'waitAsync'] : ['waitAsync', 'message']) results[mode].push(await round(mode));
}
const summary = Object.fromEntries(Object.entries(results).map(([mode, rs]) => [mode, {
  p50_us: median(rs.map((x) => x.p50)), p99_us: median(rs.map((x) => x.p99)), burst_tasks_per_s: median(rs.map((x) => x.perSec)),
}]));
console.log(`doorbell comparison, Node ${process.version}, ${workers} workers, ${ROUNDS} interleaved rounds (medians)`);
console.table(Object.fromEntries(Object.entries(summary).map(([m, s]) => [m, {
  'p50 round trip (µs)': s.p50_us.toFixed(1), 'p99 (µs)': s.p99_us.toFixed(1), 'burst throughput (tasks/s)': Math.round(s.burst_tasks_per_s),
}])));
console.log(`ratio message/waitAsync p50: ${(summary.message.p50_us / summary.waitAsync.p50_us).toFixed(2)}, ` +
  `throughput: ${(summary.message.burst_tasks_per_s / summary.waitAsync.burst_tasks_per_s).toFixed(2)}`);
