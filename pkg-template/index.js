// Entry of the `ringpool` npm package: loads the shared-memory wasm once (top-level await),
// then re-exports the API. Workers import the wasm-bindgen glue directly, not this file.
import * as glue from './ringpool.js';

const wasmUrl = new URL('./ringpool_bg.wasm', import.meta.url);
if (typeof process === 'object' && process?.versions?.node != null) {
  const { readFile } = await import('node:fs/promises');
  await glue.default({ module_or_path: await readFile(wasmUrl) });
} else {
  await glue.default({ module_or_path: wasmUrl });
}

export const {
  RingpoolError, QueueFullError, PoolClosedError, TimeoutError, PanicError, WorkerCrashedError, CancelledError,
} = glue.errorClasses();

export const Pool = glue.Pool;
export const Task = glue.Task;
export const memoryBytes = glue.memoryBytes;
/** The shared `WebAssembly.Memory` (its buffer is a SharedArrayBuffer). */
export const wasmMemory = glue.wasmMemory;

/** Rust tasks for testing your own error handling. */
export const diagnostics = Object.freeze({
  /** A task that panics with `message`: rejects with `PanicError`, the worker survives. */
  panic: glue.diagnosticsPanic,
  /** A task that traps: rejects with `WorkerCrashedError`, the worker is replaced. */
  trap: glue.diagnosticsTrap,
  /** A task that busy-waits `ms` milliseconds and returns how long it spun. */
  spin: glue.diagnosticsSpin,
  /** A task that does nothing (overhead measurements). */
  noop: glue.diagnosticsNoop,
  /** A task that returns `"index:id"` of the worker running it. */
  worker: glue.diagnosticsWorker,
});
