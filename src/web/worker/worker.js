// Each worker's entry: import the wasm-bindgen glue, `initSync` with the shared module and
// memory, run the Rust worker loop (await a task's promise between its turns), free the
// thread's stack and TLS, report, and close. The owner's side is `owner/workers.js`.

import { WorkerHandovers } from '../transfer.js';
import { isNode, nodeModule, syncReceive } from '../runtime.js';
import { runPosted } from './posted.js';

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
  const message = data.mode === 'message';
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
  const handovers = message ? null
    : new WorkerHandovers((id) => postToMain({ type: 'claim', index: data.index, detail: id }), receiveOne, data.posted);
  here = { index: data.index, taskModule: null, handovers, post: postToMain };
  if (!message) listen(onMessage);
  // The task module first: a module that does not load costs no wasm thread state.
  let exportNames = [];
  if (data.taskModule) {
    let taskModule;
    try {
      taskModule = await import(/* @vite-ignore */ /* webpackIgnore: true */ data.taskModule);
    } catch (err) {
      postToMain({ type: 'failed', index: data.index,
        detail: `the task module ${data.taskModule} did not load: ${err?.name ?? 'Error'}: ${err?.message ?? err}` });
      close();
      return;
    }
    exportNames = Object.keys(taskModule).filter((k) => typeof taskModule[k] === 'function');
    here.taskModule = taskModule;
  }
  // The entry script's own copy of the glue when it has one (a bundled worker chunk).
  const loadGlue = async () => globalThis.__ringpoolGlue ?? await import(/* @vite-ignore */ /* webpackIgnore: true */ data.glueUrl);
  if (message) {
    runPosted(data, postToMain, listen, close, here.taskModule, loadGlue);
    postToMain({ type: 'ready', index: data.index, detail: { exports: exportNames } });
    return;
  }
  let wasm;
  try {
    const glue = await loadGlue();
    wasm = glue.initSync({ module: data.module, memory: data.memory });
    // Raw exports (numbers only), before this thread makes any externref.
    wasm.ringpool_worker_start(wasm.__tls_base.value, wasm.__stack_alloc.value);
    // This thread's TLS block and stack: the owner frees them if the worker dies in a trap.
    postToMain({ type: 'ready', index: data.index,
      detail: { tls: wasm.__tls_base.value, stack: wasm.__stack_alloc.value, exports: exportNames } });
    // The raw export, not the glue wrapper: the wrapper marks the whole shared module as
    // terminated after a trap, which would stop every other thread; a crash here is ours to
    // report and the pool replaces this worker. It returns undefined once the pool is closed
    // and drained, or the promise a task's body waits for: await it on this worker's event
    // loop, finish the task, and go back into the loop.
    for (;;) {
      const pending = wasm.ringpool_worker_entry(data.sharedPtr, data.index);
      if (pending === undefined) break;
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
