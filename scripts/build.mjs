// `npm run build`: the npm package in pkg/, with pkg-template/build.mjs, the same tool a crate
// built on ringpool uses (`ringpool-build`, see examples/app): cargo with std rebuilt for
// panic=unwind, wasm-bindgen, wasm-opt from the npm `binaryen`, and the entry from pkg-template/.
// The package's wasm is the cdylib crates/ringpool-npm (the pool and the image kernels); the
// demo's is crates/ringpool-demo (the same plus wasm-bindgen-rayon). Both are named `ringpool`.
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { build, BuildMistake, wasm32Rustflags } from '../pkg-template/build.mjs';
import { toolchainEnv } from './toolchain.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const env = toolchainEnv();

// The workers' entry (`worker.js`, which imports the glue and its snippets) as one file: a
// worker's module loader pays per module, and this cut ~4 ms off each pool's start-up in Node
// (docs/notes/2026-12-06-start-up-worker-entry-in-one-file.md). A crate built with ringpool-build keeps the plain entry.
// The plain entry ships beside it as `worker-entry.js`, which ringpool-build copies into a
// crate's package (that glue is the crate's own).
function bundleWorker(dir) {
  const entry = join(dir, 'worker.js'), out = join(dir, 'worker.bundle.js');
  execFileSync(join(root, 'node_modules/.bin/rolldown'), [entry, '--format', 'esm', '--file', out], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (/^import\s/m.test(readFileSync(out, 'utf8'))) throw new BuildMistake(`${out} still imports a module; the worker entry must bundle into one file`);
  copyFileSync(join(root, 'pkg-template/worker.js'), join(dir, 'worker-entry.js'));
  renameSync(out, entry);
  const pkgJson = join(dir, 'package.json');
  const pkg = JSON.parse(readFileSync(pkgJson, 'utf8'));
  if (!pkg.files.includes('worker-entry.js')) pkg.files.splice(pkg.files.indexOf('worker.js') + 1, 0, 'worker-entry.js');
  writeFileSync(pkgJson, JSON.stringify(pkg, null, 2) + '\n');
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
    bundleWorker(join(root, 'pkg'));
    // `--demo` also builds the demo's copy (www/wasm/, served at /wasm/): the same package with
    // wasm-bindgen-rayon linked in for the side-by-side comparison.
    if (process.argv.includes('--demo')) {
      build({ crateDir: demo, outDir: join(root, 'www/wasm'), packageName: 'ringpool', env });
      bundleWorker(join(root, 'www/wasm'));
    }
  }
} catch (e) {
  if (!(e instanceof BuildMistake)) throw e;
  console.error(`build: ${e.message}`);
  process.exit(2);
}
