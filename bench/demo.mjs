// The demo's performance table, measured in ONE page load of www/ in headless Chromium:
// ringpool (N workers), single-threaded wasm (same kernel), plain JS, wasm-bindgen-rayon (same
// kernel, N threads), interleaved rounds after one warm-up round, medians. Prints the table
// and the ratios the demo issue names; writes bench/out/demo.json.
//   npm run bench:demo            (4096×4096, Gaussian blur radius 8, workers = cores)
//   SIZE=2048 ROUNDS=3 FILTER=sobel npm run bench:demo
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { median, withChromium } from './harness.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const SIZE = Number(process.env.SIZE ?? 4096), ROUNDS = Number(process.env.ROUNDS ?? 7);
const FILTER = process.env.FILTER ?? 'blur', RADIUS = Number(process.env.RADIUS ?? 8), TILE = Number(process.env.TILE ?? 64);
const MODES = ['ringpool', 'wasm-single', 'js', 'rayon'];

await withChromium(async (browser, base) => {
  const page = await browser.newPage();
  await page.goto(`${base}/`);
  await page.evaluate(() => window.demo.ready);
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  const times = Object.fromEntries(MODES.map((m) => [m, []]));
  const checksums = {};
  for (let round = 0; round <= ROUNDS; round++) {
    // Rotate the order so no mode always runs right after another.
    const order = MODES.map((_, i) => MODES[(i + round) % MODES.length]);
    for (const mode of order) {
      const r = await page.evaluate((o) => window.demo.run(o),
        { filter: FILTER, mode, workers: cores, width: SIZE, height: SIZE, tileRows: TILE, params: { radius: RADIUS, amount: 1.5 } });
      checksums[mode] = r.checksum;
      if (round > 0) times[mode].push(r.ms); // round 0 warms up (JIT tiers, first-touch pages)
    }
  }
  const ms = Object.fromEntries(MODES.map((m) => [m, median(times[m])]));
  const rows = MODES.map((m) => ({ mode: m, threads: m === 'ringpool' || m === 'rayon' ? cores : 1, 'median ms': ms[m].toFixed(1),
    'ringpool speed-up': `${(ms[m] / ms.ringpool).toFixed(2)}×`, checksum: checksums[m].toString(16).padStart(8, '0') }));
  const chromiumVersion = browser.version();
  console.log(`${FILTER}${FILTER === 'blur' || FILTER === 'sharpen' ? ` radius ${RADIUS}` : ''} on ${SIZE}×${SIZE}, tiles of ${TILE} rows, ${cores} cores, Chromium ${chromiumVersion}, ${ROUNDS} interleaved rounds (medians)`);
  console.table(rows);
  const targets = [
    ['ringpool vs wasm-single', ms['wasm-single'] / ms.ringpool, 0.8 * cores, `≥ 0.8 × cores = ${(0.8 * cores).toFixed(1)}`],
    ['ringpool vs rayon', ms.rayon / ms.ringpool, 1.0, '≥ 1.0'],
    ['ringpool vs plain JS', ms.js / ms.ringpool, 5, '≥ 5'],
  ];
  for (const [name, ratio, want, text] of targets) console.log(`${name}: ${ratio.toFixed(2)}× (target ${text}) ${ratio >= want ? 'met' : 'NOT met'}`);
  const same = checksums.ringpool === checksums['wasm-single'] && checksums.rayon === checksums.ringpool;
  console.log(`checksums ringpool = wasm-single = rayon: ${same}`);
  const commit = (() => { try { return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim(); } catch { return null; } })();
  mkdirSync(new URL('./out/', import.meta.url), { recursive: true });
  writeFileSync(new URL('./out/demo.json', import.meta.url), JSON.stringify({ filter: FILTER, radius: RADIUS, size: SIZE, tileRows: TILE, cores, chromium: chromiumVersion, commit, rounds: ROUNDS, times, medians: ms, checksums }, null, 2));
  await page.screenshot({ path: fileURLToPath(new URL('./out/demo.jpg', import.meta.url)), fullPage: true, type: 'jpeg', quality: 70 });
});
