// What the app must do, in any engine: run by test/node.test.mjs in Node and by
// test/browser.mjs in a page. `m` is pkg/index.js; each check throws on failure.
const check = (ok, what) => {
  if (!ok) throw new Error(`failed: ${what}`);
};

function collatzSteps(n) {
  let steps = 0;
  for (; n > 1; steps++) n = n % 2 === 0 ? n / 2 : 3 * n + 1;
  return steps;
}

export const checks = {
  async 'an async export awaits its own tasks'(m) {
    let expected = 0;
    for (let i = 1; i <= 12; i++) expected += collatzSteps(i);
    check(await m.total(12) === expected, `total(12) === ${expected}`);
  },

  async 'a ringpool error inside an export rejects with the package class'(m) {
    const err = await m.total(100).then(() => null, (e) => e);
    check(err instanceof m.QueueFullError && err.code === 'QUEUE_FULL', `total(100) rejects with QueueFullError, got ${err}`);
  },

  async 'a typed task resolves with a plain object'(m) {
    const pool = await m.Pool.create({ workers: 2, queueCapacity: 8 });
    try {
      const r = await pool.trySubmit(m.scale({ values: [1, 2, 3.5], scale: 2 }));
      check(JSON.stringify(r.values) === '[2,4,7]' && r.sum === 13, `scale result ${JSON.stringify(r)}`);
      check(Number.isInteger(r.worker) && r.worker >= 0 && r.worker < 2, `worker index ${r.worker}`);
      let thrown = null;
      try { m.scale({ scale: 2 }); } catch (e) { thrown = e; }
      check(thrown instanceof Error && /values/.test(String(thrown)), `scale({}) throws naming the field, got ${thrown}`);
      check(pool.stats().accepted === 1, 'a bad argument submits nothing');
    } finally {
      await pool.shutdown();
    }
  },

  async 'a panic rejects with PanicError and the worker lives'(m) {
    const pool = await m.Pool.create({ workers: 1 });
    try {
      const err = await pool.trySubmit(m.divide(1, 0)).then(() => null, (e) => e);
      check(err instanceof m.PanicError && err.panicMessage === 'division by zero: 1 / 0', `PanicError, got ${err}`);
      check(/^src\/lib\.rs:\d+:\d+$/.test(err.location), `location ${err.location}`);
      check(await pool.trySubmit(m.divide(6, 3)) === 2, 'the same worker runs the next task');
      const s = pool.stats();
      check(s.panicked === 1 && s.crashed === 0 && s.workers === 1, `stats ${JSON.stringify(s)}`);
    } finally {
      await pool.shutdown();
    }
  },

  async 'the entry exports ringpool\'s API and the crate\'s own, not ringpool\'s internals'(m) {
    for (const name of ['Pool', 'Task', 'RingpoolError', 'QueueFullError', 'PoolClosedError', 'TimeoutError', 'PanicError',
      'WorkerCrashedError', 'CancelledError', 'OutOfMemoryError', 'diagnostics', 'memoryBytes', 'wasmMemory', 'total', 'scale', 'divide']) {
      check(name in m, `exports ${name}`);
    }
    for (const name of ['__setWorkerScript', 'ringpool_worker_start', 'errorClasses', 'diagnosticsPanic', 'initSync', 'image']) {
      check(!(name in m), `does not export ${name}`);
    }
    check(m.memoryBytes() > 0 && m.wasmMemory().buffer instanceof SharedArrayBuffer, 'the memory is shared');
    const pool = await m.Pool.create({ workers: 1 });
    const err = await pool.trySubmit(m.diagnostics.panic('from diagnostics')).then(() => null, (e) => e);
    await pool.shutdown();
    check(err instanceof m.PanicError && err.panicMessage === 'from diagnostics', `diagnostics.panic, got ${err}`);
  },
};
