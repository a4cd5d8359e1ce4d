//! The image kernels against a reference written here from their documented definitions, not
//! from the crate's code: f64 arithmetic and `f64::exp` Gaussians where the crate uses f32 and
//! its own `exp`, plain loops where it has SIMD and band-by-band scratch rows. At the edges
//! the demo's own checks do not reach: widths 1–17 (every SIMD remainder), images smaller than
//! the radius, radius 64, amount 16, and bands that split the picture.
//!
//! Integer kernels (grayscale, emboss) must match exactly; float ones (blur, sharpen, Sobel)
//! within 1 per channel, since f32 and f64 sums can fall on either side of a rounding edge.
//!
//! Natively this checks the scalar paths; the same file runs as a wasm-bindgen test in
//! Chromium (scripts/test.sh, section browser), where the `simd128` paths run.


use ringpool_image::{apply, Filter};

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

/// Deterministic noise with hard edges: the worst case for rounding and edge handling.
fn noise(width: usize, height: usize, seed: u32) -> Vec<u8> {
    let mut x = seed.wrapping_mul(2_654_435_761).max(1);
    (0..width * height * 4)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 24) as u8
        })
        .collect()
}

fn px(img: &[u8], w: usize, h: usize, x: isize, y: isize, c: usize) -> f64 {
    let x = x.clamp(0, w as isize - 1) as usize;
    let y = y.clamp(0, h as isize - 1) as usize;
    img[(y * w + x) * 4 + c] as f64
}

fn round_u8(v: f64) -> u8 {
    (v + 0.5).floor().clamp(0.0, 255.0) as u8
}

/// Separable Gaussian, σ = radius / 2, edges clamped, unrounded.
fn gaussian(img: &[u8], w: usize, h: usize, radius: usize) -> Vec<f64> {
    let sigma = (radius as f64 / 2.0).max(0.5);
    let raw: Vec<f64> = (-(radius as isize)..=radius as isize).map(|d| (-((d * d) as f64) / (2.0 * sigma * sigma)).exp()).collect();
    let total: f64 = raw.iter().sum();
    let k: Vec<f64> = raw.iter().map(|v| v / total).collect();
    let r = radius as isize;
    let mut vertical = vec![0.0; w * h * 4];
    for y in 0..h {
        for x in 0..w {
            for c in 0..4 {
                vertical[(y * w + x) * 4 + c] = (-r..=r).map(|d| k[(d + r) as usize] * px(img, w, h, x as isize, y as isize + d, c)).sum();
            }
        }
    }
    let mut out = vec![0.0; w * h * 4];
    for y in 0..h {
        for x in 0..w {
            for c in 0..4 {
                out[(y * w + x) * 4 + c] = (-r..=r)
                    .map(|d| {
                        let xx = (x as isize + d).clamp(0, w as isize - 1) as usize;
                        k[(d + r) as usize] * vertical[(y * w + xx) * 4 + c]
                    })
                    .sum();
            }
        }
    }
    out
}

fn luma(img: &[u8], w: usize, h: usize, x: isize, y: isize) -> i64 {
    let (r, g, b) = (px(img, w, h, x, y, 0) as i64, px(img, w, h, x, y, 1) as i64, px(img, w, h, x, y, 2) as i64);
    (77 * r + 150 * g + 29 * b + 128) >> 8 // Rec. 601 in 8.8 fixed point, rounded
}

