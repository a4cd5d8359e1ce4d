// image.* kernels: one row band per task over RGBA views of pool memory. Banded runs equal one
// whole-image run (neighbourhood reads cross band edges), grayscale works in place, each task
// reports its worker and timing, and bad arguments of each kind are refused with an error that
// names the argument, after which the pool still works.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, image } from 'ringpool';
import { assertInvariant, needsShared, sharedMemory } from './helpers.mjs';

// Pool views exist only with shared memory; the by-value form (dst null) runs in both modes.
const views = needsShared('these image.* calls read and write views of pool memory');

const W = 97, H = 61;

async function setup(workers = 2) {
  const pool = await Pool.create({ workers, queueCapacity: 64 });
  const src = pool.alloc(Uint8Array, W * H * 4);
  image.sample(src, W, H);
  return { pool, src, dst: () => pool.alloc(Uint8Array, W * H * 4) };
}

const kernels = {
  grayscale: (s, d, y0, y1) => image.grayscale(s, d, W, H, y0, y1),
  blur: (s, d, y0, y1) => image.blur(s, d, W, H, 7, y0, y1),
  sharpen: (s, d, y0, y1) => image.sharpen(s, d, W, H, 3, 1.5, y0, y1),
  sobel: (s, d, y0, y1) => image.sobel(s, d, W, H, y0, y1),
  emboss: (s, d, y0, y1) => image.emboss(s, d, W, H, y0, y1),
};

test('every kernel gives the same bytes in 9-row bands on 2 workers as in one band', { skip: views }, async () => {
  const { pool, src, dst } = await setup();
  for (const [name, make] of Object.entries(kernels)) {
    const whole = dst(), banded = dst();
    await pool.trySubmit(make(src, whole, 0, H));
    const tiles = [];
    for (let y = 0; y < H; y += 9) tiles.push(pool.trySubmit(make(src, banded, y, Math.min(H, y + 9))));
    const reports = await Promise.all(tiles);
    assert.equal(image.checksum(banded), image.checksum(whole), name);
    assert.notEqual(image.checksum(whole), image.checksum(src), `${name} changed the image`);
    for (const r of reports) {
      assert.ok(r.worker >= 0 && r.worker < 2, `worker index: ${JSON.stringify(r)}`);
      assert.ok(r.end >= r.start, `the tile ends after it starts: ${JSON.stringify(r)}`);
    }
  }
  assertInvariant(pool);
  await pool.shutdown();
});

test('kernels that keep alpha keep it exactly, on a picture whose alpha varies', { skip: views }, async () => {
  const { pool, src, dst } = await setup();
  for (let i = 0; i < W * H; i++) src[i * 4 + 3] = (i * 37 + (i >> 3)) & 255;
  const keeping = { ...kernels, sharpen: (s, d, y0, y1) => image.sharpen(s, d, W, H, 3, 16, y0, y1) };
  delete keeping.blur; // blur smooths all four channels
  for (const [name, make] of Object.entries(keeping)) {
    const out = dst();
    await Promise.all([0, 30].map((y0) => pool.trySubmit(make(src, out, y0, y0 ? H : 30))));
    const wrong = [];
    for (let i = 3; i < out.length && wrong.length < 3; i += 4) if (out[i] !== src[i]) wrong.push(`pixel ${(i - 3) / 4}: ${out[i]} for ${src[i]}`);
    assert.deepEqual(wrong, [], name);
  }
  await pool.shutdown();
});

test('grayscale in place on a view, and the result is gray with alpha kept', { skip: views }, async () => {
  const { pool, src } = await setup(1);
  const copy = pool.alloc(Uint8Array, W * H * 4);
  copy.set(src);
  await pool.trySubmit(image.grayscale(copy, W, H, 0, H));
  for (let i = 0; i < copy.length; i += 4) {
    assert.ok(copy[i] === copy[i + 1] && copy[i + 1] === copy[i + 2], `pixel ${i / 4}`);
    assert.equal(copy[i + 3], src[i + 3]);
  }
  await pool.shutdown();
});

test('bad image arguments are refused, naming the argument, and the pool keeps working', { skip: views }, async () => {
  const { pool, src, dst } = await setup(1);
  const out = dst();
  const cases = [
    [() => image.blur(src, out, W, H, 0, 0, H), RangeError, /radius/],
    [() => image.blur(src, out, W, H, 65, 0, H), RangeError, /radius/],
    [() => image.blur(src, out, W, H, 2.5, 0, H), RangeError, /^radius must be a non-negative integer, got 2\.5$/],
    [() => image.blur(src, out, 1e21, H, 2, 0, H), RangeError, /^width must be a non-negative integer, got 1e\+21$/],
    [() => image.sharpen(src, out, W, H, 2, -1, 0, H), RangeError, /amount must be a number in 0\.\.=16, got -1$/],
    [() => image.sharpen(src, out, W, H, 2, NaN, 0, H), RangeError, /amount must be a number in 0\.\.=16, got NaN$/],
    [() => image.sharpen(src, out, W, H, 2, 16.5, 0, H), RangeError, /amount must be a number in 0\.\.=16, got 16\.5$/],
    [() => image.sobel(src, out, W + 1, H, 0, H), RangeError, /width \* height \* 4/],
    [() => image.sobel(src, out, 0, H, 0, H), RangeError, /width/],
    [() => image.sobel(src, out, W, H, 5, 5), RangeError, /band/],
    [() => image.sobel(src, out, W, H, 0, H + 1), RangeError, /band/],
    [() => image.sobel(src, out, W, H, -1, 3), RangeError, /y0/],
    [() => image.sobel(src, out, W, '61', 0, H), TypeError, /height/],
    [() => image.sobel(new Uint8Array(W * H * 4), out, W, H, 0, H), TypeError, /src must be a view of pool memory/],
    [() => image.sobel(src, new Float32Array(W * H), W, H, 0, H), TypeError, /dst must be a Uint8Array/],
    [() => image.blur(src, src, W, H, 3, 0, H), RangeError, /must not overlap/],
    [() => image.emboss(src, src.subarray(4), W, H, 0, H), RangeError, /dst/],
  ];
  for (const [make, type, message] of cases) {
    assert.throws(make, (e) => e instanceof type && message.test(e.message), String(make));
  }
  await pool.trySubmit(image.blur(src, out, W, H, 3, 0, H));
  assert.notEqual(image.checksum(out), image.checksum(new Uint8Array(W * H * 4)));
  const s = assertInvariant(pool);
  assert.equal(s.failed, 0);
  await pool.shutdown();
});

