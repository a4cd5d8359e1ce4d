// Memory pressure never kills the module. The wasm memory only grows, up to its maximum (1 GiB
// in the npm package): what does not fit is refused with OutOfMemoryError (a RangeError, code
// OUT_OF_MEMORY, saying needed / in use / maximum), the pool keeps working, nothing accepted is
// lost, and a refused value never grows the memory. One case per finding of the issue
// "Memory pressure"; src/memory.rs says how. In Chromium this file runs in a page of its own
// (tests/browser/run.mjs), since it leaves that page's memory at its maximum.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, OutOfMemoryError, diagnostics, memoryBytes } from 'ringpool';
import { assertInvariant, needsShared, occupy, rejection } from './helpers.mjs';

const MiB = 1 << 20;
const MAXIMUM = 1024 * MiB;
const pool = await Pool.create({ workers: 2, queueCapacity: 64 });
test.after(() => pool.shutdown());

/** An out-of-memory refusal, with its figures in the message and as numbers. */
function assertOutOfMemory(e, needed) {
  assert.ok(e instanceof OutOfMemoryError, `expected OutOfMemoryError, got ${e?.stack ?? e}`);
  assert.ok(e instanceof RangeError);
  assert.equal(e.code, 'OUT_OF_MEMORY');
  assert.equal(e.maximum, MAXIMUM);
  assert.ok(e.needed >= needed, `needed ${e.needed} >= ${needed}`);
  assert.ok(e.inUse > 0 && e.inUse <= MAXIMUM, `inUse ${e.inUse}`);
  assert.match(e.message, new RegExp(`needed ${e.needed} bytes, the memory holds ${e.inUse} bytes of its maximum ${MAXIMUM}`));
}

/** `trySubmit` that must not throw (it answers every refusal with a rejected promise). */
function trySubmit(...args) {
  let p;
  assert.doesNotThrow(() => { p = pool.trySubmit(...args); }, 'trySubmit threw');
  return p;
}

/** Fills the memory with alloc views until even 256 KiB no longer fit; returns them. */
function fill() {
  const views = [];
  for (const size of [64 * MiB, 4 * MiB, 256 * 1024]) {
    for (;;) {
      try {
        views.push(pool.alloc(Uint8Array, size));
      } catch (e) {
        assertOutOfMemory(e, size);
        break;
      }
    }
  }
  assert.ok(memoryBytes() > MAXIMUM - MiB, `the memory is at its maximum (${memoryBytes()})`);
  return views;
}

const sum = (a) => { let s = 0; for (let i = 0; i < a.length; i += 4096) s += a[i]; return s + a.length; };

test('options are read as arguments are: a throwing getter refuses the call, nothing runs', async () => {
  // A body that runs counts itself in its worker's global scope.
  const body = () => { globalThis.ran = (globalThis.ran ?? 0) + 1; return 'ran'; };
  const ran = async () => (await pool.broadcast(() => globalThis.ran ?? 0)).reduce((a, b) => a + b);
  const boom = new Error('getter boom');
  for (const options of [{ get timeout() { throw boom; } }, { get signal() { throw boom; } }]) {
    assert.equal(await rejection(trySubmit(body, [], options)), boom);
    assert.equal(await rejection(pool.submit(body, [], options)), boom);
    assert.equal(await rejection(pool.submitAll([[body, []]], options)), boom);
  }
  assert.equal(await rejection(pool.shutdown({ get timeout() { throw boom; } })), boom);
  const create = await rejection(Pool.create({ get workers() { throw boom; } }));
  assert.equal(create, boom);
  assert.equal(await ran(), 0, 'no body ran');
  const inf = await rejection(trySubmit(body, [], { timeout: Infinity }));
  assert.ok(inf instanceof RangeError);
  assert.equal(inf.message, 'options.timeout must be a finite number of ms >= 0, got Infinity');
  const size = await rejection(Pool.create({ workers: -Infinity }));
  assert.equal(size.message, 'workers must be an integer >= 1, got -Infinity');
  assert.equal(await trySubmit(body), 'ran', 'the pool works');
  assert.equal(await ran(), 1);
});

// Before the other cases, while the memory is still small enough to show growth.
test('a refused value leaves the memory as it was; a sparse array costs its elements', async () => {
  const long = 'y'.repeat(70 * MiB);
  const first = await rejection(trySubmit((s) => s.length, [long]));
  assert.ok(first instanceof RangeError && /^args\[0\] makes the payload larger than 67108864 bytes/.test(first.message), first.message);
  const before = memoryBytes();
  for (const args of [[long], [{ nested: [long] }], [new Uint8Array(100 * MiB)], [new Map([[1, long]])]]) {
    const e = await rejection(trySubmit((s) => s, args));
    assert.ok(e instanceof RangeError && /makes the payload larger than/.test(e.message), e.message);
  }
  const e = await rejection(trySubmit((n) => 'z'.repeat(n), [70 * MiB]));
  assert.ok(e instanceof RangeError && /^result makes the payload larger than/.test(e.message), e.message);
  assert.equal(memoryBytes(), before, 'refused strings, buffers and results did not grow the memory');

  const sparse = [];
  sparse[1_000_000] = 'last';
  sparse[3] = 3;
  const back = await trySubmit((a) => { a[5] = 5; return a; }, [sparse]);
  assert.equal(back.length, 1_000_001);
  assert.deepEqual(Object.keys(back), ['3', '5', '1000000'], 'holes stay holes');
  assert.equal(back[1_000_000], 'last');
  assert.ok(memoryBytes() - before <= 64 * 1024, `a sparse array of one million slots grew the memory by ${memoryBytes() - before} bytes`);
  const tooMany = new Array(9_000_000).fill(0);
  const e4 = await rejection(trySubmit((a) => a.length, [tooMany]));
  assert.ok(e4 instanceof RangeError && /^args\[0\] makes the payload larger than/.test(e4.message), e4.message);
});

