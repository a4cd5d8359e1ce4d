//! `image.*` in the npm package: [`crate::image`] kernels as `Task`s over views of pool memory,
//! one row band per task. Arguments are checked when the task is made (`TypeError` for a view
//! that is not pool memory, `RangeError` for sizes, bands and parameters), so a task that is
//! submitted cannot read or write outside its images.
//!
//! Each task resolves with `{ worker, start, end, queued }`: the worker index, the run's start
//! and end on the `performance.timeOrigin + performance.now()` clock shared by all threads, and
//! how many tasks waited in the queue as it started; the demo draws its timeline and queue
//! depth chart from these.

use super::backend::clock;
use super::js::Task;
use super::{js_error, pool_view_offset, ErrorKind};
use crate::image::{self, Filter, ImageError};
use crate::value::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;


/// A checked image view: its address in linear memory and its length.
#[derive(Clone, Copy)]
struct View {
    addr: usize,
    len: usize,
}

fn view(v: &JsValue, name: &str) -> Result<View, JsValue> {
    if !(v.is_instance_of::<js_sys::Uint8Array>() || v.is_instance_of::<js_sys::Uint8ClampedArray>()) {
        return Err(js_error(ErrorKind::Type, &format!("{name} must be a Uint8Array or Uint8ClampedArray of RGBA pixels from pool.alloc")));
    }
    let Some(addr) = pool_view_offset(v) else {
        return Err(js_error(ErrorKind::Type, &format!("{name} must be a view of pool memory (pool.alloc(Uint8Array, width * height * 4))")));
    };
    let len = v.unchecked_ref::<js_sys::Uint8Array>().byte_length() as usize;
    Ok(View { addr: addr as usize, len })
}

fn int(v: &JsValue, name: &str) -> Result<u32, JsValue> {
    let Some(n) = v.as_f64() else {
        return Err(js_error(ErrorKind::Type, &format!("{name} must be a number")));
    };
    if n.fract() != 0.0 || !(0.0..=u32::MAX as f64).contains(&n) {
        return Err(js_error(ErrorKind::Range, &format!("{name} must be a non-negative integer, got {n}")));
    }
    Ok(n as u32)
}

fn number(v: &JsValue, name: &str) -> Result<f32, JsValue> {
    v.as_f64().map(|n| n as f32).ok_or_else(|| js_error(ErrorKind::Type, &format!("{name} must be a number")))
}

fn range(e: ImageError) -> JsValue {
    js_error(ErrorKind::Range, &e.0)
}

/// One band of `filter` from `src` into `dst`, checked.
fn band_task(filter: Filter, src: &JsValue, dst: &JsValue, width: &JsValue, height: &JsValue, y0: &JsValue, y1: &JsValue) -> Result<Task, JsValue> {
    let (src, dst) = (view(src, "src")?, view(dst, "dst")?);
    let (width, height) = (int(width, "width")?, int(height, "height")?);
    let (y0, y1) = (int(y0, "y0")?, int(y1, "y1")?);
    filter.validate().map_err(range)?;
    let stride = image::check_geometry(width, height, y0, y1, src.len).map_err(|e| range(ImageError(format!("src: {e}"))))?;
    image::check_geometry(width, height, y0, y1, dst.len).map_err(|e| range(ImageError(format!("dst: {e}"))))?;
    let in_place = src.addr == dst.addr;
    let overlap = src.addr < dst.addr + dst.len && dst.addr < src.addr + src.len;
    if overlap && !(in_place && filter.is_pointwise()) {
        return Err(range(ImageError(format!(
            "src and dst must not overlap: {filter:?} reads rows outside each band (only grayscale runs in place)"
        ))));
    }
    Ok(Task::new(move || {
        let start = clock();
        let queued = super::backend::queued_here();
        let (b0, b1) = (y0 as usize * stride, y1 as usize * stride);
        if in_place {
            // SAFETY: `dst` was checked to be a pool view of `width * height * 4` bytes; linear
            // memory never shrinks, so the range stays addressable. Bands given to concurrent
            // tasks are the caller's to keep apart (as with any SharedArrayBuffer writes).
            let band = unsafe { std::slice::from_raw_parts_mut((dst.addr + b0) as *mut u8, b1 - b0) };
            image::apply_in_place(filter, band, width, y1 - y0, 0, y1 - y0).expect("checked when the task was made");
        } else {
            // SAFETY: as above, and `src` does not overlap `dst` (checked), so the shared read
            // and the band write do not alias.
            let src = unsafe { std::slice::from_raw_parts(src.addr as *const u8, src.len) };
            let band = unsafe { std::slice::from_raw_parts_mut((dst.addr + b0) as *mut u8, b1 - b0) };
            image::apply(filter, src, band, width, height, y0, y1).expect("checked when the task was made");
        }
        let mut fields = timing_fields(start);
        if let Some(q) = queued {
            fields.push(("queued".into(), Value::Number(q as f64)));
        }
        Value::Object(fields)
    }))
}

