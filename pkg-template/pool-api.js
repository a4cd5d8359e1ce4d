// The parts of the JS `Pool` written in JS, installed on the class by the package entry:
// `pool.map` (a lazy, bounded, cancellable async iterable of results) and
// `pool[Symbol.asyncDispose]` (the same call as `shutdown()`, for `await using`).

const noop = () => {};

function describe(v) {
  return v === null ? 'null' : typeof v;
}

/**
 * Checks `pool.map`'s arguments; throws a TypeError/RangeError naming the bad one. The rules
 * every call shares (a task that can run more than once, `signal`, `timeout`, `priority`) are
 * the pool's own (`Pool.checkMapCall`, written once in Rust); the rest are map's.
 */
function check(Pool, task, inputs, options) {
  Pool.checkMapCall(task, options);
  const asyncIter = inputs?.[Symbol.asyncIterator];
  const syncIter = inputs?.[Symbol.iterator];
  if (typeof asyncIter !== 'function' && typeof syncIter !== 'function') {
    throw new TypeError(`inputs must be an iterable or an async iterable, got ${describe(inputs)}`);
  }
  const { ordered = true, signal, timeout, priority, transfer } = options ?? {};
  if (transfer !== undefined && typeof transfer !== 'function') {
    throw new TypeError(`options.transfer of map must be a function (input) => ArrayBuffer[] (each input has its own buffers), got ${describe(transfer)}`);
  }
  if (typeof ordered !== 'boolean') throw new TypeError(`options.ordered must be a boolean, got ${describe(ordered)}`);
  return { ordered, signal, timeout, priority, transfer, isAsync: typeof asyncIter === 'function' };
}

/** A signal that aborts when `a` or `b` does (AbortSignal.any where the engine has it). */
function either(a, b) {
  if (a === undefined) return b;
  if (typeof AbortSignal.any === 'function') return AbortSignal.any([a, b]);
  const c = new AbortController();
  for (const s of [a, b]) {
    if (s.aborted) c.abort(s.reason);
    else s.addEventListener('abort', () => c.abort(s.reason), { once: true });
  }
  return c.signal;
}

/**
 * `pool.map(task, inputs, { ordered = true, signal, timeout, priority, transfer })`: one task
 * `task(input)` per input, results as an async iterable. Arguments are checked at once (a bad
 * one throws here); inputs are pulled lazily, at most `workers + queueCapacity` ahead of what
 * was yielded.
 */
function map(Pool, CancelledError, pool, task, inputs, options) {
  const o = check(Pool, task, inputs, options);
  return run(pool, task, inputs, o, pool.workers + pool.queueCapacity, CancelledError);
}

/**
 * The iteration. Leaving it early (break, return, a throw in the loop body), a task failure or
 * the signal aborts `controller`: tasks of the map still queued settle at once and never run,
 * running ones see `this.isCancelled()` (cooperative), and the input iterator is closed.
 */
async function* run(pool, task, inputs, o, limit, CancelledError) {
  const controller = new AbortController();
  const signal = either(o.signal, controller.signal);
  const submitOptions = { signal };
  if (o.timeout !== undefined) submitOptions.timeout = o.timeout;
  if (o.priority !== undefined) submitOptions.priority = o.priority;
  // Rejects when the signal aborts: stops a wait for an async input that never comes.
  const aborted = new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  aborted.catch(noop);
  const source = o.isAsync ? inputs[Symbol.asyncIterator]() : inputs[Symbol.iterator]();
  let sourceDone = false; // exhausted, or its `next` threw: nothing to close
  let outstanding = 0; // pulled and not yet yielded
  const inOrder = []; // ordered: the tasks' promises in input order
  const settled = []; // unordered: outcomes in completion order
  let wake = noop;
  let finished = false;
  try {
    for (;;) {
      while (!sourceDone && outstanding < limit) {
        if (signal.aborted) throw signal.reason;
        let step;
        try {
          step = o.isAsync ? await Promise.race([source.next(), aborted]) : source.next();
        } catch (e) {
          if (!signal.aborted) sourceDone = true;
          throw e;
        }
        if (step.done) {
          sourceDone = true;
          break;
        }
        outstanding++;
        let p;
        try {
          // The input's own transfer list; a throw there (or a bad list) fails this input as
          // a refused submission would (`submit` itself never throws).
          p = pool.submit(task, [step.value], o.transfer ? { ...submitOptions, transfer: o.transfer(step.value) } : submitOptions);
        } catch (e) {
          p = Promise.reject(e);
        }
        if (o.ordered) {
          p.catch(noop);
          inOrder.push(p);
        } else {
          p.then((value) => settled.push({ ok: true, value }), (error) => settled.push({ ok: false, error }))
            .then(() => wake());
        }
      }
      if (outstanding === 0) {
        finished = true;
        return;
      }
      let value;
      if (o.ordered) {
        value = await inOrder.shift();
      } else {
        while (settled.length === 0) await new Promise((resolve) => { wake = resolve; });
        const s = settled.shift();
        if (!s.ok) throw s.error;
        value = s.value;
      }
      outstanding--;
      yield value;
    }
  } finally {
    if (!finished) {
      controller.abort(new CancelledError('pool.map ended before this task settled'));
      // Not awaited: an async generator busy in an await (an input that never comes) would
      // only return after it, and the map's own error must not wait for that.
      if (!sourceDone) {
        const closing = source.return?.();
        if (typeof closing?.then === 'function') closing.then(noop, noop);
      }
    }
  }
}

/** Installs `map` and `Symbol.asyncDispose` on `Pool.prototype`. */
export function extendPool(Pool, errors) {
  const { CancelledError } = errors;
  Object.defineProperty(Pool.prototype, 'map', {
    value: { map(task, inputs, options) { return map(Pool, CancelledError, this, task, inputs, options); } }.map,
    writable: true,
    configurable: true,
  });
  // `await using pool = await Pool.create()` where the engine has explicit resource management.
  if (typeof Symbol.asyncDispose === 'symbol') {
    Object.defineProperty(Pool.prototype, Symbol.asyncDispose, {
      value: function asyncDispose() { return this.shutdown(); },
      writable: true,
      configurable: true,
    });
  }
}
