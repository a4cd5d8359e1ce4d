//! # ringpool-image
//!
//! Image kernels built on ringpool: the demo's filters and the npm package's `image.*` tasks.
//! This crate uses only ringpool's public API, the same path a crate of your own takes
//! (`examples/app` in the repository): the kernels here are plain Rust, and its `web` module (wasm32) makes each
//! one a `ringpool::web::Task` over views of pool memory.
//!
//! Images are RGBA8, row-major, `width * 4` bytes per row, no padding. Every kernel computes one
//! **row band** `[y0, y1)` of the output from the whole source, so bands can run on different
//! workers at once: neighbourhood kernels read rows outside their band (borders are clamped to
//! the nearest edge pixel) but write only inside it. Pointwise kernels ([`Filter::Grayscale`])
//! may also run in place.
//!
//! Every kernel has a `simd128` path (`mod simd`) that covers the body of each row; edges and
//! remainders go through the scalar code. Both perform the same IEEE
//! operations in the same order (no fused multiply-add, weights from [`gaussian_weights`]
//! without `libm`; Sobel and emboss are integer sums until one exact conversion), so every
//! platform produces the same bytes: the demo compares checksums of ringpool, single-threaded
//! wasm, wasm-bindgen-rayon and a native build. `npm run bench:simd` measures what SIMD gives.

#![warn(missing_docs)]

use std::fmt;

#[cfg(target_arch = "wasm32")]
pub mod web;

/// The README's Rust example, run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// Largest blur/sharpen radius.
pub const MAX_RADIUS: u32 = 64;
/// Largest width or height (8K is 7680 × 4320).
pub const MAX_SIDE: u32 = 16384;
/// Largest sharpen amount.
pub const MAX_AMOUNT: f32 = 16.0;

/// A kernel and its parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Filter {
    /// Rec. 601 luma in 8.8 fixed point; alpha kept.
    Grayscale,
    /// Separable Gaussian, σ = radius / 2, all four channels.
    Blur {
        /// 1..=64 pixels.
        radius: u32,
    },
    /// Unsharp mask: `src + amount · (src − blur(src))`; alpha kept.
    Sharpen {
        /// Of the blur, 1..=64 pixels.
        radius: u32,
        /// 0..=16.
        amount: f32,
    },
    /// Sobel gradient magnitude of the luma, as gray; alpha kept.
    Sobel,
    /// 3 × 3 emboss (`[-2 -1 0; -1 1 1; 0 1 2]`) per colour channel; alpha kept.
    Emboss,
}

impl Filter {
    /// Whether output pixels depend only on the same input pixel (then `src` may be `dst`).
    pub fn is_pointwise(self) -> bool {
        matches!(self, Filter::Grayscale)
    }

    /// How many rows above and below its band a kernel reads (borders clamp to the image's
    /// edge): a band computed from those rows alone equals the band computed from the whole
    /// image, which is how `image.*` sends only a strip of a plain array to a worker.
    pub fn reach(self) -> u32 {
        match self {
            Filter::Grayscale => 0,
            Filter::Blur { radius } | Filter::Sharpen { radius, .. } => radius,
            Filter::Sobel | Filter::Emboss => 1,
        }
    }

    /// Its name, as `image.*` calls it.
    pub fn name(self) -> &'static str {
        match self {
            Filter::Grayscale => "grayscale",
            Filter::Blur { .. } => "blur",
            Filter::Sharpen { .. } => "sharpen",
            Filter::Sobel => "sobel",
            Filter::Emboss => "emboss",
        }
    }

    /// Checks the parameters.
    pub fn validate(self) -> Result<(), ImageError> {
        match self {
            Filter::Blur { radius } | Filter::Sharpen { radius, .. } if !(1..=MAX_RADIUS).contains(&radius) => {
                Err(ImageError(format!("radius must be an integer in 1..={MAX_RADIUS}, got {radius}")))
            }
            Filter::Sharpen { amount, .. } if !(0.0..=MAX_AMOUNT).contains(&amount) => {
                Err(ImageError(format!("amount must be a number in 0..={}, got {}", MAX_AMOUNT as u32, number_text(amount))))
            }
            _ => Ok(()),
        }
    }
}

