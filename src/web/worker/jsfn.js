// Worker side of JS-function and task-module tasks (see jsfn.rs): the per-worker cache of
// compiled task functions, the task context (`this`), and `runTask`, the one call per task.
import { taskExport, workerHandovers, workerIndex } from './worker.js';
import { fillHanded } from '../transfer.js';
import { cached } from './compile.js';

// `this` of a task function: `signal` aborts when the task is settled by someone else
// (cancellation, timeout, force) while it awaits; `isCancelled()` reads the task's state word
// in shared memory (1 while running), so it works inside a synchronous loop too. A class, not
// closures: one small object per task, and the same few functions for the JIT in every worker.
let cells = null; // Int32Array over the shared memory; remade when a state word lies beyond it
let watchContext, finishContext;
class TaskContext {
  #idx; #live = true; #cancelled = false; #watching = false; #controller = null; #isCancelled = null;
  constructor(idx) { this.#idx = idx; }
  // A function made on first use that works detached too (`const { isCancelled } = this`).
  get isCancelled() { return this.#isCancelled ??= () => this.#check(); }
  #check() {
    if (this.#live && !this.#cancelled && Atomics.load(cells, this.#idx) !== 1) this.#cancelled = true;
    return this.#cancelled;
  }
  // The index (0 .. workers - 1) of the worker running the task; a replaced worker keeps it.
  get workerIndex() { return workerIndex(); }
  // Made on first use: most tasks never look at it.
  get signal() {
    if (this.#controller === null) {
      this.#controller = new AbortController();
      if (this.#check()) this.#controller.abort();
    }
    return this.#controller.signal;
  }
  #watch() {
    this.#watching = true;
    if (!this.#live) return;
    if (this.#check()) { this.#controller?.abort(); return; }
    const r = Atomics.waitAsync(cells, this.#idx, 1);
    if (r.async) r.value.then(() => this.#watch()); else this.#watch();
  }
  #finish() {
    this.#check();
    this.#live = false;
    if (this.#watching) Atomics.notify(cells, this.#idx);
  }
  static {
    watchContext = (c) => c.#watch();
    finishContext = (c) => c.#finish();
  }
}
Object.defineProperty(TaskContext, 'name', { value: 'TaskContext' });
Object.freeze(TaskContext.prototype);

// What `runTask` returns when the task did not simply return a value: `kind` is one of the
// names of `RunTask` in jsfn.rs (it threw, it returned a thenable, the function is not
// compiled in this worker yet, or `cells` must be remade as the memory grew) and `value` what
// goes with it. A task's own return value is returned as it is (no task can make one of these).
export class Ran {
  constructor(kind, value) { this.kind = kind; this.value = value; }
}
const NOT_FOUND = new Ran('not-found', undefined);
const STALE_MEMORY = new Ran('stale-memory', undefined);
export function setTaskMemory(memory) { cells = new Int32Array(memory.buffer); }
// Reading `then` can throw (a revoked proxy): then it is not a thenable, and the codec
// refuses the value with a TypeError.
function isThenable(v) {
  try { return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof v.then === 'function'; } catch { return false; }
}
// One call per task: look up the compiled function (`id`) or the export (`name`), call it with
// its context and up to two arguments (`rest`: an array of all of them when there are more).
// `handover`: the id under which buffers its arguments hand over come (0: none), `routed`
// whether they are posted to this worker (else it claims them). Returns what the function
// returned, or a `Ran` saying what else happened.
export function runTask(id, name, addr, n, a0, a1, rest, handover, routed) {
  const f = name === undefined ? cached(id) : taskExport(name);
  // Not found: the caller compiles it and builds the arguments again (or fails the task).
  if (typeof f !== 'function') return NOT_FOUND;
  const idx = addr >>> 2;
  if (cells === null || idx >= cells.length) return STALE_MEMORY;
  const ctx = new TaskContext(idx);
  // Arguments with handed-over buffers (transfer.js): fill them in and call, at once if the
  // buffers are here already (a routed task in Node), else once they are claimed from the
  // owner or arrive; the worker awaits that as it awaits an async task.
  const handed = (buffers) => f.apply(ctx, fillHanded(n <= 2 ? [a0, a1].slice(0, n) : rest, buffers));
  let r;
  try {
    if (handover === 0) r = n === 0 ? f.call(ctx) : n === 1 ? f.call(ctx, a0) : n === 2 ? f.call(ctx, a0, a1) : f.apply(ctx, rest);
    else {
      const handovers = workerHandovers();
      const now = handovers.now(handover, routed);
      r = now !== undefined ? handed(now) : handovers.claim(handover, routed).then(handed);
    }
  } catch (e) {
    finishContext(ctx);
    return new Ran('threw', e);
  }
  if (isThenable(r)) {
    // The worker awaits it; the context watches for cancellation until it settles.
    watchContext(ctx);
    const done = () => finishContext(ctx);
    return new Ran('thenable', Promise.resolve(r).then((v) => { done(); return v; }, (e) => { done(); throw e; }));
  }
  finishContext(ctx);
  return r;
}
