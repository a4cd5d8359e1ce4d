// Types of the `ringpool` npm package.

// `pool[Symbol.asyncDispose]` under a `lib` older than `esnext.disposable` (es2022 + dom):
// declared as TypeScript's own lib and @types/node declare it, so both merge.
declare global {
  interface SymbolConstructor {
    readonly asyncDispose: unique symbol;
  }
}

export interface PoolOptions {
  /** Worker count; default: hardware concurrency. Integer >= 1. */
  workers?: number;
  /** Queue slots; default 256. Integer >= 1. */
  queueCapacity?: number;
  /**
   * How many tasks may wait for queue space at once (`submit` calls and `submitAll` items); a
   * call that would take `stats().waiting` past it is refused at once with `PoolOverloadError`,
   * nothing of it admitted. Integer >= 0, or `Infinity` (the default: unlimited). `trySubmit`
   * never waits and is not bounded by it.
   */
  maxWaiting?: number;
  /**
   * An ES module every worker imports before it is ready (a `URL`, an absolute URL, or in Node
   * a path); its function exports become tasks by name: `pool.trySubmit('add', [1, 2])`.
   */
  module?: URL | string;
  /**
   * `'auto'` (default): workers share the memory where the page is cross-origin isolated (and
   * always in Node, Deno and Bun), else message mode with one console warning naming the
   * headers. `'shared'`: shared memory or `NotIsolatedError`. `'message'`: tasks, arguments and
   * results travel by `postMessage`; `pool.alloc` throws `NotIsolatedError`.
   */
  mode?: PoolMode;
}

/** How a pool's workers get their tasks: sharing its memory, or by message. */
export type PoolMode = 'auto' | 'shared' | 'message';

export interface ShutdownOptions {
  /** Milliseconds to wait; rejects with `TimeoutError` after, tasks keep running. */
  timeout?: number;
  /** Reject every queued and running task with `PoolClosedError` now. */
  force?: boolean;
}

/** Which lane a task waits in: a worker takes the oldest task of the highest level present. */
export type Priority = 'high' | 'normal' | 'low';

export interface SubmitOptions {
  /** Aborting it settles the task at once with `signal.reason`; a queued body never runs. */
  signal?: AbortSignal;
  /** Milliseconds covering queue time plus run time; then the task rejects with `TimeoutError`. */
  timeout?: number;
  /** Default `'normal'`. Strict: nothing ages, so a stream of `'high'` tasks holds `'low'` ones back. */
  priority?: Priority;
  /**
   * ArrayBuffers handed over, as in `postMessage`: detached from the caller once the task is
   * admitted (or, with `submit`, queued to wait). An argument that is a listed buffer of at
   * least 128 KiB, or a view of that many bytes on
   * one, is moved to the worker without a copy and arrives as `postMessage` delivers it (the
   * whole buffer, a view at its offset); a smaller one is copied as by value. A
   * SharedArrayBuffer, a view (list its `.buffer`), a detached or a repeated buffer is a
   * `TypeError` and nothing is admitted.
   */
  transfer?: ArrayBuffer[];
}

export interface MapOptions extends Omit<SubmitOptions, 'transfer'> {
  /** `true` (default): results in input order; `false`: in completion order. */
  ordered?: boolean;
  /** Each input's buffers to hand over: `(input) => [input.buffer]`. */
  transfer?: (input: any) => ArrayBuffer[];
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
  /** The index (`0 .. workers - 1`) of the worker running the task; a replaced worker keeps it. */
  readonly workerIndex: number;
}

/** A task function (sent as source). */
export type TaskLikeFn<A extends unknown[], R> = (this: TaskContext, ...args: A) => R | Promise<R>;
export type TaskLike<A extends unknown[], R> = TaskLikeFn<A, R> | Task<R>;

/** One `submitAll` item: a task, or a task and its arguments. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type BatchItem<R = unknown> = TaskLike<any[], R> | string | readonly [TaskLike<any[], R> | string, unknown[]?];

/** What an item resolves with (`M`: the pool's task module, for items that name an export). */
export type BatchResult<I, M = unknown> =
  I extends Task<infer R> ? R
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  : I extends (...args: any[]) => infer R ? Awaited<R>
  : I extends string ? TaskResult<M, I>
  : I extends readonly [infer F, ...unknown[]] ? BatchResult<F, M>
  : unknown;

