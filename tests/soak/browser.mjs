// The soak in headless Chromium: `node tests/soak/browser.mjs [tasks]` (default 1,000,000).
// Serves the repository like the demo (COOP/COEP), prints progress and a JSON report.
import { withChromium } from '../../bench/harness.mjs';

const tasks = Number(process.argv[2] ?? 1_000_000);
const result = await withChromium(async (browser, base) => {
  const page = await browser.newPage();
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => { if (m.text().startsWith('chromium: ')) console.log(m.text()); });
  await page.goto(`${base}/tests/soak/index.html?tasks=${tasks}`);
  await page.waitForFunction(() => window.__soak, null, { timeout: 0, polling: 1000 });
  const r = await page.evaluate(() => window.__soak);
  if (pageErrors.length) r.error = `${r.error ?? ''} page errors: ${pageErrors.join('; ')}`;
  return r;
});
if (result.error) {
  console.log(`chromium soak failed: ${result.error}`);
  process.exit(1);
}
console.log(`chromium soak: ${JSON.stringify(result.report)}`);
