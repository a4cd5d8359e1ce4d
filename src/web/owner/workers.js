// The owner thread's side of the workers: `WorkerSet` starts them, forwards their few
// lifecycle messages (ready, exited, crashed) to Rust (`WorkerEvent`, owner/mod.rs), hands the
// doorbell's `ring` to the drain and a worker's `claim` to the handovers, and watches the
// completion bell with `Atomics.waitAsync`. What runs in each worker is `worker/worker.js`.
//
// The npm package's entry registers its `worker.js` (a two-line script importing the glue) with
// `setWorkerScript`, written as `new Worker(new URL('./worker.js', import.meta.url))` so that
// bundlers (Vite) emit it as a worker chunk. Without that (the Rust crate used directly, e.g.
// under wasm-bindgen-test) workers start on `worker/worker.js` itself (worker_threads in Node
// refuse the blob URLs `link_to!` makes).

import { countPost, fillHanded, OwnerHandovers } from '../transfer.js';
import { isNode, nodeModule, syncReceive } from '../runtime.js';

// The worker entry when none is registered: the snippet beside this one. Not written as
// `new URL('…', import.meta.url)`, so that no bundler follows it: an app bundles the package's
// entry, which registers its own script, and a bundler that followed this one would emit an
// unbundled copy of the glue (webpack), or fail to map it at run time (Parcel 2.16).
const here = import.meta.url;
const defaultEntry = () => new URL('../worker/worker.js', here);

let workerScript = null;
/** `url`: the entry script for worker_threads; `spawnWeb()`: a new module Web Worker on it. */
export function setWorkerScript(url, spawnWeb) {
  workerScript = { url, spawnWeb };
}

export class WorkerSet {
  // `mode`: 'shared' or 'message' (`Mode` in owner/mod.rs); `onReply(index, reply, value)`: a
  // message-mode worker's outcome of its task (owner/message.rs).
  constructor(glueUrl, module, memory, sharedPtr, name, taskModule, mode, onEvent, onReply) {
    this.glueUrl = glueUrl;
    this.mode = mode;
    this.onReply = onReply;
    this.taskModule = taskModule ?? null;
    this.module = module;
    this.memory = memory;
    this.sharedPtr = sharedPtr;
    this.name = name;
    this.onEvent = onEvent;
    this.workers = new Map();
    // The handovers queued this turn, not posted yet, each as [worker entry, id, drop]
    // (`handOver`); `started`: each worker entry's Worker once it exists, to post to at once.
    this.outbox = [];
    this.started = new WeakMap();
    // Node: each worker entry's post count and sleeping flag (`WorkerHandovers` in transfer.js).
    this.posted = new WeakMap();
    // The buffers this pool's submissions hand over, until they are posted (transfer.js).
    this.handovers = new OwnerHandovers();
    this.stopped = false;
    this.hold = null; // Deno: the timer that keeps the event loop open while `watch` waits
    this.drain = null; // set by `watch`: resolves every delivered completion
    // Node's owner parks handed-over buffers in a channel until they are posted (transfer.js).
    if (isNode) {
      nodeModule('node:worker_threads').then((m) => {
        const receive = syncReceive(m);
        if (receive !== null) this.handovers.park(m.MessageChannel, receive);
      });
    }
  }

