// ringpool in a Vite app, as a user installs it: `vite` (dev server) and `vite build` +
// `vite preview`, each page driven in headless Chromium and Firefox ESR (Debian's).
// Usage: node tests/bundlers/vite/run.mjs <scratch dir with the app and ringpool installed>
import { launchChromium, launchFirefox } from '../../../scripts/browsers.mjs';
import { checkResult } from '../app/expect.mjs';
import { spawn, execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import assert from 'node:assert/strict';

const app = resolve(process.argv[2]);
const vite = resolve(import.meta.dirname, '../../../node_modules/vite/bin/vite.js');
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


const browsers = { chromium: await launchChromium(), firefox: await launchFirefox() };
let failed = 0, passed = 0;
async function run(name, args, port) {
  const server = serve(args, port);
  try {
    await server.ready;
    for (const [engine, browser] of Object.entries(browsers)) {
      const page = await browser.newPage();
      try {
        const errors = [];
        page.on('pageerror', (e) => errors.push(String(e)));
        page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
        await page.goto(`http://127.0.0.1:${port}/`);
        await (engine === 'chromium'
          ? page.waitForFunction(() => window.__result, null, { timeout: 60_000 })
          : page.waitForFunction(() => window.__result, { timeout: 60_000, polling: 250 }));
        checkResult(await page.evaluate(() => window.__result));
        assert.deepEqual(errors, []);
        passed++;
        console.log(`ok - vite ${name} in ${engine}`);
      } catch (e) {
        failed++;
        console.log(`not ok - vite ${name} in ${engine}\n  ${String(e?.stack ?? e).replaceAll('\n', '\n  ')}\n  server log:\n${server.log()}`);
      } finally {
        await page.close();
      }
    }
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
  for (const b of Object.values(browsers)) await b.close();
}
console.log(`vite: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
