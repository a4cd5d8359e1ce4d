// A long paired A/B of two demo modes in one page load, with where the CPU went: the runs
// alternate in ABBA order (A B, B A, A B, …), and around each run the renderer's threads are
// read from /proc/<pid>/task/<tid>/{schedstat,status} (Linux), so besides the wall time it
// shows the CPU the page's thread and the workers used, how often workers were preempted and
// how long they waited for a core. That is how the per-tile wake-up cost of one promise per
// tile was found (docs/notes/2026-12-06-demo-vs-wasm-bindgen-rayon.md). From each run's tile trace it also shows the tiles' summed
// time, when the first tile started, the idle time between a worker's tiles, how far apart the
// workers finished, and how long after the last tile the page had the result.
//   node bench/demo-ab.mjs                         (ringpool vs rayon, 60 pairs)
//   MODES=ringpool-each,ringpool N=80 TILE=32 node bench/demo-ab.mjs
//   OUT=ratios.json node bench/demo-ab.mjs          (also writes the paired ratios, for pooling runs)
// Prints the median paired ratio with its 95 % bootstrap interval (as bench/demo.mjs does).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { demoRun, median, pairedRuns, pairedSummary, pct, withChromium } from './harness.mjs';

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

/** Where a run's time went, from its tile trace (ms; `gap` in µs per tile). */
function tiles(trace) {
  const lanes = new Map();
  for (const t of trace.tiles) lanes.set(t.worker, [...(lanes.get(t.worker) ?? []), t]);
  let busy = 0, idle = 0;
  const ends = [];
  for (const ts of lanes.values()) {
    ts.sort((a, b) => a.start - b.start);
    ts.forEach((t, i) => { busy += t.end - t.start; if (i) idle += t.start - ts[i - 1].end; });
    ends.push(ts.at(-1).end);
  }
  return { busy, first: Math.min(...trace.tiles.map((t) => t.start)) - trace.start, gap: (1000 * idle) / trace.tiles.length,
    apart: Math.max(...ends) - Math.min(...ends), after: trace.end - Math.max(...ends) };
}

await withChromium(async (browser, base) => {
  const page = await browser.newPage();
  await page.goto(`${base}/`);
  await page.evaluate(() => window.demo.ready);
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  const runs = { [A]: [], [B]: [] };
  const run = (mode) => async () => {
    const before = threads();
    const r = await demoRun(page, { mode, workers: cores, size: SIZE, tileRows: TILE });
    const after = threads();
    const trace = await page.evaluate(() => window.demo.trace());
    runs[mode].push({ ms: r.ms, page: used(before, after, (c) => c === 'chromium'), workers: used(before, after, (c) => c.startsWith('DedicatedWorker')), trace: tiles(trace) });
    return r.ms;
  };
  const { ratios: paired } = await pairedRuns(N, run(A), run(B));
  for (const m of [A, B]) runs[m].shift(); // the warm-up pair
  console.log(`blur r=8 on ${SIZE}×${SIZE}, tiles of ${TILE} rows, ${cores} workers/threads; ${N} alternating pairs; medians per run`);
  console.table(Object.fromEntries([A, B].map((m) => {
    const xs = runs[m], med = (f) => median(xs.map(f));
    return [m, { 'wall ms': med((x) => x.ms).toFixed(1), 'page thread CPU ms': med((x) => x.page.cpu).toFixed(1), 'page thread wake-ups': med((x) => x.page.sleeps),
      'worker CPU ms': med((x) => x.workers.cpu).toFixed(1), 'workers preempted': med((x) => x.workers.preempted), 'workers waiting for a core ms': med((x) => x.workers.wait).toFixed(1) }];
  })));
  console.log('where the time went, from the tile traces (window.demo.trace()); medians per run');
  console.table(Object.fromEntries([A, B].map((m) => {
    const med = (k) => median(runs[m].map((x) => x.trace[k]));
    return [m, { 'tiles busy ms (sum)': med('busy').toFixed(1), 'first tile starts ms': med('first').toFixed(2), 'idle between tiles µs': med('gap').toFixed(1),
      'workers finish apart ms': med('apart').toFixed(1), 'page has the result ms after': med('after').toFixed(2) }];
  })));
  if (process.env.OUT) writeFileSync(process.env.OUT, JSON.stringify(paired));
  const s = pairedSummary(paired);
  console.log(`${A} vs ${B} (time of ${B} / time of ${A} in the same pair, > 1: ${A} faster): median ${s.median.toFixed(3)}, `
    + `95 % interval ${s.lo.toFixed(3)}–${s.hi.toFixed(3)}, quartiles ${pct(paired, 0.25).toFixed(3)}–${pct(paired, 0.75).toFixed(3)}, ${A} faster in ${(100 * s.above).toFixed(0)} % of pairs`);
  console.log('(the page thread\'s CPU includes the checksum and clearing of the 64 MiB output after each run, the same in every mode)');
});