/// `x` for a message, to three decimals, without Rust's float formatting: in a wasm module
/// that formats no other float it would weigh ~8 KB gzipped (bench/README.md, "What a page
/// downloads").
fn number_text(x: f32) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    let sign = if x < 0.0 { "-" } else { "" };
    if x.is_infinite() {
        return format!("{sign}Infinity");
    }
    let milli = (f64::from(x.abs()) * 1000.0).round();
    if milli >= 1e18 {
        return format!("{sign}about 1e{}", x.abs().log10().floor() as i32);
    }
    let milli = milli as u64;
    let (int, frac) = (milli / 1000, milli % 1000);
    if frac == 0 {
        return format!("{sign}{int}");
    }
    let frac = format!("{frac:03}");
    format!("{sign}{int}.{}", frac.trim_end_matches('0'))
}

/// Bad sizes, bands or parameters (a `RangeError` in JS). The message names the argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageError(pub String);

impl fmt::Display for ImageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ImageError {}

/// Checks `width`, `height`, the band and an image buffer length; returns the row stride.
pub fn check_geometry(width: u32, height: u32, y0: u32, y1: u32, len: usize) -> Result<usize, ImageError> {
    if !(1..=MAX_SIDE).contains(&width) {
        return Err(ImageError(format!("width must be an integer in 1..={MAX_SIDE}, got {width}")));
    }
    if !(1..=MAX_SIDE).contains(&height) {
        return Err(ImageError(format!("height must be an integer in 1..={MAX_SIDE}, got {height}")));
    }
    if y0 >= y1 || y1 > height {
        return Err(ImageError(format!("the band [y0, y1) must satisfy 0 <= y0 < y1 <= height ({height}), got [{y0}, {y1})")));
    }
    let stride = width as usize * 4;
    let need = stride * height as usize;
    if len != need {
        return Err(ImageError(format!("the image must hold width * height * 4 = {need} bytes, got {len}")));
    }
    Ok(stride)
}

/// Computes rows `[y0, y1)` of `filter(src)` into `band` (exactly those rows).
pub fn apply(filter: Filter, src: &[u8], band: &mut [u8], width: u32, height: u32, y0: u32, y1: u32) -> Result<(), ImageError> {
    filter.validate()?;
    let stride = check_geometry(width, height, y0, y1, src.len())?;
    if band.len() != stride * (y1 - y0) as usize {
        return Err(ImageError(format!(
            "the output band must hold (y1 - y0) * width * 4 = {} bytes, got {}",
            stride * (y1 - y0) as usize,
            band.len()
        )));
    }
    let img = Img { src, width: width as usize, height: height as usize, stride };
    let (y0, y1) = (y0 as usize, y1 as usize);
    match filter {
        Filter::Grayscale => {
            band.copy_from_slice(&src[y0 * stride..y1 * stride]);
            grayscale_in_place(band);
        }
        Filter::Blur { radius } => blur(&img, band, y0, y1, radius as usize, None),
        Filter::Sharpen { radius, amount } => blur(&img, band, y0, y1, radius as usize, Some(amount)),
        Filter::Sobel => sobel(&img, band, y0, y1),
        Filter::Emboss => emboss(&img, band, y0, y1),
    }
    Ok(())
}

/// Runs a pointwise `filter` over rows `[y0, y1)` of `image` in place.
pub fn apply_in_place(filter: Filter, image: &mut [u8], width: u32, height: u32, y0: u32, y1: u32) -> Result<(), ImageError> {
    if !filter.is_pointwise() {
        return Err(ImageError(format!("{} reads neighbouring rows: give it a separate dst (src and dst must not overlap)", filter.name())));
    }
    let stride = check_geometry(width, height, y0, y1, image.len())?;
    grayscale_in_place(&mut image[y0 as usize * stride..y1 as usize * stride]);
    Ok(())
}