fn reference(filter: Filter, img: &[u8], w: usize, h: usize) -> Vec<u8> {
    let mut out = img.to_vec();
    match filter {
        Filter::Grayscale => {
            for y in 0..h {
                for x in 0..w {
                    let l = luma(img, w, h, x as isize, y as isize) as u8;
                    out[(y * w + x) * 4..(y * w + x) * 4 + 3].fill(l);
                }
            }
        }
        Filter::Blur { radius } => {
            out = gaussian(img, w, h, radius as usize).into_iter().map(round_u8).collect();
        }
        Filter::Sharpen { radius, amount } => {
            let blurred = gaussian(img, w, h, radius as usize);
            for (i, o) in out.iter_mut().enumerate() {
                if i % 4 != 3 {
                    let v = img[i] as f64;
                    *o = round_u8(v + amount as f64 * (v - blurred[i]));
                }
            }
        }
        Filter::Sobel => {
            for y in 0..h as isize {
                for x in 0..w as isize {
                    let l = |dx: isize, dy: isize| luma(img, w, h, x + dx, y + dy);
                    let gx = (l(1, -1) + 2 * l(1, 0) + l(1, 1)) - (l(-1, -1) + 2 * l(-1, 0) + l(-1, 1));
                    let gy = (l(-1, 1) + 2 * l(0, 1) + l(1, 1)) - (l(-1, -1) + 2 * l(0, -1) + l(1, -1));
                    let m = round_u8(((gx * gx + gy * gy) as f64).sqrt().min(255.0));
                    let i = (y as usize * w + x as usize) * 4;
                    out[i..i + 3].fill(m);
                }
            }
        }
        Filter::Emboss => {
            const K: [[i64; 3]; 3] = [[-2, -1, 0], [-1, 1, 1], [0, 1, 2]];
            for y in 0..h as isize {
                for x in 0..w as isize {
                    for c in 0..3 {
                        let mut s = 0i64;
                        for (ky, row) in K.iter().enumerate() {
                            for (kx, k) in row.iter().enumerate() {
                                s += k * px(img, w, h, x + kx as isize - 1, y + ky as isize - 1, c) as i64;
                            }
                        }
                        out[(y as usize * w + x as usize) * 4 + c] = s.clamp(0, 255) as u8;
                    }
                }
            }
        }
    }
    out
}

/// The crate's result, computed in `bands` row bands as the pool's tiles are.
fn crate_result(filter: Filter, img: &[u8], w: usize, h: usize, bands: usize) -> Vec<u8> {
    let mut out = vec![0u8; img.len()];
    let rows_per = h.div_ceil(bands).max(1);
    for (i, band) in out.chunks_mut(rows_per * w * 4).enumerate() {
        let y0 = i * rows_per;
        let y1 = (y0 + rows_per).min(h);
        apply(filter, img, band, w as u32, h as u32, y0 as u32, y1 as u32).unwrap();
    }
    out
}

fn compare(filter: Filter, w: usize, h: usize, seed: u32) {
    let img = noise(w, h, seed);
    let want = reference(filter, &img, w, h);
    let exact = matches!(filter, Filter::Grayscale | Filter::Emboss);
    for bands in [1, 3] {
        let got = crate_result(filter, &img, w, h, bands);
        for (i, (&g, &r)) in got.iter().zip(&want).enumerate() {
            let diff = (g as i32 - r as i32).abs();
            assert!(
                diff == 0 || (!exact && diff <= 1),
                "{filter:?} {w}x{h} (seed {seed}, {bands} bands): byte {i} (x {}, y {}, channel {}) is {g}, the reference says {r}",
                (i / 4) % w,
                i / 4 / w,
                i % 4
            );
        }
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn every_kernel_matches_the_reference_at_widths_1_to_17() {
    for w in 1..=17 {
        for h in [1, 2, 5] {
            for filter in [Filter::Grayscale, Filter::Emboss, Filter::Sobel, Filter::Blur { radius: 1 }, Filter::Blur { radius: 3 }, Filter::Sharpen { radius: 2, amount: 1.5 }] {
                compare(filter, w, h, (w * 31 + h) as u32);
            }
        }
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn radius_64_and_amount_16_match_the_reference_even_on_images_smaller_than_the_radius() {
    for (w, h) in [(1, 1), (3, 7), (17, 5), (70, 9), (130, 3)] {
        compare(Filter::Blur { radius: 64 }, w, h, 7);
        compare(Filter::Sharpen { radius: 64, amount: 16.0 }, w, h, 8);
        compare(Filter::Sharpen { radius: 1, amount: 16.0 }, w, h, 9);
        compare(Filter::Sharpen { radius: 5, amount: 0.0 }, w, h, 10);
    }
}
