// What the JS runtime offers both sides of the pool (the owner thread's spawner,
// `owner/workers.js`, and each worker's entry, `worker/worker.js`): the shared clock, Node's
// built-ins without an import a browser bundler would resolve, and what this thread may do.

// `globalThis.process`, never a bare `process`: bundlers (Parcel) would polyfill that.
export const isNode = globalThis.process?.versions?.node != null;

// Node built-ins without an `import` a browser bundler would try to resolve.
export async function nodeModule(name) {
  return globalThis.process.getBuiltinModule?.(name) ?? import(/* @vite-ignore */ /* webpackIgnore: true */ ['node', name.slice(5)].join(':'));
}

// Node's `receiveMessageOnPort` (a port's queued message, taken synchronously), or null where
// it may not work: Deno's and Bun's ports may not take it. Both ends use it: a worker for its
// routed buffers, the owner for its parked ones (transfer.js).
export const syncReceive = ({ receiveMessageOnPort }) =>
  (globalThis.Deno || globalThis.Bun || typeof receiveMessageOnPort !== 'function' ? null : receiveMessageOnPort);

// Milliseconds on a clock every thread shares (worker `performance.now()` values have
// different origins): task timing for the doorbell and the `image.*` tile reports.
// Read on every admission and twice per task (run and wait times): the origin is read once.
const timeOrigin = performance.timeOrigin;
export function clock() {
  return timeOrigin + performance.now();
}

// Whether this thread may block in `Atomics.wait`: Node's, Deno's and Bun's main threads and
// any worker may; a page's thread may not (it throws before it compares the value, so the
// probe never sleeps). Asked by the owner thread as a pool starts (owner/mod.rs).
let mayWait = null;
export function threadMayWait() {
  if (mayWait === null) {
    try { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 1, 0); mayWait = true; } catch { mayWait = false; }
  }
  return mayWait;
}

export function defaultWorkers() {
  const n = globalThis.navigator?.hardwareConcurrency
    ?? globalThis.process?.getBuiltinModule?.('node:os')?.availableParallelism?.();
  return Number.isInteger(n) && n > 0 ? n : 4;
}