  spawn(index) {
    const message = this.mode === 'message';
    const posted = isNode && !message ? new Int32Array(new SharedArrayBuffer(8)) : null;
    const data = message
      ? { ringpool: true, mode: 'message', glueUrl: this.glueUrl, module: this.module, taskModule: this.taskModule, index }
      : { ringpool: true, glueUrl: this.glueUrl, module: this.module, memory: this.memory,
        sharedPtr: this.sharedPtr, taskModule: this.taskModule, index, posted };
    // Events of a worker that was terminated or replaced, or that come after `terminateAll`
    // (the Rust callbacks are being freed then), are dropped.
    let entry = null;
    const current = () => !this.stopped && this.workers.get(index) === entry;
    // `detail`: the `ready` object, or a message (see `WorkerEvent` in owner/mod.rs).
    const onMessage = (msg) => {
      if (!current()) return;
      // A worker claims the buffers a task's arguments handed over (transfer.js): they are
      // moved to it, or null if the task settled before it ran and they were released.
      if (msg.type === 'claim') {
        this.handOver(index, msg.detail, false);
        return;
      }
      // The doorbell goes straight to the drain (`watch` runs before any worker can post):
      // passing its kind to Rust as a string allocated in the shared heap on every ring,
      // where the owner then waited on the workers' heap lock (src/README.md, "Results back to the owner thread").
      if (msg.type === 'ring') return void this.drain();
      if (msg.type === 'reply') return void this.onReply(index, msg.detail[0], msg.detail[1]);
      this.onEvent(msg.type, msg.index, msg.detail ?? '');
    };
    const onError = (err) => { if (current()) this.onEvent('error', index, String(err?.stack ?? err?.message ?? err)); };
    if (isNode) {
      entry = nodeModule('node:worker_threads').then(({ Worker }) => {
        const url = workerScript?.url ?? defaultEntry();
        const options = { workerData: data, name: `${this.name}-${index}` };
        let w;
        try {
          w = new Worker(url, { ...options, execArgv: workerExecArgv() });
        } catch (e) {
          // An explicit list is checked: V8 and per-process options next to --input-type.
          if (e?.code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw e;
          w = new Worker(url, { ...options, execArgv: [] });
        }
        w.on('message', onMessage);
        w.on('error', onError);
        // After its messages: a thread that ended without saying so (process.exit in a task).
        w.on('exit', (code) => { if (current()) this.onEvent('exit', index, `the worker thread exited with code ${code}`); });
        return w;
      });
    } else {
      const w = workerScript?.spawnWeb()
        ?? new Worker(defaultEntry(), { type: 'module', name: `ringpool:${this.name}-${index}` });
      w.onmessage = (e) => onMessage(e.data);
      w.onerror = (e) => { e.preventDefault?.(); onError(e.message ?? e); };
      w.postMessage(data);
      entry = Promise.resolve(w);
    }
    this.workers.set(index, entry);
    if (posted !== null) this.posted.set(entry, posted);
    entry.then((w) => this.started.set(entry, w), () => {});
  }

  // A submission's `options.transfer` list is detached (`handover`: the id its buffers wait
  // under, 0 if no argument hands one over); a settled task's buffers are released.
  detachAll(items, handover) {
    this.handovers.detach(items, handover);
  }

  releaseHandover(id) {
    this.handovers.release(id);
  }

  // Handed-over buffers whose task went to worker `index`'s route (src/README.md, "Handovers").
  route(index, handover) {
    this.handOver(index, handover, false);
  }

  // That task settled without running: the worker forgets its buffers.
  dropRouted(index, handover) {
    this.handOver(index, handover, true);
  }

  // Queues handover `id`'s buffers for worker `index` (with `drop`: tells it to forget them).
  // What one turn queues goes in one message per worker, posted in a microtask once the turn's
  // synchronous code and the microtasks queued before it have run: a caller that keeps many
  // tasks in flight submits a batch per drain, and a message per task cost the owner ~12 µs
  // each in Chromium (src/README.md, "Handovers"). Entries keep their order, so a drop
  // follows its route. The buffers are taken (`OwnerHandovers.take`: null if released) in the order
  // they were handed over, for every worker at once, and posted straight away, so they do not
  // wait in this thread's heap (transfer.js). A worker replaced meanwhile gets none of them.
  handOver(index, id, drop) {
    const entry = this.workers.get(index);
    if (!entry) return;
    if (this.outbox.length === 0) queueMicrotask(() => this.flush());
    this.outbox.push([entry, id, drop]);
  }

  flush() {
    const boxes = new Map();
    for (const [entry, id, drop] of this.outbox) {
      const buffers = drop ? null : this.handovers.take(id);
      let box = boxes.get(entry);
      if (box === undefined) boxes.set(entry, (box = { entries: [], transfer: [] }));
      box.entries.push([id, buffers, drop]);
      if (buffers !== null) for (const b of buffers) if (b !== null) box.transfer.push(b);
    }
    this.outbox = [];
    for (const [entry, { entries, transfer }] of boxes) {
      const posted = this.posted.get(entry);
      const post = (w) => {
        w.postMessage({ ringpoolHandovers: entries }, transfer);
        // A worker asleep on its count for these buffers (`WorkerHandovers.now`) wakes now.
        if (posted !== undefined) countPost(posted);
      };
      const w = this.started.get(entry);
      if (w !== undefined) post(w);
      else entry.then(post);
    }
  }

  // Message mode: a task for worker `index` (owner/message.rs), `[kind, what, source, args,
  // handover]` (`Request` in jsfn.rs), with the buffers of handover id `handover` (0: none).
  // The arguments refer to them by place (`Handed`, which a structured clone would not keep):
  // they are put in place here and move with the message.
  postTask(index, request) {
    const handover = request[4];
    const buffers = handover === 0 ? null : this.handovers.take(handover);
    if (buffers !== null) fillHanded(request[3], buffers);
    this.#post(index, { ringpoolTask: request }, buffers === null ? [] : buffers.filter((b) => b !== null));
  }

  // Message mode: task `seq` of those posted to worker `index` was settled by someone else.
  postAbort(index, seq) {
    this.#post(index, { ringpoolAbort: seq }, []);
  }

  // Message mode: worker `index` gives back task `seq` if it has not begun it.
  postRecall(index, seq) {
    this.#post(index, { ringpoolRecall: seq }, []);
  }

  #post(index, message, transfer) {
    const entry = this.workers.get(index);
    if (!entry) return;
    const w = this.started.get(entry);
    if (w !== undefined) { if (transfer.length === 0) w.postMessage(message); else w.postMessage(message, transfer); }
    else entry.then((w) => w.postMessage(message, transfer));
  }