/// FNV-1a, 32 bit: the demo's checksum of output bytes.
pub fn fnv1a(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for &b in bytes {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// The demo's built-in sample: smooth gradients, rings, hard-edged shapes and fine noise, so
/// that every filter has something to show. Deterministic (integer arithmetic only).
pub fn sample(width: u32, height: u32) -> Vec<u8> {
    let (w, h) = (width as i64, height as i64);
    let mut out = Vec::with_capacity((w * h * 4) as usize);
    let (cx, cy) = (w / 2, h / 2);
    let scale = w.max(h).max(1);
    for y in 0..h {
        for x in 0..w {
            let (dx, dy) = (x - cx, y - cy);
            let d2 = (dx * dx + dy * dy) * 4096 / (scale * scale);
            let ring = if (d2 / 64) % 2 == 0 { 40 } else { 0 };
            let noise = (hash((x as u32).wrapping_mul(73_856_093) ^ (y as u32).wrapping_mul(19_349_663)) & 31) as i64;
            let square = (x * 8 / w.max(1)) % 2 == (y * 8 / h.max(1)) % 2;
            let disk = d2 < 400;
            let r = x * 200 / w.max(1) + ring + noise;
            let g = y * 200 / h.max(1) + if square { 50 } else { 0 };
            let b = if disk { 240 } else { 255 - (x + y) * 120 / (w + h).max(1) } - noise / 2;
            out.extend_from_slice(&[r.clamp(0, 255) as u8, g.clamp(0, 255) as u8, b.clamp(0, 255) as u8, 255]);
        }
    }
    out
}

fn hash(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^ (x >> 16)
}

/// Normalised Gaussian weights for `radius` (σ = radius / 2), `2·radius + 1` of them. Uses
/// only `+ − × ÷` so every platform computes the same bits (`f64::exp` comes from different
/// libms natively and on wasm).
pub fn gaussian_weights(radius: usize) -> Vec<f32> {
    let sigma = (radius as f64 / 2.0).max(0.5);
    let raw: Vec<f64> = (0..=2 * radius)
        .map(|i| {
            let d = i as f64 - radius as f64;
            exp_neg(d * d / (2.0 * sigma * sigma))
        })
        .collect();
    let sum: f64 = raw.iter().sum();
    raw.iter().map(|w| (w / sum) as f32).collect()
}

/// `e^-x` for `x >= 0` by argument halving, a Taylor series and repeated squaring.
fn exp_neg(x: f64) -> f64 {
    let y = -x / 1024.0;
    let (mut term, mut sum) = (1.0f64, 1.0f64);
    for n in 1..16 {
        term *= y / n as f64;
        sum += term;
    }
    for _ in 0..10 {
        sum *= sum;
    }
    sum
}

struct Img<'a> {
    src: &'a [u8],
    width: usize,
    height: usize,
    stride: usize,
}

impl<'a> Img<'a> {
    fn row(&self, y: isize) -> &'a [u8] {
        let y = y.clamp(0, self.height as isize - 1) as usize;
        &self.src[y * self.stride..(y + 1) * self.stride]
    }
}

fn luma(r: u8, g: u8, b: u8) -> u32 {
    (77 * r as u32 + 150 * g as u32 + 29 * b as u32 + 128) >> 8
}

fn grayscale_in_place(px: &mut [u8]) {
    let done = simd::grayscale(px);
    for p in px[done..].chunks_exact_mut(4) {
        let l = luma(p[0], p[1], p[2]) as u8;
        p[0] = l;
        p[1] = l;
        p[2] = l;
    }
}

/// `(v + 0.5)` truncated, clamped to 0..=255: what the SIMD path's saturating conversions do.
#[inline]
fn to_u8(v: f32) -> u8 {
    ((v + 0.5) as i32).clamp(0, 255) as u8
}

/// Gaussian blur (or, with `sharpen = Some(amount)`, unsharp mask) of rows `[y0, y1)`. Per
/// output row: a vertical pass over `2r + 1` source rows into `acc`, edge-padded into `padded`,
/// then a horizontal pass; no intermediate image, so bands need no halo exchange.
fn blur(img: &Img<'_>, band: &mut [u8], y0: usize, y1: usize, radius: usize, sharpen: Option<f32>) {
    let w = gaussian_weights(radius);
    let (mut acc, mut padded) = (AlignedF32::zeroed(img.stride), AlignedF32::zeroed((img.width + 2 * radius) * 4));
    let mut scratch = Scratch { acc: acc.as_mut(), padded: padded.as_mut(), rows: Vec::with_capacity(w.len()) };
    for y in y0..y1 {
        let out = &mut band[(y - y0) * img.stride..(y - y0 + 1) * img.stride];
        blur_row(img, &w, radius, sharpen, y, &mut scratch, out);
    }
}

/// A zeroed `f32` buffer whose first element sits on a 64-byte boundary. The allocator only
/// promises 8-byte alignment on wasm32, and where a scratch row happens to start decides
/// whether the SIMD loads of every tap straddle cache lines: measured, a few percent of the
/// blur's time, differing from run to run and from thread to thread.
struct AlignedF32 {
    buf: Vec<f32>,
    start: usize,
    len: usize,
}

