// A worker of a pool in message mode (a page that is not cross-origin isolated, or
// `Pool.create({ mode: 'message' })`): it has no share of the owner's memory. The owner's pool
// schedules; it posts this worker one task at a time (`{ ringpoolTask }`, handed-over buffers moved with it), the worker
// runs it and replies with one message (`Reply` in owner/message.rs), and a task settled by
// someone else meanwhile is told so (`{ ringpoolAbort }`). Rust tasks are made again here by
// the export that made them, in a module instance of this worker's own (src/README.md,
// "Message mode"). The owner's half is owner/message.rs and `WorkerSet.postTask`.
import { cached, compileCached } from './compile.js';
import { clonesAlike } from '../codec.js';

// `this` of a task function, as in shared mode (jsfn.js): `signal` aborts and `isCancelled()`
// turns true once the owner says the task was settled by someone else (between the task's
// awaits: a synchronous loop does not hear the owner's message).
class PostedContext {
  #cancelled = false; #controller = null; #index;
  constructor(index) { this.#index = index; }
  get workerIndex() { return this.#index; }
  get isCancelled() { return () => this.#cancelled; }
  get signal() {
    this.#controller ??= new AbortController();
    if (this.#cancelled) this.#controller.abort();
    return this.#controller.signal;
  }
  cancel() {
    this.#cancelled = true;
    this.#controller?.abort();
  }
}
Object.defineProperty(PostedContext, 'name', { value: 'TaskContext' });

function isThenable(v) {
  try { return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof v.then === 'function'; } catch { return false; }
}

// `data`: the start message (`WorkerSet.spawn`); `post`, `close`, `listen` as in worker.js;
// `taskModule`: the loaded task module, or null; `loadGlue()`: the wasm-bindgen glue.
export function runPosted(data, post, listen, close, taskModule, loadGlue) {
  const { index } = data;
  let glue = null; // this worker's own module instance, made for its first Rust task
  let running = null; // the context of the task it runs
  const instance = async () => {
    if (glue === null) {
      const g = await loadGlue();
      g.initSync({ module: data.module });
      glue = g;
    }
    return glue;
  };
  const reply = (kind, value, copied = false) => {
    try {
      post({ type: 'reply', index, detail: [kind, value] });
    } catch (e) {
      if (kind === 'returned' && !copied) return void viaCodec(value, e);
      post({ type: 'reply', index, detail: ['unsendable', `${e?.name ?? 'Error'}: ${e?.message ?? e}`] });
    }
  };
  // A result structured clone would not copy as the codec reads it (a class instance, a
  // function, a proxy, a getter): the codec copies it, or refuses it naming the place, in this
  // worker's own instance, so a result crosses as it would in shared mode.
  const viaCodec = async (value, cloneError) => {
    let outcome;
    try {
      outcome = (await instance()).__ringpoolResultCopy(value);
    } catch (e) {
      const why = cloneError ?? e;
      outcome = ['unsendable', `${why?.name ?? 'Error'}: ${why?.message ?? why}`];
    }
    reply(outcome[0], outcome[1], true);
  };
  const settle = (ok, v) => {
    if (ok) {
      if (clonesAlike(v)) reply('returned', v);
      else viaCodec(v);
    }
    // Structured clone keeps the name of built-in errors only.
    else if (v instanceof Error) reply('threw-error', [String(v.name), String(v.message), String(v.stack ?? '')]);
    else reply('threw', v);
  };
  const remade = async (name, args) => {
    const glue = await instance();
    let outcome;
    try {
      outcome = glue.__ringpoolRunRemade(glue[name](...args), index);
    } catch (e) {
      if (!(e instanceof WebAssembly.RuntimeError)) return settle(false, e);
      // A trap: this worker's instance is done for; the owner replaces the worker.
      post({ type: 'crashed', index, detail: String(e?.stack ?? e) });
      close();
      return;
    }
    const [kind, value] = outcome;
    if (kind === 'threw') settle(false, value);
    else reply(kind, value);
  };
  listen(async (m) => {
    if (m?.ringpoolAbort) return void running?.cancel();
    const request = m?.ringpoolTask;
    if (request === undefined) return;
    const [kind, what, source, args] = request;
    if (kind === 'remade') return remade(what, args);
    let f;
    if (kind === 'source') {
      f = cached(what);
      if (f === undefined) {
        try { f = compileCached(what, source); } catch (e) { return reply('does-not-compile', e); }
      }
    } else {
      f = taskModule?.[what];
      if (typeof f !== 'function') return reply('not-found', what);
    }
    const ctx = running = new PostedContext(index);
    let ok = true, v;
    try {
      v = f.apply(ctx, args);
      if (isThenable(v)) v = await v;
    } catch (e) {
      ok = false; v = e;
    }
    running = null;
    settle(ok, v);
  });
}
