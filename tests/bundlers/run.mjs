// ringpool in a user's app built by each mainstream bundler (tests/bundlers/<name>/: the few
// files that bundler's user writes; tests/bundlers/app/: the app itself), then run from the
// built output, served with the isolation headers, in headless Chromium and Firefox ESR.
// Usage: node tests/bundlers/run.mjs NAME SCRATCH, where SCRATCH is an empty folder; ringpool
// is installed there from pkg/ as a user installs it (npm pack, npm install).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve } from 'node:path';
import assert from 'node:assert/strict';
import { launchChromium, launchFirefox } from '../../scripts/browsers.mjs';
import { checkResult } from './app/expect.mjs';

const [name, scratchArg] = process.argv.slice(2);
const root = resolve(import.meta.dirname, '../..');
const bin = (tool) => join(root, 'node_modules/.bin', tool);
// How each bundler builds the app into dist/: the command a user runs, from the app's folder.
const BUNDLERS = {
  // webpack 5 with no configuration file: src/index.js in, dist/main.js out.
  webpack: { source: 'src/index.js', build: [bin('webpack'), '--mode', 'production'] },
  // esbuild: its command line, then the two files ringpool loads by URL copied beside the
  // bundle (esbuild leaves `new URL('./file', import.meta.url)` as it is; docs/bundlers.md).
  esbuild: {
    source: 'main.js',
    build: [bin('esbuild'), 'main.js', '--bundle', '--format=esm', '--outdir=dist', '--log-level=warning'],
    copy: ['node_modules/ringpool/ringpool_bg.wasm', 'node_modules/ringpool/ringpool.js'],
  },
  // Parcel 2: from the page, with no configuration file.
  parcel: { source: 'main.js', page: true, build: [bin('parcel'), 'build', 'index.html', '--dist-dir', 'dist', '--no-autoinstall', '--log-level', 'warn'] },
  // Rollup: rollup.config.mjs beside this file.
  rollup: { source: 'main.js', build: [bin('rollup'), '-c', '--silent'] },
};
const bundler = BUNDLERS[name];
if (!bundler) throw new Error(`unknown bundler ${name}; one of ${Object.keys(BUNDLERS).join(', ')}`);

const app = resolve(scratchArg);
rmSync(app, { recursive: true, force: true });
mkdirSync(app, { recursive: true });
execFileSync('npm', ['pack', '--silent', '--pack-destination', app], { cwd: join(root, 'pkg'), stdio: ['ignore', 'ignore', 'inherit'] });
writeFileSync(join(app, 'package.json'), JSON.stringify({ name: `ringpool-${name}-app`, private: true, type: 'module' }) + '\n');
const tarball = readdirSync(app).find((f) => f.endsWith('.tgz'));
execFileSync('npm', ['install', '--silent', '--no-audit', '--no-fund', `./${tarball}`], { cwd: app, stdio: 'inherit' });
// The bundler's own files, then the app: its page, and its script where that bundler looks.
const own = join(import.meta.dirname, name);
if (existsSync(own)) cpSync(own, app, { recursive: true });
mkdirSync(join(app, 'src'), { recursive: true });
writeFileSync(join(app, bundler.source), readFileSync(join(import.meta.dirname, 'app/main.js')));
if (bundler.page) cpSync(join(import.meta.dirname, 'app/index.html'), join(app, 'index.html'));
execFileSync(bundler.build[0], bundler.build.slice(1), { cwd: app, stdio: 'inherit', env: { ...process.env, NODE_PATH: join(root, 'node_modules') } });
const dist = join(app, 'dist');
for (const file of bundler.copy ?? []) cpSync(join(app, file), join(dist, file.split('/').pop()));
if (!bundler.page) cpSync(join(import.meta.dirname, 'app/index.html'), join(dist, 'index.html'));

// The built app, served as a static host with COOP/COEP would serve it.
const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm' };
const server = createServer((req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^\/+/, '');
  const file = join(dist, path === '' ? 'index.html' : path);
  if (!file.startsWith(dist) || !existsSync(file)) { res.writeHead(404); res.end(); return; }
  res.writeHead(200, { 'Content-Type': types[extname(file)] ?? 'application/octet-stream',
    'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' });
  res.end(readFileSync(file));
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const url = `http://127.0.0.1:${server.address().port}/`;


let failed = 0;
const browsers = {
  chromium: async () => {
    const b = await launchChromium();
    return { b, open: async () => { const p = await b.newPage(); return { p, wait: () => p.waitForFunction(() => window.__result, null, { timeout: 60_000 }) }; } };
  },
  firefox: async () => {
    const b = await launchFirefox();
    return { b, open: async () => { const p = await b.newPage(); return { p, wait: () => p.waitForFunction(() => window.__result, { timeout: 60_000, polling: 250 }) }; } };
  },
};
try {
  for (const [engine, launch] of Object.entries(browsers)) {
    const { b, open } = await launch();
    try {
      const { p, wait } = await open();
      const errors = [];
      let failedNow;
      const failure = new Promise((_, fail) => { failedNow = fail; });
      failure.catch(() => {}); // raced below; an error before then must not end the run
      p.on('pageerror', (e) => { errors.push(String(e)); failedNow(new Error(`page error: ${e?.stack ?? e}`)); });
      p.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
      await p.goto(url);
      await Promise.race([wait(), failure]);
      checkResult(await p.evaluate(() => window.__result));
      assert.deepEqual(errors, []);
      console.log(`ok - ${name}: the built app runs in ${engine}`);
    } catch (e) {
      failed++;
      console.log(`not ok - ${name}: the built app in ${engine}\n  ${String(e?.stack ?? e).replaceAll('\n', '\n  ')}`);
    } finally {
      await b.close();
    }
  }
} finally {
  server.close();
}
console.log(`${name}: ${2 - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