  terminate(index) {
    const w = this.workers.get(index);
    this.workers.delete(index);
    if (w) w.then((w) => w.terminate());
  }

  terminateAll() {
    this.stopped = true;
    clearInterval(this.hold);
    for (const i of [...this.workers.keys()]) this.terminate(i);
  }

  // Calls `drain()` each time the 32-bit word at `byteAddr` changes; stops when it returns false.
  watch(byteAddr, drain) {
    this.drain = drain;
    const cells = new Int32Array(this.memory.buffer);
    const idx = byteAddr >>> 2;
    // Deno's event loop does not wait for a pending Atomics.waitAsync: once its workers have
    // exited, a script awaiting a forced shutdown (settled through this bell) would end with
    // the promise pending. A timer holds the loop open while the bell is watched.
    this.hold = globalThis.Deno ? setInterval(() => {}, 2 ** 30) : null;
    const loop = () => {
      if (this.stopped) return clearInterval(this.hold);
      const seen = Atomics.load(cells, idx);
      if (!drain()) return clearInterval(this.hold);
      const r = Atomics.waitAsync(cells, idx, seen);
      if (r.async) r.value.then(loop);
      else queueMicrotask(loop);
    };
    loop();
  }
}

/**
 * `undefined` (inherit the process's options, as worker_threads do by default), or those options
 * without `--input-type` when it is there: a worker refuses to start a file with it (`node
 * --input-type=module -e …`, a module piped into stdin), and it only concerns the main script.
 */
function workerExecArgv() {
  const argv = globalThis.process.execArgv;
  if (!argv.some((a) => a === '--input-type' || a.startsWith('--input-type='))) return undefined;
  const out = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--input-type') i++;
    else if (!argv[i].startsWith('--input-type=')) out.push(argv[i]);
  }
  return out;
}

// `Pool.create`'s fallback to message mode is said once per page or process.
let warned = false;
export function warnOnce(text) {
  if (!warned) console.warn(text);
  warned = true;
}

export function schedule(ms, callback) {
  return setTimeout(callback, ms);
}

// `headers`: how to isolate a page (ISOLATION_HEADERS in errors.rs).
export function crossOriginIsolationProblem(headers) {
  if (isNode || typeof globalThis.crossOriginIsolated !== 'boolean') return null;
  if (globalThis.crossOriginIsolated && typeof SharedArrayBuffer === 'function') return null;
  return `this page is not cross-origin isolated, so workers cannot share ringpool's memory: ${headers}`;
}

/** The absolute URL of `Pool.create({module})`: a `URL`, an absolute URL string, or (Node) a path. */
export function resolveModuleUrl(spec) {
  if (spec instanceof URL) return spec.href;
  if (typeof spec !== 'string' || spec === '') {
    throw new TypeError(`module must be a URL or a non-empty string, got ${spec === null ? 'null' : typeof spec}`);
  }
  try { return new URL(spec).href; } catch { /* relative */ }
  if (isNode) {
    const { pathToFileURL } = globalThis.process.getBuiltinModule('node:url');
    return pathToFileURL(globalThis.process.getBuiltinModule('node:path').resolve(spec)).href;
  }
  return new URL(spec, globalThis.document?.baseURI ?? globalThis.location?.href).href;
}
