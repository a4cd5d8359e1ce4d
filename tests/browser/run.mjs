// The Node behaviour suite (tests/node/*.test.mjs) in headless Chromium on a cross-origin
// isolated page: playwright-core drives Debian's /usr/bin/chromium, the demo server serves it.
import { readdirSync } from 'node:fs';
import { servedChromium } from '../../scripts/chromium.mjs';

const files = process.env.FILES ? process.env.FILES.split(',') : readdirSync(new URL('../node', import.meta.url)).filter((f) => f.endsWith('.test.mjs'));
const { base, browser, close } = await servedChromium();
let failed = 0, passed = 0;
try {
  // A file that fills the memory to its maximum runs in a page of its own: a wasm memory
  // never shrinks, and the other files measure growth.
  const alone = files.filter((f) => /pressure/.test(f));
  for (const group of [files.filter((f) => !alone.includes(f)), ...alone.map((f) => [f])].filter((g) => g.length)) {
    const page = await browser.newPage();
    const consoleErrors = [];
    page.on('pageerror', (e) => consoleErrors.push(String(e)));
    await page.goto(`${base}/tests/browser/index.html?files=${group.join(',')}`);
    if (!(await page.evaluate(() => crossOriginIsolated))) throw new Error('the test page is not cross-origin isolated');
    try {
      await page.waitForFunction(() => window.__results, null, { timeout: Number(process.env.SUITE_TIMEOUT_MS ?? 300_000) });
    } catch (e) {
      // Say which test never finished: the page lists each one as it ends.
      const done = await page.evaluate(() => document.getElementById('out').textContent).catch(() => '');
      throw new Error(`the suite did not finish; finished so far:\n${done}`, { cause: e });
    }
    for (const r of await page.evaluate(() => window.__results)) {
      if (r.ok) { passed++; console.log(`ok - ${r.file}: ${r.name}`); }
      else { failed++; console.log(`not ok - ${r.file}: ${r.name}\n  ${r.error.replaceAll('\n', '\n  ')}`); }
    }
    for (const e of consoleErrors) { failed++; console.log(`not ok - page error: ${e}`); }
    await page.close();
  }

  // Without COOP/COEP: the import works, Pool.create rejects naming both headers.
  const bare = await browser.newPage();
  await bare.goto(`${base}/no-isolation/tests/browser/no-isolation.html`);
  await bare.waitForFunction(() => window.__result, null, { timeout: 60_000 });
  const r = await bare.evaluate(() => window.__result);
  const named = /Cross-Origin-Opener-Policy: same-origin/.test(r.message) && /Cross-Origin-Embedder-Policy: require-corp/.test(r.message);
  if (r.isolated === false && !r.importError && !r.created && named) {
    passed++; console.log(`ok - no-isolation.html: Pool.create rejects naming both headers (${r.name}, ${r.code})`);
  } else {
    failed++; console.log(`not ok - no-isolation.html: ${JSON.stringify(r)}`);
  }

  // A strict CSP (no 'unsafe-eval', no inline script): task modules and Rust tasks work, a JS
  // function is refused with a hint, and the page itself cannot eval (the policy is in force).
  const strict = await browser.newPage();
  const strictErrors = [];
  strict.on('pageerror', (e) => strictErrors.push(String(e)));
  await strict.goto(`${base}/strict-csp/tests/browser/csp.html`);
  await strict.waitForFunction(() => window.__csp, null, { timeout: 60_000 });
  const c = await strict.evaluate(() => window.__csp);
  const cspOk = !c.error && c.named === 5 && c.view === 10 && c.gray === true && c.jsFunction === undefined &&
    /Content-Security-Policy/.test(c.jsFunctionError) && /Pool\.create\(\{ module: url \}\)/.test(c.jsFunctionError) &&
    c.violationsBeforeProbe === 0 && c.evalAllowed === false && strictErrors.length === 0;
  if (cspOk) {
    passed++; console.log(`ok - csp.html: tasks by export name and Rust tasks under a no-eval CSP; a JS function is refused (${c.jsFunctionError.slice(0, 60)}…)`);
  } else {
    failed++; console.log(`not ok - csp.html: ${JSON.stringify({ ...c, strictErrors })}`);
  }
} finally {
  await close();
}
console.log(`browser: ${passed} passed, ${failed} failed`);
process.exit(failed || passed === 0 ? 1 : 0);
