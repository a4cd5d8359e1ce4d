// The soaks in headless Chromium: `node tests/soak/browser.mjs [tasks]` (default 1,000,000),
// or `node tests/soak/browser.mjs pressure [tasks]` (default 2,000) for the memory-pressure
// soak. Serves the repository like the demo (COOP/COEP), prints progress and a JSON report.
import { withChromium } from '../../bench/harness.mjs';

const pressure = process.argv[2] === 'pressure';
const tasks = Number(process.argv[pressure ? 3 : 2] ?? (pressure ? 2_000 : 1_000_000));
const result = await withChromium(async (browser, base) => {
  const page = await browser.newPage();
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => { if (m.text().startsWith('chromium: ')) console.log(m.text()); });
  await page.goto(`${base}/tests/soak/index.html?tasks=${tasks}${pressure ? '&pressure' : ''}`);
  // Bounded: a hung soak fails with what it was waiting for (1 ms per task is generous).
  await page.waitForFunction(() => window.__soak, null, { timeout: 600_000 + tasks * (pressure ? 1000 : 1), polling: 1000 })
    .catch(async (e) => { throw new Error(`the soak did not finish; its log:\n${await page.evaluate(() => document.getElementById('out').textContent)}`, { cause: e }); });
  const r = await page.evaluate(() => window.__soak);
  if (pageErrors.length) r.error = `${r.error ?? ''} page errors: ${pageErrors.join('; ')}`;
  return r;
});
if (result.error) {
  console.log(`chromium soak failed: ${result.error}`);
  process.exit(1);
}
console.log(`chromium ${pressure ? 'pressure ' : ''}soak: ${JSON.stringify(result.report)}`);
