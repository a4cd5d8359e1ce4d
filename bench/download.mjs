// What a page downloads for `import { Pool } from 'ringpool'`, one pool and one task: every
// file of a built package that the page or a worker loads, with its bytes and gzip -9 bytes.
// The npm package's glue is one file (scripts/build.mjs bundles wasm-bindgen's glue and its
// snippets) on which the workers start too, fetched once; a build that is not bundled counts
// its snippets and its worker.js entry. Used by bench/size.mjs and
// tests/package/download-budget.mjs.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** `[{ file, bytes, gzip }]` for the package built in `pkg`, and their gzip total. */
export function pageDownload(pkg) {
  const snippets = [];
  const walk = (d) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.js')) snippets.push(p.slice(pkg.length + 1));
    }
  };
  if (existsSync(join(pkg, 'snippets'))) walk(join(pkg, 'snippets'));
  const names = ['ringpool_bg.wasm', 'ringpool.js', 'index.js', 'pool-api.js', ...(snippets.length ? ['worker.js', ...snippets] : [])];
  const files = names.map((file) => {
    const bytes = readFileSync(join(pkg, file));
    return { file, bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
  return { files, total: files.reduce((n, f) => n + f.gzip, 0) };
}
