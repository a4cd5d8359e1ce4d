// The pools the Node benchmarks compare, each loaded on demand: `load()` imports its package
// (what a fresh process pays, bench/peers/fresh.mjs), then `make(workers)` →
// { run(name, arg), moved(name, buffer), close() } runs the bodies of bench/tasks.mjs.
// PKG=path/to/index.js loads another build of ringpool (an A/B in one sitting).
import { Worker } from 'node:worker_threads';
import { noop, cpu, bytes, sum, record, made } from '../tasks.mjs';

const bodies = { noop, cpu, bytes, sum, record, made };
const workerFile = new URL('./worker.mjs', import.meta.url);
// PKG is relative to bench/, as in bench/admission.mjs.
const pkgUrl = new URL(process.env.PKG ?? '../pkg/index.js', new URL('../', import.meta.url)).href;

export const PEERS = {
  ringpool: {
    async load() { this.lib ??= await import(pkgUrl); return this.lib; },
    async make(workers) {
      const pool = await this.lib.Pool.create({ workers, queueCapacity: 1024 });
      return {
        run: (name, arg) => pool.trySubmit(bodies[name], [arg]),
        moved: (name, a) => pool.trySubmit(bodies[name], [a], { transfer: [a.buffer] }),
        close: () => pool.shutdown(), pool,
      };
    },
  },
  piscina: {
    async load() { this.lib ??= (await import('piscina')).default; return this.lib; },
    async make(workers) {
      const Piscina = this.lib;
      // piscina's worker first `require`s the task file; Node 20's require(esm) then aborted
      // the whole process now and then (FATAL ERROR: v8::Module::IsGraphAsync, see
      // docs/notes/2026-12-06-start-up-worker-entry-in-one-file.md).
      // Without it, that `require` fails at once and piscina imports the file, as before.
      const pool = new Piscina({ filename: workerFile.href, minThreads: workers, maxThreads: workers, idleTimeout: 60_000,
        execArgv: [...process.execArgv, '--no-experimental-require-module'] });
      return { run: (name, arg) => pool.run(arg, { name }), moved: (name, a) => pool.run(Piscina.move(a), { name }), close: () => pool.destroy() };
    },
  },
  tinypool: {
    async load() { this.lib ??= (await import('tinypool')).default; return this.lib; },
    async make(workers) {
      const pool = new this.lib({ filename: workerFile.href, minThreads: workers, maxThreads: workers, idleTimeout: 60_000 });
      return { run: (name, arg) => pool.run(arg, { name }), moved: (name, a) => pool.run(a, { name, transferList: [a.buffer] }), close: () => pool.destroy() };
    },
  },
  workerpool: {
    async load() { this.lib ??= (await import('workerpool')).default; return this.lib; },
    async make(workers) {
      const pool = this.lib.pool(new URL('./workerpool-worker.mjs', import.meta.url).pathname,
        { minWorkers: workers, maxWorkers: workers, workerType: 'thread' });
      return { run: (name, arg) => pool.exec(name, [arg]), moved: (name, a) => pool.exec(name, [a], { transfer: [a.buffer] }), close: () => pool.terminate() };
    },
  },
};

// The floor of a message crossing, not a peer (only the argument rows run it): bare
// `worker_threads` Workers, tasks dealt out round-robin with one postMessage each way (the
// transfer list when moved), no queue, no errors.
export const BARE = {
  async make(workers) {
    const ws = Array.from({ length: workers }, () => new Worker(new URL('./bare-worker.mjs', import.meta.url)));
    const waiting = new Map();
    let next = 0, ids = 0;
    for (const w of ws) w.on('message', ({ id, result }) => { waiting.get(id)(result); waiting.delete(id); });
    await Promise.all(ws.map((w) => new Promise((ok) => w.once('online', ok))));
    const post = (name, arg, transfer) => new Promise((ok) => {
      const id = ++ids;
      waiting.set(id, ok);
      ws[next++ % workers].postMessage({ id, name, arg }, transfer);
    });
    return { run: (name, arg) => post(name, arg), moved: (name, a) => post(name, a, [a.buffer]), close: () => Promise.all(ws.map((w) => w.terminate())) };
  },
};
