// examples/app as a user gets it: copied out of the repository (its references `../..` pointed
// at this checkout), `npm install`, `npm test` (ringpool-build, then the app in Node and in
// headless Chromium), and a TypeScript check of its pkg/index.d.ts. Then the loud mistakes,
// each of which must be one line that says what is wrong and how to fix it:
//   - a stable toolchain, a toolchain without rust-src, a wasm-bindgen CLI of another version
//     (ringpool-build refuses before building);
//   - a build without the link args (the memory is not shared): Pool.create and the crate's
//     WorkerPool::new fail naming them;
//   - a panic=abort build: a panic's WorkerCrashedError says so and how to get PanicError.
// Cargo builds go to target/app* in this repository, so a second run is warm.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync, rmSync, mkdirSync, chmodSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wasm32Rustflags } from '../../pkg-template/build.mjs';
import { toolchainEnv } from '../../scripts/toolchain.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '../..');
const app = mkdtempSync(join(tmpdir(), 'ringpool-app-'));
const baseEnv = { ...process.env, ...toolchainEnv(), CARGO_TARGET_DIR: join(repo, 'target/app') };

let failed = 0;
const report = (ok, what, detail = '') => {
  console.log(`${ok ? 'ok' : 'not ok'} - ${what}${ok || !detail ? '' : `\n${detail}`}`);
  if (!ok) failed++;
};
const timed = (what, cmd, args, env = baseEnv) => {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { cwd: app, env, stdio: 'inherit' });
  const s = ((performance.now() - t0) / 1000).toFixed(1);
  report(r.status === 0, `${what} (${s} s)`);
  return r.status === 0;
};

// 1. The copy.
cpSync(join(repo, 'examples/app'), app, { recursive: true, filter: (src) => !/\/(node_modules|pkg|target)$/.test(src) });
const edit = (file, from, to) => {
  const text = readFileSync(join(app, file), 'utf8');
  if (!text.includes(from)) throw new Error(`${file} no longer contains ${from}`);
  writeFileSync(join(app, file), text.replace(from, to));
};
edit('Cargo.toml', 'path = "../.."', `path = ${JSON.stringify(repo)}`);
edit('package.json', '"file:../../pkg"', JSON.stringify(`file:${join(repo, 'pkg')}`));
console.log(`# examples/app copied to ${app}`);

const t0 = performance.now();
const ok = timed('npm install in the copy', 'npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'])
  && timed('npm test in the copy: ringpool-build, then the app in Node and headless Chromium', 'npm', ['test']);
console.log(`# a fresh copy to a passing npm test: ${((performance.now() - t0) / 1000).toFixed(1)} s`);

