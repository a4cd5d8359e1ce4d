// Node scenarios: ringpool vs piscina, tinypool and workerpool with the same worker count, the
// same tasks in flight and the same task bodies (bench/tasks.mjs). Every round builds each
// pool afresh, in a rotated order, so drift on this shared machine hits all peers alike;
// medians over rounds are reported. `node bench/node.mjs` prints tables; `run()` is what
// bench/run.mjs calls. SCENARIOS=noop,record,cpu,cpu40,args,argsread,results,roundtrip,startup,fresh ROUNDS=3 narrow it down.
import os from 'node:os';
import { execFileSync } from 'node:child_process';
import { cpu } from './tasks.mjs';
import { calibrate, closedLoop, median, microsPerCall, pct, rotated, warnIfStale } from './harness.mjs';
import { PEERS, BARE } from './peers/pools.mjs';

// PKG=path/to/index.js runs another build (an A/B in one sitting), as bench/admission.mjs.
if (!process.env.PKG) await warnIfStale(['pkg']);
await Promise.all(Object.values(PEERS).map((p) => p.load()));
const { diagnostics } = PEERS.ringpool.lib;

const CORES = os.availableParallelism();
const ROUNDS = Number(process.env.ROUNDS ?? 5);

async function latencies(submit, n) {
  const xs = [];
  for (let i = 0; i < n; i++) { const t = performance.now(); await submit(); xs.push((performance.now() - t) * 1000); }
  return { p50: median(xs), p99: pct(xs, 0.99) };
}

// One scenario: for every peer (and variant), throughput and latency medians over rounds.
async function scenario(name, { workers, tasks, inFlight, lat, variants }) {
  const acc = {};
  for (let r = 0; r < ROUNDS; r++) {
    for (const v of rotated(Object.keys(variants), r)) {
      const { peer, task, arg, rust, fresh, moved } = variants[v];
      const p = await (peer === 'bare' ? BARE : PEERS[peer]).make(workers);
      const a = typeof arg === 'function' ? arg(p) : arg;
      // `rust`: a Rust Task per submission (ringpool only) instead of a JS body. `fresh`: a new
      // Uint8Array of that many bytes per task (first and last byte set), handed over with the
      // peer's transfer list when `moved`.
      const buffer = () => { const b = new Uint8Array(fresh); b[0] = 1; b[fresh - 1] = 2; return b; };
      const submit = rust ? () => p.pool.trySubmit(rust())
        : fresh ? (moved ? () => p.moved(task, buffer()) : () => p.run(task, buffer()))
        : () => p.run(task, a);
      for (let i = 0; i < 200; i++) await submit(); // warm-up: JIT, worker start
      const tput = await closedLoop(submit, tasks, inFlight);
      const l = lat ? await latencies(submit, lat) : null;
      await p.close();
      (acc[v] ??= { tput: [], p50: [], p99: [] }).tput.push(tput);
      if (l) { acc[v].p50.push(l.p50); acc[v].p99.push(l.p99); }
    }
  }
  const out = {};
  for (const [v, x] of Object.entries(acc)) {
    out[v] = { tasksPerSec: median(x.tput), p50us: x.p50.length ? median(x.p50) : null, p99us: x.p99.length ? median(x.p99) : null };
  }
  return { name, workers, tasks, inFlight, rounds: ROUNDS, results: out };
}

function print(s, base = 'piscina') {
  console.log(`\n${s.title ?? s.name}: ${s.workers} workers, ${s.inFlight} in flight, ${s.rounds} interleaved rounds (medians)`);
  const b = s.results[base];
  console.table(Object.fromEntries(Object.entries(s.results).map(([k, v]) => [k, {
    'tasks/s': Math.round(v.tasksPerSec),
    [`vs ${base}`]: `${(v.tasksPerSec / b.tasksPerSec).toFixed(2)}×`,
    'p50 µs': v.p50us?.toFixed(1) ?? '—',
    'p99 µs': v.p99us?.toFixed(1) ?? '—',
    [`p50 vs ${base}`]: v.p50us ? `${(v.p50us / b.p50us).toFixed(2)}×` : '—',
  }])));
}

const peersFor = (task, arg) => Object.fromEntries(Object.keys(PEERS).map((p) => [p, { peer: p, task, arg }]));

