// Diagnostic: how fast V8 copies 1 MiB between plain buffers and a shared wasm memory, per
// method (the choice behind `bufferFrom` in src/web/codec.js). `node bench/copy.mjs`
import { median } from './harness.mjs';

const N = 1 << 20;
const mem = new WebAssembly.Memory({ initial: 64, maximum: 1024, shared: true });
const shared = new Uint8Array(mem.buffer, 4096, N);
const plain = new Uint8Array(N);
const methods = {
  'new ArrayBuffer (1 MiB)': () => new ArrayBuffer(N),
  'plain → new plain, Uint8Array.set': () => new Uint8Array(N).set(plain),
  'plain → shared, Uint8Array.set': () => shared.set(plain),
  'shared → new plain, Uint8Array.set': () => new Uint8Array(N).set(shared),
  'shared → new plain, Float64Array.set (bufferFrom)': () => new Float64Array(N / 8).set(new Float64Array(mem.buffer, 4096, N / 8)),
  'shared → new plain, slice': () => shared.slice(),
};
// Interleaved rounds (the machine drifts): each round times every method, in a rotated order.
const times = {};
const names = Object.keys(methods);
for (let r = 0; r < 15; r++) {
  for (let k = 0; k < names.length; k++) {
    const name = names[(k + r) % names.length];
    const f = methods[name];
    for (let i = 0; i < 10; i++) f();
    const t = performance.now();
    for (let i = 0; i < 40; i++) f();
    (times[name] ??= []).push((performance.now() - t) * 1000 / 40);
  }
}
for (const name of names) console.log(`${name.padEnd(50)} ${median(times[name]).toFixed(1).padStart(7)} µs (median of 15 rounds)`);
