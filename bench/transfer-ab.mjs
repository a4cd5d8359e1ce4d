// Diagnostic: builds A/B on `transfer` arguments in one process: a new Uint8Array of 256 KiB
// and of 1 MiB per task, handed over with `transfer`, 64 in flight, 2 workers, rotated order,
// tasks/s medians and every round.
//   PKGS=target/pkg-a,pkg node bench/transfer-ab.mjs
import { closedLoop, median } from './harness.mjs';
import { bytes } from './tasks.mjs';
const pkgs = process.env.PKGS.split(',');
const mods = await Promise.all(pkgs.map((p) => import(new URL(`../${p}/index.js`, import.meta.url).href)));
const R = Number(process.env.ROUNDS ?? 8);
for (const SIZE of [256 * 1024, 1024 * 1024]) {
  const res = {};
  const buffer = () => { const b = new Uint8Array(SIZE); b[0] = 1; b[SIZE - 1] = 2; return b; };
  for (let r = 0; r < R; r++) for (let k = 0; k < mods.length; k++) {
    const i = (k + r) % mods.length; const { Pool } = mods[i];
    const pool = await Pool.create({ workers: 2, queueCapacity: 1024 });
    const submit = () => { const a = buffer(); return pool.trySubmit(bytes, [a], { transfer: [a.buffer] }); };
    for (let j = 0; j < 200; j++) await submit();
    (res[pkgs[i]] ??= []).push(await closedLoop(submit, SIZE > 300_000 ? 1000 : 4000, 64));
    await pool.shutdown();
  }
  for (const p of pkgs) console.log(SIZE / 1024, 'KiB', p, Math.round(median(res[p])), res[p].map(Math.round).join(' '));
}
process.exit(0);