export async function run(only = process.env.SCENARIOS?.split(',')) {
  const want = (s) => !only || only.includes(s);
  const workers = CORES;
  const out = { cores: CORES, node: process.version, scenarios: [] };
  const add = (s, title) => { s.title = title; out.scenarios.push(s); print(s); };
  if (want('noop')) {
    const variants = peersFor('noop', undefined);
    variants['ringpool (Rust task)'] = { peer: 'ringpool', rust: diagnostics.noop };
    add(await scenario('noop', { workers, tasks: 20_000, inFlight: 64, lat: 2_000, variants }), 'no-op task');
  }
  if (want('record')) {
    add(await scenario('record', { workers, tasks: 20_000, inFlight: 64, lat: 1_000, variants: peersFor('record', 7) }), 'object result (six keys and a nested array)');
  }
  const n = calibrate(cpu, 100);
  if (want('cpu')) {
    out.cpuIterations = n;
    add(await scenario('cpu', { workers, tasks: 4_000, inFlight: 64, lat: 1_000, variants: peersFor('cpu', n) }), `CPU task (~100 µs: cpu(${n}))`);
  }
  if (want('cpu40')) {
    // Issue 25's short CPU task, with the no-pool limit beside it: every core running the
    // same body back to back with no pool at all (its time measured on this thread).
    const n40 = calibrate(cpu, 40);
    const bodyUs = microsPerCall(cpu, n40, 201);
    out.cpu40 = { iterations: n40, bodyUs, limit: (CORES * 1e6) / bodyUs };
    add(await scenario('cpu40', { workers, tasks: 10_000, inFlight: 64, lat: 0, variants: peersFor('cpu', n40) }), `CPU task (~40 µs: cpu(${n40}))`);
    const r = out.scenarios.at(-1).results;
    console.log(`no-pool limit: ${CORES} cores × one ${out.cpu40.bodyUs.toFixed(1)} µs body each = ${Math.round(out.cpu40.limit)} tasks/s; ` +
      Object.entries(r).map(([k, v]) => `${k} ${(100 * v.tasksPerSec / out.cpu40.limit).toFixed(0)} %`).join(', '));
  }
  if (want('bytes')) {
    const copy = new Uint8Array(1 << 20).fill(7);
    const variants = peersFor('bytes', copy);
    variants['ringpool (pool.alloc view)'] = { peer: 'ringpool', task: 'bytes', arg: (p) => p.pool.alloc(Uint8Array, 1 << 20).fill(7) };
    add(await scenario('bytes', { workers, tasks: 2_000, inFlight: 16, lat: 500, variants }), '1 MiB Uint8Array argument (copied; ringpool also by view)');
  }
  const KiB = 1024, sizes = [64 * KiB, 256 * KiB, 1024 * KiB, 4096 * KiB];
  const label = (n) => (n >= 1024 * KiB ? `${n / 1024 / KiB} MiB` : `${n / KiB} KiB`);
  // Tasks per run: 4,000 at 64 KiB, 3,000 at 256 KiB and 1 MiB, 1,000 at 4 MiB. With 1,000
  // (0.1–0.3 s at 256 KiB and 1 MiB, a few of the workers' collection cycles) one peer's
  // ratio moved by ±10 % from run to run (docs/notes/2026-12-06-node-arguments-workers-wait.md).
  const payloadTasks = (size) => (size > 1024 * KiB ? 1000 : Math.max(3000, Math.round(4000 * 64 * KiB / size)));
  // A fresh buffer per task for every peer (a transferred one cannot be sent twice); the
  // peers hand it over with their transfer lists, ringpool both by value and with `transfer`.
  // `args`: the body reads the length, the first and the last byte; `argsread`: every byte.
  for (const [scenarioName, task, what] of [['args', 'bytes', 'the body reads 3 bytes'], ['argsread', 'sum', 'the body reads every byte']]) {
    if (!want(scenarioName)) continue;
    for (const size of sizes) {
      // `bare worker_threads`: the same crossing with no pool at all, the floor any pool that
      // posts the buffer pays
      // (docs/notes/2026-12-06-node-arguments-owner-collections.md).
      const variants = Object.fromEntries(Object.keys(PEERS).map((p) => [p, { peer: p, task, fresh: size, moved: p !== 'ringpool' }]));
      variants['bare worker_threads'] = { peer: 'bare', task, fresh: size, moved: true };
      variants['ringpool (transfer)'] = { peer: 'ringpool', task, fresh: size, moved: true };
      const tasks = payloadTasks(size);
      add(await scenario(`${scenarioName}-${size}`, { workers, tasks, inFlight: 64, lat: 0, variants }), `${label(size)} Uint8Array argument, ${what} (a new one per task; peers: transfer list)`);
    }
  }
  if (want('results')) {
    for (const size of sizes) {
      const tasks = payloadTasks(size);
      add(await scenario(`results-${size}`, { workers, tasks, inFlight: 64, lat: 0, variants: peersFor('made', size) }), `${label(size)} Uint8Array result (made by the task, sent back by value)`);
    }
  }
  if (want('roundtrip')) {
    // One task at a time (each awaited before the next), at several worker counts.
    out.roundtrip = { workers: [1, 2, 4, 8], results: {} };
    for (const w of out.roundtrip.workers) {
      const s = await scenario(`roundtrip-${w}`, { workers: w, tasks: 200, inFlight: 1, lat: 2_000, variants: peersFor('noop', undefined) });
      for (const [k, v] of Object.entries(s.results)) (out.roundtrip.results[k] ??= []).push({ p50: v.p50us, p99: v.p99us });
    }
    console.log(`\nsingle-task round trips (no-op, one at a time, 2,000 per round), µs, ${ROUNDS} rounds (medians)`);
    const pis = out.roundtrip.results.piscina;
    console.table(Object.fromEntries(Object.entries(out.roundtrip.results).map(([k, xs]) => [k, Object.fromEntries(xs.flatMap((x, i) => [
      [`${out.roundtrip.workers[i]}w p50`, `${x.p50.toFixed(1)} (${(x.p50 / pis[i].p50).toFixed(2)}×)`],
      [`${out.roundtrip.workers[i]}w p99`, x.p99.toFixed(1)],
    ]))])));
  }
  if (want('startup')) {
    // Pool.create → first no-op result → shutdown, a fresh pool each time, rotated order.
    const times = {};
    for (let r = 0; r < Math.max(ROUNDS, 5) * 3; r++) {
      for (const peer of rotated(Object.keys(PEERS), r)) {
        const t = performance.now();
        const p = await PEERS[peer].make(workers);
        await p.run('noop', undefined);
        await p.close();
        (times[peer] ??= []).push(performance.now() - t);
      }
    }
    out.startup = Object.fromEntries(Object.entries(times).map(([k, xs]) => [k, median(xs.slice(1))]));
    console.log(`\nstart-up: Pool.create → first no-op result → shutdown, ${workers} workers, median ms (first round left out)`);
    console.table(Object.fromEntries(Object.entries(out.startup).map(([k, ms]) => [k, { ms: ms.toFixed(1), 'vs piscina': `${(ms / out.startup.piscina).toFixed(2)}×` }])));
  }
  if (want('fresh')) {
    // The same in a fresh process each time, including the import of the package
    // (bench/peers/fresh.mjs), rotated order; `wall` also counts Node's boot and exit.
    const times = {};
    for (let r = 0; r < Math.max(ROUNDS, 5) * 2; r++) {
      for (const peer of rotated(Object.keys(PEERS), r)) {
        const t = performance.now();
        const printed = execFileSync(process.execPath, [new URL('./peers/fresh.mjs', import.meta.url).pathname, peer, String(workers)], { encoding: 'utf8', env: process.env });
        const wall = performance.now() - t;
        const m = JSON.parse(printed.trim().split('\n').pop());
        (times[peer] ??= []).push({ ...m, wall });
      }
    }
    out.fresh = Object.fromEntries(Object.entries(times).map(([k, xs]) => [k, {
      import: median(xs.map((x) => x.import)), total: median(xs.map((x) => x.total)), wall: median(xs.map((x) => x.wall)),
    }]));
    console.log(`\nstart-up in a fresh process: import → Pool.create → first no-op result → shutdown, ${workers} workers, median ms`);
    console.table(Object.fromEntries(Object.entries(out.fresh).map(([k, v]) => [k, {
      import: v.import.toFixed(1), 'import + run': v.total.toFixed(1), 'vs piscina': `${(v.total / out.fresh.piscina.total).toFixed(2)}×`, 'process wall': v.wall.toFixed(1),
    }])));
  }
  if (want('scaling')) {
    out.scaling = { cpuIterations: n, workers: [], results: {} };
    for (let w = 1; w <= CORES; w++) {
      const s = await scenario(`scaling-${w}`, { workers: w, tasks: 2_000 * w, inFlight: 64, lat: 0, variants: peersFor('cpu', n) });
      out.scaling.workers.push(w);
      for (const [k, v] of Object.entries(s.results)) (out.scaling.results[k] ??= []).push(v.tasksPerSec);
    }
    console.log(`\nscaling: CPU-task (~100 µs) tasks/s for 1..${CORES} workers, ${ROUNDS} rounds (medians)`);
    console.table(Object.fromEntries(Object.entries(out.scaling.results).map(([k, xs]) => [k, Object.fromEntries(xs.map((x, i) => [`${i + 1} worker${i ? 's' : ''}`, Math.round(x)]))])));
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
