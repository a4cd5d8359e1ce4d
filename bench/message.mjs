// Message mode in headless Chromium, on a page served without isolation headers
// (bench/browser/message.html under /no-isolation/): ringpool (mode 'auto', which falls back to
// message mode there) vs workerpool's browser build. Rows: no-op, a new Uint8Array of 64 KiB
// and of 1 MiB handed over with `transfer` (the body sums every byte), and ~40 µs of CPU per
// task. Same workers and tasks in flight, interleaved rounds, medians. Also what message mode
// costs in download: nothing of its own, one build serves both modes.
// `node bench/message.mjs` prints the table; `run()` is what bench/run.mjs calls.
import { fileURLToPath } from 'node:url';
import { withChromium } from './harness.mjs';
import { pageDownload } from './download.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 5);

export async function run() {
  return withChromium(async (browser, base) => {
    const page = await browser.newPage();
    await page.goto(`${base}/no-isolation/bench/browser/message.html`);
    await page.waitForFunction(() => window.__ready, null, { timeout: 60_000 });
    const workers = await page.evaluate(() => navigator.hardwareConcurrency);
    const tasks = { 'no-op': 20_000, '64 KiB transfer': 10_000, '1 MiB transfer': 2_000, '~40 µs CPU': 10_000 };
    const opts = { workers, inFlight: 64, rounds: ROUNDS, tasks };
    const out = await page.evaluate((o) => window.__benchMessage(o), opts);
    if (out.isolated) throw new Error('the message-mode page is cross-origin isolated; it must be served without headers');
    console.log(`\nbrowser, message mode (a page without isolation headers, Chromium ${browser.version()}): tasks/s, ${workers} workers, 64 in flight, ${ROUNDS} interleaved rounds (medians); ~40 µs = ${out.workRounds} rounds of the body`);
    console.table(Object.fromEntries(Object.entries(out.rows).map(([row, v]) => [row, {
      ringpool: Math.round(v.ringpool), workerpool: Math.round(v.workerpool), 'ringpool / workerpool': `${(v.ringpool / v.workerpool).toFixed(2)}×`,
    }])));
    const download = messageModeBytes();
    console.log(`message mode adds no file to the download (the package's ${download.packageGzip} B gzip): one build serves both modes (the engines create the module's shared memory on a page without isolation too)`);
    return { chromium: browser.version(), ...opts, ...out, download };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) await run();

/** The gzip bytes of the JS and wasm a page loads from the package: both modes load the same
 *  files (message mode's worker half is bundled into `ringpool.js`, its owner half is in the
 *  wasm), so this is what message mode costs in download too. */
function messageModeBytes() {
  return { packageGzip: pageDownload(fileURLToPath(new URL('../pkg/', import.meta.url))).total };
}
