// `options.transfer`: the ArrayBuffers a call hands over, as with `postMessage`'s transfer
// list (piscina's `transferList`, workerpool's `transfer`). Once the task is admitted, each
// listed buffer is detached from the caller. An argument that is a listed buffer of at least
// `HANDOVER_MIN_BYTES` (or a view of that many bytes on one) is not copied into the shared
// memory: the buffers are moved into `handed` under the submission's handover id and posted
// to the worker that runs the task (routed), or claimed by the worker that takes it from the
// queue (the handover protocol, "Handovers" in src/README.md). Smaller ones are copied, which
// costs less than a message; their buffers are detached all the same.

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
    if (typeof SharedArrayBuffer === 'function' && b instanceof SharedArrayBuffer) {
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

// Detaches every buffer of a list `checkTransfer` accepted (skipping one detached meanwhile).
// With a handover id, the buffers are moved (not copied) to wait for the worker's claim: in
// Node's parking channel, else in `handed`.
export function detachAll(items, handover) {
  const slots = items.map((b) => (isDetached(b) ? null : b));
  const live = slots.filter((b) => b !== null);
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
    parked.set(handover, false);
    return;
  }
  // Node 20 has no `ArrayBuffer.prototype.transfer`: a transferring structuredClone moves the
  // memory too (no copy).
  handed.set(handover, slots.map((b) => (b === null ? null : typeof b.transfer === 'function' ? b.transfer() : structuredClone(b, { transfer: [b] }))));
}

// ---- Owner side: the handed-over buffers, by handover id, from admission until a worker
// claims them or the task settles without running (`releaseHandover`).
const handed = new Map();

// Node's owner parks them instead, at admission, as one message each in a channel whose two
// ports are both its own (`setParking`), and takes them out (`receiveMessageOnPort`) only to
// post them on to the worker at once. A buffer moved into a new `ArrayBuffer` of this thread
// counts against this thread's heap until it is posted: held across the caller's next
// allocations (a claimed task's until its worker asks), it made V8 collect on the owner
// thread ~12 times as often as a bare worker's postMessage does (bench/README.md, "Node
// arguments: the owner's collections"). `parked`: the ids in the channel, in its order, each
// with whether it was released meanwhile (its buffers are then dropped when they come out).
let park = null;
const parked = new Map();
// worker.js, on Node's owner thread: `MessageChannel` and `receiveMessageOnPort` of
// node:worker_threads. `sink`: a port whose peer is closed, so what is posted to it is
// detached and dropped (no new `ArrayBuffer` as `structuredClone` makes).
export function setParking(MessageChannel, receiveMessageOnPort) {
  if (park !== null) return;
  const { port1, port2 } = new MessageChannel();
  const sink = new MessageChannel();
  sink.port2.close();
  for (const p of [port1, port2, sink.port1]) p.unref?.();
  park = { port1, sink: sink.port1, receive: () => receiveMessageOnPort(port2)?.message };
}

// Takes parked messages up to and including handover `id`'s: its buffers, or null if it is
// not parked. Ones before it (another worker's claim not read yet) move to `handed`, released
// ones are dropped.
function unpark(id) {
  if (!parked.has(id)) return null;
  for (;;) {
    const m = park.receive();
    if (m === undefined) return null;
    const [pid, buffers] = m;
    const released = parked.get(pid);
    parked.delete(pid);
    if (pid === id) return released ? null : buffers;
    if (!released) handed.set(pid, buffers);
  }
}

// The smallest listed buffer (or view) an argument hands over by message. Below it one copy
// through the shared memory costs less than a message. From 256 KiB on a message wins in Node
// too once the run lasts: the copy's fresh buffer on the worker faults its pages in again and
// again while the worker's garbage collector frees them late (bench/README.md, "Handovers").
export const HANDOVER_MIN_BYTES = 128 << 10;

// Which entry of the list `items` the buffer of `v` (a buffer or a view of `n` bytes) is, or -1
// when it is not listed or is too small to hand over.
export function handoverSlot(items, v, n) {
  return n < HANDOVER_MIN_BYTES ? -1 : items.indexOf(ArrayBuffer.isView(v) ? v.buffer : v);
}

export function releaseHandover(id) {
  handed.delete(id);
  if (!parked.has(id)) return;
  parked.set(id, true);
  // Released ones at the head of the channel are dropped now, so it holds no buffers for long
  // that no worker will claim.
  for (const [pid, released] of parked) {
    if (!released) break;
    park.receive();
    parked.delete(pid);
  }
}

