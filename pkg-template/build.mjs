#!/usr/bin/env node
// `ringpool-build`: builds a crate that uses ringpool into an npm-style package directory, the
// same way the `ringpool` npm package itself is built (scripts/build.mjs imports this file).
//
//   ringpool-build [--out-dir pkg] [--dev] [--features a,b] [--manifest-path Cargo.toml]
//
// 1. Checks the toolchain and says in one line what to install when it is wrong: a nightly
//    (or RUSTC_BOOTSTRAP) rustc, its rust-src, a wasm-bindgen CLI equal to the crate's
//    wasm-bindgen, the npm `binaryen`.
// 2. `cargo build --target wasm32-unknown-unknown` with `-Z build-std=panic_unwind,std`; the
//    rustflags come from the crate's `.cargo/config.toml`, which includes the package's
//    `cargo-config.toml` (the one list of them).
// 3. `wasm-bindgen --target web`, then `wasm-opt -O3` from the npm `binaryen` package (Debian's
//    wasm-opt 108 breaks unwinding; wasm-pack would download another); the glue's imports get
//    short names (import-names.mjs).
// 4. The entry: `index.js`, `index.d.ts`, `worker.js` and `pool-api.js` from this folder, pointed at the
//    crate's glue. A crate other than ringpool gets `Pool`, `Task`, the error classes,
//    `diagnostics`, `memoryBytes`, `wasmMemory` and its own `#[wasm_bindgen]` exports, and none
//    of ringpool's internal ones.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, readdirSync, writeFileSync, statSync, rmSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { shortenImportNames } from './import-names.mjs';

const here = dirname(fileURLToPath(import.meta.url));

/** A build mistake: printed as one line, without a stack. */
export class BuildMistake extends Error {}

const capture = (cmd, args, opts) => {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts }).trim();
  } catch (e) {
    if (e.code === 'ENOENT') return null;
    throw e;
  }
};

/** The wasm32 rustflags of `cargo-config.toml` beside this file (the one list of them). */
export function wasm32Rustflags() {
  const config = readFileSync(join(here, 'cargo-config.toml'), 'utf8');
  return [...config.match(/rustflags = \[([^\]]*)\]/)[1].matchAll(/"([^"]+)"/g)].map((m) => m[1]);
}

/** The crate's package and library names, target directory and locked wasm-bindgen version. */
function inspect(crateDir, manifest, env) {
  const json = capture('cargo', ['metadata', '--format-version', '1', '--manifest-path', manifest], { cwd: crateDir, env });
  if (json == null) throw new BuildMistake('cargo was not found: install Rust with rustup (https://rustup.rs), then run this again');
  const meta = JSON.parse(json);
  const root = meta.packages.find((p) => p.id === meta.resolve?.root) ?? meta.packages.find((p) => resolve(p.manifest_path) === resolve(manifest));
  const lib = root.targets.find((t) => t.kind.includes('cdylib'));
  if (!lib) throw new BuildMistake(`${root.name} has no cdylib target: add [lib] crate-type = ["cdylib"] (or ["cdylib", "rlib"]) to its Cargo.toml`);
  const bindgen = meta.packages.find((p) => p.name === 'wasm-bindgen');
  return { pkg: root, lib: lib.name.replace(/-/g, '_'), targetDir: meta.target_directory, workspaceRoot: meta.workspace_root, bindgen: bindgen?.version ?? null };
}

