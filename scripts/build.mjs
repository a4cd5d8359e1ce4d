// `npm run build`: the npm package in pkg/, with pkg-template/build.mjs, the same tool a crate
// built on ringpool uses (`ringpool-build`, see examples/app): cargo with std rebuilt for
// panic=unwind, wasm-bindgen, wasm-opt from the npm `binaryen`, and the entry from pkg-template/.
// The package's wasm is the cdylib crates/ringpool-npm (the pool and the image kernels); the
// demo's is crates/ringpool-demo (the same plus wasm-bindgen-rayon). Both are named `ringpool`.
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { build, BuildMistake, wasm32Rustflags } from '../pkg-template/build.mjs';
import { toolchainEnv } from './toolchain.mjs';
import { LINK, repositoryOf, isAbsolute, fileOf } from './readme-links.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const env = toolchainEnv();

// One file of JavaScript for the page and its workers: `ringpool.js`, wasm-bindgen's glue and
// the snippets it imports bundled by rolldown, which also registers the glue for a worker
// (`globalThis.__ringpoolGlue`, read by worker/worker.js: a bundler's worker chunk uses its own
// copy). The page imports it (index.js) and starts each worker on the same file, so a browser
// fetches it once; it used to load the glue, 13 snippets and a second copy of both bundled
// into worker.js (bench/README.md, "What a page downloads"). One module is also what a worker's
// loader pays least for (docs/notes/2026-12-06-start-up-worker-entry-in-one-file.md). A crate
// built with ringpool-build keeps wasm-bindgen's layout and the two-line `worker.js` entry,
// which ships here as `worker-entry.js` for it. The file is minified (24.4 -> 16.8 KB gzip);
// the minifier keeps the `@vite-ignore` / `webpackIgnore` comments of its dynamic imports, and
// the error classes' names do not come from the (renamed) classes (src/web/errors.js).
function bundleGlue(dir, { forBundlers }) {
  const entry = join(dir, 'glue-entry.mjs'), out = join(dir, 'ringpool.bundle.js');
  writeFileSync(entry, "import * as glue from './ringpool.js';\nglobalThis.__ringpoolGlue ??= glue;\nexport * from './ringpool.js';\nexport { default } from './ringpool.js';\n");
  try {
    execFileSync(join(root, 'node_modules/.bin/rolldown'), [entry, '--format', 'esm', '--minify', '--file', out], { stdio: ['ignore', 'ignore', 'inherit'] });
  } finally {
    rmSync(entry);
  }
  const bundled = readFileSync(out, 'utf8');
  if (/(^|[;}])import\s*[{*\w]/m.test(bundled)) throw new BuildMistake(`${out} still imports a module; the glue must bundle into one file`);
  // (The demo's build, which no bundler sees, holds wasm-bindgen-rayon's `import(data.mainJS)`.)
  if (forBundlers) checkIgnoredImports(out, bundled);
  renameSync(out, join(dir, 'ringpool.js'));
  rmSync(join(dir, 'snippets'), { recursive: true, force: true });
  renameSync(join(dir, 'worker.js'), join(dir, 'worker-entry.js'));
  const index = join(dir, 'index.js');
  const text = readFileSync(index, 'utf8');
  const started = text.replaceAll("'./worker.js'", "'./ringpool.js'");
  if (text.split("'./worker.js'").length !== 3) throw new BuildMistake(`${index}: expected its two './worker.js' (Node's and the web's) to point at the glue`);
  writeFileSync(index, started);
  editPackageJson(dir, (pkg) => {
    pkg.files = pkg.files.filter((f) => f !== 'snippets/').map((f) => (f === 'worker.js' ? 'worker-entry.js' : f));
    pkg.sideEffects = pkg.sideEffects.map((f) => (f === './snippets/*' ? './ringpool.js' : f));
  });
}

function editPackageJson(dir, edit) {
  const file = join(dir, 'package.json');
  const pkg = JSON.parse(readFileSync(file, 'utf8'));
  edit(pkg);
  writeFileSync(file, JSON.stringify(pkg, null, 2) + '\n');
}

