import assert from 'node:assert/strict';
import { memoryBytes } from 'ringpool';

/** `accepted = completed + failed + queued + running`, once the pool is quiet. */
export function assertInvariant(pool) {
  const s = pool.stats();
  assert.equal(s.accepted, s.completed + s.failed + s.queued + s.running, JSON.stringify(s));
  return s;
}

/** Whether ArrayBuffer `b` is detached (transferred away). */
export function detached(b) {
  if (b.byteLength !== 0) return false;
  if (typeof b.detached === 'boolean') return b.detached;
  try { new Uint8Array(b); return false; } catch { return true; }
}

/** A 32-bit hash of bytes `u`, to compare what a task saw with what was sent. */
export function hash(u) {
  let s = 0;
  for (let i = 0; i < u.length; i++) s = (s * 31 + u[i]) >>> 0;
  return s;
}

/** The rejection reason of `promise` (fails if it fulfils). */
export async function rejection(promise) {
  try {
    const v = await promise;
    assert.fail(`expected a rejection, got ${v}`);
  } catch (e) {
    if (e instanceof assert.AssertionError) throw e;
    return e;
  }
}

/**
 * The SharedArrayBuffer constructor, also on a page that is not cross-origin isolated (which
 * hides the global; a shared wasm memory still has such a buffer).
 */
export const SharedBuffer = globalThis.SharedArrayBuffer ?? new WebAssembly.Memory({ initial: 0, maximum: 0, shared: true }).buffer.constructor;

/**
 * Whether this run's pools share memory with their workers: not in message mode (a page that is
 * not cross-origin isolated, or the message-mode run of scripts/test.sh, message-mode.mjs).
 */
export const sharedMemory = globalThis.RINGPOOL_TEST_MODE !== 'message' && globalThis.crossOriginIsolated !== false;

/** The `skip` of a test that needs memory the workers share (false where they have it). */
export function needsShared(why) {
  return sharedMemory ? false : `needs shared memory, which message mode does not have: ${why}`;
}

/**
 * The worker's end of every channel below, as source (task bodies are re-made from source on
 * the worker): `REPORT(name, msg, onOther)` posts `{ id, msg }` on the BroadcastChannel `name`
 * until the page acknowledges that id, and returns a promise of the acknowledgement; `onOther`
 * hears the page's other messages ('open') until it returns true. One post is not enough:
 * Chromium can drop a message posted before the page's end of the channel is connected to it
 * (seen in message mode, about one run in twenty). The page counts each id once (`listen`).
 * `globalThis.__reports` holds the reports not yet acknowledged, which `probe().counts()` waits for.
 */
const REPORT = `(globalThis.__report ??= (() => {
  // One channel per name on this worker, kept open: Deno's BroadcastChannel broke (its posts
  // threw "expected i32") with a channel made and closed per report.
  const channels = new Map();
  return (name, msg, onOther) => {
    let ch = channels.get(name);
    if (!ch) {
      const c = new BroadcastChannel(name);
      c.unref?.();
      ch = { c, acks: new Map(), others: new Set() };
      c.onmessage = (e) => {
        const acked = ch.acks.get(e.data?.ack);
        if (acked) return acked();
        for (const f of [...ch.others]) if (f(e.data) === true) ch.others.delete(f);
      };
      channels.set(name, ch);
    }
    if (onOther) ch.others.add(onOther);
    const id = Math.random().toString(36).slice(2);
    const reports = (globalThis.__reports ??= new Set());
    let again;
    const ack = new Promise((resolve) => {
      ch.acks.set(id, () => {
        ch.acks.delete(id);
        clearInterval(again);
        reports.delete(ack);
        resolve();
      });
    });
    reports.add(ack);
    // A worker on its way out (a forced shutdown) may no longer post: stop there.
    const post = () => { try { ch.c.postMessage({ id, msg }); } catch { clearInterval(again); } };
    again = setInterval(post, 50);
    post();
    return ack;
  };
})())`;

/** The page's end: a channel named `name` that acknowledges each report and hands it to `onReport` once. */
function listen(name, onReport) {
  const c = new BroadcastChannel(name);
  c.unref?.();
  const seen = new Set();
  c.onmessage = (e) => {
    const { id, msg } = e.data ?? {};
    if (id === undefined) return;
    c.postMessage({ ack: id });
    if (!seen.has(id)) {
      seen.add(id);
      onReport(msg);
    }
  };
  return c;
}

/** Source: a task's wait at the channel gate `g` (reported as reached, returns once it opens). */
const HOLD = `new Promise((resolve) => (${REPORT})(g, 'reached', (m) => { if (m === 'open') { resolve(); return true; } }))`;

/**
 * A gate: tasks `[wait, [g]]` wait at it until `open()`; `await reached(n)` waits until `n`
 * tasks reached it. With shared memory it is two words of pool memory (the task blocks in
 * Atomics.wait, fine on a worker); in message mode a BroadcastChannel named `g` (the task
 * awaits, which keeps its worker as busy).
 */
export function gate(pool) {
  if (pool.mode === 'message') return channelGate();
  const g = pool.alloc(Int32Array, 2);
  const wait = (g) => { Atomics.add(g, 1, 1); Atomics.notify(g, 1); while (Atomics.load(g, 0) === 0) Atomics.wait(g, 0, 0); return 'gated'; };
  const reached = async (n) => { for (let v; (v = Atomics.load(g, 1)) < n;) await Atomics.waitAsync(g, 1, v).value; };
  const open = () => { Atomics.store(g, 0, 1); Atomics.notify(g, 0); };
  return { g, wait, reached, open, mode: 'shared' };
}

