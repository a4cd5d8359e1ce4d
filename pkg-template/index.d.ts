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
  /** Reject every queued and running task with `PoolClosedError` now. */
  force?: boolean;
}

export interface SubmitOptions {
  /** Aborting it settles the task at once with `signal.reason`; a queued body never runs. */
  signal?: AbortSignal;
  /** Milliseconds covering queue time plus run time; then the task rejects with `TimeoutError`. */
  timeout?: number;
}

/** Element types `pool.alloc` can back with pool memory. */
export type PoolArrayConstructor =
  | Int8ArrayConstructor | Uint8ArrayConstructor | Uint8ClampedArrayConstructor
  | Int16ArrayConstructor | Uint16ArrayConstructor | Int32ArrayConstructor | Uint32ArrayConstructor
  | Float32ArrayConstructor | Float64ArrayConstructor | BigInt64ArrayConstructor | BigUint64ArrayConstructor;

/** A self-contained function (sent as source; no closures) or a Rust-made `Task`. */
/**
 * `this` inside a JS task function (use `function`/`async function`, not an arrow, to see it).
 * Cancellation of a running task is cooperative: the promise has already rejected, the body may
 * stop early and its result is dropped.
 */
export interface TaskContext {
  /** True once the task was cancelled (signal, timeout, forced shutdown); works in sync loops. */
  isCancelled(): boolean;
  /** Aborts then, while the task awaits (an event loop turn is needed to deliver the event). */
  readonly signal: AbortSignal;
}

export type TaskLike<A extends unknown[], R> = ((this: TaskContext, ...args: A) => R | Promise<R>) | Task;

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
  trySubmit<A extends unknown[], R>(task: TaskLike<A, R>, args?: A, options?: SubmitOptions): Promise<Awaited<R>>;
  /** Like `trySubmit`, but waits (in order) for queue space instead of refusing. */
  submit<A extends unknown[], R>(task: TaskLike<A, R>, args?: A, options?: SubmitOptions): Promise<Awaited<R>>;
  /** A typed array in pool memory: crosses to tasks by reference (zero copy). */
  alloc<C extends PoolArrayConstructor>(ctor: C, length: number): InstanceType<C>;
  /** Returns an `alloc` view; it must not be used afterwards. */
  free(view: ArrayBufferView): void;
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