impl AlignedF32 {
    fn zeroed(len: usize) -> Self {
        let buf = vec![0f32; len + 16];
        let start = buf.as_ptr().align_offset(64).min(16);
        AlignedF32 { buf, start, len }
    }

    fn as_mut(&mut self) -> &mut [f32] {
        &mut self.buf[self.start..self.start + self.len]
    }
}

struct Scratch<'a, 'b> {
    acc: &'b mut [f32],
    padded: &'b mut [f32],
    rows: Vec<&'a [u8]>,
}

/// One output row. Not inlined: wasm engines tier a function up between calls, not during
/// one, so a single call over a whole image would otherwise run in baseline code throughout.
#[inline(never)]
fn blur_row<'a>(img: &Img<'a>, w: &[f32], radius: usize, sharpen: Option<f32>, y: usize, s: &mut Scratch<'a, '_>, out: &mut [u8]) {
    let n = img.stride;
    s.rows.clear();
    s.rows.extend((0..w.len()).map(|k| img.row(y as isize + k as isize - radius as isize)));
    vertical(&s.rows, w, s.acc);
    let (acc, padded) = (&mut *s.acc, &mut *s.padded);
    for i in 0..radius {
        padded[i * 4..i * 4 + 4].copy_from_slice(&acc[..4]);
        let r = (radius + img.width + i) * 4;
        padded[r..r + 4].copy_from_slice(&acc[n - 4..]);
    }
    padded[radius * 4..radius * 4 + n].copy_from_slice(acc);
    match sharpen {
        None => horizontal(padded, w, out),
        Some(amount) => {
            horizontal_into(padded, w, acc);
            unsharp(img.row(y as isize), acc, amount, out);
        }
    }
}

/// `out = to_u8(o + amount · (o − blurred))` per colour channel of `orig`; alpha kept.
fn unsharp(orig: &[u8], blurred: &[f32], amount: f32, out: &mut [u8]) {
    let done = simd::unsharp(orig, blurred, amount, out);
    for i in done..out.len() {
        let o = orig[i] as f32;
        out[i] = if i % 4 == 3 { orig[i] } else { to_u8(o + amount * (o - blurred[i])) };
    }
}

/// `acc[j] = Σ_k w[k] · rows[k][j]`, summed in order of `k`.
fn vertical(rows: &[&[u8]], w: &[f32], acc: &mut [f32]) {
    let n = acc.len();
    let done = simd::vertical(rows, w, acc);
    for (j, a) in acc.iter_mut().enumerate().take(n).skip(done) {
        let mut s = 0f32;
        for (k, row) in rows.iter().enumerate() {
            s += w[k] * row[j] as f32;
        }
        *a = s;
    }
}

/// `out[x·4 + c] = to_u8(Σ_k w[k] · padded[(x + k)·4 + c])`.
fn horizontal(padded: &[f32], w: &[f32], out: &mut [u8]) {
    let done = simd::horizontal(padded, w, out);
    for x in done..out.len() / 4 {
        for c in 0..4 {
            out[x * 4 + c] = to_u8(hsum(padded, w, x, c));
        }
    }
}

/// The horizontal pass without rounding (sharpen needs the blurred value).
fn horizontal_into(padded: &[f32], w: &[f32], out: &mut [f32]) {
    let done = simd::horizontal_f32(padded, w, out);
    for x in done..out.len() / 4 {
        for c in 0..4 {
            out[x * 4 + c] = hsum(padded, w, x, c);
        }
    }
}

#[inline]
fn hsum(padded: &[f32], w: &[f32], x: usize, c: usize) -> f32 {
    let mut s = 0f32;
    for (k, wk) in w.iter().enumerate() {
        s += wk * padded[(x + k) * 4 + c];
    }
    s
}

fn sobel(img: &Img<'_>, band: &mut [u8], y0: usize, y1: usize) {
    // Three luma rows, rotated as the band moves down: each source row's luma is made once.
    let mut rows = [-1isize, 0, 1].map(|dy| {
        let mut l = vec![0i32; img.width];
        luma_row(img.row(y0 as isize + dy), &mut l);
        l
    });
    for y in y0..y1 {
        let out = &mut band[(y - y0) * img.stride..(y - y0 + 1) * img.stride];
        sobel_row(&rows[0], &rows[1], &rows[2], img.row(y as isize), out);
        if y + 1 < y1 {
            rows.rotate_left(1);
            luma_row(img.row(y as isize + 2), &mut rows[2]);
        }
    }
}

