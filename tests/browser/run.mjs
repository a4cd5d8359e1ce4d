// The Node behaviour suite (tests/node/*.test.mjs) in a browser on a cross-origin isolated
// page, plus the page without COOP/COEP and the strict-CSP page:
//   node tests/browser/run.mjs [chromium|firefox|webkit]     (default chromium; webkit under xvfb-run)
// Engines and drivers: scripts/browsers.mjs. FILES=a.test.mjs,b.test.mjs runs only those.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { servedBrowser } from '../../scripts/browsers.mjs';

const engine = process.argv[2] ?? 'chromium';
const files = process.env.FILES ? process.env.FILES.split(',') : readdirSync(new URL('../node', import.meta.url)).filter((f) => f.endsWith('.test.mjs'));
const browser = await servedBrowser(engine);
const { base, newPage, close } = browser;
let failed = 0, passed = 0;
const ok = (what) => { passed++; console.log(`ok - ${what}`); };
const notOk = (what) => { failed++; console.log(`not ok - ${what}`); };

/**
 * Opens `path`, waits for `done` (a function run in the page) and returns its value. Page
 * errors fail the run, except those matching `expected`.
 */
async function visit(path, done, timeout, expected = null) {
  const page = await newPage();
  try {
    await page.goto(`${base}${path}`);
    try {
      await page.waitFor(done, timeout);
    } catch (e) {
      // Say what never finished: the suite page lists each test as it ends.
      // A page whose main thread is stuck does not answer at all: say so.
      const stuck = new Promise((resolve) => setTimeout(resolve, 10_000, null).unref());
      const state = await Promise.race([page.evaluate(() => ({ log: document.getElementById('out')?.textContent ?? '', running: window.__running })).catch(() => null), stuck]);
      const where = state ? `still running: ${state.running}; finished so far:\n${state.log}` : 'the page did not answer within 10 s (its main thread is stuck)';
      throw new Error(`${engine}: ${path} did not finish in ${timeout} ms; ${where}`, { cause: e });
    }
    return await page.evaluate(done);
  } finally {
    await page.close();
    for (const e of page.errors) if (!expected?.test(e)) notOk(`${path}: page error: ${e}`);
  }
}