/** Step 1: one line per mistake, saying what to install. */
export function checkToolchain(crateDir, env, bindgenVersion) {
  const vv = capture('rustc', ['-vV'], { cwd: crateDir, env });
  if (vv == null) throw new BuildMistake('rustc was not found: install Rust with rustup (https://rustup.rs), then run this again');
  const release = /^release: (.*)$/m.exec(vv)?.[1] ?? '?';
  if (!release.includes('nightly') && env.RUSTC_BOOTSTRAP !== '1') {
    throw new BuildMistake(`ringpool needs a nightly Rust (for -Z build-std=panic_unwind,std), but rustc here is ${release}: ` +
      'add a rust-toolchain.toml with channel = "nightly-2026-10-29" and components = ["rust-src"] (as examples/app has), or run `rustup toolchain install nightly --component rust-src`');
  }
  const sysroot = capture('rustc', ['--print', 'sysroot'], { cwd: crateDir, env });
  if (!existsSync(join(sysroot, 'lib/rustlib/src/rust/library/std'))) {
    throw new BuildMistake(`rust-src is missing from ${sysroot} (-Z build-std needs std's source): run \`rustup component add rust-src\` in the crate's folder`);
  }
  const cli = capture('wasm-bindgen', ['--version'], { env })?.split(/\s+/)[1] ?? null;
  if (bindgenVersion && cli !== bindgenVersion) {
    throw new BuildMistake(`${cli ? `wasm-bindgen CLI ${cli} does not match` : 'the wasm-bindgen CLI is missing for'} the wasm-bindgen crate ${bindgenVersion} in Cargo.lock: ` +
      `run \`cargo install wasm-bindgen-cli --version ${bindgenVersion}\``);
  }
}

function wasmOpt(crateDir) {
  for (const from of [join(crateDir, 'package.json'), join(here, 'package.json')]) {
    try {
      return join(dirname(createRequire(from).resolve('binaryen/package.json')), 'bin/wasm-opt');
    } catch { /* not installed there */ }
  }
  throw new BuildMistake('the npm package binaryen is missing (its wasm-opt optimises the module; Debian\'s 108 breaks unwinding): run `npm install --save-dev binaryen@132.0.0`');
}

// ringpool's own exports: the entry re-exports the public ones itself, the rest are internal.
const RINGPOOL_EXPORTS = new Set(['Pool', 'Task', 'memoryBytes', 'wasmMemory', 'errorClasses', 'initSync']);
const isRingpoolExport = (name) => RINGPOOL_EXPORTS.has(name) || /^(diagnostics|image)[A-Z]/.test(name);

/** Step 4: the entry, from this folder's files, for the glue `<name>.js`. */
function writeEntry(out, name, isRingpool) {
  const dts = readFileSync(join(out, `${name}.d.ts`), 'utf8');
  const own = [...dts.matchAll(/^export (?:declare )?(?:function|class|const|enum) (\w+)/gm)].map((m) => m[1]).filter((n) => !isRingpoolExport(n));
  for (const file of ['index.js', 'index.d.ts', 'worker.js', 'pool-api.js']) {
    // The npm package's own `worker.js` is bundled with ringpool's glue; the plain entry that
    // a crate's package starts from ships beside it as `worker-entry.js`.
    const source = file === 'worker.js' && existsSync(join(here, 'worker-entry.js')) ? 'worker-entry.js' : file;
    // The npm package's `index.js` and `pool-api.js` are minified; their sources, with the
    // markers read below, ship in `template/`.
    const dir = existsSync(join(here, 'template', source)) ? join(here, 'template') : here;
    let text = readFileSync(join(dir, source), 'utf8');
    if (!isRingpool) {
      // The image kernels are the npm package's own (crates/ringpool-image); a crate has its own.
      text = text.replace(/\n\/\/ >>> ringpool package only[\s\S]*?\/\/ <<< ringpool package only\n/g, '\n');
      text = text.replaceAll('./ringpool.js', `./${name}.js`).replaceAll('./ringpool_bg.wasm', `./${name}_bg.wasm`);
      text = text.replace(/^\/\/ (Entry|Types) of the `ringpool` npm package/m, `// $1 of ${name}, built on ringpool by ringpool-build`);
      if (file.startsWith('index.') && own.length) text += `\n// ${name}'s own exports.\nexport { ${own.join(', ')} } from './${name}.js';\n`;
    }
    writeFileSync(join(out, file), text);
  }
  return own;
}

/**
 * The crate's license texts (`LICENSE`, `LICENSE-MIT`, `COPYING`, …) from its folder, else from
 * its workspace's root, copied into the package; their names.
 */
function copyLicenses(crateDir, workspaceRoot, out) {
  const isLicense = (f) => /^(licen[cs]e|copying)([-.].*)?$/i.test(f);
  for (const dir of [crateDir, workspaceRoot]) {
    if (!dir || !existsSync(dir)) continue;
    const found = readdirSync(dir).filter(isLicense).filter((f) => statSync(join(dir, f)).isFile());
    if (found.length === 0) continue;
    for (const f of found) copyFileSync(join(dir, f), join(out, f));
    return found;
  }
  return [];
}

