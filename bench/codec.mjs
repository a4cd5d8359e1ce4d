// Throughput of four payload kinds through the codec, by value: a plain object that is not
// JSON-shaped (the general reader: one crossing per node), a JSON-shaped object (the JSON fast
// path), a 256 KiB Uint8Array and a 1 MiB string, each echoed or measured by the task. 2
// workers, 64 in flight, median of 5 rounds per kind. `node bench/codec.mjs`; `PKG=path/to/
// index.js` runs another build, so two builds can be alternated in one sitting.
import { warnIfStale } from './harness.mjs';

if (!process.env.PKG) await warnIfStale(['pkg']);
const { Pool } = await import(process.env.PKG ?? '../pkg/index.js');
const pool = await Pool.create({ workers: 2, queueCapacity: 64 });
const general = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`key${i}`, `value number ${i} ✓`]));
general.u = undefined; // not JSON-shaped: the general reader
const json = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`key${i}`, `value number ${i}`]));
const buf = new Uint8Array(256 << 10).fill(3);
const big = 'x'.repeat(1 << 20);
const cases = {
  'general object': [(o) => o, [general], 3000],
  'JSON object': [(o) => o, [json], 3000],
  '256 KiB Uint8Array': [(a) => a[7] + a.length, [buf], 1000],
  '1 MiB string': [(s) => s.length, [big], 300],
};
async function run([f, args, n]) {
  const t = performance.now(); let inflight = [];
  for (let i = 0; i < n; i++) { inflight.push(pool.submit(f, args)); if (inflight.length === 64) { await Promise.all(inflight); inflight = []; } }
  await Promise.all(inflight);
  return n / ((performance.now() - t) / 1000);
}
const out = {};  // tasks per second
for (const [k, c] of Object.entries(cases)) { await run(c); const r = []; for (let i = 0; i < 5; i++) r.push(await run(c)); r.sort((a, b) => a - b); out[k] = Math.round(r[2]); }
console.log(JSON.stringify(out));
await pool.shutdown();
