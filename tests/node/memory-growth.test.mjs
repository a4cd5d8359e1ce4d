// A thread first touches memory that another thread has just grown. V8 updates a thread's idea
// of a shared memory's size lazily: until it catches up, its wasm atomics on the new pages trap
// ("memory access out of bounds") and its `memory.buffer` is the old, shorter buffer. Each task
// below lives in pages the main thread has just added, so a worker that touched it before
// catching up would crash before recording it as running and lose it: the test then hangs
// until its timeout (before src/web/growth.rs, 4 runs in 8). Results that a worker allocates
// in new pages cross back the other way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, image, memoryBytes } from 'ringpool';
import { assertInvariant, needsShared } from './helpers.mjs';

const ROUNDS = 120;
// Each round keeps buffers of this size until the memory has grown.
const GROW = 192 * 1024;

/** Takes every free block the allocator has for small sizes, so what is allocated next comes
 *  from the top of the heap: pages added by the next growth. */
function drainSmallBlocks(pool, kept) {
  for (let size = 8; size <= 512; size += 8) for (let i = 0; i < 2; i++) kept.push(pool.alloc(Uint8Array, size));
}

test('Rust tasks submitted into freshly grown memory all run on the workers', { skip: needsShared('the workers run in the memory the owner grows') }, async () => {
  const pool = await Pool.create({ workers: 2, queueCapacity: 64 });
  const kept = [];
  const start = memoryBytes();
  const W = 16, H = 16;
  const other = pool.alloc(Uint8Array, W * H * 4);
  for (let round = 0; round < 2 * ROUNDS; round++) {
    drainSmallBlocks(pool, kept);
    // One worker takes this task; the other, idle, polls the queue for the next one.
    const first = pool.trySubmit(image.grayscale(other, W, H, 0, H));
    // Until the memory grows (earlier tests may have left free blocks to use up first).
    for (const before = memoryBytes(); memoryBytes() === before;) kept.push(pool.alloc(Uint8Array, GROW));
    const img = pool.alloc(Uint8Array, W * H * 4);
    image.sample(img, W, H);
    // In the new pages, as is the task (no free block is left to reuse): the polling worker
    // takes it at once, possibly before its thread has noticed the growth.
    const reports = await Promise.all([first, pool.trySubmit(image.grayscale(img, W, H, 0, H))]);
    for (const r of reports) assert.ok(r.worker === 0 || r.worker === 1, JSON.stringify(r));
    for (let i = 0; i < img.length; i += 4) assert.ok(img[i] === img[i + 1] && img[i] === img[i + 2], `round ${round}, pixel ${i / 4}`);
  }
  assert.ok(memoryBytes() >= start + 2 * ROUNDS * 65536, 'the memory grew every round');
  const s = assertInvariant(pool);
  assert.equal(s.crashed, 0, JSON.stringify(s));
  assert.equal(s.completed, 4 * ROUNDS, JSON.stringify(s));
  await pool.shutdown();
});

test('JS tasks see views of freshly grown memory, and return results the workers allocated', { skip: needsShared('the workers run in the memory the owner grows') }, async () => {
  const pool = await Pool.create({ workers: 2, queueCapacity: 64 });
  const kept = [];
  for (let round = 0; round < ROUNDS; round++) {
    // The argument: a view at the top of memory the main thread has just grown.
    const v = pool.alloc(Int32Array, GROW / 4);
    v.fill(round);
    kept.push(v);
    // The result: a typed array the worker copies into pages it may have to add itself.
    const [last, back] = await Promise.all([
      pool.trySubmit((a) => a[a.length - 1] + a.length, [v]),
      pool.trySubmit((n, r) => new Int32Array(n).fill(r), [GROW / 4, round]),
    ]);
    assert.equal(last, round + GROW / 4, `round ${round}`);
    assert.ok(back instanceof Int32Array && back.length === GROW / 4, `round ${round}`);
    assert.equal(back[0], round);
    assert.equal(back[back.length - 1], round);
  }
  const s = assertInvariant(pool);
  assert.equal(s.crashed, 0, JSON.stringify(s));
  assert.equal(s.failed, 0, JSON.stringify(s));
  await pool.shutdown();
});