// The buffers of handover `id` for the worker that claimed them (or whose route holds its
// task), or null when the task was settled (cancelled, timed out, forced) and they were
// released before it ran.
export function takeHandover(id) {
  const buffers = handed.get(id);
  if (buffers === undefined) return park === null ? null : unpark(id);
  handed.delete(id);
  return buffers;
}

// ---- Worker side: a task whose arguments hold `Handed` placeholders claims its buffers from
// the owner, then its arguments are rebuilt with views on them (`runTask` in jsfn.js).
class Handed {
  constructor(id, slot, kind, offset, len) {
    this.id = id; this.slot = slot; this.kind = kind; this.offset = offset; this.len = len;
  }
}

// The handover id the arguments being built for the next `runTask` refer to (0: none).
let pending = 0;
export function handedPlaceholder(id, slot, kind, offset, len) {
  pending = id;
  return new Handed(id, slot, kind, offset, len);
}
export function takePendingHandover() {
  const id = pending;
  pending = 0;
  return id;
}

// Handover ids with this bit set were routed: the owner posts their buffers to the worker
// whose route holds the task, which waits for them instead of claiming them (ROUTED in
// submission.rs).
const ROUTED = 2 ** 31;
const claims = new Map();
// Routed buffers that arrived before their task asked for them.
const received = new Map();
let postClaim = null;
// worker.js: how this worker sends its claims to the owner.
export function setClaimPoster(post) {
  postClaim = post;
}
// Node's workers only (worker.js): `receiveNow()` takes one message already queued for this
// worker and handles it at once (`receiveMessageOnPort`), without a turn of its event loop;
// false when none was queued. `posted`: the owner's count of its posts to this worker and a
// flag raised while the worker sleeps on that count (WorkerSet.flush bumps it and wakes it).
let receiveNow = null;
let posted = null;
const POSTS = 0, SLEEPING = 1;
export function setReceiveNow(f, postedCount) {
  receiveNow = f;
  posted = postedCount ?? null;
}
// Owner side, after each post to a worker: counts it and wakes the worker if it sleeps on it.
export function countPost(postedCount) {
  Atomics.add(postedCount, POSTS, 1);
  if (Atomics.load(postedCount, SLEEPING) !== 0) Atomics.notify(postedCount, POSTS, 1);
}
// How long a worker sleeps here for a routed task's buffers before the task suspends on them:
// the owner posts them once its turn's synchronous code has run (a batch of admissions), so a
// worker that took the task at once is ahead of the post by µs to a few ms. It sleeps on the
// owner's post count instead of polling the port, which took ~14 % of a worker's CPU at 1 MiB
// on a core the owner needed (bench/README.md, "Node arguments: the workers' wait").
const RECEIVE_WAIT_MS = 2;
// worker.js: the owner's message for handover `id`: its buffers (null: released, the task
// settled before it ran), or with `drop`, a routed task that will not run.
export function onHandover(id, buffers, drop) {
  const c = claims.get(id);
  if (drop) {
    received.delete(id);
    return;
  }
  if (c === undefined) {
    if (id >= ROUTED && buffers !== null) received.set(id, buffers);
    return;
  }
  claims.delete(id);
  if (buffers === null) c.reject(new Error('the transferred buffers of this task were released: it was settled before it ran'));
  else c.resolve(buffers);
}
// A routed task's buffers at once: here already (one message brings a turn's handovers, so
// the tasks after the first of a batch find theirs), or, where the worker can take its
// messages synchronously (Node), usually queued already. Then the task runs without
// suspending, as a copied one does. `undefined` if they are not here soon: then `claim` waits.
export function claimNow(id) {
  if (id < ROUTED) return undefined;
  if (receiveNow !== null) {
    let deadline = 0;
    for (;;) {
      // Read before looking, so a post after the look changes it and the sleep ends at once.
      const seen = posted === null ? 0 : Atomics.load(posted, POSTS);
      while (!received.has(id) && receiveNow());
      if (received.has(id) || posted === null) break;
      const now = performance.now();
      if (deadline === 0) deadline = now + RECEIVE_WAIT_MS;
      if (now >= deadline) break;
      Atomics.store(posted, SLEEPING, 1);
      Atomics.wait(posted, POSTS, seen, deadline - now);
      Atomics.store(posted, SLEEPING, 0);
    }
  }
  const buffers = received.get(id);
  received.delete(id);
  return buffers;
}
// A promise of handover `id`'s buffers, after `claimNow` found none: claimed from the owner,
// or for a routed task, the ones posted to this worker, on their way (`onHandover`).
export function claim(id) {
  return new Promise((resolve, reject) => {
    claims.set(id, { resolve, reject });
    if (id < ROUTED) postClaim(id);
  });
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
