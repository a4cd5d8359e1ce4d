// The soaks in a browser, on a cross-origin isolated page (tests/soak/index.html):
//   node tests/soak/browser.mjs [engine] [pressure] [tasks]
// engine: chromium (default), firefox or webkit (under xvfb-run; scripts/browsers.mjs);
// `pressure` runs the memory-pressure soak (default 2,000 tasks) instead of the mixed-outcome
// one (default 1,000,000). Prints a JSON report; exits 1 on any violation.
import { ENGINES, servedBrowser } from '../../scripts/browsers.mjs';

const args = process.argv.slice(2);
const engine = ENGINES.includes(args[0]) ? args.shift() : 'chromium';
const pressure = args[0] === 'pressure';
if (pressure) args.shift();
const tasks = Number(args[0] ?? (pressure ? 2_000 : 1_000_000));
const kind = pressure ? 'pressure soak' : 'soak';

const { base, newPage, close } = await servedBrowser(engine);
let result;
try {
  const page = await newPage();
  await page.goto(`${base}/tests/soak/index.html?tasks=${tasks}${pressure ? '&pressure' : ''}`);
  // Bounded: a hung soak fails with what it had done (generous: 1 ms a task, 1 s a pressure task).
  const timeout = 600_000 + tasks * (pressure ? 1000 : 1);
  try {
    await page.waitFor(() => window.__soak, timeout);
  } catch (e) {
    const log = await page.evaluate(() => document.getElementById('out').textContent).catch(() => '');
    throw new Error(`${engine} ${kind} did not finish in ${timeout} ms; its log:\n${log}`, { cause: e });
  }
  result = await page.evaluate(() => window.__soak);
  await page.close();
  if (page.errors.length) result.error = `${result.error ?? ''} page errors: ${page.errors.join('; ')}`;
} finally {
  await close();
}
if (result.error) {
  console.log(`${engine} ${kind} failed: ${result.error}`);
  process.exit(1);
}
console.log(`${engine} ${kind}: ${JSON.stringify(result.report)}`);