/// The luma of each pixel of an RGBA row.
fn luma_row(px: &[u8], out: &mut [i32]) {
    let done = simd::luma(px, out);
    for (o, p) in out[done..].iter_mut().zip(px[done * 4..].chunks_exact(4)) {
        *o = luma(p[0], p[1], p[2]) as i32;
    }
}

/// One row of Sobel from three luma rows (not inlined, see [`blur_row`]); SIMD for the
/// pixels whose neighbours are inside the row, as in [`emboss_row`].
#[inline(never)]
fn sobel_row(up: &[i32], mid: &[i32], down: &[i32], alpha: &[u8], out: &mut [u8]) {
    let wd = mid.len();
    let first = if wd > 2 { 1 } else { wd };
    let done = first + simd::sobel([up, mid, down], alpha, first, out);
    for x in (0..first).chain(done..wd) {
        let (l, r) = (x.saturating_sub(1), (x + 1).min(wd - 1));
        let gx = (up[r] + 2 * mid[r] + down[r]) - (up[l] + 2 * mid[l] + down[l]);
        let gy = (down[l] + 2 * down[x] + down[r]) - (up[l] + 2 * up[x] + up[r]);
        let m = (((gx * gx + gy * gy) as f32).sqrt()).min(255.0);
        let v = to_u8(m);
        out[x * 4..x * 4 + 4].copy_from_slice(&[v, v, v, alpha[x * 4 + 3]]);
    }
}

fn emboss(img: &Img<'_>, band: &mut [u8], y0: usize, y1: usize) {
    for y in y0..y1 {
        let rows = [img.row(y as isize - 1), img.row(y as isize), img.row(y as isize + 1)];
        let out = &mut band[(y - y0) * img.stride..(y - y0 + 1) * img.stride];
        emboss_row(rows, img.width, out);
    }
}

/// The emboss kernel, `K[ky][kx]` weighs the pixel at `(x + kx − 1, y + ky − 1)`.
const EMBOSS: [[i32; 3]; 3] = [[-2, -1, 0], [-1, 1, 1], [0, 1, 2]];

