// A long paired A/B of two demo modes in one page load, with where the CPU went: the runs
// alternate (A, B, A, B, …), and around each run the renderer's threads are read from
// /proc/<pid>/task/<tid>/{schedstat,status} (Linux), so besides the wall time it shows the
// CPU the page's thread and the workers used, how often workers were preempted and how long
// they waited for a core. That is how the per-tile wake-up cost of one promise per tile was
// found (bench/README.md).
//   node bench/demo-ab.mjs                         (ringpool vs rayon, 60 pairs)
//   MODES=ringpool-each,ringpool N=80 TILE=32 node bench/demo-ab.mjs
//   OUT=ratios.json node bench/demo-ab.mjs          (also writes the paired ratios, for pooling runs)
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { median, withChromium } from './harness.mjs';

const N = Number(process.env.N ?? 60), TILE = Number(process.env.TILE ?? 64), SIZE = Number(process.env.SIZE ?? 4096);
const [A, B] = (process.env.MODES ?? 'ringpool,rayon').split(',');

/** Per-thread counters of Chromium's renderer processes. */
function threads() {
  const out = new Map();
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    let cmd;
    try { cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8'); } catch { continue; }
    if (!cmd.includes('--type=renderer')) continue;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const comm = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
        const [cpu, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
        const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
        const count = (k) => Number(status.match(new RegExp(`^${k}:\\s+(\\d+)`, 'm'))[1]);
        out.set(tid, { comm, cpu, wait, sleeps: count('voluntary_ctxt_switches'), preempted: count('nonvoluntary_ctxt_switches') });
      } catch { /* the thread ended */ }
    }
  }
  return out;
}

/** What threads named like `which` used between two snapshots (ms, counts). */
function used(before, after, which) {
  const sum = { cpu: 0, wait: 0, sleeps: 0, preempted: 0 };
  for (const [tid, b] of after) {
    const a = before.get(tid);
    if (!a || !which(b.comm)) continue;
    for (const k of Object.keys(sum)) sum[k] += b[k] - a[k];
  }
  return { ...sum, cpu: sum.cpu / 1e6, wait: sum.wait / 1e6 };
}

await withChromium(async (browser, base) => {
  const page = await browser.newPage();
  await page.goto(`${base}/`);
  await page.evaluate(() => window.demo.ready);
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  const runs = { [A]: [], [B]: [] };
  for (let i = 0; i <= N; i++) {
    for (const mode of [A, B]) {
      const before = threads();
      const r = await page.evaluate((o) => window.demo.run(o), { filter: 'blur', mode, workers: cores, width: SIZE, height: SIZE, tileRows: TILE, params: { radius: 8 }, show: false });
      const after = threads();
      if (i > 0) runs[mode].push({ ms: r.ms, page: used(before, after, (c) => c === 'chromium'), workers: used(before, after, (c) => c.startsWith('DedicatedWorker')) });
    }
  }
  console.log(`blur r=8 on ${SIZE}×${SIZE}, tiles of ${TILE} rows, ${cores} workers/threads; ${N} alternating pairs; medians per run`);
  console.table(Object.fromEntries([A, B].map((m) => {
    const xs = runs[m], med = (f) => median(xs.map(f));
    return [m, { 'wall ms': med((x) => x.ms).toFixed(1), 'page thread CPU ms': med((x) => x.page.cpu).toFixed(1), 'page thread wake-ups': med((x) => x.page.sleeps),
      'worker CPU ms': med((x) => x.workers.cpu).toFixed(1), 'workers preempted': med((x) => x.workers.preempted), 'workers waiting for a core ms': med((x) => x.workers.wait).toFixed(1) }];
  })));
  const paired = runs[B].map((x, i) => x.ms / runs[A][i].ms);
  if (process.env.OUT) writeFileSync(process.env.OUT, JSON.stringify(paired));
  const ratios = [...paired].sort((a, b) => a - b);
  const q = (p) => ratios[Math.floor(p * (ratios.length - 1))].toFixed(3);
  const geo = Math.exp(ratios.reduce((s, x) => s + Math.log(x), 0) / ratios.length);
  console.log(`${A} vs ${B} (time of ${B} / time of ${A} in the same pair, > 1: ${A} faster): median ${q(0.5)}, quartiles ${q(0.25)}–${q(0.75)}, geometric mean ${geo.toFixed(3)}`);
  console.log('(the page thread\'s CPU includes the checksum and clearing of the 64 MiB output after each run, the same in every mode)');
});
