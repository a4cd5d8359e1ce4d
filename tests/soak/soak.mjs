// The soak: `tasks` tasks with mixed outcomes through a pool with a small queue, in a closed
// loop that keeps the queue overfull (so trySubmit also meets QueueFullError). Runs the same
// in Node and in Chromium (tests/soak/node.mjs, browser.mjs). It checks, and throws on the
// first violation:
// - every accepted task settles exactly once, with an outcome its kind allows, and a JS body
//   runs at most once (never when its abort won while it was queued) — tracked in a pool view;
// - the stats invariant and bounds hold at every checkpoint, and at the end the pool's
//   counters equal this loop's own tallies;
// - `waiting` reconciles with the other counters: a `submit` or `submitAll` call raises
//   accepted + waiting + rejected by exactly its task count, `waiting` never exceeds the
//   submissions this loop has outstanding (`maxWaiting` is set to that, so no call is ever
//   refused as overloaded), and it is 0 at every checkpoint;
// - all `workers` workers are alive at every checkpoint (a latch only they can open);
// - memoryBytes() stays flat after warm-up (at most one page, tests/node/memory-allowance.mjs),
//   crashed workers included.
//
// Mix per 100 tasks: 55 return (JS), 5 return (Rust noop), 3 return (async JS), 15 throw,
// 10 panic, 10 aborted right after submission, 2 time out (the body waits for cancellation);
// every 1000th task traps its worker instead. And 8 tasks in every 200 go as one `submitAll`
// batch (return, noop and async; in every third batch one item throws), whose members
// complete quietly while the other tasks crash, abort and time out around them: a fulfilled
// batch must give every result in order, a failed one the thrower's error, and every member's
// body must have run exactly once by the next checkpoint.

import { MEMORY_SLACK } from '../node/memory-allowance.mjs';

const KINDS = [
  ['return', 55], ['noop', 5], ['async', 3], ['throw', 15], ['panic', 10], ['abort', 10], ['timeout', 2],
];
const KIND_OF = KINDS.flatMap(([k, n]) => Array(n).fill(k));

const BATCH = 8;
/** Whether task `i` belongs to a `submitAll` batch (8 in every 200, never a trap). */
export function inBatch(i) {
  return Math.floor(i / BATCH) % 25 === 7;
}

export function kindOf(i) {
  if (inBatch(i)) return i % BATCH === 5 && Math.floor(i / 200) % 3 === 2 ? 'throw' : ['return', 'noop', 'async'][i % 3];
  return i % 1000 === 999 ? 'trap' : KIND_OF[(i * 37) % 100];
}

const bodies = {
  return(ran, i) { Atomics.add(ran, i, 1); return i; },
  async async(ran, i) { Atomics.add(ran, i, 1); await null; return -i; },
  throw(ran, i) { Atomics.add(ran, i, 1); throw new TypeError(`t${i}`); },
  abort(ran, i) { Atomics.add(ran, i, 1); return 'ran'; },
  timeout(ran, i) { Atomics.add(ran, i, 1); while (!this.isCancelled()) { /* wait */ } return 'late'; },
  // Opens only when `n` bodies are inside at once: proves `n` live workers.
  latch(cells, n) {
    Atomics.add(cells, 0, 1);
    const t0 = Date.now();
    while (Atomics.load(cells, 0) < n) if (Date.now() - t0 > 20000) throw new Error('latch: workers missing');
    return true;
  },
};

function fail(msg) {
  throw new Error(`soak: ${msg}`);
}

