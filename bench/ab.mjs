// A/B of two or more builds of the npm package in ONE process, for changes on the hot path:
// `PKGS=target/pkg-a,target/pkg-b node bench/ab.mjs`. Separate processes drift apart by more
// than a hot-path change moves (this 2-core machine is shared), so every round runs each build
// once, in a rotated order, on a fresh pool:
//   no-op   tasks/s in a closed loop (cores workers, 64 in flight, 20,000 tasks), as bench/node.mjs;
//   admit   µs per `trySubmit(fn, [i])` on the owner thread (1 worker, 1,000 per call), as
//           bench/admission.mjs.
// Prints medians per build and the paired ratio of each build to the first, with a 95 %
// bootstrap interval (bench/harness.mjs `pairedSummary`). ROUNDS=20 by default.
import os from 'node:os';
import { resolve, basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { closedLoop, median, pairedSummary } from './harness.mjs';

const dirs = (process.env.PKGS ?? '').split(',').filter(Boolean);
if (dirs.length < 2) {
  console.error('bench/ab.mjs: set PKGS to two or more package folders, e.g. PKGS=target/pkg-base,pkg');
  process.exit(2);
}
const ROUNDS = Number(process.env.ROUNDS ?? 20);
const CORES = os.availableParallelism();
const N = 1000;
const builds = [];
for (const dir of dirs) {
  const { Pool } = await import(pathToFileURL(resolve(dir, 'index.js')).href);
  builds.push({ name: basename(resolve(dir)), Pool, noop: [], admit: [] });
}

const noop = () => {};
const echo = (x) => x;

async function noopRate(Pool) {
  const pool = await Pool.create({ workers: CORES, queueCapacity: 1024 });
  await closedLoop(() => pool.trySubmit(noop), 2_000, 64); // warm-up
  const rate = await closedLoop(() => pool.trySubmit(noop), 20_000, 64);
  await pool.shutdown();
  return rate;
}

async function admitCost(Pool) {
  const pool = await Pool.create({ workers: 1, queueCapacity: N });
  let best = Infinity;
  for (let k = 0; k < 3; k++) {
    const ps = [];
    const t = performance.now();
    for (let i = 0; i < N; i++) ps.push(pool.trySubmit(echo, [i]));
    best = Math.min(best, ((performance.now() - t) * 1000) / N);
    if ((await Promise.all(ps)).length !== N) throw new Error('lost results');
  }
  await pool.shutdown();
  return best;
}

for (let r = -1; r < ROUNDS; r++) {
  for (let k = 0; k < builds.length; k++) {
    const b = builds[(k + Math.max(r, 0)) % builds.length];
    const rate = await noopRate(b.Pool);
    const admit = await admitCost(b.Pool);
    if (r >= 0) { b.noop.push(rate); b.admit.push(admit); }
  }
}

const base = builds[0];
const fmt = (s) => `${s.median.toFixed(3)} [${s.lo.toFixed(3)}, ${s.hi.toFixed(3)}]`;
console.log(`A/B in one process: ${ROUNDS} rounds, rotated order, ${CORES} workers for no-op, 1 for admit`);
console.table(Object.fromEntries(builds.map((b) => [b.name, {
  'no-op tasks/s': Math.round(median(b.noop)),
  [`no-op ÷ ${base.name}`]: b === base ? '1' : fmt(pairedSummary(b.noop.map((x, i) => x / base.noop[i]))),
  'admit µs/task': median(b.admit).toFixed(3),
  [`admit ÷ ${base.name}`]: b === base ? '1' : fmt(pairedSummary(b.admit.map((x, i) => x / base.admit[i]))),
}])));
process.exit(0);
