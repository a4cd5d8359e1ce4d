// `npm run build`: the npm package in pkg/.
//   1. wasm-pack (release, --target web) with std rebuilt for panic=unwind;
//   2. wasm-opt from the npm `binaryen` package (Debian's 108 breaks unwinding; tests run the
//      optimised output);
//   3. pkg-template/ merged in: entry, types, README, package.json fields.
// The npm package is built with the `image` feature (the `image.*` kernels).
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync, readdirSync, statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = join(root, 'pkg');
// setup.sh leaves target/toolchain.env when it fell back to Debian's rustc-web.
const toolchainEnv = {};
try {
  for (const m of readFileSync(join(root, 'target/toolchain.env'), 'utf8').matchAll(/^export (\w+)=(.*)$/gm)) {
    toolchainEnv[m[1]] = m[2];
  }
} catch { /* the default rustup nightly */ }
const cargoHome = process.env.CARGO_HOME ?? join(process.env.HOME ?? '/root', '.cargo');
process.env.PATH = `${join(cargoHome, 'bin')}:${process.env.PATH}`;
const run = (cmd, args, env = {}) =>
  execFileSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...toolchainEnv, ...env } });

// `--demo` also builds the demo's copy (www/wasm/, served at /wasm/): the same package with
// wasm-bindgen-rayon linked in for the side-by-side comparison; the npm package stays without it.
const demo = process.argv.includes('--demo');

function build(outDir, features) {
  const out = join(root, outDir);
  run('wasm-pack', ['build', '.', '--mode', 'force', '--target', 'web', '--release', '--out-dir', outDir, '--out-name', 'ringpool',
    '--', '--features', features], { CARGO_UNSTABLE_BUILD_STD: 'panic_unwind,std' });

  const wasm = join(out, 'ringpool_bg.wasm');
  const before = statSync(wasm).size;
  // RINGPOOL_WASM_NAMES=1 keeps function names (for profiles).
  run(join(root, 'node_modules/.bin/wasm-opt'), ['-O3', ...(process.env.RINGPOOL_WASM_NAMES ? ['-g'] : []), wasm, '-o', wasm]);
  console.log(`wasm-opt: ${before} -> ${statSync(wasm).size} bytes`);

  const template = join(root, 'pkg-template');
  for (const f of readdirSync(template)) {
    if (f !== 'package.json') copyFileSync(join(template, f), join(out, f));
  }
  const generated = JSON.parse(readFileSync(join(out, 'package.json'), 'utf8'));
  const extra = JSON.parse(readFileSync(join(template, 'package.json'), 'utf8'));
  const merged = {
    ...generated,
    ...extra,
    files: [...new Set([...(generated.files ?? []), ...extra.files])],
  };
  writeFileSync(join(out, 'package.json'), JSON.stringify(merged, null, 2) + '\n');
  console.log(`built ${merged.name}@${merged.version} (features: ${features}) in ${outDir}/`);
}

if (process.argv.includes('--no-simd')) {
  // bench/simd.mjs: the demo's build without simd128 (target/no-simd/wasm/, served at
  // /no-simd/), to measure what the SIMD paths give. Its own target dir keeps the main build's
  // cache. RUSTFLAGS replaces the config's wasm32 flags (a target env var would be merged
  // with them), so they are repeated here without `+simd128`.
  const config = readFileSync(join(root, '.cargo/config.toml'), 'utf8');
  const flags = [...config.match(/rustflags = \[([^\]]*)\]/)[1].matchAll(/"([^"]+)"/g)].map((m) => m[1].replace(',+simd128', ''));
  process.env.RUSTFLAGS = flags.join(' ');
  process.env.CARGO_TARGET_DIR = join(root, 'target/no-simd/cargo');
  build('target/no-simd/wasm', 'demo-rayon,worker-alloc');
} else {
  build('pkg', 'image,worker-alloc');
  if (demo) build('www/wasm', 'demo-rayon,worker-alloc');
}