if (ok) {
  // 2. The types a TypeScript user gets.
  writeFileSync(join(app, 'check.ts'), `
import { Pool, PanicError, QueueFullError, scale, divide, total, diagnostics, memoryBytes } from './pkg/index.js';
const pool: Pool = await Pool.create({ workers: 2 });
const n: number = await total(3);
const scaled: unknown = await pool.trySubmit(scale({ values: [1], scale: 2 }));
const q: unknown = await pool.trySubmit(divide(1, 2));
const spun: number = await pool.trySubmit(diagnostics.spin(1));
const where = (e: PanicError): string | null => e.location;
const bytes: number = memoryBytes();
if (new QueueFullError() instanceof Error) console.log(n, scaled, q, spun, where, bytes);
// @ts-expect-error: internals are not exported
import { __setWorkerScript } from './pkg/index.js';
`);
  const tsc = spawnSync(join(repo, 'node_modules/.bin/tsc'),
    ['--noEmit', '--strict', '--target', 'es2022', '--lib', 'esnext,dom', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--skipLibCheck', 'false', 'check.ts'],
    { cwd: app, encoding: 'utf8' });
  report(tsc.status === 0, 'pkg/index.d.ts types a TypeScript use of the app', tsc.stdout + tsc.stderr);
}

// 3. Mistakes ringpool-build refuses with one line.
const build = (env, args = []) => spawnSync(process.execPath, [join(app, 'node_modules/.bin/ringpool-build'), ...args], { cwd: app, env, encoding: 'utf8' });
const oneLine = (r, pattern, what) => {
  const lines = r.stderr.trim().split('\n');
  report(r.status === 2 && lines.length === 1 && pattern.test(lines[0]), `${what}: ${lines[0]}`, `exit ${r.status}\n${r.stderr}`);
};
const toolchains = execFileSync('rustup', ['toolchain', 'list'], { encoding: 'utf8' }).split('\n').map((l) => l.split(' ')[0]).filter(Boolean);
const stable = toolchains.find((t) => !t.includes('nightly') && t !== 'ringpool-debian-web');
if (!stable) {
  report(false, 'a non-nightly toolchain to test with', `rustup has only: ${toolchains.join(', ')}`);
} else {
  const env = { ...baseEnv, RUSTUP_TOOLCHAIN: stable };
  delete env.RUSTC_BOOTSTRAP;
  oneLine(build(env), /needs a nightly Rust .*rust-toolchain\.toml/, `a stable toolchain (${stable})`);
  const sysroot = execFileSync('rustc', ['--print', 'sysroot'], { env, encoding: 'utf8' }).trim();
  if (existsSync(join(sysroot, 'lib/rustlib/src/rust/library/std'))) {
    console.log(`# skip: ${stable} has rust-src, so a missing rust-src cannot be shown with it`);
  } else {
    oneLine(build({ ...env, RUSTC_BOOTSTRAP: '1' }), /rust-src is missing .*rustup component add rust-src/, `a toolchain without rust-src (${stable} with RUSTC_BOOTSTRAP=1)`);
  }
}
const fakeBin = join(app, 'fake-bin');
mkdirSync(fakeBin, { recursive: true });
writeFileSync(join(fakeBin, 'wasm-bindgen'), '#!/bin/sh\necho "wasm-bindgen 0.2.99"\n');
chmodSync(join(fakeBin, 'wasm-bindgen'), 0o755);
oneLine(build({ ...baseEnv, PATH: `${fakeBin}:${baseEnv.PATH}` }), /wasm-bindgen CLI 0\.2\.99 does not match .*cargo install wasm-bindgen-cli --version/, 'a wasm-bindgen CLI of another version');

// 4. Mistakes that build: the running module says what is wrong. Debug builds (no wasm-opt).
const all = wasm32Rustflags();
const linkArgs = all.filter((f) => f.startsWith('-Clink-arg='));
const variants = [
  {
    name: 'unshared',
    what: 'built without the link args',
    env: { RUSTFLAGS: all.filter((f) => !linkArgs.includes(f)).join(' ') },
    script: `
      const m = await import('./pkg-unshared/index.js');
      const create = await m.Pool.create({ workers: 1 }).then(() => 'created', (e) => e.message);
      const rust = await m.total(3).then(() => 'created', (e) => e.message);
      console.log(JSON.stringify({ create, rust }));`,
    check: (r) => [r.create, r.rust].every((msg) => /not shared.*-Clink-arg=--shared-memory.*examples\/app/.test(msg)),
  },
  {
    name: 'abort',
    what: 'built with panic=abort',
    env: { RUSTFLAGS: ['-Ctarget-feature=+atomics,+bulk-memory,+mutable-globals', '-Cpanic=abort', ...linkArgs].join(' '), CARGO_UNSTABLE_BUILD_STD: 'panic_abort,std' },
    script: `
      const m = await import('./pkg-abort/index.js');
      const pool = await m.Pool.create({ workers: 1 });
      const e = await pool.trySubmit(m.divide(1, 0)).then(() => null, (e) => e);
      const after = await pool.trySubmit(m.divide(6, 3));
      await pool.shutdown();
      console.log(JSON.stringify({ crashed: e instanceof m.WorkerCrashedError, message: e?.message, after }));`,
    check: (r) => r.crashed && /built with panic=abort.*-Cpanic=unwind.*PanicError/.test(r.message) && r.after === 2,
  },
];
for (const v of variants) {
  const env = { ...baseEnv, ...v.env, CARGO_TARGET_DIR: join(repo, `target/app-${v.name}`) };
  const r = build(env, ['--dev', '--out-dir', `pkg-${v.name}`]);
  if (r.status !== 0) {
    report(false, `the app ${v.what} builds`, r.stderr.slice(-3000));
    continue;
  }
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', v.script], { cwd: app, encoding: 'utf8', timeout: 60_000 });
  let result = null;
  try { result = JSON.parse(run.stdout.trim().split('\n').pop()); } catch { /* reported below */ }
  report(result != null && v.check(result), `the app ${v.what}: ${JSON.stringify(result)}`, run.stdout + run.stderr);
}

if (!failed) rmSync(app, { recursive: true, force: true });
else console.log(`# the copy is kept at ${app}`);
process.exit(failed ? 1 : 0);