/** An item whose arguments are checked against its function's parameters, or against those of the export of `M` it names. */
export type CheckedItem<I, M = unknown> =
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  I extends readonly [infer F extends (...args: any[]) => any, infer A]
    ? (A extends Parameters<F> ? I
      // An array that is not a tuple (`files.map((f) => [parse, [f]])`): its length is not known.
      : A extends readonly unknown[] ? (number extends A['length'] ? I : readonly [F, Parameters<F>])
      : readonly [F, Parameters<F>])
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    : I extends (...args: infer P) => any ? (P extends [] ? I : never)
    : I extends readonly [infer N extends string, infer A]
      ? (N extends TaskName<M> ? (A extends TaskArgs<M, N> ? I : readonly [N, TaskArgs<M, N>]) : readonly [TaskName<M>, unknown[]])
    : I extends readonly [infer N extends string]
      ? (N extends TaskName<M> ? ([] extends TaskArgs<M, N> ? I : readonly [N, TaskArgs<M, N>]) : readonly [TaskName<M>])
    : I extends string ? (I extends TaskName<M> ? ([] extends TaskArgs<M, I> ? I : readonly [I, TaskArgs<M, I>]) : TaskName<M>)
    : I;

/**
 * The function exports of a task module `M` (`typeof import('./tasks.js')`), by name: what a
 * `Pool<M>` accepts as a task name. Without `M` (`unknown`), any string.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type TaskName<M> = unknown extends M ? string : { [K in keyof M]: M[K] extends (...args: any[]) => any ? K : never }[keyof M] & string;
/** The arguments of export `K` of `M` (`unknown[]` without `M`). */
export type TaskArgs<M, K> = unknown extends M ? unknown[]
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  : K extends keyof M ? (M[K] extends (...args: infer A) => any ? A : never) : never;
/** What export `K` of `M` resolves with (`unknown` without `M`). */
export type TaskResult<M, K> = unknown extends M ? unknown
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  : K extends keyof M ? (M[K] extends (...args: any[]) => infer R ? Awaited<R> : never) : never;
/** `args` and `options` after an export name: `args` may be left out only where the export takes none. */
export type NamedRest<M, K, O> = [] extends TaskArgs<M, K> ? [args?: TaskArgs<M, K>, options?: O] : [args: TaskArgs<M, K>, options?: O];
/** `args` after an export name, as in `NamedRest`, for a call without options. */
export type NamedArgs<M, K> = [] extends TaskArgs<M, K> ? [args?: TaskArgs<M, K>] : [args: TaskArgs<M, K>];

/** Durations in ms over the pool's tasks (log buckets: percentiles within 1/16, never above `max`). */
export interface TimeStats { count: number; mean: number; p50: number; p90: number; p99: number; max: number; }

export interface PoolStats {
  workers: number; queueCapacity: number; queued: number; running: number;
  /** Tasks waiting for queue space now (each `submit` call, each `submitAll` item); not yet accepted. */
  waiting: number;
  accepted: number; rejected: number; completed: number; failed: number;
  panicked: number; crashed: number; cancelled: number; timedOut: number;
  /** From a body's start to its return (every body that ran). */
  runTime: TimeStats;
  /** From admission to the start of the body (every task a worker started). */
  waitTime: TimeStats;
}

/** A task made by Rust (`image.*`, `diagnostics.*` or your own crate); consumed when submitted. `R`: what it resolves with. */
declare const resultType: unique symbol;
export declare class Task<R = unknown> {
  private constructor();
  /**
   * Type-level only: the result type. Optional, so that a `Task` a crate's own export returns
   * (typed by wasm-bindgen without it) is a `Task<unknown>`.
   */
  readonly [resultType]?: R;
  free(): void;
}

/**
 * A pool; `M` is its task module's type (`Pool.create<typeof import('./tasks.js')>({ module })`),
 * against which task names, their arguments and their results are checked. Without `M`, any
 * name is accepted and resolves with `unknown`.
 */
