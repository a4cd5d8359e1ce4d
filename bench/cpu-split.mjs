// Diagnostic: where the CPU goes in the Node ~40 µs CPU scenario (issue 42: "say what the owner
// thread spends per task, and where"). ringpool, 2 workers (or WORKERS), 64 in flight, N tasks of
// `cpu(n)` calibrated to ~40 µs (US): each thread's CPU time from Linux's /proc/self/task, per
// task, and a CPU profile of the owner thread (node:inspector) summed by what runs there.
//   node bench/cpu-split.mjs            (PKG=path/to/index.js for another build)
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import { calibrate, closedLoop, microsPerCall } from './harness.mjs';
import { PEERS } from './peers/pools.mjs';
import { cpu } from './tasks.mjs';

if (!existsSync('/proc/self/task')) {
  console.error('bench/cpu-split.mjs: needs Linux (/proc/self/task) to read each thread\'s CPU time');
  process.exit(2);
}
await PEERS.ringpool.load();
const WORKERS = Number(process.env.WORKERS ?? os.availableParallelism());
const N = Number(process.env.N ?? 20_000);
const US = Number(process.env.US ?? 40);
const TICK_MS = 1000 / 100; // USER_HZ

/** CPU ms of every thread of this process (`ms`, and `sys`: of it, in the kernel), by thread id. */
function threads() {
  const out = new Map();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(tid, { ms: (Number(f[11]) + Number(f[12])) * TICK_MS, sys: Number(f[12]) * TICK_MS });
    } catch { /* the thread ended */ }
  }
  return out;
}

const n = calibrate(cpu, US);
const bodyUs = microsPerCall(cpu, n, 201);

const before = threads();
const pool = await PEERS.ringpool.make(WORKERS);
const workerTids = [...threads().keys()].filter((t) => !before.has(t));
const one = () => pool.run('cpu', n);
await closedLoop(one, 2_000, 64);

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 100 });
const a = threads();
await session.post('Profiler.start');
const w0 = performance.now();
const rate = await closedLoop(one, N, 64);
const wall = performance.now() - w0;
const { profile } = await session.post('Profiler.stop');
const b = threads();
await pool.close();
session.disconnect();

const perTask = (ms) => (ms * 1000 / N).toFixed(1);
const share = (ms) => `${(100 * ms / wall).toFixed(0)} % of a core`;
const cpuOf = (tids, key = 'ms') => tids.reduce((s, t) => s + (b.get(t)?.[key] ?? 0) - (a.get(t)?.[key] ?? 0), 0);
const main = String(process.pid);
// The threads Pool.create started that did real work: the workers (not their helpers).
const workers = workerTids.filter((t) => cpuOf([t]) > wall * 0.2);
const others = [...b.keys()].filter((t) => t !== main && !workers.includes(t));
console.log(`${Math.round(rate)} tasks/s, ${WORKERS} workers, 64 in flight, ${N} tasks of cpu(${n}) (${bodyUs.toFixed(1)} µs on this thread); ` +
  `no pool at all: ${Math.round(WORKERS * 1e6 / bodyUs)} tasks/s (${(100 * rate * bodyUs / (WORKERS * 1e6)).toFixed(0)} % reached)`);
console.log(`  owner thread:        ${perTask(cpuOf([main]))} µs of CPU per task, ${perTask(cpuOf([main], 'sys'))} of them in the kernel (${share(cpuOf([main]))})`);
console.log(`  worker threads:      ${perTask(cpuOf(workers))} µs of CPU per task, ~${bodyUs.toFixed(1)} of them the body, ${perTask(cpuOf(workers, 'sys'))} in the kernel (${workers.map((t) => share(cpuOf([t]))).join(', ')})`);
console.log(`  other threads (V8's compiler and GC helpers, libuv): ${perTask(cpuOf(others))} µs per task (${share(cpuOf(others))})`);

// The owner thread's profile, summed by what runs there.
const byId = new Map(profile.nodes.map((p) => [p.id, p]));
const kinds = new Map();
let total = 0;
profile.samples.forEach((id, i) => {
  const { functionName: fn, url } = byId.get(id).callFrame;
  const d = profile.timeDeltas[i] ?? 0;
  total += d;
  const kind = fn === '(idle)' ? 'idle (waiting for the next event)'
    : fn === '(garbage collector)' ? 'garbage collection'
    : fn === '(program)' ? 'V8 and Node internals (message and promise machinery)'
    : /harness\.mjs/.test(url) ? 'the benchmark loop (closedLoop)'
    : /^(wasm-function|js-to-wasm|wasm-to-js)/.test(fn) || url.startsWith('wasm:') ? 'ringpool: wasm (admission, the scheduler, delivery) and its calls from/to JS'
    : /ringpool|\/pkg\//.test(url) ? 'ringpool: JS (the glue, promises, the bell)'
    : url.startsWith('node:') || url === '' ? 'Node and V8 built-ins'
    : 'other';
  kinds.set(kind, (kinds.get(kind) ?? 0) + d);
});
console.log('  the owner thread by what runs there (CPU profile; µs per task):');
for (const [k, v] of [...kinds].sort((x, y) => y[1] - x[1])) console.log(`    ${(v / N).toFixed(2).padStart(6)}  ${k}`);