function writePackageJson(out, pkg, name, isRingpool, licenses) {
  const fields = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));
  const merged = {
    name: pkg.name,
    version: pkg.version,
    ...(pkg.description ? { description: pkg.description } : {}),
    ...(pkg.license ? { license: pkg.license } : {}),
    ...(pkg.repository ? { repository: { type: 'git', url: pkg.repository } } : {}),
    type: 'module',
    ...fields,
  };
  let files = fields.files;
  if (!isRingpool) {
    // A crate's package is not a build tool: no bin, no cargo-config.toml.
    delete merged.bin;
    files = files.filter((f) => !['build.mjs', 'import-names.mjs', 'cargo-config.toml'].includes(f));
  }
  merged.files = [`${name}_bg.wasm`, `${name}.js`, `${name}.d.ts`, 'snippets/', ...files, ...licenses];
  writeFileSync(join(out, 'package.json'), JSON.stringify(merged, null, 2) + '\n');
}

/**
 * Builds the crate in `crateDir` into `outDir`. `env` is added to the environment (the
 * repository's scripts pass its Debian-toolchain fallback and RUSTFLAGS variants this way).
 * `packageName` names the npm package and its files instead of the crate (the repository's
 * cdylibs crates/ringpool-npm and crates/ringpool-demo are built as `ringpool`).
 */
export function build({ crateDir = process.cwd(), outDir = 'pkg', features = '', dev = false, manifestPath, packageName, env: extraEnv = {} } = {}) {
  crateDir = resolve(crateDir);
  const env = { CARGO_UNSTABLE_BUILD_STD: 'panic_unwind,std', ...process.env, ...extraEnv };
  // cargo-installed tools (the wasm-bindgen CLI) are found even when ~/.cargo/bin is not on
  // PATH; one on PATH comes first.
  env.PATH = `${env.PATH}:${join(env.CARGO_HOME ?? join(env.HOME ?? '/root', '.cargo'), 'bin')}`;
  const manifest = resolve(crateDir, manifestPath ?? 'Cargo.toml');
  if (!existsSync(manifest)) throw new BuildMistake(`no Cargo.toml in ${crateDir}: run ringpool-build in your crate's folder (or pass --manifest-path)`);
  // cargo metadata also writes Cargo.lock, whose wasm-bindgen the CLI must equal.
  const crate = inspect(crateDir, manifest, env);
  checkToolchain(crateDir, env, crate.bindgen);
  const opt = wasmOpt(crateDir);

  const profile = dev ? 'debug' : 'release';
  const run = (cmd, args) => execFileSync(cmd, args, { cwd: crateDir, env, stdio: 'inherit' });
  run('cargo', ['build', '--lib', '--target', 'wasm32-unknown-unknown', '--manifest-path', manifest,
    ...(dev ? [] : ['--release']), ...(features ? ['--features', features] : [])]);
  const wasm = join(crate.targetDir, 'wasm32-unknown-unknown', profile, `${crate.lib}.wasm`);

  const out = resolve(crateDir, outDir);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const name = packageName ? packageName.replace(/-/g, '_') : crate.lib;
  run('wasm-bindgen', ['--target', 'web', '--out-dir', out, '--out-name', name, wasm]);
  const glueWasm = join(out, `${name}_bg.wasm`);
  if (!dev) {
    const before = statSync(glueWasm).size;
    run(opt, ['-O3', ...(env.RINGPOOL_WASM_NAMES ? ['-g'] : []), glueWasm, '-o', glueWasm]);
    console.log(`wasm-opt: ${before} -> ${statSync(glueWasm).size} bytes`);
  }
  const gluePath = join(out, `${name}.js`);
  const short = shortenImportNames(readFileSync(glueWasm), inlineImportWrappers(readFileSync(gluePath, 'utf8')), `./${name}_bg.js`);
  writeFileSync(glueWasm, short.wasm);
  writeFileSync(gluePath, short.glue);
  const pkg = packageName ? { ...crate.pkg, name: packageName } : crate.pkg;
  const isRingpool = pkg.name === 'ringpool';
  const own = writeEntry(out, name, isRingpool);
  const licenses = copyLicenses(dirname(manifest), crate.workspaceRoot, out);
  writePackageJson(out, pkg, name, isRingpool, licenses);
  // The crate's `readme` (a path from its manifest's folder), else its README.md.
  const readme = resolve(dirname(manifest), crate.pkg.readme ?? 'README.md');
  if (existsSync(readme)) copyFileSync(readme, join(out, 'README.md'));
  if (isRingpool) for (const tool of ['build.mjs', 'import-names.mjs', 'cargo-config.toml']) copyFileSync(join(here, tool), join(out, tool));
  const bytes = readFileSync(glueWasm);
  console.log(`built ${pkg.name}@${pkg.version}${features ? ` (features: ${features})` : ''} in ${out}: ` +
    `${bytes.length} bytes of wasm, ${gzipSync(bytes).length} gzipped${isRingpool ? '' : `; own exports: ${own.join(', ') || 'none'}`}`);
  return { out, name, own, wasmBytes: bytes.length };
}

