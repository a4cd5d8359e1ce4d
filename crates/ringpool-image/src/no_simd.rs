//! Without `simd128` every kernel runs its scalar code: each of these does nothing.

pub(super) fn vertical(_: &[&[u8]], _: &[f32], _: &mut [f32]) -> usize {
    0
}
pub(super) fn horizontal(_: &[f32], _: &[f32], _: &mut [u8]) -> usize {
    0
}
pub(super) fn horizontal_f32(_: &[f32], _: &[f32], _: &mut [f32]) -> usize {
    0
}
pub(super) fn unsharp(_: &[u8], _: &[f32], _: f32, _: &mut [u8]) -> usize {
    0
}
pub(super) fn emboss(_: [&[u8]; 3], _: usize, _: usize, _: &mut [u8]) -> usize {
    0
}
pub(super) fn sobel(_: [&[i32]; 3], _: &[u8], _: usize, _: &mut [u8]) -> usize {
    0
}
pub(super) fn luma(_: &[u8], _: &mut [i32]) -> usize {
    0
}
pub(super) fn grayscale(_: &mut [u8]) -> usize {
    0
}
