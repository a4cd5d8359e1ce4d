// What wasm SIMD gives each kernel: the demo page on its normal build (simd128) and on the
// same code built without it (scripts/build.mjs --no-simd, served at /no-simd/), in one
// browser, runs alternating between the two builds so the VM's drift cancels in the paired
// ratio. Every kernel on one thread (wasm-single), three on the pool (ringpool, workers = cores). Both builds must
// give the same bytes: the SIMD paths do the same IEEE operations in the same order.
//   npm run bench:simd            (4096×4096, blur/sharpen radius 8, 5 rounds)
//   SIZE=2048 ROUNDS=3 CASES=sobel:wasm-single,sobel:ringpool npm run bench:simd
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { demoRun, median, withChromium } from './harness.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const SIZE = Number(process.env.SIZE ?? 4096), ROUNDS = Number(process.env.ROUNDS ?? 5);
const scalarWasm = `${root}target/no-simd/wasm/ringpool_bg.wasm`;
if (!existsSync(scalarWasm) || statSync(scalarWasm).mtimeMs < statSync(`${root}www/wasm/ringpool_bg.wasm`).mtimeMs) {
  execFileSync(process.execPath, ['scripts/build.mjs', '--no-simd'], { cwd: root, stdio: 'inherit' });
}

const CASES = (process.env.CASES ?? 'blur:wasm-single,sharpen:wasm-single,sobel:wasm-single,emboss:wasm-single,grayscale:wasm-single,blur:ringpool,sharpen:ringpool,grayscale:ringpool')
  .split(',').map((c) => c.split(':'));

await withChromium(async (browser, base) => {
  const pages = {};
  for (const [build, path] of [['simd', '/'], ['scalar', '/no-simd/']]) {
    pages[build] = await browser.newPage();
    await pages[build].goto(`${base}${path}`);
    await pages[build].evaluate(() => window.demo.ready);
  }
  const cores = await pages.simd.evaluate(() => navigator.hardwareConcurrency);
  const rows = [];
  for (const [filter, mode] of CASES) {
    const ms = { simd: [], scalar: [] }, sums = {};
    for (let round = 0; round <= ROUNDS; round++) {
      for (const build of round % 2 ? ['simd', 'scalar'] : ['scalar', 'simd']) {
        const r = await demoRun(pages[build], { filter, mode, workers: cores, size: SIZE });
        sums[build] = r.checksum;
        if (round > 0) ms[build].push(r.ms); // round 0 warms both up
      }
    }
    rows.push({ kernel: filter, mode, 'simd128 ms': median(ms.simd).toFixed(1), 'without ms': median(ms.scalar).toFixed(1),
      'SIMD speed-up (paired)': `${median(ms.scalar.map((t, i) => t / ms.simd[i])).toFixed(2)}×`, 'same bytes': sums.simd === sums.scalar });
    console.log(rows.at(-1));
  }
  console.log(`\n${SIZE}×${SIZE}, blur/sharpen radius 8, ${cores} cores (ringpool: ${cores} workers, tiles of 64 rows); ${ROUNDS} rounds, builds alternating`);
  console.table(rows);
  if (!rows.every((r) => r['same bytes'])) { console.error('the builds gave different bytes'); process.exitCode = 1; }
});