export declare class Pool<M = unknown> {
  private constructor();
  /** Resolves once every worker is ready. */
  static create<M = unknown>(options?: PoolOptions): Promise<Pool<M>>;
  readonly workers: number;
  readonly queueCapacity: number;
  /** The mode in force: `'shared'` or `'message'` (`'auto'` resolved). */
  readonly mode: 'shared' | 'message';
  /** Never throws, never waits: refusals are already-rejected promises. */
  trySubmit<R>(task: TaskLike<[], R>, args?: [], options?: SubmitOptions): Promise<Awaited<R>>;
  /** A function with parameters needs its `args`, checked against them. */
  trySubmit<A extends unknown[], R>(task: TaskLike<A, R>, args: A, options?: SubmitOptions): Promise<Awaited<R>>;
  /** An export of the `module` given to `Pool.create`, by name (checked against `M`). */
  trySubmit<K extends TaskName<M>>(task: K, ...rest: NamedRest<M, K, SubmitOptions>): Promise<TaskResult<M, K>>;
  /** Like `trySubmit`, but waits (in order) for queue space instead of refusing. */
  submit<R>(task: TaskLike<[], R>, args?: [], options?: SubmitOptions): Promise<Awaited<R>>;
  submit<A extends unknown[], R>(task: TaskLike<A, R>, args: A, options?: SubmitOptions): Promise<Awaited<R>>;
  submit<K extends TaskName<M>>(task: K, ...rest: NamedRest<M, K, SubmitOptions>): Promise<TaskResult<M, K>>;
  /**
   * Submits every item in order, waiting for space like `submit`. Resolves with the results in
   * item order; rejects with the first rejection. One bad item refuses the whole call. The
   * items wake this thread once (when the last settles or one fails), not once each.
   */
  submitAll<const T extends readonly BatchItem[]>(items: { readonly [K in keyof T]: CheckedItem<T[K], M> }, options?: SubmitOptions): Promise<{ -readonly [K in keyof T]: BatchResult<T[K], M> }>;
  /**
   * One task `task(input)` per input, results as they come: in input order, or with
   * `ordered: false` in completion order. Inputs are pulled lazily, at most
   * `workers + queueCapacity` ahead of what was yielded. Leaving the loop early, a task failure
   * (thrown from the loop) or the signal cancels the map's tasks not yet started. Bad arguments
   * throw here, a `TypeError`/`RangeError` naming them.
   */
  map<I, R>(task: (this: TaskContext, input: I) => R | Promise<R>, inputs: Iterable<I> | AsyncIterable<I>, options?: MapOptions): AsyncGenerator<Awaited<R>, void, undefined>;
  map<K extends TaskName<M>>(task: K, inputs: Iterable<TaskArgs<M, K>[0]> | AsyncIterable<TaskArgs<M, K>[0]>, options?: MapOptions): AsyncGenerator<TaskResult<M, K>, void, undefined>;
  /**
   * Runs the task exactly once on every worker, each before that worker takes another queued
   * task (to load a model or warm a cache in module state); result `i` comes from worker `i`.
   * Rejects with the first failure; the pool keeps working.
   */
  broadcast<R>(task: TaskLikeFn<[], R>, args?: []): Promise<Awaited<R>[]>;
  broadcast<A extends unknown[], R>(task: TaskLikeFn<A, R>, args: A): Promise<Awaited<R>[]>;
  broadcast<K extends TaskName<M>>(task: K, ...rest: NamedArgs<M, K>): Promise<TaskResult<M, K>[]>;
  /** A typed array in pool memory: crosses to tasks by reference (zero copy). */
  alloc<C extends PoolArrayConstructor>(ctor: C, length: number): InstanceType<C>;
  /** Returns an `alloc` view; it must not be used afterwards. */
  free(view: ArrayBufferView): void;
  shutdown(options?: ShutdownOptions): Promise<void>;
  /** `shutdown()`, for `await using pool = await Pool.create()`. */
  [Symbol.asyncDispose](): Promise<void>;
  stats(): PoolStats;
  memoryBytes(): number;
  free(): void;
}

/** The base class; its own instances have code `'RINGPOOL_ERROR'`. */
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
/**
 * The call needs memory the workers share (`pool.alloc`, a Rust `Task` that cannot be made again
 * on a worker) and the pool runs in message mode; the message names the headers that isolate a
 * page.
 */
export declare class NotIsolatedError extends RingpoolError { readonly code: 'NOT_ISOLATED'; }
/** A `submit`/`submitAll` call would take `stats().waiting` past the pool's `maxWaiting`; nothing of it was admitted. */
export declare class PoolOverloadError extends RingpoolError { readonly code: 'POOL_OVERLOAD'; }
/**
 * The shared memory cannot hold a value: an argument at admission, a result on its way back, or
 * an allocation inside a Rust task. A `RangeError`; the pool keeps working and nothing accepted
 * is lost. The memory only grows, up to `maximum` bytes (docs/guide.md, "Memory").
 */