/**
 * With legacy exception handling (which Node 20 needs) wasm-bindgen's glue wraps every import
 * as `function() { return wrapError(function (a, b) { body }, arguments); }`, so each call from
 * wasm allocates a closure and an `arguments` object and goes through `apply` before the
 * try/catch that turns a JS exception into a wasm one. This rewrites each wrapper to
 * `function (a, b) { try { body } catch (e) { wrapErrorThrow(e); } }`, where
 * `wrapErrorThrow` is wrapError's own catch block, copied from the glue: the same calls and
 * the same exceptions, without the allocations. Measured with bench/ab.mjs:
 * `trySubmit` admission 0.60× the time, no-op tasks/s 1.09×. A body that uses `this` or
 * `arguments` keeps its wrapper. Glue without `wrapError` (modern EH) is returned unchanged.
 */
export function inlineImportWrappers(text) {
  const def = text.match(/^function wrapError\(f, args\) \{\n\s*try \{\n\s*return f\.apply\(this, args\);\n\s*\} catch \(e\) \{\n([\s\S]*?)\n    \}\n\}\n/m);
  if (!def) {
    if (text.includes('wrapError(')) throw new Error('build: wasm-bindgen\'s wrapError changed shape; update inlineImportWrappers in pkg-template/build.mjs');
    return text;
  }
  let kept = 0;
  const call = /function\(\) \{ return wrapError\(function \(([^)]*)\) \{([\s\S]*?)\}, arguments\); \}/g;
  let out = text.replace(call, (whole, params, body) => {
    if (/\b(this|arguments)\b/.test(body.replace(/\/\/.*$/gm, ''))) {
      kept++;
      return whole;
    }
    return `function (${params}) { try {${body}} catch (e) { wrapErrorThrow(e); } }`;
  });
  const left = out.split('wrapError(function').length - 1;
  if (left !== kept) throw new Error(`build: ${left - kept} wasm-bindgen import wrappers were not rewritten; update inlineImportWrappers in pkg-template/build.mjs`);
  out = out.replace(def[0], `${def[0]}function wrapErrorThrow(e) {\n${def[1]}\n}\n`);
  return out;
}

function main(argv) {
  const opts = { dev: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new BuildMistake(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--dev') opts.dev = true;
    else if (a === '--out-dir') opts.outDir = value();
    else if (a === '--features') opts.features = value();
    else if (a === '--manifest-path') opts.manifestPath = value();
    else if (a === '--help' || a === '-h') {
      console.log('ringpool-build [--out-dir pkg] [--dev] [--features a,b] [--manifest-path Cargo.toml]');
      return;
    } else throw new BuildMistake(`unknown option ${a} (see ringpool-build --help)`);
  }
  build(opts);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url) || /ringpool-build$/.test(process.argv[1] ?? '')) {
  try {
    main(process.argv.slice(2));
  } catch (e) {
    if (e instanceof BuildMistake) {
      console.error(`ringpool-build: ${e.message}`);
      process.exit(2);
    }
    if (e.status != null) process.exit(e.status); // a command failed; it printed why
    throw e;
  }
}
