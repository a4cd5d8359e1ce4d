//! The `simd128` paths of the kernels: each covers the body of a row and returns how many
//! bytes (or pixels) it did; the scalar code in `lib.rs` finishes the rest.

use core::arch::wasm32::*;

/// Four RGBA pixels: the colours of `px`, the alpha bytes of `src` (every kernel but blur
/// keeps alpha).
#[inline(always)]
fn alpha_of(src: v128, px: v128) -> v128 {
    v128_bitselect(src, px, u32x4_splat(0xff00_0000))
}

/// 16 bytes as four `f32x4` (exact: every byte is a small integer).
#[inline(always)]
fn widen(v: v128) -> [v128; 4] {
    let (lo, hi) = (u16x8_extend_low_u8x16(v), u16x8_extend_high_u8x16(v));
    [u32x4_extend_low_u16x8(lo), u32x4_extend_high_u16x8(lo), u32x4_extend_low_u16x8(hi), u32x4_extend_high_u16x8(hi)].map(|p| f32x4_convert_u32x4(p))
}

/// The vertical pass over whole 16-byte chunks; returns how many bytes it covered.
pub(super) fn vertical(rows: &[&[u8]], w: &[f32], acc: &mut [f32]) -> usize {
    let chunks = acc.len() / 16;
    for ci in 0..chunks {
        let base = ci * 16;
        let mut a = [f32x4_splat(0.0); 4];
        for (k, row) in rows.iter().enumerate() {
            let bytes = &row[base..base + 16];
            // SAFETY: `bytes` is 16 bytes long; v128_load allows unaligned addresses.
            let v = unsafe { v128_load(bytes.as_ptr() as *const v128) };
            let wk = f32x4_splat(w[k]);
            for (ai, p) in a.iter_mut().zip(widen(v)) {
                *ai = f32x4_add(*ai, f32x4_mul(wk, p));
            }
        }
        let out = &mut acc[base..base + 16];
        for (i, ai) in a.iter().enumerate() {
            // SAFETY: `out[i * 4..i * 4 + 4]` is in bounds; unaligned stores are allowed.
            unsafe { v128_store(out[i * 4..].as_mut_ptr() as *mut v128, *ai) };
        }
    }
    chunks * 16
}

/// Four output pixels from `x = 4q`: each lane is `Σ_k w[k] · padded[(x + k)·4 + c]`,
/// summed in order of `k` from 0.0, as `hsum` does.
#[inline(always)]
fn quad(padded: &[f32], w: &[f32], q: usize) -> [v128; 4] {
    let mut px = [f32x4_splat(0.0); 4];
    for (k, &wk) in w.iter().enumerate() {
        let wk = f32x4_splat(wk);
        for (p, acc) in px.iter_mut().enumerate() {
            let at = (q * 4 + p + k) * 4;
            let src = &padded[at..at + 4];
            // SAFETY: `src` is four f32s; unaligned loads are allowed.
            let v = unsafe { v128_load(src.as_ptr() as *const v128) };
            *acc = f32x4_add(*acc, f32x4_mul(wk, v));
        }
    }
    px
}

/// `to_u8` of 16 channel values: `+ 0.5`, truncate saturating, then clamp to 0..=255 by
/// the saturating narrowings (what `as i32` and `clamp` do in the scalar path).
#[inline(always)]
fn round_bytes(v: [v128; 4]) -> v128 {
    let half = f32x4_splat(0.5);
    let ints = v.map(|v| i32x4_trunc_sat_f32x4(f32x4_add(v, half)));
    u8x16_narrow_i16x8(i16x8_narrow_i32x4(ints[0], ints[1]), i16x8_narrow_i32x4(ints[2], ints[3]))
}

/// The horizontal pass four pixels at a time; returns how many pixels it covered.
pub(super) fn horizontal(padded: &[f32], w: &[f32], out: &mut [u8]) -> usize {
    let quads = out.len() / 16;
    for q in 0..quads {
        let bytes = round_bytes(quad(padded, w, q));
        let dst = &mut out[q * 16..q * 16 + 16];
        // SAFETY: `dst` is 16 bytes long; unaligned stores are allowed.
        unsafe { v128_store(dst.as_mut_ptr() as *mut v128, bytes) };
    }
    quads * 4
}

