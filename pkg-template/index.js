// Entry of the `ringpool` npm package: loads the shared-memory wasm once (top-level await),
// then re-exports the API. Workers start from `worker.js`, not this file.
import * as glue from './ringpool.js';
import { extendPool } from './pool-api.js';

// `globalThis.process`, never a bare `process`: bundlers (Parcel) would polyfill that.
const isNode = globalThis.process?.versions?.node != null;
const wasmUrl = new URL('./ringpool_bg.wasm', import.meta.url);
if (isNode) {
  // getBuiltinModule (Node >= 20.16) keeps browser bundlers from resolving `node:fs`.
  const builtin = async (name) => globalThis.process.getBuiltinModule?.(`node:${name}`)
    ?? await import(/* @vite-ignore */ /* webpackIgnore: true */ ['node', name].join(':'));
  // V8 aborts the whole process when it lazily deoptimises a function into which TurboFan
  // inlined a call to a wasm export returning a JS value (externref): its deoptimiser has no
  // case for that return kind (Node 20 crashes; newer V8 sources we read still lack it, so this
  // is set on every Node version). Ours return promises, and JS they call back (an options
  // getter, a signal's listeners) can trigger exactly such a deopt. Without the inlining a call
  // into wasm costs a few ns more; no benchmark here saw it. See README "Where it runs".
  (await builtin('v8')).setFlagsFromString('--no-turbo-inline-js-wasm-calls');
  const { readFile } = await builtin('fs/promises');
  // Compiled here and instantiated by `initSync`: the glue's async init looks at the globals
  // `Response` and `Request`, and the first look makes Node load its fetch (undici), ~20 ms
  // of every import (tests/node/import-cost.test.mjs).
  glue.initSync({ module: await WebAssembly.compile(await readFile(wasmUrl)) });
} else {
  await glue.default({ module_or_path: wasmUrl });
}

// The web's worker is written out in full so that bundlers (Vite, webpack) see the entry and
// emit it. The npm package's build points both at `ringpool.js`, its one bundled file
// (scripts/build.mjs). Node's URL is not written as `new URL('…', import.meta.url)`, so that no
// bundler follows it: Parcel turns one that names a module the page also imports (that glue)
// into a reference it cannot resolve at run time, and webpack a variable into a context.
const here = import.meta.url;
glue.__setWorkerScript(
  new URL('./worker.js', here),
  () => new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: 'ringpool:worker' }),
);

const errors = glue.errorClasses();
export const {
  RingpoolError, QueueFullError, PoolClosedError, TimeoutError, PanicError, WorkerCrashedError, CancelledError,
  OutOfMemoryError, NotIsolatedError, PoolOverloadError,
} = errors;

// `pool.map` and `pool[Symbol.asyncDispose]` are written in JS (pool-api.js).
extendPool(glue.Pool, errors);
export const Pool = glue.Pool;
export const Task = glue.Task;
export const memoryBytes = glue.memoryBytes;
/** The shared `WebAssembly.Memory` (its buffer is a SharedArrayBuffer). */
export const wasmMemory = glue.wasmMemory;

// >>> ringpool package only
/**
 * Rust image kernels over RGBA views of pool memory, one row band [y0, y1) per task; each task
 * resolves with `{ worker, start, end, queued }`. See docs/guide.md, "Image kernels".
 */
export const image = Object.freeze({
  grayscale: glue.imageGrayscale,
  blur: glue.imageBlur,
  sharpen: glue.imageSharpen,
  sobel: glue.imageSobel,
  emboss: glue.imageEmboss,
  /** Fills a pool view with the demo's deterministic sample image. */
  sample: glue.imageSample,
  /** FNV-1a (32 bit) of the bytes. */
  checksum: glue.imageChecksum,
});
// <<< ringpool package only

/** Rust tasks for testing your own error handling. */
export const diagnostics = Object.freeze({
  /** A task that panics with `message`: rejects with `PanicError`, the worker survives. */
  panic: glue.diagnosticsPanic,
  /** A task that traps: rejects with `WorkerCrashedError`, the worker is replaced. */
  trap: glue.diagnosticsTrap,
  /** A task that busy-waits `ms` milliseconds and returns how long it spun. */
  spin: glue.diagnosticsSpin,
  /**
   * A task that allocates and fills `bytes` bytes of pool memory in Rust and resolves with
   * their sum; past what the memory can hold it rejects with `OutOfMemoryError`.
   */
  alloc: glue.diagnosticsAlloc,
  /** A task that does nothing (overhead measurements). */
  noop: glue.diagnosticsNoop,
  /** A task that returns `"index:id"` of the worker running it. */
  worker: glue.diagnosticsWorker,
});
