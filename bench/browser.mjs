// Browser scenarios in headless Chromium on a cross-origin isolated page
// (bench/browser/index.html): no-op throughput and latency, ringpool vs workerpool's browser
// build vs a plain postMessage pool; then Uint8Array arguments and results of 64 KiB to 4 MiB,
// ringpool vs workerpool. Same workers and tasks in flight, interleaved rounds, medians.
// `node bench/browser.mjs` prints the table; `run()` is what bench/run.mjs calls.
import { withChromium } from './harness.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 5);

export async function run() {
  return withChromium(async (browser, base) => {
    const page = await browser.newPage();
    await page.goto(`${base}/bench/browser/index.html`);
    await page.waitForFunction(() => window.__ready, null, { timeout: 60_000 });
    const workers = await page.evaluate(() => navigator.hardwareConcurrency);
    const opts = { workers, tasks: 20_000, inFlight: 64, lat: 1_000, rounds: ROUNDS };
    const results = await page.evaluate((o) => window.__bench(o), opts);
    const b = results.workerpool;
    console.log(`\nbrowser no-op task (Chromium ${browser.version()}): ${workers} workers, ${opts.inFlight} in flight, ${ROUNDS} interleaved rounds (medians)`);
    console.table(Object.fromEntries(Object.entries(results).map(([k, v]) => [k, {
      'tasks/s': Math.round(v.tasksPerSec), 'vs workerpool': `${(v.tasksPerSec / b.tasksPerSec).toFixed(2)}×`,
      'p50 µs': v.p50us.toFixed(1), 'p99 µs': v.p99us.toFixed(1), 'p50 vs workerpool': `${(v.p50us / b.p50us).toFixed(2)}×`,
    }])));
    const sizes = [64, 256, 1024, 4096].map((k) => k * 1024);
    const payload = await page.evaluate((o) => window.__benchPayload(o), { workers, sizes, inFlight: 64, rounds: ROUNDS });
    for (const [kind, title] of [['arg', 'argument (a new one per task; workerpool and ringpool (transfer) hand it over)'], ['result', 'result (made by the task, sent back by value)']]) {
      console.log(`\nbrowser Uint8Array ${title}: tasks/s, ${workers} workers, 64 in flight, ${ROUNDS} interleaved rounds (medians)`);
      console.table(Object.fromEntries(sizes.map((n) => [`${n / 1024} KiB`, Object.fromEntries(Object.entries(payload[kind][n]).map(([k, v]) => [k,
        `${Math.round(v)} (${(v / payload[kind][n].workerpool).toFixed(2)}×)`]))])));
    }
    return { chromium: browser.version(), ...opts, results, payload };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