/// The horizontal pass without rounding (sharpen's blur); returns how many pixels it covered.
pub(super) fn horizontal_f32(padded: &[f32], w: &[f32], out: &mut [f32]) -> usize {
    let quads = out.len() / 16;
    for q in 0..quads {
        for (p, v) in quad(padded, w, q).into_iter().enumerate() {
            let dst = &mut out[q * 16 + p * 4..q * 16 + p * 4 + 4];
            // SAFETY: `dst` is four f32s; unaligned stores are allowed.
            unsafe { v128_store(dst.as_mut_ptr() as *mut v128, v) };
        }
    }
    quads * 4
}

/// Emboss of pixels `from..`, four at a time while the right neighbour stays inside the
/// row (`from >= 1`): |sum| <= 9 · 255 fits i16, and the saturating narrowing is the
/// scalar path's clamp. Returns how many pixels it covered.
pub(super) fn emboss(rows: [&[u8]; 3], from: usize, wd: usize, out: &mut [u8]) -> usize {
    let quads = wd.saturating_sub(from + 1) / 4;
    for q in 0..quads {
        let b = (from + q * 4) * 4;
        let (mut lo, mut hi) = (i16x8_splat(0), i16x8_splat(0));
        for (ky, row) in rows.iter().enumerate() {
            for kx in 0..3 {
                let at = b + kx * 4 - 4;
                // `at + 16 <= (from + 4q + 5) · 4 <= wd · 4`: the slice is in the row.
                // SAFETY: a 16-byte slice; unaligned loads are allowed.
                let v = unsafe { v128_load(row[at..at + 16].as_ptr() as *const v128) };
                let k = i16x8_splat(super::EMBOSS[ky][kx] as i16);
                lo = i16x8_add(lo, i16x8_mul(k, u16x8_extend_low_u8x16(v)));
                hi = i16x8_add(hi, i16x8_mul(k, u16x8_extend_high_u8x16(v)));
            }
        }
        // SAFETY: a 16-byte slice; unaligned loads are allowed.
        let mid = unsafe { v128_load(rows[1][b..b + 16].as_ptr() as *const v128) };
        let bytes = alpha_of(mid, u8x16_narrow_i16x8(lo, hi));
        let dst = &mut out[b..b + 16];
        // SAFETY: `dst` is 16 bytes long; unaligned stores are allowed.
        unsafe { v128_store(dst.as_mut_ptr() as *mut v128, bytes) };
    }
    quads * 4
}

/// `luma` of the four RGBA pixels in `v`, in i32 lanes (exact: at most 256 · 255 + 128
/// before the shift).
#[inline(always)]
fn luma4(v: v128) -> v128 {
    let byte = u32x4_splat(0xff);
    let (r, g, b) = (v128_and(v, byte), v128_and(u32x4_shr(v, 8), byte), v128_and(u32x4_shr(v, 16), byte));
    let sum = i32x4_add(i32x4_add(i32x4_mul(r, i32x4_splat(77)), i32x4_mul(g, i32x4_splat(150))), i32x4_add(i32x4_mul(b, i32x4_splat(29)), i32x4_splat(128)));
    u32x4_shr(sum, 8)
}

/// The four pixels `l, l, l, alpha` for luma lanes `l` (0..=255) and RGBA pixels `v`.
#[inline(always)]
fn gray4(l: v128, v: v128) -> v128 {
    alpha_of(v, i32x4_mul(l, i32x4_splat(0x01_0101)))
}

/// `luma` of four pixels at a time; returns how many pixels it covered.
pub(super) fn luma(px: &[u8], out: &mut [i32]) -> usize {
    let quads = out.len() / 4;
    for q in 0..quads {
        // SAFETY: a 16-byte slice; unaligned loads are allowed.
        let v = unsafe { v128_load(px[q * 16..q * 16 + 16].as_ptr() as *const v128) };
        let dst = &mut out[q * 4..q * 4 + 4];
        // SAFETY: `dst` is four i32s; unaligned stores are allowed.
        unsafe { v128_store(dst.as_mut_ptr() as *mut v128, luma4(v)) };
    }
    quads * 4
}

