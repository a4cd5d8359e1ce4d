// Spawns the pool's workers. The npm package's entry registers its `worker.js` (a two-line
// script importing the glue) with `setWorkerScript`, written as `new Worker(new URL('./worker.js',
// import.meta.url))` so that bundlers (Vite) emit it as a worker chunk. Without that (the Rust
// crate used directly, e.g. under wasm-bindgen-test) this file is itself the entry script:
// `new Worker(import.meta.url)` (worker_threads in Node refuse the blob URLs `link_to!` makes).
//
// Main side: `WorkerSet` starts workers, forwards their few lifecycle messages (ready, exited,
// crashed, ring) to Rust, and watches the completion doorbell with `Atomics.waitAsync`.
// Worker side: import the wasm-bindgen glue, `initSync` with the shared module and memory,
// run the Rust worker loop, free the thread's stack and TLS, report, and close.

import { countPost, OwnerHandovers, WorkerHandovers } from './transfer.js';

const isNode = typeof process === 'object' && process?.versions?.node != null;

// Node built-ins without an `import` a browser bundler would try to resolve.
async function nodeModule(name) {
  return process.getBuiltinModule?.(name) ?? import(/* @vite-ignore */ ['node', name.slice(5)].join(':'));
}

// Node's `receiveMessageOnPort` (a port's queued message, taken synchronously), or null where
// it may not work: Deno's and Bun's ports may not take it. Both ends use it: a worker for its
// routed buffers, the owner for its parked ones (transfer.js).
const syncReceive = ({ receiveMessageOnPort }) =>
  (globalThis.Deno || globalThis.Bun || typeof receiveMessageOnPort !== 'function' ? null : receiveMessageOnPort);

let workerScript = null;
/** `url`: the entry script for worker_threads; `spawnWeb()`: a new module Web Worker on it. */
export function setWorkerScript(url, spawnWeb) {
  workerScript = { url, spawnWeb };
}