export declare class OutOfMemoryError extends RangeError {
  readonly code: 'OUT_OF_MEMORY';
  /** Bytes the refused allocation asked for. */
  readonly needed: number;
  /** Bytes the memory had (its size; it never shrinks). */
  readonly inUse: number;
  /** The memory's maximum in bytes. */
  readonly maximum: number;
}

/** The shared wasm memory; its `buffer` is a `SharedArrayBuffer`. */
export declare function wasmMemory(): WebAssembly.Memory;

/** Current size of the shared wasm memory in bytes. */
export declare function memoryBytes(): number;

export declare const diagnostics: {
  panic(message: string): Task<never>;
  trap(): Task<never>;
  spin(ms: number): Task<number>;
  noop(): Task<undefined>;
  worker(): Task<string>;
  /** Allocates and fills `bytes` bytes in Rust; resolves with their sum, or rejects with `OutOfMemoryError`. */
  alloc(bytes: number): Task<number>;
};

// >>> ringpool package only
/** RGBA pixels in pool memory (`pool.alloc(Uint8Array, width * height * 4)`). */
export type Pixels = Uint8Array | Uint8ClampedArray;

/** What an `image.*` task resolves with: its worker, start and end (ms on `performance.timeOrigin + performance.now()`), and how many tasks waited in the queue as it started. */
export interface TileReport { worker: number; start: number; end: number; queued: number; }

/** What a by-value `image.*` task (`dst` null) resolves with: its worker, start and end, and the band's new rows (`(y1 - y0) * width * 4` bytes). */
export interface BandPixels { worker: number; start: number; end: number; pixels: Uint8Array; }

/**
 * Rust image kernels, one row band `[y0, y1)` per task. With `dst` a view, both views must
 * come from `pool.alloc` (shared mode) and must not overlap (except grayscale in place). With
 * `dst` null, `src` is a plain array sent by value: the task copies only the rows the band
 * reads and resolves with the band's rows as `pixels`; this form runs in message mode too.
 * Bad sizes, radii, amounts or bands throw `RangeError`, bad views or arrays `TypeError`, when
 * the task is made.
 */
export declare const image: {
  /** In place: `grayscale(view, width, height, y0, y1)`, or `grayscale(src, dst, width, height, y0, y1)`. */
  grayscale(view: Pixels, width: number, height: number, y0: number, y1: number): Task<TileReport>;
  grayscale(src: Pixels, dst: Pixels, width: number, height: number, y0: number, y1: number): Task<TileReport>;
  grayscale(src: Pixels, dst: null, width: number, height: number, y0: number, y1: number): Task<BandPixels>;
  /** Gaussian blur, σ = radius / 2, radius 1..=64. */
  blur(src: Pixels, dst: Pixels, width: number, height: number, radius: number, y0: number, y1: number): Task<TileReport>;
  blur(src: Pixels, dst: null, width: number, height: number, radius: number, y0: number, y1: number): Task<BandPixels>;
  /** Unsharp mask: `src + amount · (src − blur(src))`, radius 1..=64, amount 0..=16. */
  sharpen(src: Pixels, dst: Pixels, width: number, height: number, radius: number, amount: number, y0: number, y1: number): Task<TileReport>;
  sharpen(src: Pixels, dst: null, width: number, height: number, radius: number, amount: number, y0: number, y1: number): Task<BandPixels>;
  /** Sobel edge magnitude of the luma, as gray. */
  sobel(src: Pixels, dst: Pixels, width: number, height: number, y0: number, y1: number): Task<TileReport>;
  sobel(src: Pixels, dst: null, width: number, height: number, y0: number, y1: number): Task<BandPixels>;
  /** 3 × 3 emboss. */
  emboss(src: Pixels, dst: Pixels, width: number, height: number, y0: number, y1: number): Task<TileReport>;
  emboss(src: Pixels, dst: null, width: number, height: number, y0: number, y1: number): Task<BandPixels>;
  /** Fills `view` (a pool view or a plain array) with the demo's deterministic sample picture. */
  sample(view: Pixels, width: number, height: number): void;
  /** FNV-1a (32 bit) of the bytes. */
  checksum(bytes: Uint8Array | Uint8ClampedArray): number;
};
// <<< ringpool package only
