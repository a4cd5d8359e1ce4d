// The app in headless Chromium: this folder served with the headers that make a page
// cross-origin isolated (SharedArrayBuffer needs them), test/page.html running test/checks.js.
// CHROMIUM names the browser binary (default: Debian's /usr/bin/chromium).
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('..', import.meta.url));
const types = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };
const server = createServer(async (req, res) => {
  const path = normalize(join(root, decodeURIComponent(new URL(req.url, 'http://x').pathname)));
  try {
    if (!path.startsWith(root)) throw new Error('outside');
    const body = await readFile(path);
    res.writeHead(200, {
      'Content-Type': types[extname(path)] ?? 'application/octet-stream',
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
    });
    res.end(body);
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
let failed = 0;
try {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`http://127.0.0.1:${server.address().port}/test/page.html`);
  await page.waitForFunction(() => window.results, null, { timeout: 60_000 });
  for (const r of await page.evaluate(() => window.results)) {
    console.log(`${r.ok ? 'ok' : 'not ok'} - chromium: ${r.name}${r.ok ? '' : `\n${r.error}`}`);
    if (!r.ok) failed++;
  }
  for (const e of errors) { console.log(`not ok - chromium: uncaught ${e}`); failed++; }
} finally {
  await browser.close();
  server.close();
}
process.exit(failed ? 1 : 0);