// A dynamic import of a computed URL (a Node builtin, a task module, the glue) is the runtime's
// to load, so in the package each keeps its webpackIgnore (and @vite-ignore) comment through
// the minifier: a bundler left to it warns or fails.
function checkIgnoredImports(file, text) {
  for (const m of text.matchAll(/import\(((?:\s|\/\*.*?\*\/)*)(?!\s*['"`])/gs)) {
    if (!m[1].includes('webpackIgnore: true')) throw new BuildMistake(`${file}: a dynamic import lost its webpackIgnore comment: ${text.slice(m.index, m.index + 80)}`);
  }
}

// The package's entry and `pool-api.js`, minified as `ringpool.js` is (4.5 -> 1.9 KB gzip;
// bench/README.md, "What a page downloads"). terser, not rolldown's minifier, so that
// `new URL("./ringpool_bg.wasm", import.meta.url)` keeps its quoted string for the bundlers
// that find the wasm by that pattern, and the bundler comments of its dynamic import stay.
// The package also ships them unminified in `template/`: ringpool-build makes a crate's entry
// from those, markers and all.
function minifyEntries(dir, { forBundlers }) {
  for (const entry of ['index.js', 'pool-api.js']) {
    const file = join(dir, entry);
    if (forBundlers) {
      mkdirSync(join(dir, 'template'), { recursive: true });
      copyFileSync(file, join(dir, 'template', entry));
    }
    execFileSync(join(root, 'node_modules/.bin/terser'), [file, '--module', '--compress', '--mangle', '--keep-fnames', '--keep-classnames',
      '--comments', '/webpackIgnore|@vite-ignore/', '-o', file], { stdio: ['ignore', 'ignore', 'inherit'] });
    const text = readFileSync(file, 'utf8');
    if (forBundlers) checkIgnoredImports(file, text);
    if (/new URL\(`/.test(text)) throw new BuildMistake(`${file}: a new URL(...) lost its quoted string to the minifier`);
  }
  if (forBundlers) editPackageJson(dir, (pkg) => pkg.files.push('template/'));
}

// The package's README as the registry shows it (scripts/readme-links.mjs): a link to a file
// the package does not ship (the guide, the bench, the examples) points into the repository.
function registryReadme(dir) {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const repo = repositoryOf(pkg);
  if (!repo) throw new BuildMistake(`${dir}/package.json has no https repository URL for the README's links to point at (set repository in Cargo.toml)`);
  const shipped = new Set(pkg.files);
  const readme = join(dir, 'README.md');
  const text = readFileSync(readme, 'utf8').replace(LINK, (link, image, label, target) => {
    if (isAbsolute(target) || shipped.has(fileOf(target))) return link;
    return `${image}[${label}](${repo}/${image ? 'raw' : 'blob'}/main/${target.replace(/^\.\//, '')})`;
  });
  writeFileSync(readme, text);
}

try {
  const npm = join(root, 'crates/ringpool-npm');
  const demo = join(root, 'crates/ringpool-demo');
  if (process.argv.includes('--no-simd')) {
    // bench/simd.mjs: the demo's build without simd128 (target/no-simd/wasm/, served at
    // /no-simd/), to measure what the SIMD paths give. Its own target dir keeps the main
    // build's cache. RUSTFLAGS replaces the config's wasm32 flags (a target env var would be
    // merged with them), so they are repeated here without `+simd128`.
    const flags = wasm32Rustflags().map((f) => f.replace(',+simd128', ''));
    build({ crateDir: demo, outDir: join(root, 'target/no-simd/wasm'), packageName: 'ringpool',
      env: { ...env, RUSTFLAGS: flags.join(' '), CARGO_TARGET_DIR: join(root, 'target/no-simd/cargo') } });
  } else {
    build({ crateDir: npm, outDir: join(root, 'pkg'), packageName: 'ringpool', env });
    bundleGlue(join(root, 'pkg'), { forBundlers: true });
    minifyEntries(join(root, 'pkg'), { forBundlers: true });
    registryReadme(join(root, 'pkg'));
    // `--demo` also builds the demo's copy (www/wasm/, served at /wasm/): the same package with
    // wasm-bindgen-rayon linked in for the side-by-side comparison.
    if (process.argv.includes('--demo')) {
      build({ crateDir: demo, outDir: join(root, 'www/wasm'), packageName: 'ringpool', env });
      bundleGlue(join(root, 'www/wasm'), { forBundlers: false });
      minifyEntries(join(root, 'www/wasm'), { forBundlers: false });
    }
  }
} catch (e) {
  if (!(e instanceof BuildMistake)) throw e;
  console.error(`build: ${e.message}`);
  process.exit(2);
}
