// `options.transfer`: the ArrayBuffers a call hands over, as with `postMessage`'s transfer
// list (piscina's `transferList`, workerpool's `transfer`). Once the task is admitted, each
// listed buffer is detached from the caller. An argument that is a listed buffer of at least
// `HANDOVER_MIN_BYTES` (or a view of that many bytes on one) is not copied into the shared
// memory: the buffers are moved into the pool's `OwnerHandovers` under the submission's
// handover id and posted to the worker that runs the task (routed), or claimed by the worker
// that takes it from the queue through its `WorkerHandovers` (the handover protocol,
// "Handovers" in src/README.md). Smaller ones are copied, which costs less than a message;
// their buffers are detached all the same.

import { isSharedBuffer } from './codec.js';

// A copy of `list` if every entry can be transferred, else a string saying which cannot and
// why (Rust makes it a TypeError). Never throws: a getter that throws is reported too.
export function checkTransfer(list) {
  if (!Array.isArray(list)) {
    return `options.transfer must be an array of ArrayBuffers, got ${list === null ? 'null' : typeof list}`;
  }
  let items;
  try { items = Array.from(list); } catch (e) { return `options.transfer could not be read: ${e}`; }
  const seen = new Set();
  for (let i = 0; i < items.length; i++) {
    const b = items[i];
    const at = `options.transfer[${i}]`;
    if (isSharedBuffer(b)) {
      return `${at} is a SharedArrayBuffer, which cannot be transferred (shared memory is already shared)`;
    }
    if (ArrayBuffer.isView(b)) {
      return `${at} is a ${b.constructor?.name ?? 'view'}; list its buffer (${at.replace('options.transfer', 'view')}.buffer) instead`;
    }
    if (!(b instanceof ArrayBuffer)) {
      return `${at} must be an ArrayBuffer, got ${b === null ? 'null' : typeof b === 'object' ? (b.constructor?.name ?? 'object') : typeof b}`;
    }
    if (isDetached(b)) return `${at} is a detached ArrayBuffer`;
    if (seen.has(b)) return `${at} is listed twice`;
    seen.add(b);
  }
  return items;
}

function isDetached(b) {
  if (typeof b.detached === 'boolean') return b.detached;
  if (b.byteLength > 0) return false;
  try { new Uint8Array(b); return false; } catch { return true; }
}

// ---- Owner side, one per pool (its `WorkerSet`): the handed-over buffers, by handover id,
// from admission until a worker claims them or the task settles without running (`release`).
//
// Node's owner parks them instead, at admission, as one message each in a channel whose two
// ports are both its own (`park`), and takes them out (`receiveMessageOnPort`) only to post
// them on to the worker at once. A buffer moved into a new `ArrayBuffer` of this thread counts
// against this thread's heap until it is posted: held across the caller's next allocations (a
// claimed task's until its worker asks), it made V8 collect on the owner thread ~12 times as
// often as a bare worker's postMessage does (src/README.md, "Handovers").
export class OwnerHandovers {
  // Handover id → its buffers (moved), where they are not parked.
  #handed = new Map();
  // Node: the parking channel, and the ids in it, in its order, each with whether it was
  // released meanwhile (its buffers are then dropped when they come out).
  #park = null;
  #parked = new Map();

  // Node's owner thread: `MessageChannel` and `receiveMessageOnPort` of node:worker_threads.
  // `sink`: a port whose peer is closed, so what is posted to it is detached and dropped (no
  // new `ArrayBuffer` as `structuredClone` makes).
  park(MessageChannel, receiveMessageOnPort) {
    const { port1, port2 } = new MessageChannel();
    const sink = new MessageChannel();
    sink.port2.close();
    for (const p of [port1, port2, sink.port1]) p.unref?.();
    this.#park = { port1, sink: sink.port1, receive: () => receiveMessageOnPort(port2)?.message };
  }

