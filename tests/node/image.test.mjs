// image.* kernels: one row band per task over RGBA views of pool memory. Banded runs equal one
// whole-image run (neighbourhood reads cross band edges), grayscale works in place, each task
// reports its worker and timing, and bad arguments of each kind are refused with an error that
// names the argument, after which the pool still works.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, image } from 'ringpool';
import { assertInvariant } from './helpers.mjs';

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

test('every kernel gives the same bytes in 9-row bands on 2 workers as in one band', async () => {
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

test('kernels that keep alpha keep it exactly, on a picture whose alpha varies', async () => {
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

test('grayscale in place on a view, and the result is gray with alpha kept', async () => {
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

test('bad image arguments are refused, naming the argument, and the pool keeps working', async () => {
  const { pool, src, dst } = await setup(1);
  const out = dst();
  const cases = [
    [() => image.blur(src, out, W, H, 0, 0, H), RangeError, /radius/],
    [() => image.blur(src, out, W, H, 65, 0, H), RangeError, /radius/],
    [() => image.blur(src, out, W, H, 2.5, 0, H), RangeError, /radius/],
    [() => image.sharpen(src, out, W, H, 2, -1, 0, H), RangeError, /amount/],
    [() => image.sharpen(src, out, W, H, 2, NaN, 0, H), RangeError, /amount/],
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

test('checksum is FNV-1a over the bytes, for pool views and plain arrays alike', async () => {
  const { pool } = await setup(1);
  const bytes = new TextEncoder().encode('foobar');
  assert.equal(image.checksum(bytes), 0xbf9cf968);
  const view = pool.alloc(Uint8Array, bytes.length);
  view.set(bytes);
  assert.equal(image.checksum(view), 0xbf9cf968);
  assert.throws(() => image.checksum([1, 2]), { name: 'TypeError', message: 'bytes must be a Uint8Array or Uint8ClampedArray' });
  await pool.shutdown();
});