/// One row of emboss (not inlined, see [`blur_row`]). The SIMD path takes the pixels whose
/// neighbours are all inside the row; the edges (clamped) and the rest are scalar.
#[inline(never)]
fn emboss_row(rows: [&[u8]; 3], wd: usize, out: &mut [u8]) {
    let first = if wd > 2 { 1 } else { wd };
    let done = first + simd::emboss(rows, first, wd, out);
    for x in (0..first).chain(done..wd) {
        let xs = [x.saturating_sub(1), x, (x + 1).min(wd - 1)];
        for c in 0..3 {
            let mut s = 0i32;
            for (ky, row) in rows.iter().enumerate() {
                for (kx, &xx) in xs.iter().enumerate() {
                    s += EMBOSS[ky][kx] * row[xx * 4 + c] as i32;
                }
            }
            out[x * 4 + c] = s.clamp(0, 255) as u8;
        }
        out[x * 4 + 3] = rows[1][x * 4 + 3];
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[path = "simd128.rs"]
mod simd;
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
#[path = "no_simd.rs"]
mod simd;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_amount_out_of_range_is_named_with_its_value() {
        for (amount, got) in [(-1.0, "-1"), (16.5, "16.5"), (20.125, "20.125"), (-0.25, "-0.25"), (1e30, "about 1e30"), (f32::NAN, "NaN"), (f32::INFINITY, "Infinity"), (f32::NEG_INFINITY, "-Infinity")] {
            let e = Filter::Sharpen { radius: 1, amount }.validate().unwrap_err();
            assert_eq!(e.0, format!("amount must be a number in 0..=16, got {got}"));
        }
        assert!(Filter::Sharpen { radius: 1, amount: 16.0 }.validate().is_ok());
        let e = apply_in_place(Filter::Sharpen { radius: 1, amount: 1.0 }, &mut [0; 4], 1, 1, 0, 1).unwrap_err();
        assert!(e.0.starts_with("sharpen reads neighbouring rows"), "{}", e.0);
    }

    fn run(filter: Filter, src: &[u8], w: u32, h: u32, bands: u32) -> Vec<u8> {
        let stride = w as usize * 4;
        let mut out = vec![0u8; src.len()];
        let step = h.div_ceil(bands);
        for (i, band) in out.chunks_mut(stride * step as usize).enumerate() {
            let y0 = i as u32 * step;
            apply(filter, src, band, w, h, y0, (y0 + step).min(h)).unwrap();
        }
        out
    }

    const ALL: [Filter; 5] = [
        Filter::Grayscale,
        Filter::Blur { radius: 3 },
        Filter::Sharpen { radius: 2, amount: 1.5 },
        Filter::Sobel,
        Filter::Emboss,
    ];

    #[test]
    fn bands_do_not_change_the_result() {
        let (w, h) = (37, 29);
        let src = sample(w, h);
        for f in ALL {
            assert_eq!(run(f, &src, w, h, 1), run(f, &src, w, h, 7), "{f:?}");
        }
    }

    #[test]
    fn weights_are_normalised_and_symmetric() {
        for r in [1, 8, 64] {
            let w = gaussian_weights(r);
            assert_eq!(w.len(), 2 * r + 1);
            assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-5);
            assert_eq!(w[0], w[2 * r]);
            assert!(w[r] > w[0]);
        }
        assert!((exp_neg(1.0) - (-1f64).exp()).abs() < 1e-12);
    }

    #[test]
    fn flat_image_stays_flat_and_edges_are_found() {
        let (w, h) = (16, 8);
        let flat: Vec<u8> = [90, 120, 200, 255].repeat(16 * 8);
        for f in [Filter::Blur { radius: 5 }, Filter::Sharpen { radius: 3, amount: 2.0 }] {
            assert_eq!(run(f, &flat, w, h, 3), flat, "{f:?}");
        }
        assert!(run(Filter::Sobel, &flat, w, h, 2).chunks(4).all(|p| p[..3] == [0, 0, 0]));
        // A vertical edge: Sobel is strong on it, zero far from it.
        let edge: Vec<u8> = (0..w * h).flat_map(|i| if i % w < 8 { [0, 0, 0, 255] } else { [255, 255, 255, 255] }).collect();
        let s = run(Filter::Sobel, &edge, w, h, 1);
        assert_eq!(s[(3 * w as usize + 8) * 4], 255);
        assert_eq!(s[(3 * w as usize + 2) * 4], 0);
    }

    #[test]
    fn grayscale_in_place_matches_the_copying_version() {
        let (w, h) = (9, 5);
        let src = sample(w, h);
        let mut img = src.clone();
        apply_in_place(Filter::Grayscale, &mut img, w, h, 0, h).unwrap();
        assert_eq!(img, run(Filter::Grayscale, &src, w, h, 2));
        assert!(img.chunks(4).all(|p| p[0] == p[1] && p[1] == p[2]));
        assert!(apply_in_place(Filter::Sobel, &mut img, w, h, 0, h).is_err());
    }

    #[test]
    fn bad_input_is_refused_with_the_argument_named() {
        let src = sample(4, 4);
        let mut band = vec![0u8; 16];
        let err = |f, w, h, y0, y1, band: &mut [u8]| apply(f, &src, band, w, h, y0, y1).unwrap_err().0;
        assert!(err(Filter::Blur { radius: 0 }, 4, 4, 0, 1, &mut band).contains("radius"));
        assert!(err(Filter::Blur { radius: 65 }, 4, 4, 0, 1, &mut band).contains("radius"));
        assert!(err(Filter::Sharpen { radius: 1, amount: f32::NAN }, 4, 4, 0, 1, &mut band).contains("amount"));
        assert!(err(Filter::Sobel, 0, 4, 0, 1, &mut band).contains("width"));
        assert!(err(Filter::Sobel, 4, 5, 0, 1, &mut band).contains("width * height * 4"));
        assert!(err(Filter::Sobel, 4, 4, 2, 2, &mut band).contains("band"));
        assert!(err(Filter::Sobel, 4, 4, 3, 5, &mut band).contains("band"));
        assert!(err(Filter::Sobel, 4, 4, 0, 2, &mut band).contains("output band"));
    }

    #[test]
    fn fnv1a_known_values() {
        assert_eq!(fnv1a(b""), 0x811c_9dc5);
        assert_eq!(fnv1a(b"a"), 0xe40c_292c);
        assert_eq!(fnv1a(b"foobar"), 0xbf9c_f968);
    }
}