test('queued arguments beyond the maximum are refused one by one; every accepted one runs', async () => {
  const blockers = [await occupy(pool), await occupy(pool)];
  const arg = new Uint8Array(60 * MiB).fill(1);
  const expected = sum(arg);
  const submitted = Array.from({ length: 30 }, () => trySubmit(sum, [arg]));
  // A refusal is an already-rejected promise: it wins a race with an already-resolved one,
  // while an accepted task stays pending behind the blocked workers.
  const outcomes = await Promise.allSettled(submitted.map((p) => Promise.race([p, Promise.resolve('pending')])));
  const refused = outcomes.filter((o) => o.status === 'rejected');
  // 1 GiB holds at most 17 copies of 60 MiB (fewer beside the pool's own memory).
  assert.ok(refused.length >= 30 - Math.floor(MAXIMUM / (60 * MiB)), `${refused.length} of 30 refused (1.8 GB cannot fit in 1 GiB)`);
  for (const o of refused) assertOutOfMemory(o.reason, 60 * MiB);
  const accepted = submitted.filter((_, i) => outcomes[i].status === 'fulfilled');
  assert.ok(accepted.length >= 8, `${accepted.length} accepted`);
  assert.equal(pool.stats().queued, accepted.length);
  for (const b of blockers) b.open();
  for (const p of accepted) assert.equal(await p, expected);
  assert.equal(await trySubmit(sum, [arg]), expected, 'with the queue drained the same argument fits again');
  assertInvariant(pool);
});

test('with the memory full, an argument is refused and small tasks still run', { skip: needsShared('it fills the memory with pool.alloc views') }, async () => {
  const views = fill();
  const e = await rejection(trySubmit(sum, [new Uint8Array(30 * MiB)]));
  assertOutOfMemory(e, 30 * MiB);
  const e2 = await rejection(pool.submit(sum, [new Uint8Array(30 * MiB)]));
  assertOutOfMemory(e2, 30 * MiB);
  const e3 = await rejection(pool.submitAll([[sum, [new Uint8Array(8)]], [sum, [new Uint8Array(30 * MiB)]]]));
  assertOutOfMemory(e3, 30 * MiB);
  assert.match(e3.message, /^items\[1\]: /);
  assert.equal(await trySubmit((a, b) => a + b, [2, 3]), 5);
  for (const v of views) pool.free(v);
  assert.equal(await trySubmit(sum, [new Uint8Array(30 * MiB).fill(1)]), sum(new Uint8Array(30 * MiB).fill(1)));
  assertInvariant(pool);
});

test('a result that does not fit rejects its task; the worker lives', { skip: needsShared('it fills the memory with pool.alloc views') }, async () => {
  const views = fill();
  for (let i = 0; i < 3; i++) pool.free(views.pop()); // room for small things, not for 30 MiB
  const crashed = pool.stats().crashed;
  const e = await rejection(trySubmit((n) => new Uint8Array(n), [30 * MiB]));
  assertOutOfMemory(e, 30 * MiB);
  assert.match(e.message, /^result does not fit in memory/);
  const big = 'x'.repeat(30 * MiB);
  const e2 = await rejection(trySubmit((n) => 'x'.repeat(n), [big.length]));
  assertOutOfMemory(e2, 30 * MiB);
  const e3 = await rejection(trySubmit(diagnostics.alloc(30 * MiB)));
  assertOutOfMemory(e3, 30 * MiB);
  assert.equal(pool.stats().crashed, crashed, 'no worker crashed');
  for (const v of views) pool.free(v);
  assert.equal(await trySubmit(diagnostics.alloc(30 * MiB)), 30 * MiB, 'with room again the Rust task runs');
  assert.equal((await trySubmit((n) => new Uint8Array(n), [30 * MiB])).length, 30 * MiB);
  assertInvariant(pool);
});

test('with the memory full, a new pool is refused with OutOfMemoryError; the module keeps working', { skip: needsShared('it fills the memory with pool.alloc views') }, async () => {
  const views = fill();
  // A worker's stack is allocated in the new worker, where a failed allocation is a trap (it
  // used to leave the module unable to start any pool afterwards).
  const e = await rejection(Pool.create({ workers: 2 }));
  assertOutOfMemory(e, 2 * MiB);
  assert.match(e.message, /^no room for the workers' stacks/);
  const crash = await rejection(trySubmit(diagnostics.trap()));
  assert.equal(crash.code, 'WORKER_CRASHED');
  for (const v of views) pool.free(v);
  // Both workers run at once again: the crashed one was replaced.
  const a = await occupy(pool), b = await occupy(pool);
  a.open(); b.open();
  assert.deepEqual([await a.blocker, await b.blocker], ['gated', 'gated']);
  const other = await Pool.create({ workers: 2 });
  assert.equal(await other.trySubmit((x) => x * 2, [21]), 42);
  await other.shutdown();
  assertInvariant(pool);
});