export async function soak(lib, { tasks, workers = 2, queueCapacity = 8, inFlight = 16, log = () => {} }) {
  const { Pool, diagnostics, memoryBytes, PanicError, WorkerCrashedError, TimeoutError } = lib;
  // At most `inFlight` submitters, each with one call outstanding, so never more waiting.
  const pool = await Pool.create({ workers, queueCapacity, maxWaiting: inFlight * BATCH });
  const ran = pool.alloc(Int32Array, tasks);
  const settled = new Uint8Array(tasks);
  const tally = { accepted: 0, rejected: 0, completed: 0, failed: 0, panicked: 0, crashed: 0, cancelled: 0, timedOut: 0 };
  const outcomes = {};
  const count = (kind, outcome) => { outcomes[`${kind}:${outcome}`] = (outcomes[`${kind}:${outcome}`] ?? 0) + 1; };
  const reason = new Error('soak abort');

  function check(i, kind, ok, v) {
    const r = Atomics.load(ran, i);
    const bad = (what) => fail(`task ${i} (${kind}): ${what}; ok=${ok} value=${v} ${v?.stack ?? ""} ran=${r}`);
    if (ok) tally.completed++; else tally.failed++;
    switch (kind) {
      case 'return': if (!ok || v !== i || r !== 1) bad('should return i'); break;
      case 'async': if (!ok || v !== -i || r !== 1) bad('should return -i'); break;
      case 'noop': if (!ok || v !== undefined) bad('should return undefined'); break;
      case 'throw': if (ok || !(v instanceof TypeError) || v.message !== `t${i}` || r !== 1) bad('should throw'); break;
      case 'panic': if (ok || !(v instanceof PanicError) || v.code !== 'PANIC' || !/^p\d+$/.test(v.panicMessage)) bad('should panic'); tally.panicked++; break;
      case 'trap': if (ok || !(v instanceof WorkerCrashedError) || v.code !== 'WORKER_CRASHED' || !v.message.startsWith('the worker running the task crashed')) bad('should crash'); tally.crashed++; break;
      case 'abort':
        // The abort raced the workers: either it won while the task was queued (the body
        // never ran) or the body had started (cooperative cancellation: it finishes).
        if (!ok && v === reason && r === 0) { tally.cancelled++; count(kind, 'cancelled'); }
        else if (!ok && v === reason && r === 1) { tally.cancelled++; count(kind, 'cancelled-running'); }
        else if (ok && v === 'ran' && r === 1) count(kind, 'ran');
        else bad('should be aborted or run once');
        break;
      case 'timeout':
        if (ok || !(v instanceof TimeoutError) || r > 1) bad('should time out');
        tally.timedOut++; count(kind, r === 0 ? 'queued' : 'running');
        break;
      default: bad('unknown kind');
    }
  }

  // Resolved at every settlement: what a refused trySubmit waits for before retrying.
  let onSettle = [];
  const nextSettlement = () => new Promise((r) => onSettle.push(r));

  // `trySubmit` first. After a QueueFullError the task goes through `submit`, which waits for
  // space — except an abort or timeout task: that one could be refused while it waits, never
  // accepted, so it retries trySubmit after the next settlement instead.
  // A waiting call is admitted, waits, or is refused, all of it before it returns: its
  // `items` tasks move accepted + waiting + rejected by exactly `items`.
  function reconciled(label, items, call) {
    const before = pool.stats();
    const p = call();
    const after = pool.stats();
    const moved = ['accepted', 'waiting', 'rejected'].reduce((n, k) => n + after[k] - before[k], 0);
    if (moved !== items) fail(`${label}: accepted + waiting + rejected moved by ${moved}, not ${items}: ${JSON.stringify(before)} → ${JSON.stringify(after)}`);
    if (after.waiting > inFlight * BATCH) fail(`${label}: ${after.waiting} waiting, more than the loop has outstanding`);
    return p;
  }

  function submit(i, wait) {
    const kind = kindOf(i);
    const how = wait ? 'submit' : 'trySubmit';
    if (wait && kind !== 'abort' && kind !== 'timeout') return reconciled(`task ${i}`, 1, () => submitNow(i, kind, how));
    return submitNow(i, kind, how);
  }

  function submitNow(i, kind, how) {
    const wait = how === 'submit';
    let p, controller = null;
    switch (kind) {
      case 'trap': p = pool[how](diagnostics.trap()); break;
      case 'panic': p = pool[how](diagnostics.panic(`p${i}`)); break;
      case 'noop': p = pool[how](diagnostics.noop()); break;
      case 'timeout': p = pool[how](bodies.timeout, [ran, i], { timeout: 1 }); break;
      case 'abort':
        controller = new AbortController();
        p = pool[how](bodies.abort, [ran, i], { signal: controller.signal });
        break;
      default: p = pool[how](bodies[kind], [ran, i]);
    }
    controller?.abort(reason);
    return p.then(
      (v) => ({ ok: true, v }),
      (v) => ({ ok: false, v }),
    ).then(({ ok, v }) => {
      if (!ok && v?.code === 'QUEUE_FULL') {
        if (wait) fail(`task ${i}: submit rejected with QueueFullError`);
        tally.rejected++;
        return false;
      }
      const woken = onSettle;
      onSettle = [];
      for (const r of woken) r();
      if (settled[i]++ !== 0) fail(`task ${i} settled twice`);
      tally.accepted++;
      check(i, kind, ok, v);
      return true;
    });
  }

  // Members of a rejected batch whose outcome the batch's promise does not tell: each must
  // have run exactly once by the next checkpoint (the pool is quiet there).
  let unseen = [];

  /** Tasks `first..last` (exclusive) as one submitAll. */
  function submitBatch(first, last) {
    const ids = Array.from({ length: last - first }, (_, k) => first + k);
    const items = ids.map((i) => (kindOf(i) === 'noop' ? diagnostics.noop() : [bodies[kindOf(i)], [ran, i]]));
    return reconciled(`batch ${first}`, items.length, () => pool.submitAll(items)).then(
      (values) => ({ ok: true, values }),
      (reason) => ({ ok: false, reason }),
    ).then(({ ok, values, reason }) => {
      const woken = onSettle;
      onSettle = [];
      for (const r of woken) r();
      const thrower = ids.find((i) => kindOf(i) === 'throw');
      if (ok === (thrower !== undefined)) fail(`batch ${first}: ${ok ? 'fulfilled although an item throws' : `rejected: ${reason?.stack ?? reason}`}`);
      for (const [k, i] of ids.entries()) {
        if (settled[i]++ !== 0) fail(`task ${i} settled twice`);
        tally.accepted++;
        if (ok) check(i, kindOf(i), true, values[k]);
        else if (i === thrower) check(i, 'throw', false, reason);
        else { tally.completed++; if (kindOf(i) !== 'noop') unseen.push(i); }
      }
      count('batch', ok ? 'fulfilled' : 'rejected');
    });
  }

  async function checkpoint(label) {
    const s = pool.stats();
    if (s.accepted !== s.completed + s.failed + s.queued + s.running) fail(`${label}: invariant ${JSON.stringify(s)}`);
    if (s.running > workers || s.queued > queueCapacity || s.workers !== workers) fail(`${label}: bounds ${JSON.stringify(s)}`);
    if (s.waiting !== 0) fail(`${label}: ${s.waiting} still waiting for space: ${JSON.stringify(s)}`);
    if (pool.workers !== workers) fail(`${label}: pool.workers = ${pool.workers}`);
    const cells = pool.alloc(Int32Array, 1);
    const opened = await Promise.all(Array.from({ length: workers }, () => pool.submit(bodies.latch, [cells, workers])));
    pool.free(cells);
    if (!opened.every(Boolean)) fail(`${label}: latch`);
    tally.accepted += workers; tally.completed += workers;
    // The latch ran after every earlier task (FIFO, and both workers were free for it).
    for (const i of unseen) if (Atomics.load(ran, i) !== 1) fail(`${label}: batch member ${i} ran ${Atomics.load(ran, i)} times`);
    unseen = [];
  }

  const t0 = performance.now();
  let next = 0, memWarm = null;
  const marks = 10;
  for (let m = 1; m <= marks; m++) {
    const end = Math.floor((tasks * m) / marks);
    // Closed loop: `inFlight` submitters, each retrying its own task on QueueFullError.
    const runner = async () => {
      while (next < end) {
        const i = next++;
        if (inBatch(i)) {
          // The batch's first index takes the whole batch (submitAll waits for space itself).
          const last = Math.min(tasks, i - (i % BATCH) + BATCH);
          next = Math.max(next, last);
          await submitBatch(i, last);
          continue;
        }
        if (await submit(i, false)) continue;
        if (kindOf(i) === 'abort' || kindOf(i) === 'timeout') {
          do await nextSettlement(); while (!(await submit(i, false)));
        } else {
          await submit(i, true);
        }
      }
    };
    await Promise.all(Array.from({ length: inFlight }, runner));
    await checkpoint(`after ${end} tasks`);
    if (m === 1) memWarm = memoryBytes();
    log(`${end} tasks, ${Math.round(end / ((performance.now() - t0) / 1000))} tasks/s, memory ${memoryBytes()} bytes`);
  }
  const seconds = (performance.now() - t0) / 1000;
  for (let i = 0; i < tasks; i++) if (settled[i] !== 1) fail(`task ${i} settled ${settled[i]} times`);
  const s = pool.stats();
  for (const k of Object.keys(tally)) if (s[k] !== tally[k]) fail(`stats.${k} = ${s[k]}, the loop counted ${tally[k]}`);
  if (s.queued !== 0 || s.running !== 0) fail(`not quiet at the end: ${JSON.stringify(s)}`);
  const memEnd = memoryBytes();
  pool.free(ran);
  await pool.shutdown();
  // Flat: crashed workers leave nothing behind (memory-allowance.mjs).
  const allowed = MEMORY_SLACK;
  if (memEnd - memWarm > allowed) fail(`memory grew after warm-up: ${memWarm} → ${memEnd} bytes (allowed ${allowed})`);
  return { tasks, seconds, tasksPerSecond: Math.round(tasks / seconds), stats: s, outcomes, memoryWarm: memWarm, memoryEnd: memEnd, lost: 0 };
}