export class WorkerSet {
  constructor(glueUrl, module, memory, sharedPtr, name, taskModule, onEvent) {
    this.glueUrl = glueUrl;
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
    const posted = isNode ? new Int32Array(new SharedArrayBuffer(8)) : null;
    const data = { ringpool: true, glueUrl: this.glueUrl, module: this.module, memory: this.memory,
      sharedPtr: this.sharedPtr, taskModule: this.taskModule, index, posted };
    // Events of a worker that was terminated or replaced, or that come after `terminateAll`
    // (the Rust callbacks are being freed then), are dropped.
    let entry = null;
    const current = () => !this.stopped && this.workers.get(index) === entry;
    // `detail`: the `ready` object, or a message (see `WorkerEvent` in owner.rs).
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
      this.onEvent(msg.type, msg.index, msg.detail ?? '');
    };
    const onError = (err) => { if (current()) this.onEvent('error', index, String(err?.stack ?? err?.message ?? err)); };
    if (isNode) {
      entry = nodeModule('node:worker_threads').then(({ Worker }) => {
        const url = workerScript?.url ?? new URL(import.meta.url);
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
        ?? new Worker(new URL(import.meta.url), { type: 'module', name: `ringpool:${this.name}-${index}` });
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

// Milliseconds on a clock every thread shares (worker `performance.now()` values have
// different origins): task timing for the doorbell and the `image.*` tile reports.
// Read on every admission and twice per task (run and wait times): the origin is read once.
const timeOrigin = performance.timeOrigin;
export function clock() {
  return timeOrigin + performance.now();
}

/**
 * `undefined` (inherit the process's options, as worker_threads do by default), or those options
 * without `--input-type` when it is there: a worker refuses to start a file with it (`node
 * --input-type=module -e …`, a module piped into stdin), and it only concerns the main script.
 */
function workerExecArgv() {
  const argv = process.execArgv;
  if (!argv.some((a) => a === '--input-type' || a.startsWith('--input-type='))) return undefined;
  const out = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--input-type') i++;
    else if (!argv[i].startsWith('--input-type=')) out.push(argv[i]);
  }
  return out;
}

export function schedule(ms, callback) {
  return setTimeout(callback, ms);
}

export function microtask(callback) {
  queueMicrotask(callback);
}

export function crossOriginIsolationProblem() {
  if (isNode || typeof globalThis.crossOriginIsolated !== 'boolean') return null;
  if (globalThis.crossOriginIsolated && typeof SharedArrayBuffer === 'function') return null;
  return 'ringpool needs a cross-origin isolated page for SharedArrayBuffer: serve it with the headers ' +
    '"Cross-Origin-Opener-Policy: same-origin" and "Cross-Origin-Embedder-Policy: require-corp"';
}

/** The absolute URL of `Pool.create({module})`: a `URL`, an absolute URL string, or (Node) a path. */
export function resolveModuleUrl(spec) {
  if (spec instanceof URL) return spec.href;
  if (typeof spec !== 'string' || spec === '') {
    throw new TypeError(`module must be a URL or a non-empty string, got ${spec === null ? 'null' : typeof spec}`);
  }
  try { return new URL(spec).href; } catch { /* relative */ }
  if (isNode) {
    const { pathToFileURL } = process.getBuiltinModule('node:url');
    return pathToFileURL(process.getBuiltinModule('node:path').resolve(spec)).href;
  }
  return new URL(spec, globalThis.document?.baseURI ?? globalThis.location?.href).href;
}

// This worker, once it runs (`runWorker`): its index, its task module (`Pool.create({module})`,
// whose exports are tasks by name), its handovers (transfer.js) and how it posts to the owner.
// The only state of a worker's modules; on an owner thread it stays null.
let here = null;
export function taskExport(name) {
  return here?.taskModule?.[name];
}
export function workerHandovers() {
  return here.handovers;
}

// Whether this thread may block in `Atomics.wait`: Node's, Deno's and Bun's main threads and
// any worker may; a page's thread may not (it throws before it compares the value, so the
// probe never sleeps). Asked by the owner thread as a pool starts (owner.rs).
let mayWait = null;
export function threadMayWait() {
  if (mayWait === null) {
    try { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 1, 0); mayWait = true; } catch { mayWait = false; }
  }
  return mayWait;
}

// This worker's index in its pool (`this.workerIndex` in a task), -1 outside workers.
export function workerIndex() {
  return here?.index ?? -1;
}

export function postDoorbell() {
  here.post({ type: 'ring' });
}

// `listen(handler)`: receives the owner's messages after the start-up one (handovers).
// `receiveNow()` (Node): the next queued message, or undefined, without an event-loop turn.
async function runWorker(data, postToMain, close, listen, receiveNow = null) {
  const onMessage = (m) => {
    const list = m?.ringpoolHandovers;
    if (list !== undefined) for (const [id, buffers, drop] of list) handovers.arrived(id, buffers, drop);
  };
  const receiveOne = receiveNow && (() => {
    const m = receiveNow();
    if (m === undefined) return false;
    onMessage(m);
    return true;
  });
  const handovers = new WorkerHandovers((id) => postToMain({ type: 'claim', index: data.index, detail: id }), receiveOne, data.posted);
  here = { index: data.index, taskModule: null, handovers, post: postToMain };
  listen(onMessage);
  // The task module first: a module that does not load costs no wasm thread state.
  let exportNames = [];
  if (data.taskModule) {
    let taskModule;
    try {
      taskModule = await import(/* @vite-ignore */ data.taskModule);
    } catch (err) {
      postToMain({ type: 'failed', index: data.index,
        detail: `the task module ${data.taskModule} did not load: ${err?.name ?? 'Error'}: ${err?.message ?? err}` });
      close();
      return;
    }
    exportNames = Object.keys(taskModule).filter((k) => typeof taskModule[k] === 'function');
    here.taskModule = taskModule;
  }
  let wasm;
  try {
    // The entry script's own copy of the glue when it has one (a bundled worker chunk).
    const glue = globalThis.__ringpoolGlue ?? await import(/* @vite-ignore */ data.glueUrl);
    wasm = glue.initSync({ module: data.module, memory: data.memory });
    // Raw exports (numbers only), before this thread makes any externref.
    wasm.ringpool_worker_start(wasm.__tls_base.value, wasm.__stack_alloc.value);
    // This thread's TLS block and stack: the owner frees them if the worker dies in a trap.
    postToMain({ type: 'ready', index: data.index,
      detail: { tls: wasm.__tls_base.value, stack: wasm.__stack_alloc.value, exports: exportNames } });
    // The raw export, not the glue wrapper: the wrapper marks the whole shared module as
    // terminated after a trap, which would stop every other thread; a crash here is ours to
    // report and the pool replaces this worker.
    // 1 = a task returned a promise: await it on this worker's event loop, finish the task,
    // and go back into the loop.
    while (wasm.ringpool_worker_entry(data.sharedPtr, data.index) === 1) {
      const pending = glue.ringpool_worker_suspended();
      // Node ends a worker thread whose event loop has nothing left to do, and neither a
      // pending `Atomics.waitAsync` (the task's cancellation watch) nor a plain promise
      // counts: a task awaiting only those would lose its thread. A timer keeps it alive.
      const keepAlive = isNode ? setInterval(() => {}, 2 ** 30) : null;
      let ok = true, value;
      try { value = await pending; } catch (e) { ok = false; value = e; }
      if (keepAlive !== null) clearInterval(keepAlive);
      glue.ringpool_worker_resume(data.index, ok, value);
    }
  } catch (err) {
    postToMain({ type: 'crashed', index: data.index, detail: String(err?.stack ?? err) });
    close();
    return;
  }
  wasm.ringpool_worker_release(wasm.__tls_base.value);
  wasm.__wbindgen_thread_destroy();
  postToMain({ type: 'exited', index: data.index });
  close();
}

if (!globalThis.__ringpoolWorkerStarted) {
  if (isNode) {
    nodeModule('node:worker_threads').then((m) => {
      const { isMainThread, workerData, parentPort } = m;
      if (isMainThread || !workerData?.ringpool || globalThis.__ringpoolWorkerStarted) return;
      globalThis.__ringpoolWorkerStarted = true;
      // Node ends the thread once its port is closed; Deno's worker_threads port has no
      // `close` (it printed an uncaught TypeError per worker), and its worker ends with the
      // web worker's own `close()`.
      const close = () => (typeof parentPort.close === 'function' ? parentPort.close() : globalThis.close?.());
      const receive = syncReceive(m);
      const receiveNow = receive === null ? null : () => receive(parentPort)?.message;
      runWorker(workerData, (m) => parentPort.postMessage(m), close, (h) => parentPort.on('message', h), receiveNow);
    });
  } else if (typeof WorkerGlobalScope !== 'undefined' && self instanceof WorkerGlobalScope &&
             self.name?.startsWith('ringpool:')) {
    globalThis.__ringpoolWorkerStarted = true;
    self.onmessage = (e) => {
      self.onmessage = null;
      runWorker(e.data, (m) => self.postMessage(m), () => self.close(), (h) => { self.onmessage = (m) => h(m.data); });
    };
  }
}

export function defaultWorkers() {
  const n = globalThis.navigator?.hardwareConcurrency
    ?? globalThis.process?.getBuiltinModule?.('node:os')?.availableParallelism?.();
  return Number.isInteger(n) && n > 0 ? n : 4;
}
