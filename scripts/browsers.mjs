// The three browser engines the test pages run in, behind one small page interface:
//   chromium  Debian's Chromium, headless, under playwright-core;
//   firefox   Debian's Firefox ESR, headless, over WebDriver BiDi (puppeteer-core);
//   webkit    Debian's WebKitGTK MiniBrowser through WebKitWebDriver (classic WebDriver). It
//             needs a display (run under `xvfb-run -a`) and JSC_useSharedArrayBuffer=1, since
//             WebKitGTK leaves SharedArrayBuffer off on isolated pages unless told (Safari does
//             not).
// No engine is downloaded: each is a Debian package that scripts/setup.sh installs. A missing
// one is an error that says how to install it.
//
// servedBrowser(engine) → { base, engine, version, newPage(), close() }; a page has
// goto(url), evaluate(fn), waitFor(fn, timeoutMs) and errors (uncaught page errors so far).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const ENGINES = ['chromium', 'firefox', 'webkit'];
const MINIBROWSER = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
const NEEDS = {
  chromium: [['/usr/bin/chromium', 'chromium']],
  firefox: [['/usr/bin/firefox-esr', 'firefox-esr']],
  webkit: [['/usr/bin/WebKitWebDriver', 'webkit2gtk-driver'], [MINIBROWSER, 'webkit2gtk-driver']],
};

/** Serves the repository (scripts/serve.mjs: COOP/COEP, /no-isolation/, /strict-csp/). */
export async function serve() {
  const port = 18000 + Math.floor(Math.random() * 1000);
  const server = spawn(process.execPath, ['scripts/serve.mjs'], { cwd: root, env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((ok) => server.stdout.once('data', ok));
  return { base: `http://127.0.0.1:${port}`, server };
}

/** Serves the repository and starts a browser with `launch()` → { base, browser, close }. */
export async function servedWith(launch) {
  const { base, server } = await serve();
  let browser;
  try {
    browser = await launch();
  } catch (e) {
    server.kill();
    throw e;
  }
  return { base, browser, close: async () => { await browser.close(); server.kill(); } };
}

export async function servedBrowser(engine) {
  if (!ENGINES.includes(engine)) throw new Error(`unknown engine ${engine}; one of ${ENGINES.join(', ')}`);
  for (const [path, pkg] of NEEDS[engine]) {
    if (!existsSync(path)) throw new Error(`${engine}: ${path} is missing; install Debian's ${pkg} (npm run setup does)`);
  }
  if (engine === 'webkit' && !process.env.DISPLAY) throw new Error('webkit: no display; run under `xvfb-run -a` (scripts/test.sh does)');
  const { base, server } = await serve();
  try {
    const b = await (engine === 'chromium' ? chromium() : engine === 'firefox' ? firefox() : webkit());
    return { base, engine, get version() { return b.version; }, newPage: b.newPage, close: async () => { await b.close().catch(() => {}); server.kill(); } };
  } catch (e) {
    server.kill();
    throw e;
  }
}

/** A playwright or puppeteer page, with page errors collected. */
function wrap(page, waitFor) {
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  return {
    errors,
    goto: (url) => page.goto(url),
    evaluate: (fn) => page.evaluate(fn),
    waitFor: (fn, timeout) => waitFor(page, fn, timeout),
    close: () => page.close(),
  };
}

/** Debian's headless Chromium under playwright-core (a playwright `Browser`). */
export async function launchChromium() {
  const { chromium: pw } = await import('playwright-core');
  return pw.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
    '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
}

async function chromium() {
  const browser = await launchChromium();
  return {
    version: `Chromium ${browser.version()}`,
    newPage: async () => wrap(await browser.newPage(), (page, fn, timeout) => page.waitForFunction(fn, null, { timeout })),
    close: () => browser.close(),
  };
}

/** Debian's Firefox ESR, headless, over WebDriver BiDi (a puppeteer `Browser`). */
export async function launchFirefox() {
  const { default: puppeteer } = await import('puppeteer-core');
  return puppeteer.launch({ browser: 'firefox', executablePath: '/usr/bin/firefox-esr', headless: true });
}

async function firefox() {
  const browser = await launchFirefox();
  return {
    version: (await browser.version()).replace('firefox/', 'Firefox ESR '),
    newPage: async () => wrap(await browser.newPage(), (page, fn, timeout) => page.waitForFunction(fn, { timeout, polling: 250 })),
    close: () => browser.close(),
  };
}

/** WebKitGTK over classic WebDriver: one session (one MiniBrowser window) a page. */
async function webkit() {
  const port = 19000 + Math.floor(Math.random() * 1000);
  const driver = spawn('/usr/bin/WebKitWebDriver', [`--port=${port}`], { env: { ...process.env, JSC_useSharedArrayBuffer: '1' }, stdio: 'ignore' });
  const call = async (method, path, body) => {
    for (let attempt = 0; ; attempt++) {
      let r;
      try {
        r = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers: { 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
      } catch (e) {
        if (attempt < 100) { await new Promise((ok) => setTimeout(ok, 100)); continue; } // the driver is starting
        throw new Error(`WebKitWebDriver did not answer on port ${port}`, { cause: e });
      }
      const json = await r.json();
      if (!r.ok) throw new Error(`WebKitWebDriver ${method} ${path}: ${json.value?.message ?? JSON.stringify(json)}`);
      return json.value;
    }
  };
  const sessions = new Set();
  let version = 'WebKitGTK';
  const newPage = async () => {
    const s = await call('POST', '/session', { capabilities: { alwaysMatch: { 'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] } } } });
    version = `WebKitGTK ${s.capabilities.browserVersion}`;
    const id = s.sessionId;
    sessions.add(id);
    // Classic WebDriver reports no page errors: the test pages record their own in
    // window.__pageErrors (tests/browser/page-errors.js), read here after each wait.
    const run = (fn) => call('POST', `/session/${id}/execute/async`, {
      script: `const done = arguments[arguments.length - 1]; Promise.resolve((${fn})()).then((v) => done({ v }), (e) => done({ e: String(e?.stack ?? e) }));`,
      args: [],
    }).then((r) => { if (r.e) throw new Error(r.e); return r.v; });
    const page = {
      errors: [],
      goto: (url) => call('POST', `/session/${id}/url`, { url }),
      evaluate: run,
      async waitFor(fn, timeout) {
        const t0 = Date.now();
        for (;;) {
          const v = await run(fn);
          if (v) return v;
          if (Date.now() - t0 > timeout) throw new Error(`webkit: waited ${timeout} ms for ${fn}`);
          await new Promise((ok) => setTimeout(ok, 250));
        }
      },
      async close() {
        page.errors.push(...((await run(() => window.__pageErrors ?? []).catch(() => [])) ?? []));
        sessions.delete(id);
        await call('DELETE', `/session/${id}`).catch(() => {});
      },
    };
    return page;
  };
  await call('GET', '/status');
  return {
    get version() { return version; },
    newPage,
    close: async () => { for (const id of sessions) await call('DELETE', `/session/${id}`).catch(() => {}); driver.kill(); },
  };
}