  // Detaches every buffer of a list `checkTransfer` accepted (skipping one detached
  // meanwhile). With a handover id, the buffers are moved (not copied) to wait for the worker:
  // in Node's parking channel, else here.
  detach(items, handover) {
    const slots = items.map((b) => (isDetached(b) ? null : b));
    const live = slots.filter((b) => b !== null);
    const park = this.#park;
    if (handover === 0) {
      if (park !== null) park.sink.postMessage(null, live);
      else for (const b of live) {
        if (typeof b.transfer === 'function') b.transfer(0);
        else structuredClone(b, { transfer: [b] });
      }
      return;
    }
    if (park !== null) {
      park.port1.postMessage([handover, slots], live);
      this.#parked.set(handover, false);
      return;
    }
    // Node 20 has no `ArrayBuffer.prototype.transfer`: a transferring structuredClone moves the
    // memory too (no copy).
    this.#handed.set(handover, slots.map((b) => (b === null ? null : typeof b.transfer === 'function' ? b.transfer() : structuredClone(b, { transfer: [b] }))));
  }

  // The task settled: its buffers, if not posted yet, are dropped.
  release(id) {
    this.#handed.delete(id);
    const parked = this.#parked;
    if (!parked.has(id)) return;
    parked.set(id, true);
    // Released ones at the head of the channel are dropped now, so it holds no buffers for
    // long that no worker will claim.
    for (const [pid, released] of parked) {
      if (!released) break;
      this.#park.receive();
      parked.delete(pid);
    }
  }

  // The buffers of handover `id` for the worker that claimed them (or whose route holds its
  // task), or null when the task was settled (cancelled, timed out, forced) and they were
  // released before it ran.
  take(id) {
    const buffers = this.#handed.get(id);
    if (buffers === undefined) return this.#park === null ? null : this.#unpark(id);
    this.#handed.delete(id);
    return buffers;
  }

  // Takes parked messages up to and including handover `id`'s: its buffers, or null if it is
  // not parked. Ones before it (another worker's claim not read yet) move to `#handed`,
  // released ones are dropped.
  #unpark(id) {
    const parked = this.#parked;
    if (!parked.has(id)) return null;
    for (;;) {
      const m = this.#park.receive();
      if (m === undefined) return null;
      const [pid, buffers] = m;
      const released = parked.get(pid);
      parked.delete(pid);
      if (pid === id) return released ? null : buffers;
      if (!released) this.#handed.set(pid, buffers);
    }
  }
}

// The smallest listed buffer (or view) an argument hands over by message. Below it one copy
// through the shared memory costs less than a message. From 256 KiB on a message wins in Node
// too once the run lasts: the copy's fresh buffer on the worker faults its pages in again and
// again while the worker's garbage collector frees them late (src/README.md, "Handovers").
export const HANDOVER_MIN_BYTES = 128 << 10;

// Which entry of the list `items` the buffer of `v` (a buffer or a view of `n` bytes) is, or -1
// when it is not listed or is too small to hand over (`anySize`: message mode, where the
// task's message moves every listed buffer).
export function handoverSlot(items, v, n, anySize) {
  return n < HANDOVER_MIN_BYTES && !anySize ? -1 : items.indexOf(ArrayBuffer.isView(v) ? v.buffer : v);
}

// ---- Worker side: a task whose arguments hold `Handed` placeholders gets its buffers (posted
// to this worker with its task, or claimed from the owner), then its arguments are rebuilt with
// views on them (`runTask` in jsfn.js).
class Handed {
  constructor(slot, kind, offset, len) {
    this.slot = slot; this.kind = kind; this.offset = offset; this.len = len;
  }
}
export function handedPlaceholder(slot, kind, offset, len) {
  return new Handed(slot, kind, offset, len);
}

// Owner side, after each post to a worker: counts it and wakes the worker if it sleeps on it
// (`WorkerHandovers.now`).
const POSTS = 0, SLEEPING = 1;
export function countPost(postedCount) {
  Atomics.add(postedCount, POSTS, 1);
  if (Atomics.load(postedCount, SLEEPING) !== 0) Atomics.notify(postedCount, POSTS, 1);
}
// How long a worker sleeps here for a routed task's buffers before the task suspends on them:
// the owner posts them once its turn's synchronous code has run (a batch of admissions), so a
// worker that took the task at once is ahead of the post by µs to a few ms. It sleeps on the
// owner's post count instead of polling the port, which took ~14 % of a worker's CPU at 1 MiB
// on a core the owner needed (src/README.md, "Handovers").
const RECEIVE_WAIT_MS = 2;

