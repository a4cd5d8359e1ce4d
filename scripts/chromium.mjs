// What every browser test and benchmark starts with: scripts/serve.mjs (www/, the package and
// the test pages, with COOP/COEP) on a random local port, and Debian's headless Chromium under
// playwright-core. `close()` stops both.
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** → { base: 'http://127.0.0.1:PORT', browser, close } */
export async function servedChromium() {
  const port = 18000 + Math.floor(Math.random() * 1000);
  const server = spawn(process.execPath, ['scripts/serve.mjs'], { cwd: root, env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((ok) => server.stdout.once('data', ok));
  let browser;
  try {
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
      '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  } catch (e) {
    server.kill();
    throw e;
  }
  return { base: `http://127.0.0.1:${port}`, browser, close: async () => { await browser.close(); server.kill(); } };
}