/// `{ worker, start, end }` of a task that started at `start` and ends now.
fn timing_fields(start: f64) -> Vec<(String, Value)> {
    let worker = crate::worker_index().map_or(-1.0, |i| i as f64);
    // Room for the caller's one extra field, so adding it does not reallocate.
    let mut fields = Vec::with_capacity(4);
    fields.push(("worker".into(), Value::Number(worker)));
    fields.push(("start".into(), Value::Number(start)));
    fields.push(("end".into(), Value::Number(clock())));
    fields
}

/// `image.grayscale(view, width, height, y0, y1)`: rows `[y0, y1)` to gray, in place; or
/// `image.grayscale(src, dst, width, height, y0, y1)` like the other kernels.
#[wasm_bindgen(js_name = imageGrayscale)]
pub fn image_grayscale(a: &JsValue, b: &JsValue, c: &JsValue, d: &JsValue, e: &JsValue, f: &JsValue) -> Result<Task, JsValue> {
    if b.is_object() {
        band_task(Filter::Grayscale, a, b, c, d, e, f)
    } else {
        band_task(Filter::Grayscale, a, a, b, c, d, e)
    }
}

/// `image.blur(src, dst, width, height, radius, y0, y1)`: Gaussian blur of rows `[y0, y1)`.
#[wasm_bindgen(js_name = imageBlur)]
#[allow(clippy::too_many_arguments)]
pub fn image_blur(src: &JsValue, dst: &JsValue, width: &JsValue, height: &JsValue, radius: &JsValue, y0: &JsValue, y1: &JsValue) -> Result<Task, JsValue> {
    let radius = int(radius, "radius")?;
    band_task(Filter::Blur { radius }, src, dst, width, height, y0, y1)
}

/// `image.sharpen(src, dst, width, height, radius, amount, y0, y1)`: unsharp mask.
#[wasm_bindgen(js_name = imageSharpen)]
#[allow(clippy::too_many_arguments)]
pub fn image_sharpen(
    src: &JsValue,
    dst: &JsValue,
    width: &JsValue,
    height: &JsValue,
    radius: &JsValue,
    amount: &JsValue,
    y0: &JsValue,
    y1: &JsValue,
) -> Result<Task, JsValue> {
    let radius = int(radius, "radius")?;
    let amount = number(amount, "amount")?;
    band_task(Filter::Sharpen { radius, amount }, src, dst, width, height, y0, y1)
}

/// `image.sobel(src, dst, width, height, y0, y1)`: edge magnitude as gray.
#[wasm_bindgen(js_name = imageSobel)]
pub fn image_sobel(src: &JsValue, dst: &JsValue, width: &JsValue, height: &JsValue, y0: &JsValue, y1: &JsValue) -> Result<Task, JsValue> {
    band_task(Filter::Sobel, src, dst, width, height, y0, y1)
}

/// `image.emboss(src, dst, width, height, y0, y1)`: 3 × 3 emboss.
#[wasm_bindgen(js_name = imageEmboss)]
pub fn image_emboss(src: &JsValue, dst: &JsValue, width: &JsValue, height: &JsValue, y0: &JsValue, y1: &JsValue) -> Result<Task, JsValue> {
    band_task(Filter::Emboss, src, dst, width, height, y0, y1)
}

/// `image.sample(view, width, height)`: fills a pool view with the demo's deterministic sample.
#[wasm_bindgen(js_name = imageSample)]
pub fn image_sample(view_: &JsValue, width: &JsValue, height: &JsValue) -> Result<(), JsValue> {
    let v = view(view_, "view")?;
    let (w, h) = (int(width, "width")?, int(height, "height")?);
    image::check_geometry(w, h, 0, h.max(1), v.len).map_err(range)?;
    let pixels = image::sample(w, h);
    // SAFETY: `v` is a checked pool view of exactly `pixels.len()` bytes.
    unsafe { std::ptr::copy_nonoverlapping(pixels.as_ptr(), v.addr as *mut u8, v.len) };
    Ok(())
}

