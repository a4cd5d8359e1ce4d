// Error classes of the JS API. Rust creates them through `makeError`; the package entry
// re-exports the classes, so `instanceof` works for users.

export class RingpoolError extends Error {
  constructor(message, code = 'RINGPOOL_ERROR', options) {
    super(message, options);
    this.code = code;
  }
}
export class QueueFullError extends RingpoolError {
  constructor(message = 'the task queue is full') { super(message, 'QUEUE_FULL'); }
}
export class PoolClosedError extends RingpoolError {
  constructor(message = 'the pool is shut down and accepts no tasks') { super(message, 'POOL_CLOSED'); }
}
export class TimeoutError extends RingpoolError {
  constructor(message = 'the task timed out') { super(message, 'TIMEOUT'); }
}
export class PanicError extends RingpoolError {
  constructor(message, location) {
    super(location ? `panicked at ${location}: ${message}` : `panicked: ${message}`, 'PANIC');
    this.panicMessage = message;
    this.location = location ?? null;
  }
}
export class WorkerCrashedError extends RingpoolError {
  constructor(message = 'the worker running the task crashed') { super(message, 'WORKER_CRASHED'); }
}
export class CancelledError extends RingpoolError {
  constructor(message = 'the task was cancelled') { super(message, 'CANCELLED'); }
}

// The call needs shared memory, and the page is not cross-origin isolated (or the pool was made
// with mode 'message'): the message names the headers that fix it.
export class NotIsolatedError extends RingpoolError {
  constructor(message = 'this needs a cross-origin isolated page') { super(message, 'NOT_ISOLATED'); }
}

// A `submit`/`submitAll` call would take the submissions waiting for queue space past the
// pool's `maxWaiting`: refused at once, nothing of it admitted.
export class PoolOverloadError extends RingpoolError {
  constructor(message = 'too many submissions wait for queue space') { super(message, 'POOL_OVERLOAD'); }
}

// The shared memory cannot hold a value (it only grows, up to its maximum): a RangeError, so
// that code checking for RangeError sees it, with the figures as numbers.
export class OutOfMemoryError extends RangeError {
  constructor(message = 'out of memory', needed = NaN, inUse = NaN, maximum = NaN) {
    super(message);
    this.name = 'OutOfMemoryError';
    this.code = 'OUT_OF_MEMORY';
    this.needed = needed;
    this.inUse = inUse;
    this.maximum = maximum;
  }
}

// Each class's `name` is written out, from the keys below: a bundler or a minifier may rename
// the classes themselves (rolldown, bundling the package's glue, made one `PanicError$1`).
for (const [name, cls] of Object.entries(errorClasses())) {
  Object.defineProperty(cls.prototype, 'name', { value: name, writable: true, configurable: true });
}

export function errorClasses() {
  return { RingpoolError, QueueFullError, PoolClosedError, TimeoutError, PanicError, WorkerCrashedError, CancelledError, OutOfMemoryError, NotIsolatedError, PoolOverloadError };
}

export function outOfMemoryError(message, needed, inUse, maximum) {
  return new OutOfMemoryError(message, needed, inUse, maximum);
}

export function makeError(kind, message, location) {
  switch (kind) {
    case 'QUEUE_FULL': return new QueueFullError(message || undefined);
    case 'POOL_CLOSED': return new PoolClosedError(message || undefined);
    case 'TIMEOUT': return new TimeoutError(message || undefined);
    case 'PANIC': return new PanicError(message, location);
    case 'WORKER_CRASHED': return new WorkerCrashedError(message || undefined);
    case 'CANCELLED': return new CancelledError(message || undefined);
    case 'NOT_ISOLATED': return new NotIsolatedError(message || undefined);
    case 'POOL_OVERLOAD': return new PoolOverloadError(message || undefined);
    case 'RANGE': return new RangeError(message);
    case 'TYPE': return new TypeError(message);
    default: return new Error(message);
  }
}