// One per worker, made as it starts (worker.js).
export class WorkerHandovers {
  // Handover id → the resolvers of a task waiting for its buffers.
  #claims = new Map();
  // Routed buffers that arrived before their task asked for them.
  #received = new Map();
  #postClaim;
  #receiveNow;
  #posted;
  // `postClaim(id)`: asks the owner for a claimed task's buffers. Node's workers only:
  // `receiveNow()` takes one message already queued for this worker and handles it at once
  // (`receiveMessageOnPort`), without a turn of its event loop; false when none was queued.
  // `posted`: the owner's count of its posts to this worker and a flag raised while the worker
  // sleeps on that count (`countPost`).
  constructor(postClaim, receiveNow = null, posted = null) {
    this.#postClaim = postClaim;
    this.#receiveNow = receiveNow;
    this.#posted = receiveNow === null ? null : posted;
  }

  // The owner's message for handover `id`: its buffers (null: released, the task settled
  // before it ran), or with `drop`, a routed task that will not run. Buffers nobody waits for
  // are a routed task's, come before it asked.
  arrived(id, buffers, drop) {
    const c = this.#claims.get(id);
    if (drop) {
      this.#received.delete(id);
      return;
    }
    if (c === undefined) {
      if (buffers !== null) this.#received.set(id, buffers);
      return;
    }
    this.#claims.delete(id);
    if (buffers === null) c.reject(new Error('the transferred buffers of this task were released: it was settled before it ran'));
    else c.resolve(buffers);
  }

  // A routed task's buffers at once: here already (one message brings a turn's handovers, so
  // the tasks after the first of a batch find theirs), or, where the worker can take its
  // messages synchronously (Node), usually queued already. Then the task runs without
  // suspending, as a copied one does. `undefined` if they are not here soon: then `claim` waits.
  now(id, routed) {
    if (!routed) return undefined;
    const received = this.#received, posted = this.#posted;
    if (this.#receiveNow !== null) {
      let deadline = 0;
      for (;;) {
        // Read before looking, so a post after the look changes it and the sleep ends at once.
        const seen = posted === null ? 0 : Atomics.load(posted, POSTS);
        while (!received.has(id) && this.#receiveNow());
        if (received.has(id) || posted === null) break;
        const t = performance.now();
        if (deadline === 0) deadline = t + RECEIVE_WAIT_MS;
        if (t >= deadline) break;
        Atomics.store(posted, SLEEPING, 1);
        Atomics.wait(posted, POSTS, seen, deadline - t);
        Atomics.store(posted, SLEEPING, 0);
      }
    }
    const buffers = received.get(id);
    received.delete(id);
    return buffers;
  }

  // A promise of handover `id`'s buffers, after `now` found none: claimed from the owner, or
  // for a routed task, the ones posted to this worker, on their way (`arrived`).
  claim(id, routed) {
    return new Promise((resolve, reject) => {
      this.#claims.set(id, { resolve, reject });
      if (!routed) this.#postClaim(id);
    });
  }
}

// `v` with every placeholder replaced by its buffer or a view on it, walking what `to_js` built
// (fresh arrays, plain objects, Maps and Sets, so they are changed in place).
export function fillHanded(v, buffers) {
  if (v instanceof Handed) {
    const b = buffers[v.slot];
    if (v.kind === '') return b;
    return v.kind === 'DataView' ? new DataView(b, v.offset, v.len) : new globalThis[v.kind](b, v.offset, v.len);
  }
  if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v) || v instanceof ArrayBuffer) return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (i in v) v[i] = fillHanded(v[i], buffers);
  } else if (v instanceof Map) {
    const entries = [...v];
    v.clear();
    for (const [k, x] of entries) v.set(fillHanded(k, buffers), fillHanded(x, buffers));
  } else if (v instanceof Set) {
    const items = [...v];
    v.clear();
    for (const x of items) v.add(fillHanded(x, buffers));
  } else if (!(v instanceof Date) && !(v instanceof Error)) {
    for (const k of Object.keys(v)) {
      const x = v[k], y = fillHanded(x, buffers);
      if (y !== x) Object.defineProperty(v, k, { value: y, writable: true, enumerable: true, configurable: true });
    }
  }
  return v;
}
