// Helpers every benchmark shares (Node scripts and bench/browser/index.html alike): medians,
// percentiles, the closed-loop driver, and (Node only) a served headless-Chromium page.
export const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
/** `keys` rotated by `round`: each round starts with the next one, so drift hits all alike. */
export const rotated = (keys, round) => keys.map((_, i) => keys[(i + round) % keys.length]);
export const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

/** µs that `fn(n)` takes on this thread: the median of `samples` timed calls. */
export function microsPerCall(fn, n, samples = 21) {
  const ts = [];
  for (let i = 0; i < samples; i++) { const t = performance.now(); fn(n); ts.push((performance.now() - t) * 1000); }
  return median(ts);
}

/** `n` so that `fn(n)` takes about `us` µs on this thread (`rounds` refinements from `start`). */
export function calibrate(fn, us, { start = 10_000, samples = 21, rounds = 6 } = {}) {
  let n = start;
  for (let k = 0; k < rounds; k++) n = Math.max(1, Math.round(n * us / Math.max(microsPerCall(fn, n, samples), 0.5)));
  return n;
}

/**
 * `pairs` pairs of runs of `a` and `b` (each resolves to a time), after one warm-up pair, in
 * ABBA order: who runs first flips every pair, so neither always runs first or always right
 * after the other. → the paired ratios b/a (> 1: `a` was faster) and both modes' times.
 */
export async function pairedRuns(pairs, a, b) {
  const ratios = [], times = { a: [], b: [] };
  for (let i = -1; i < pairs; i++) {
    let ta, tb;
    if (i % 2 === 0) { ta = await a(); tb = await b(); } else { tb = await b(); ta = await a(); }
    if (i < 0) continue;
    ratios.push(tb / ta);
    times.a.push(ta);
    times.b.push(tb);
  }
  return { ratios, times };
}

/**
 * The median of paired ratios with a 95 % bootstrap interval (2,000 resamples from a fixed
 * seed, so the same ratios always print the same interval), and the share of pairs above 1.
 */
export function pairedSummary(ratios) {
  let seed = 0x9e3779b9; // mulberry32
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const n = ratios.length;
  const boot = Array.from({ length: 2000 }, () => median(Array.from({ length: n }, () => ratios[Math.floor(random() * n)]))).sort((x, y) => x - y);
  return { n, median: median(ratios), lo: boot[50], hi: boot[1949], above: ratios.filter((r) => r > 1).length / n };
}

/** One `window.demo.run` on the demo page's `size`×`size` sample → {ms, checksum, …}; not drawn unless `show`. */
export const demoRun = (page, { filter = 'blur', mode, workers, size, tileRows = 64, radius = 8, amount = 1.5, show = false }) =>
  page.evaluate((o) => window.demo.run(o), { filter, mode, workers, width: size, height: size, tileRows, params: { radius, amount }, show });

/** `inFlight` lanes, each awaiting one task at a time, until `tasks` were started → tasks/s. */
export async function closedLoop(submit, tasks, inFlight) {
  let started = 0;
  const t0 = performance.now();
  const lane = async () => { while (started < tasks) { started++; await submit(); } };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return tasks / ((performance.now() - t0) / 1000);
}

/**
 * Serves the repo with scripts/serve.mjs on a random port, launches Debian's Chromium and
 * calls `fn(browser, baseUrl)`; both are stopped afterwards.
 */
export async function withChromium(fn) {
  // Imported here: the browser benchmark loads this file in the page too.
  const { servedChromium } = await import('../scripts/chromium.mjs');
  await warnIfStale(['pkg', 'www/wasm']);
  const { base, browser, close } = await servedChromium();
  try {
    return await fn(browser, base);
  } finally {
    await close();
  }
}

/** (Node) Warns when a built copy is older than the newest source file under src/ (notes such
 *  as src/README.md do not count): the single-part scripts (`bench:demo`, `bench:node`, …)
 *  measure what is built, and only `npm run bench` builds first. */
export async function warnIfStale(dirs) {
  const [{ readdirSync, statSync }, { join }, { fileURLToPath }] = await Promise.all([import('node:fs'), import('node:path'), import('node:url')]);
  const root = fileURLToPath(new URL('..', import.meta.url));
  const newest = (dir) => readdirSync(dir, { withFileTypes: true })
    .reduce((m, e) => Math.max(m, e.isDirectory() ? newest(join(dir, e.name))
      : e.name.endsWith('.md') ? 0 : statSync(join(dir, e.name)).mtimeMs), 0);
  const source = newest(join(root, 'src'));
  for (const dir of dirs) {
    let built = 0;
    try { built = statSync(join(root, dir, 'ringpool_bg.wasm')).mtimeMs; } catch { /* not built */ }
    if (built < source) console.error(`warning: ${dir}/ is older than src/ (or missing): this measures an old build; run \`node scripts/build.mjs --demo\` first (npm run bench does)`);
  }
}