// The by-value form: `src` a plain Uint8Array, `dst` null; each task copies only the rows its
// band reads and resolves with the band's new rows as `pixels`.
const byValue = {
  grayscale: (s, y0, y1) => image.grayscale(s, null, W, H, y0, y1),
  blur: (s, y0, y1) => image.blur(s, null, W, H, 7, y0, y1),
  sharpen: (s, y0, y1) => image.sharpen(s, null, W, H, 3, 1.5, y0, y1),
  sobel: (s, y0, y1) => image.sobel(s, null, W, H, y0, y1),
  emboss: (s, y0, y1) => image.emboss(s, null, W, H, y0, y1),
};

test('by value: every kernel gives the same bytes in 9-row bands on 2 workers as in one band, and as on pool views', async () => {
  const pool = await Pool.create({ workers: 2, queueCapacity: 64 });
  const src = new Uint8Array(W * H * 4);
  image.sample(src, W, H);
  for (const [name, make] of Object.entries(byValue)) {
    const whole = await pool.trySubmit(make(src, 0, H));
    assert.ok(whole.pixels instanceof Uint8Array && whole.pixels.length === W * H * 4, name);
    const banded = new Uint8Array(W * H * 4);
    const tiles = [];
    for (let y = 0; y < H; y += 9) tiles.push(pool.trySubmit(make(src, y, Math.min(H, y + 9))).then((r) => { banded.set(r.pixels, y * W * 4); return r; }));
    for (const r of await Promise.all(tiles)) {
      assert.ok(r.worker >= 0 && r.worker < 2, `worker index: ${r.worker}`);
      assert.ok(r.end >= r.start, `the tile ends after it starts: ${r.start} ${r.end}`);
    }
    assert.equal(image.checksum(banded), image.checksum(whole.pixels), name);
    assert.notEqual(image.checksum(whole.pixels), image.checksum(src), `${name} changed the image`);
    if (sharedMemory) {
      // The same bytes as the kernel over pool views.
      const [a, b] = [pool.alloc(Uint8Array, W * H * 4), pool.alloc(Uint8Array, W * H * 4)];
      a.set(src);
      await pool.trySubmit(kernels[name](a, b, 0, H));
      assert.equal(image.checksum(b), image.checksum(whole.pixels), `${name}: views and by value`);
    }
  }
  assertInvariant(pool);
  await pool.shutdown();
});

test('by value: bad arguments are refused, naming the argument, and the pool keeps working', async () => {
  const pool = await Pool.create({ workers: 1 });
  const src = new Uint8Array(W * H * 4);
  image.sample(src, W, H);
  const cases = [
    [() => image.blur([1, 2, 3], null, W, H, 3, 0, H), TypeError, /^src must be a Uint8Array or Uint8ClampedArray/],
    [() => image.blur(src, null, W, H, 0, 0, H), RangeError, /radius/],
    [() => image.sobel(src, null, W + 1, H, 0, H), RangeError, /^src: .*width \* height \* 4/],
    [() => image.sobel(src, null, W, H, 5, 5), RangeError, /band/],
    [() => image.sobel(src, undefined, W, '61', 0, H), TypeError, /height/],
    [() => image.sample(new Uint8Array(8), W, H), RangeError, /width \* height \* 4/],
  ];
  for (const [make, type, message] of cases) assert.throws(make, (e) => e instanceof type && message.test(e.message), String(make));
  const { pixels } = await pool.trySubmit(image.emboss(src, null, W, H, 10, 20));
  assert.equal(pixels.length, W * 10 * 4);
  assert.equal(assertInvariant(pool).failed, 0);
  await pool.shutdown();
});

test('checksum is FNV-1a over the bytes of plain arrays', () => {
  assert.equal(image.checksum(new TextEncoder().encode('foobar')), 0xbf9cf968);
  assert.throws(() => image.checksum([1, 2]), { name: 'TypeError', message: 'bytes must be a Uint8Array or Uint8ClampedArray' });
});

test('checksum is FNV-1a over the bytes, for pool views and plain arrays alike', { skip: views }, async () => {
  const { pool } = await setup(1);
  const bytes = new TextEncoder().encode('foobar');
  assert.equal(image.checksum(bytes), 0xbf9cf968);
  const view = pool.alloc(Uint8Array, bytes.length);
  view.set(bytes);
  assert.equal(image.checksum(view), 0xbf9cf968);
  assert.throws(() => image.checksum([1, 2]), { name: 'TypeError', message: 'bytes must be a Uint8Array or Uint8ClampedArray' });
  await pool.shutdown();
});
