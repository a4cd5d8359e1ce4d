// Diagnostic: single-task round trips (a no-op JS function, one at a time) of several builds in one
// process, 5 interleaved rounds of 1,000 per worker count, p50 medians.
//   PKGS=target/pkg-a,pkg node bench/roundtrip-ab.mjs

import { median as med } from './harness.mjs';

const pkgs = process.env.PKGS.split(',');
const mods = await Promise.all(pkgs.map((p) => import(new URL(`../${p}/index.js`, import.meta.url).href)));
const res = {};
for (let r = 0; r < 5; r++) for (const workers of [1, 2, 4, 8]) for (let k = 0; k < mods.length; k++) {
  const i = (k + r) % mods.length; const { Pool } = mods[i];
  const pool = await Pool.create({ workers });
  const noop = () => {};
  for (let j = 0; j < 200; j++) await pool.trySubmit(noop);
  const xs = [];
  for (let j = 0; j < 1000; j++) { const t = performance.now(); await pool.trySubmit(noop); xs.push((performance.now() - t) * 1000); }
  ((res[pkgs[i]] ??= {})[workers] ??= []).push(med(xs));
  await pool.shutdown();
}
for (const p of pkgs) console.log(p, Object.entries(res[p]).map(([w, xs]) => `${w}w ${med(xs).toFixed(1)}`).join(', '));
process.exit(0);
