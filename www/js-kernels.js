// The "plain JavaScript" mode: a straightforward JS version of each Rust kernel in
// crates/ringpool-image (same algorithms, JS numbers instead of f32, no SIMD), as one self-contained
// function so that it can run as a ringpool JS task (sent as source, compiled in the worker).
// It fills rows [y0, y1) of `dst` from `src`, both RGBA Uint8Arrays of width * height * 4.
export function jsFilter(name, params, src, dst, width, height, y0, y1) {
  const stride = width * 4;
  const clampRow = (y) => (y < 0 ? 0 : y >= height ? height - 1 : y);
  const clampX = (x) => (x < 0 ? 0 : x >= width ? width - 1 : x);
  const luma = (i) => (77 * src[i] + 150 * src[i + 1] + 29 * src[i + 2] + 128) >> 8;
  const toByte = (v) => { const t = Math.trunc(v + 0.5); return t < 0 ? 0 : t > 255 ? 255 : t; };

  function weights(radius) {
    const sigma = Math.max(radius / 2, 0.5);
    const w = [];
    let sum = 0;
    for (let i = -radius; i <= radius; i++) { const v = Math.exp(-(i * i) / (2 * sigma * sigma)); w.push(v); sum += v; }
    return w.map((v) => v / sum);
  }

  // Vertical pass of one output row into `acc`, then horizontal with clamped borders.
  function blurRow(y, w, radius, acc, out) {
    acc.fill(0);
    for (let k = 0; k < w.length; k++) {
      const row = clampRow(y + k - radius) * stride;
      const wk = w[k];
      for (let j = 0; j < stride; j++) acc[j] += wk * src[row + j];
    }
    for (let x = 0; x < width; x++) {
      for (let c = 0; c < 4; c++) {
        let s = 0;
        for (let k = 0; k < w.length; k++) s += w[k] * acc[clampX(x + k - radius) * 4 + c];
        out[x * 4 + c] = s;
      }
    }
  }

  if (name === 'grayscale') {
    for (let i = y0 * stride; i < y1 * stride; i += 4) {
      const l = luma(i);
      dst[i] = dst[i + 1] = dst[i + 2] = l; dst[i + 3] = src[i + 3];
    }
  } else if (name === 'blur' || name === 'sharpen') {
    const radius = params.radius, amount = params.amount ?? 1, w = weights(radius);
    const acc = new Float64Array(stride), out = new Float64Array(stride);
    for (let y = y0; y < y1; y++) {
      blurRow(y, w, radius, acc, out);
      const base = y * stride;
      for (let j = 0; j < stride; j++) {
        if (name === 'blur') dst[base + j] = toByte(out[j]);
        else dst[base + j] = j % 4 === 3 ? src[base + j] : toByte(src[base + j] + amount * (src[base + j] - out[j]));
      }
    }
  } else if (name === 'sobel') {
    for (let y = y0; y < y1; y++) {
      const up = clampRow(y - 1) * stride, mid = y * stride, down = clampRow(y + 1) * stride;
      for (let x = 0; x < width; x++) {
        const l = clampX(x - 1) * 4, r = clampX(x + 1) * 4, c = x * 4;
        const gx = (luma(up + r) + 2 * luma(mid + r) + luma(down + r)) - (luma(up + l) + 2 * luma(mid + l) + luma(down + l));
        const gy = (luma(down + l) + 2 * luma(down + c) + luma(down + r)) - (luma(up + l) + 2 * luma(up + c) + luma(up + r));
        const v = toByte(Math.min(255, Math.sqrt(gx * gx + gy * gy)));
        dst[mid + c] = dst[mid + c + 1] = dst[mid + c + 2] = v; dst[mid + c + 3] = src[mid + c + 3];
      }
    }
  } else if (name === 'emboss') {
    const K = [[-2, -1, 0], [-1, 1, 1], [0, 1, 2]];
    for (let y = y0; y < y1; y++) {
      const rows = [clampRow(y - 1) * stride, y * stride, clampRow(y + 1) * stride];
      for (let x = 0; x < width; x++) {
        const xs = [clampX(x - 1) * 4, x * 4, clampX(x + 1) * 4];
        for (let c = 0; c < 3; c++) {
          let s = 0;
          for (let ky = 0; ky < 3; ky++) for (let kx = 0; kx < 3; kx++) s += K[ky][kx] * src[rows[ky] + xs[kx] + c];
          dst[y * stride + x * 4 + c] = s < 0 ? 0 : s > 255 ? 255 : s;
        }
        dst[y * stride + x * 4 + 3] = src[y * stride + x * 4 + 3];
      }
    }
  } else {
    throw new RangeError(`unknown filter ${name}`);
  }
}
