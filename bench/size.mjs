// What a page downloads for `import { Pool } from 'ringpool'`, one pool and one task: every
// file of the built package (pkg/) that the page or a worker loads, in bytes and gzip -9
// bytes. With --wasm, also where the wasm's bytes go: a build that keeps function names
// (target/size-names/, RINGPOOL_WASM_NAMES) read with twiggy (cargo install twiggy), summed by
// crate and module. `node bench/size.mjs [--wasm]`; bench/README.md, "What a page downloads".
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pageDownload } from './download.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { files, total } = pageDownload(join(root, 'pkg'));
console.log(`what a page loads from pkg/ (${files.length} files): ${total} B gzip -9`);
console.table(Object.fromEntries(files.map((f) => [f.file.replace(/^snippets\/[^/]+\//, 'snippets/…/'), { bytes: f.bytes, gzip: f.gzip }])));

if (process.argv.includes('--wasm')) {
  try {
    execFileSync('twiggy', ['--version'], { stdio: 'ignore' });
  } catch {
    console.error('bench/size.mjs --wasm needs twiggy, which npm run setup does not install: cargo install twiggy');
    process.exit(1);
  }
  const { build } = await import('../pkg-template/build.mjs');
  const { toolchainEnv } = await import('../scripts/toolchain.mjs');
  const out = join(root, 'target/size-names');
  build({ crateDir: join(root, 'crates/ringpool-npm'), outDir: out, packageName: 'ringpool', env: { ...toolchainEnv(), RINGPOOL_WASM_NAMES: '1' } });
  const csv = execFileSync('twiggy', ['top', '-n', '100000', '--format', 'csv', join(out, 'ringpool_bg.wasm')], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const groups = new Map();
  for (const line of csv.split('\n').slice(1)) {
    const m = /^"?(.*?)"?,(\d+),/.exec(line);
    if (!m) continue;
    const g = group(m[1]);
    if (g) groups.set(g, (groups.get(g) ?? 0) + Number(m[2]));
  }
  const sum = [...groups.values()].reduce((a, b) => a + b, 0);
  console.log(`where the wasm's ${sum} bytes of code and data go (twiggy, names build; before gzip):`);
  console.table(Object.fromEntries([...groups].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, { bytes: v, share: `${(v / sum * 100).toFixed(1)} %` }])));
}

/** The group an item of twiggy's list counts in (null: the name section itself). */
function group(name) {
  if (/names.*subsection/.test(name)) return null;
  if (name.startsWith('data segment')) return 'data (strings, tables)';
  const n = name.replace(/\[[0-9a-f]{1,16}\]/g, '');
  // The `#[wasm_bindgen]` exports by their JS names: with LTO the method behind each is
  // inlined into it (`pool_broadcast` is `JsPool::broadcast`).
  if (/^(pool_|image[A-Z]|diagnostics[A-Z]|__ringpool|ringpool_worker_|memoryBytes|wasmMemory|errorClasses)/.test(n)) return 'ringpool::web exports (the JS API\'s entry points, methods inlined)';
  const m = /^[<&\s]*([a-z_0-9]+)::([A-Za-z_0-9]+)(?:::([a-z_0-9]+))?/.exec(n);
  if (!m) {
    if (/shim|^__wbg|^__wbindgen|closure/i.test(n)) return 'wasm-bindgen shims and closures';
    if (/fmt::|escape|Debug|Display/.test(n)) return 'std/core: formatting';
    return 'other (types, imports, tables, sections)';
  }
  const [, crate, mod, sub] = m;
  if (crate === 'ringpool') return mod === 'web' ? `ringpool::web::${sub ?? ''}` : 'ringpool core (pool, task, dispatch, ring, …)';
  if (['core', 'alloc', 'std'].includes(crate)) {
    if (/fmt|flt2dec|escape|Debug|Display|Formatter|pad/.test(n)) return 'std/core: formatting';
    if (/panic/.test(n)) return 'std/core: panics, unwinding';
    return 'std/core/alloc: collections, strings, other';
  }
  if (['wasm_bindgen', 'js_sys', 'wasm_bindgen_futures'].includes(crate)) return 'wasm-bindgen, js-sys, futures';
  return crate;
}
