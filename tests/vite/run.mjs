// ringpool in a Vite app, as a user installs it: `vite` (dev server) and `vite build` +
// `vite preview`, each page driven in headless Chromium (Debian's /usr/bin/chromium).
// Usage: node tests/vite/run.mjs <scratch dir with the app and ringpool installed>
import { chromium } from 'playwright-core';
import { spawn, execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import assert from 'node:assert/strict';

const app = resolve(process.argv[2]);
const vite = resolve(import.meta.dirname, '../../node_modules/vite/bin/vite.js');
const base = 19000 + Math.floor(Math.random() * 500);

function serve(args, port) {
  const child = spawn(process.execPath, [vite, ...args, '--port', String(port), '--strictPort', '--host', '127.0.0.1'],
    { cwd: app, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
  let log = '';
  const ready = new Promise((ok, fail) => {
    // Ready once the banner names the port (colour codes stripped: some CI settings force them).
    const onData = (d) => { log += d; if (log.replace(/\x1b\[[0-9;]*m/g, '').includes(`:${port}`)) ok(); };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d) => { log += d; });
    child.once('exit', (code) => fail(new Error(`vite ${args[0] ?? 'dev'} exited with ${code}:\n${log}`)));
    setTimeout(() => fail(new Error(`vite ${args[0] ?? 'dev'} did not report its port within 60 s:\n${log}`)), 60_000).unref();
  });
  return { child, ready, log: () => log };
}

function check(result) {
  assert.equal(result.error, undefined, result.error);
  assert.equal(result.sum, 5);
  assert.deepEqual(result.view, [10, 20, 30, 40]);
  assert.equal(result.async, 42);
  assert.equal(result.panic, 'boom');
  assert.equal(result.workersSeen, 2);
  assert.equal(result.ok, true);
}

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'] });
let failed = 0;
async function run(name, args, port) {
  const server = serve(args, port);
  try {
    await server.ready;
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForFunction(() => window.__result, null, { timeout: 60_000 });
    check(await page.evaluate(() => window.__result));
    assert.deepEqual(errors, []);
    console.log(`ok - vite ${name}`);
    await page.close();
  } catch (e) {
    failed++;
    console.log(`not ok - vite ${name}\n  ${String(e?.stack ?? e).replaceAll('\n', '\n  ')}\n  server log:\n${server.log()}`);
  } finally {
    server.child.kill();
  }
}

try {
  await run('dev server', [], base);
  execFileSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: app, stdio: 'inherit' });
  await run('build + preview', ['preview'], base + 1);
} finally {
  await browser.close();
}
console.log(`vite: ${2 - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
