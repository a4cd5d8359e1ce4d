// A worker of a pool in message mode (a page that is not cross-origin isolated, or
// `Pool.create({ mode: 'message' })`): it has no share of the owner's memory. The owner's pool
// schedules; it posts this worker its tasks (`{ ringpoolTask }`, handed-over buffers moved with
// them): the one for its turn and, while that runs, the next one ahead, which the worker begins
// as soon as it has replied. It runs them one at a time, in order, and replies once for each
// (`Reply` in owner/message.rs); a task settled by someone else meanwhile is told so
// (`{ ringpoolAbort: seq }`, the task's number in that order, from 1): a running one's
// `this.signal` aborts, one not yet begun is skipped; one not yet begun may be recalled
// (`{ ringpoolRecall: seq }`: an idle worker takes it over). Rust tasks are made again here by
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
  let count = 0; // tasks posted to it so far: the number of the last
  // `{ seq, ctx, replied }` of the task it runs (`ctx`: a JS task's context; `replied`: its
  // reply is posted, so the owner counts the next waiting task as begun)
  let running = null;
  const waiting = []; // `{ seq, request, skipped }` of the tasks posted after it
  const instance = async () => {
    if (glue === null) {
      const g = await loadGlue();
      g.initSync({ module: data.module });
      glue = g;
    }
    return glue;
  };
  // Returns a promise when the reply waits for the codec: the next task waits for it, so that
  // replies come in the order the tasks were posted.
  const reply = (kind, value, copied = false) => {
    if (running !== null) running.replied = true;
    try {
      post({ type: 'reply', index, detail: [kind, value] });
    } catch (e) {
      if (kind === 'returned' && !copied) return viaCodec(value, e);
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
    if (ok) return clonesAlike(v) ? reply('returned', v) : viaCodec(v);
    // Structured clone keeps the name of built-in errors only.
    if (v instanceof Error) return reply('threw-error', [String(v.name), String(v.message), String(v.stack ?? '')]);
    return reply('threw', v);
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
      waiting.length = 0;
      close();
      return;
    }
    const [kind, value] = outcome;
    return kind === 'threw' ? settle(false, value) : reply(kind, value);
  };
  // Runs one request; settles once its reply is posted.
  const run = async ([kind, what, source, args]) => {
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
    const ctx = running.ctx = new PostedContext(index);
    let ok = true, v;
    try {
      v = f.apply(ctx, args);
      if (isThenable(v)) v = await v;
    } catch (e) {
      ok = false; v = e;
    }
    return settle(ok, v);
  };
  // Runs the tasks posted to it, one at a time, in order.
  const runAll = async () => {
    while (waiting.length > 0) {
      const { seq, request, skipped } = waiting.shift();
      running = { seq, ctx: null, replied: false };
      if (skipped) { reply('skipped'); continue; }
      await run(request);
    }
    running = null;
  };
  listen((m) => {
    const recall = m?.ringpoolRecall;
    if (recall !== undefined) {
      const at = waiting.findIndex((w) => w.seq === recall);
      // Once the reply ahead of it is out, the owner counts it as begun: it stays.
      const begun = at === 0 && running?.replied;
      if (at !== -1 && !begun) { waiting.splice(at, 1); post({ type: 'reply', index, detail: ['recalled', recall] }); }
      return;
    }
    const abort = m?.ringpoolAbort;
    if (abort !== undefined) {
      if (running?.seq === abort) running.ctx?.cancel();
      else { const t = waiting.find((w) => w.seq === abort); if (t !== undefined) t.skipped = true; }
      return;
    }
    const request = m?.ringpoolTask;
    if (request === undefined) return;
    waiting.push({ seq: ++count, request, skipped: false });
    if (running === null) runAll();
  });
}