try {
  // A file that fills the memory to its maximum runs in a page of its own: a wasm memory
  // never shrinks, and the other files measure growth.
  const alone = files.filter((f) => /pressure/.test(f));
  const groups = [files.filter((f) => !alone.includes(f)), ...alone.map((f) => [f])].filter((g) => g.length);
  let reported = 0;
  for (const group of groups) {
    const path = `/tests/browser/index.html?files=${group.join(',')}`;
    const results = await visit(path, () => crossOriginIsolated ? window.__results : [{ file: '(page)', name: 'cross-origin isolated', ok: false, error: 'the test page is not cross-origin isolated' }],
      Number(process.env.SUITE_TIMEOUT_MS ?? 300_000));
    reported += results.length;
    for (const r of results) {
      if (r.skip) console.log(`skip - ${engine}: ${r.file}: ${r.name} (${r.skip})`);
      else if (r.ok) ok(`${r.file}: ${r.name}`);
      else notOk(`${r.file}: ${r.name}\n  ${r.error.replaceAll('\n', '\n  ')}`);
    }
    // Every file of the group reported (a file that vanished would otherwise pass unseen).
    for (const f of group) if (!results.some((r) => r.file === f)) notOk(`${f}: no results from the page`);
  }
  // As many tests as Node registered over the same files (scripts/test.sh writes the count):
  // one that vanished here without a skip line would otherwise go unseen.
  const count = new URL('../../target/node-test-count', import.meta.url);
  if (!process.env.FILES && existsSync(count)) {
    const expected = Number(readFileSync(count, 'utf8'));
    if (reported === expected) ok(`${reported} tests reported (run or skipped), as many as in Node`);
    else notOk(`${reported} tests reported, Node registered ${expected}: some vanished or were added without a skip`);
  }

  // `Cross-Origin-Embedder-Policy: credentialless` isolates a page as well, where the engine
  // supports it (not WebKitGTK 2.50): a pool starts and runs tasks there.
  if (engine === 'webkit') {
    // What the README says: WebKitGTK does not isolate a page on `credentialless`.
    const isolated = await visit('/credentialless/tests/browser/no-isolation.html', () => window.__result && [window.__result.isolated], 60_000);
    if (isolated[0] === false) ok('credentialless: WebKitGTK does not isolate the page (require-corp needed there)');
    else notOk(`credentialless: WebKitGTK isolated the page; update the README (${isolated})`);
  } else {
    for (const r of await visit('/credentialless/tests/browser/index.html?files=alloc.test.mjs', () => crossOriginIsolated ? window.__results : [{ file: '(page)', name: 'isolated', ok: false, error: 'COEP: credentialless did not isolate the page' }], 120_000)) {
      if (r.ok) ok(`credentialless: ${r.file}: ${r.name}`);
      else notOk(`credentialless: ${r.file}: ${r.name}\n  ${r.error.replaceAll('\n', '\n  ')}`);
    }
  }

  // `Document-Isolation-Policy: isolate-and-credentialless` alone isolates a page in Chromium:
  // the whole behaviour suite passes there, in shared mode.
  if (engine === 'chromium' && !process.env.FILES) {
    const path = `/dip/tests/browser/index.html?files=${groups[0].join(',')}`;
    const results = await visit(path, () => window.__results && (crossOriginIsolated ? window.__results
      : [{ file: '(page)', name: 'isolated', ok: false, error: 'Document-Isolation-Policy did not isolate the page' }]), 300_000);
    for (const r of results) {
      if (r.skip) console.log(`skip - dip: ${r.file}: ${r.name} (${r.skip})`);
      else if (r.ok) ok(`dip: ${r.file}: ${r.name}`);
      else notOk(`dip: ${r.file}: ${r.name}\n  ${r.error.replaceAll('\n', '\n  ')}`);
    }
  }

  // A page without isolation headers: the whole behaviour suite again, each pool in message
  // mode because the page is not isolated; tests that need shared memory skip by name.
  {
    let reportedHere = 0;
    for (const group of groups) {
      const path = `/no-isolation/tests/browser/index.html?files=${group.join(',')}`;
      const results = await visit(path, () => window.__results && (crossOriginIsolated
        ? [{ file: '(page)', name: 'not isolated', ok: false, error: 'the page without headers is cross-origin isolated' }] : window.__results),
        Number(process.env.SUITE_TIMEOUT_MS ?? 300_000));
      reportedHere += results.length;
      for (const r of results) {
        if (r.skip) console.log(`skip - no-isolation: ${r.file}: ${r.name} (${r.skip})`);
        else if (r.ok) ok(`no-isolation (message mode): ${r.file}: ${r.name}`);
        else notOk(`no-isolation (message mode): ${r.file}: ${r.name}\n  ${r.error.replaceAll('\n', '\n  ')}`);
      }
      for (const f of group) if (!results.some((r) => r.file === f)) notOk(`no-isolation: ${f}: no results from the page`);
    }
    if (reportedHere === reported) ok(`no-isolation: ${reportedHere} tests reported (run or skipped), as many as on the isolated page`);
    else notOk(`no-isolation: ${reportedHere} tests reported, the isolated page ${reported}`);
  }

  // Without COOP/COEP: the import works, Pool.create() runs in message mode (one warning in the
  // console, expected), mode 'shared' rejects naming the headers.
  const r = await visit('/no-isolation/tests/browser/no-isolation.html', () => window.__result, 60_000);
  const named = /Cross-Origin-Opener-Policy: same-origin/.test(r.message) && /Cross-Origin-Embedder-Policy: require-corp/.test(r.message)
    && /Document-Isolation-Policy: isolate-and-credentialless/.test(r.message);
  const ran = r.mode === 'message' && r.sum === 5 && /^[01]:\d+$/.test(r.worker) && r.allocCode === 'NOT_ISOLATED';
  if (r.isolated === false && !r.importError && ran && !r.created && r.code === 'NOT_ISOLATED' && named) {
    ok(`no-isolation.html: Pool.create() runs in message mode (JS and Rust tasks); mode 'shared' rejects naming the headers (${r.name})`);
  } else notOk(`no-isolation.html: ${JSON.stringify(r)}`);

  // A strict CSP (no 'unsafe-eval', no inline script): task modules and Rust tasks work, a JS
  // function is refused with a hint, and the page itself cannot eval (the policy is in force).
  // Firefox reports the page's own eval probe (csp.js) as a page error: that one is expected.
  const c = await visit('/strict-csp/tests/browser/csp.html', () => window.__csp, 60_000, /Content-Security-Policy.*\beval\b/);
  const cspOk = !c.error && c.named === 5 && c.view === 10 && c.gray === true && c.jsFunction === undefined &&
    /Content-Security-Policy/.test(c.jsFunctionError) && /Pool\.create\(\{ module: url \}\)/.test(c.jsFunctionError) &&
    c.violationsBeforeProbe === 0 && c.evalAllowed === false;
  if (cspOk) ok(`csp.html: tasks by export name and Rust tasks under a no-eval CSP; a JS function is refused (${c.jsFunctionError.slice(0, 60)}…)`);
  else notOk(`csp.html: ${JSON.stringify(c)}`);
} finally {
  await close();
}
console.log(`${engine} (${browser.version}): ${passed} passed, ${failed} failed`);
process.exit(failed || passed === 0 ? 1 : 0);