/// Grayscale in place, 16 bytes at a time; returns how many bytes it covered.
pub(super) fn grayscale(px: &mut [u8]) -> usize {
    let chunks = px.len() / 16;
    for c in px[..chunks * 16].chunks_exact_mut(16) {
        // SAFETY: `c` is 16 bytes long; unaligned loads and stores are allowed.
        unsafe {
            let v = v128_load(c.as_ptr() as *const v128);
            v128_store(c.as_mut_ptr() as *mut v128, gray4(luma4(v), v));
        }
    }
    chunks * 16
}

/// Sobel of pixels `from..` over luma rows, four at a time while the right neighbour stays
/// inside the row (`from >= 1`). `gx² + gy² < 2^24`, so its f32 is exact, and `sqrt`,
/// `min` and the rounding are the scalar path's operations. Returns pixels covered.
pub(super) fn sobel(rows: [&[i32]; 3], alpha: &[u8], from: usize, out: &mut [u8]) -> usize {
    let wd = rows[1].len();
    let quads = wd.saturating_sub(from + 1) / 4;
    let load = |row: &[i32], at: usize| {
        // SAFETY: four i32s; unaligned loads are allowed.
        unsafe { v128_load(row[at..at + 4].as_ptr() as *const v128) }
    };
    let two = |v: v128| i32x4_shl(v, 1);
    for q in 0..quads {
        let x = from + q * 4;
        let [up, mid, down] = rows.map(|r| [load(r, x - 1), load(r, x), load(r, x + 1)]);
        let gx = i32x4_sub(i32x4_add(i32x4_add(up[2], two(mid[2])), down[2]), i32x4_add(i32x4_add(up[0], two(mid[0])), down[0]));
        let gy = i32x4_sub(i32x4_add(i32x4_add(down[0], two(down[1])), down[2]), i32x4_add(i32x4_add(up[0], two(up[1])), up[2]));
        let m = f32x4_min(f32x4_sqrt(f32x4_convert_i32x4(i32x4_add(i32x4_mul(gx, gx), i32x4_mul(gy, gy)))), f32x4_splat(255.0));
        let v = i32x4_trunc_sat_f32x4(f32x4_add(m, f32x4_splat(0.5)));
        // SAFETY: a 16-byte slice; unaligned loads are allowed.
        let a = unsafe { v128_load(alpha[x * 4..x * 4 + 16].as_ptr() as *const v128) };
        let px = gray4(v, a);
        let dst = &mut out[x * 4..x * 4 + 16];
        // SAFETY: `dst` is 16 bytes long; unaligned stores are allowed.
        unsafe { v128_store(dst.as_mut_ptr() as *mut v128, px) };
    }
    quads * 4
}

/// Unsharp mask over whole 16-byte chunks (same operations as the scalar loop, alpha
/// taken from `orig`); returns how many bytes it covered.
pub(super) fn unsharp(orig: &[u8], blurred: &[f32], amount: f32, out: &mut [u8]) -> usize {
    let chunks = out.len() / 16;
    let amount = f32x4_splat(amount);
    for ci in 0..chunks {
        let base = ci * 16;
        // SAFETY: `orig[base..base + 16]` is in bounds; unaligned loads are allowed.
        let o = unsafe { v128_load(orig[base..base + 16].as_ptr() as *const v128) };
        let mut sharp = widen(o);
        for (i, s) in sharp.iter_mut().enumerate() {
            let b = &blurred[base + i * 4..base + i * 4 + 4];
            // SAFETY: `b` is four f32s; unaligned loads are allowed.
            let b = unsafe { v128_load(b.as_ptr() as *const v128) };
            *s = f32x4_add(*s, f32x4_mul(amount, f32x4_sub(*s, b)));
        }
        let bytes = alpha_of(o, round_bytes(sharp));
        let dst = &mut out[base..base + 16];
        // SAFETY: `dst` is 16 bytes long; unaligned stores are allowed.
        unsafe { v128_store(dst.as_mut_ptr() as *mut v128, bytes) };
    }
    chunks * 16
}