/// `image.checksum(bytes)`: FNV-1a (32 bit) of a `Uint8Array`/`Uint8ClampedArray`.
#[wasm_bindgen(js_name = imageChecksum)]
pub fn image_checksum(bytes: &JsValue) -> Result<u32, JsValue> {
    if !(bytes.is_instance_of::<js_sys::Uint8Array>() || bytes.is_instance_of::<js_sys::Uint8ClampedArray>()) {
        return Err(js_error(ErrorKind::Type, "bytes must be a Uint8Array or Uint8ClampedArray"));
    }
    if let Some(addr) = pool_view_offset(bytes) {
        let len = bytes.unchecked_ref::<js_sys::Uint8Array>().byte_length() as usize;
        // SAFETY: a pool view of `len` bytes at `addr`; only read.
        return Ok(image::fnv1a(unsafe { std::slice::from_raw_parts(addr as *const u8, len) }));
    }
    let copy = js_sys::Uint8Array::new(bytes).to_vec();
    Ok(image::fnv1a(&copy))
}

/// The demo's rayon mode: one task that runs `par_chunks_mut` over `tile_rows`-row bands on
/// wasm-bindgen-rayon's thread pool (call `initThreadPool(n)` first). It runs on a pool worker
/// because rayon blocks its caller until the parallel loop is done.
#[cfg(feature = "demo-rayon")]
#[wasm_bindgen(js_name = rayonFilter)]
#[allow(clippy::too_many_arguments)]
pub fn rayon_filter(
    name: &str,
    radius: &JsValue,
    amount: &JsValue,
    src: &JsValue,
    dst: &JsValue,
    width: &JsValue,
    height: &JsValue,
    tile_rows: &JsValue,
) -> Result<Task, JsValue> {
    use rayon::prelude::*;
    let filter = match name {
        "grayscale" => Filter::Grayscale,
        "blur" => Filter::Blur { radius: int(radius, "radius")? },
        "sharpen" => Filter::Sharpen { radius: int(radius, "radius")?, amount: number(amount, "amount")? },
        "sobel" => Filter::Sobel,
        "emboss" => Filter::Emboss,
        other => return Err(js_error(ErrorKind::Range, &format!("unknown filter {other:?}"))),
    };
    let (src, dst) = (view(src, "src")?, view(dst, "dst")?);
    let (width, height, tile_rows) = (int(width, "width")?, int(height, "height")?, int(tile_rows, "tileRows")?);
    filter.validate().map_err(range)?;
    image::check_geometry(width, height, 0, height, src.len).map_err(range)?;
    image::check_geometry(width, height, 0, height, dst.len).map_err(range)?;
    if tile_rows == 0 {
        return Err(js_error(ErrorKind::Range, "tileRows must be at least 1"));
    }
    if src.addr < dst.addr + dst.len && dst.addr < src.addr + src.len {
        return Err(js_error(ErrorKind::Range, "src and dst must not overlap"));
    }
    Ok(Task::new(move || {
        let start = clock();
        let stride = width as usize * 4;
        // SAFETY: checked, non-overlapping pool views of `width * height * 4` bytes each; the
        // bands of `par_chunks_mut` are disjoint.
        let src = unsafe { std::slice::from_raw_parts(src.addr as *const u8, src.len) };
        let out = unsafe { std::slice::from_raw_parts_mut(dst.addr as *mut u8, dst.len) };
        // Each chunk reports which rayon thread ran it and when, for the demo's timeline, as
        // five numbers (thread, start, end, y0, y1) in one Float64Array: one copy at the end,
        // not an object per chunk on the critical path.
        let chunks: Vec<[f64; 5]> = out
            .par_chunks_mut(stride * tile_rows as usize)
            .enumerate()
            .map(|(i, band)| {
                let t0 = clock();
                let y0 = i as u32 * tile_rows;
                let y1 = y0 + (band.len() / stride) as u32;
                image::apply(filter, src, band, width, height, y0, y1).expect("checked when the task was made");
                let thread = rayon::current_thread_index().map_or(-1.0, |i| i as f64);
                [thread, t0, clock(), y0 as f64, y1 as f64]
            })
            .collect();
        let bytes = chunks.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
        let mut fields = timing_fields(start);
        fields.push(("tiles".into(), Value::Typed(crate::value::TypedKind::Float64, bytes)));
        Value::Object(fields)
    }))
}

/// Links wasm-bindgen-rayon in: its `initThreadPool(n)` export starts rayon's workers.
#[cfg(feature = "demo-rayon")]
#[allow(unused_imports)]
pub use wasm_bindgen_rayon::init_thread_pool;