/**
 * `body` that first waits at `gate` (counted by `reached`) and runs once it opens: submit it with
 * `gate.g` before its own arguments. With shared memory it blocks its worker in Atomics.wait; in
 * message mode it awaits, which keeps its worker as busy.
 */
export function gated(gate, body) {
  const wait = gate.mode === 'message'
    ? `return (async () => { await ${HOLD}; return (BODY).apply(this, args); })();`
    : 'Atomics.add(g, 1, 1); Atomics.notify(g, 1); while (Atomics.load(g, 0) === 0) Atomics.wait(g, 0, 0); return (BODY).apply(this, args);';
  return new Function(`return function (g, ...args) { ${wait.replace('BODY', String(body))} }`)();
}

/**
 * A channel tasks report to in either mode: a body made by `task(body)` may call `report(msg)`
 * (await it where the worker may end next: it resolves once the page has the report), and
 * `await next()` gives the reports in the order they came.
 */
export function channel() {
  const name = `ringpool-test-report-${gates++}-${Math.random().toString(36).slice(2)}`;
  const came = [], waiters = [];
  const c = listen(name, (msg) => { came.push(msg); waiters.splice(0).forEach((w) => w()); });
  const next = async () => { while (came.length === 0) await new Promise((r) => waiters.push(r)); return came.shift(); };
  const task = (body) => new Function(`return function (...args) {
    const report = (msg) => (${REPORT})(${JSON.stringify(name)}, msg);
    return (${body}).apply(this, args);
  }`)();
  return { name, next, task, close: () => c.close() };
}

/**
 * A probe for tasks in either mode: bodies made by `task(body)` may call `ran()` (counted) and
 * `await hold()` (counted as reached; it returns once `open()` was called). Submit them with `g`
 * before their own arguments (for `pool.map`, `task(body, { input: true })` takes one input
 * `[g, ...args]`). `await reached(n)` / `await ran(n)` wait for the counts;
 * `await counts()` gives `{ reached, ran }` once every report of a body that finished on a
 * live worker is in (message mode: each worker waits until the page has acknowledged them).
 * With shared memory it is three words of pool memory (hold blocks in Atomics.wait); in
 * message mode a BroadcastChannel (hold awaits, which keeps the worker as busy).
 */
export function probe(pool) {
  if (pool.mode !== 'message') {
    const g = pool.alloc(Int32Array, 3); // [0] open, [1] reached, [2] ran
    const until = async (word, n) => { for (let v; (v = Atomics.load(g, word)) < n;) await Atomics.waitAsync(g, word, v).value; };
    return {
      g,
      task: (body, how) => new Function(`return function (...all) {
        const [g, ...args] = ${how?.input ? 'all[0]' : 'all'};
        const ran = () => { Atomics.add(g, 2, 1); Atomics.notify(g, 2); };
        const hold = () => { Atomics.add(g, 1, 1); Atomics.notify(g, 1); while (Atomics.load(g, 0) === 0) Atomics.wait(g, 0, 0); };
        return (${body}).apply(this, args);
      }`)(),
      reached: (n) => until(1, n),
      ran: (n) => until(2, n),
      counts: async () => ({ reached: Atomics.load(g, 1), ran: Atomics.load(g, 2) }),
      open: () => { Atomics.store(g, 0, 1); Atomics.notify(g, 0); },
    };
  }
  const { g, count, until, open } = counter('probe');
  return {
    g,
    task: (body, how) => new Function(`return function (...all) {
      const [g, ...args] = ${how?.input ? 'all[0]' : 'all'};
      const ran = () => { (${REPORT})(g, 'ran'); };
      const hold = () => ${HOLD};
      return (${body}).apply(this, args);
    }`)(),
    reached: (n) => until('reached', n),
    ran: (n) => until('ran', n),
    counts: async () => {
      // Each worker returns once the page has acknowledged every report it made.
      await pool.broadcast(() => Promise.all([...(globalThis.__reports ?? [])]).then(() => {}));
      return { reached: count.reached, ran: count.ran };
    },
    open,
  };
}

let gates = 0;
function channelGate() {
  const { g, until, open } = counter('gate');
  const wait = new Function(`return async function (g) { await ${HOLD}; return 'gated'; }`)();
  return { g, wait, reached: (n) => until('reached', n), open, mode: 'message' };
}

/**
 * The page's end of a message-mode gate or probe: a channel that counts each kind of report
 * ('reached', 'ran'; `await until(kind, n)`) and, once `open()` was called, answers every
 * 'reached' with 'open' (kept open: a task may reach the gate after it opened).
 */
function counter(kind) {
  const g = `ringpool-test-${kind}-${gates++}-${Math.random().toString(36).slice(2)}`;
  const count = { reached: 0, ran: 0 };
  let opened = false;
  const waiters = [];
  const c = listen(g, (msg) => {
    if (!(msg in count)) return;
    count[msg]++;
    if (msg === 'reached' && opened) c.postMessage('open');
    for (const w of waiters.splice(0)) w();
  });
  return {
    g,
    count,
    until: async (key, n) => { while (count[key] < n) await new Promise((r) => waiters.push(r)); },
    open: () => { opened = true; c.postMessage('open'); },
  };
}

/**
 * How many bytes the wasm memory grew over 60 calls of `round` (500 tasks each, say), after 10
 * calls to warm up the allocator's and the pool's own buffers.
 */
export async function memoryGrowth(round) {
  for (let i = 0; i < 10; i++) await round();
  const before = memoryBytes();
  for (let i = 0; i < 60; i++) await round();
  return memoryBytes() - before;
}

/** Occupies a worker with a gated task and returns once it runs; `open()` lets it finish as 'gated'. */
export async function occupy(pool) {
  const { g, wait, reached, open } = gate(pool);
  const blocker = pool.trySubmit(wait, [g]);
  await reached(1);
  return { blocker, open };
}
