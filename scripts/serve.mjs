// `npm run demo`: serves www/ (and the built package at /pkg/) on http://127.0.0.1:8080/
// (PORT overrides) with the COOP/COEP headers that SharedArrayBuffer needs.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const port = Number(process.env.PORT ?? 8080);
const host = process.env.HOST ?? '127.0.0.1';
const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.wasm': 'application/wasm', '.css': 'text/css', '.json': 'application/json', '.png': 'image/png', '.svg': 'image/svg+xml' };

// Under /no-isolation/ the same files are served without COOP/COEP, so tests can check what a
// page that is not cross-origin isolated shows.
const bare = '/no-isolation';
// Under /strict-csp/ they also carry a Content-Security-Policy without 'unsafe-eval' or inline
// scripts (only 'wasm-unsafe-eval' to compile the module), for the task-module test.
const strict = '/strict-csp';
// Under /credentialless/ with `Cross-Origin-Embedder-Policy: credentialless`, the other way to
// be cross-origin isolated (Chromium and Firefox; tests/browser/run.mjs).
const loose = '/credentialless';
// Under /dip/ with `Document-Isolation-Policy: isolate-and-credentialless` alone (no COOP/COEP):
// it isolates the page in Chromium (tests/browser/run.mjs).
const dip = '/dip';
const csp = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; " +
  "object-src 'none'; base-uri 'none'";

function resolve(url) {
  let path = normalize(decodeURIComponent(new URL(url, 'http://x').pathname));
  if (path.startsWith(`${bare}/`)) path = path.slice(bare.length);
  if (path.startsWith(`${strict}/`)) path = path.slice(strict.length);
  if (path.startsWith(`${loose}/`)) path = path.slice(loose.length);
  if (path.startsWith(`${dip}/`)) path = path.slice(dip.length);
  if (path.includes('..')) return null;
  if (path.startsWith('/pkg/')) return join(root, path);
  // bench/simd.mjs: the same page on the build without SIMD (scripts/build.mjs --no-simd).
  if (path.startsWith('/no-simd/wasm/')) return join(root, 'target/no-simd/wasm', path.slice('/no-simd/wasm/'.length));
  if (path.startsWith('/no-simd/')) path = path.slice('/no-simd'.length);
  // The browser run of the behaviour suite (tests/browser/run.mjs) is served from here too.
  if (path.startsWith('/tests/browser/') || path.startsWith('/tests/node/') || path.startsWith('/tests/soak/')) return join(root, path);
  // The browser benchmark (bench/browser.mjs) and the one peer it loads from node_modules.
  if (path.startsWith('/bench/browser/') || path === '/bench/harness.mjs' || path.startsWith('/node_modules/workerpool/dist/')) return join(root, path);
  return join(root, 'www', path.endsWith('/') ? `${path}index.html` : path);
}

createServer(async (req, res) => {
  const file = resolve(req.url);
  try {
    if (!file || !(await stat(file)).isFile()) throw new Error('not a file');
    const isolation = req.url.startsWith(`${bare}/`) ? {}
      : req.url.startsWith(`${dip}/`) ? { 'Document-Isolation-Policy': 'isolate-and-credentialless' } : {
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': req.url.startsWith(`${loose}/`) ? 'credentialless' : 'require-corp',
    };
    const policy = req.url.startsWith(`${strict}/`) ? { 'Content-Security-Policy': csp } : {};
    res.writeHead(200, {
      'Content-Type': types[extname(file)] ?? 'application/octet-stream',
      ...isolation,
      ...policy,
      'Cache-Control': 'no-cache',
    });
    res.end(await readFile(file));
  } catch {
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('not found');
  }
}).listen(port, host, () => console.log(`ringpool demo: http://${host}:${port}/ (and without isolation headers, in message mode: http://${host}:${port}${bare}/)`));
