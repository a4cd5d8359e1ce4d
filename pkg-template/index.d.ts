// Types of the `ringpool` npm package.

export interface PoolOptions {
  /** Worker count; default: hardware concurrency. Integer >= 1. */
  workers?: number;
  /** Queue slots; default 256. Integer >= 1. */
  queueCapacity?: number;
}

export interface ShutdownOptions {
  /** Milliseconds to wait; rejects with `TimeoutError` after, tasks keep running. */
  timeout?: number;
}

export interface PoolStats {
  workers: number; queueCapacity: number; queued: number; running: number;
  accepted: number; rejected: number; completed: number; failed: number;
  panicked: number; crashed: number; cancelled: number; timedOut: number;
}

/** A task made by Rust (`diagnostics.*` or your own crate); consumed when submitted. */
export declare class Task {
  private constructor();
  free(): void;
}

export declare class Pool {
  private constructor();
  /** Resolves once every worker is ready. */
  static create(options?: PoolOptions): Promise<Pool>;
  readonly workers: number;
  readonly queueCapacity: number;
  /** Never throws, never waits: refusals are already-rejected promises. */
  trySubmit(task: Task): Promise<unknown>;
  shutdown(options?: ShutdownOptions): Promise<void>;
  stats(): PoolStats;
  memoryBytes(): number;
  free(): void;
}

export declare class RingpoolError extends Error { readonly code: string; }
export declare class QueueFullError extends RingpoolError { readonly code: 'QUEUE_FULL'; }
export declare class PoolClosedError extends RingpoolError { readonly code: 'POOL_CLOSED'; }
export declare class TimeoutError extends RingpoolError { readonly code: 'TIMEOUT'; }
export declare class PanicError extends RingpoolError {
  readonly code: 'PANIC';
  /** The panic message alone. */
  readonly panicMessage: string;
  /** `"src/file.rs:LINE:COL"`. */
  readonly location: string | null;
}
export declare class WorkerCrashedError extends RingpoolError { readonly code: 'WORKER_CRASHED'; }
export declare class CancelledError extends RingpoolError { readonly code: 'CANCELLED'; }

/** The shared wasm memory; its `buffer` is a `SharedArrayBuffer`. */
export declare function wasmMemory(): WebAssembly.Memory;

/** Current size of the shared wasm memory in bytes. */
export declare function memoryBytes(): number;

export declare const diagnostics: {
  panic(message: string): Task;
  trap(): Task;
  spin(ms: number): Task;
  noop(): Task;
  worker(): Task;
};
