//! `image.*` in the npm package: the kernels of this crate as `Task`s over views of pool memory,
//! one row band per task. Arguments are checked when the task is made (`TypeError` for a view
//! that is not pool memory, `RangeError` for sizes, bands and parameters), so a task that is
//! submitted cannot read or write outside its images.
//!
//! Each task resolves with `{ worker, start, end, queued }`: the worker index, the run's start
//! and end on the `performance.timeOrigin + performance.now()` clock shared by all threads, and
//! how many tasks waited in the queue as it started; the demo draws its timeline and queue
//! depth chart from these.

use crate as image;
use crate::{Filter, ImageError};
use ringpool::web::{clock, pool_view_offset, queue_depth, Task, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

fn type_error(message: &str) -> JsValue {
    js_sys::TypeError::new(message).into()
}

fn range_error(message: &str) -> JsValue {
    js_sys::RangeError::new(message).into()
}


/// A checked image view: its address in linear memory and its length.
#[derive(Clone, Copy)]
pub struct View {
    /// Byte offset in the shared memory.
    pub addr: usize,
    /// Length in bytes.
    pub len: usize,
}

/// `v` as a [`View`] if it is a `Uint8Array` or `Uint8ClampedArray` of pool memory, else a
/// `TypeError` naming `name`.
pub fn view(v: &JsValue, name: &str) -> Result<View, JsValue> {
    if !(v.is_instance_of::<js_sys::Uint8Array>() || v.is_instance_of::<js_sys::Uint8ClampedArray>()) {
        return Err(type_error(&format!("{name} must be a Uint8Array or Uint8ClampedArray of RGBA pixels from pool.alloc")));
    }
    let Some(addr) = pool_view_offset(v) else {
        return Err(type_error(&format!("{name} must be a view of pool memory (pool.alloc(Uint8Array, width * height * 4))")));
    };
    let len = v.unchecked_ref::<js_sys::Uint8Array>().byte_length() as usize;
    Ok(View { addr: addr as usize, len })
}

/// `v` as a `u32`, else a `TypeError` (not a number) or `RangeError` naming `name`.
pub fn int(v: &JsValue, name: &str) -> Result<u32, JsValue> {
    let Some(n) = v.as_f64() else {
        return Err(type_error(&format!("{name} must be a number")));
    };
    if n.fract() != 0.0 || !(0.0..=u32::MAX as f64).contains(&n) {
        // The number as JS writes it (`String(n)`), not with Rust's float formatting, which
        // would weigh ~6 KB gzipped in the module (bench/README.md, "What a page downloads").
        let got = js_sys::Number::from(n).to_string_with_radix(10).map_or_else(|_| String::from("a number"), String::from);
        return Err(range_error(&format!("{name} must be a non-negative integer, got {got}")));
    }
    Ok(n as u32)
}

/// `v` as an `f32`, else a `TypeError` naming `name`.
pub fn number(v: &JsValue, name: &str) -> Result<f32, JsValue> {
    v.as_f64().map(|n| n as f32).ok_or_else(|| type_error(&format!("{name} must be a number")))
}

/// A kernel's refusal as a `RangeError`.
pub fn range(e: ImageError) -> JsValue {
    range_error(&e.0)
}

/// The names of the exports that make each kernel's task (`Task::remade_by`).
fn export_of(filter: Filter) -> &'static str {
    match filter {
        Filter::Grayscale => "imageGrayscale",
        Filter::Blur { .. } => "imageBlur",
        Filter::Sharpen { .. } => "imageSharpen",
        Filter::Sobel => "imageSobel",
        Filter::Emboss => "imageEmboss",
    }
}

/// The export's arguments for `filter` over an image of `width` × `height` and the band
/// `[y0, y1)`, with `src` as given and no `dst`.
fn export_args(filter: Filter, src: Value, width: u32, height: u32, y0: u32, y1: u32) -> Vec<Value> {
    let n = |v: u32| Value::Number(v as f64);
    let mut args = vec![src, Value::Null, n(width), n(height)];
    match filter {
        Filter::Blur { radius } => args.push(n(radius)),
        Filter::Sharpen { radius, amount } => args.extend([n(radius), Value::Number(amount as f64)]),
        Filter::Grayscale | Filter::Sobel | Filter::Emboss => {}
    }
    args.extend([n(y0), n(y1)]);
    args
}

/// One band of `filter`: from a pool view `src` into the pool view `dst`, or, with `dst` null
/// or undefined, from a plain `Uint8Array` `src` by value (the band's result carries the new
/// rows as `pixels`). The by-value form runs in message mode too: the task copies only the
/// rows the band reads (`Filter::reach`) and is made again on the worker from them.
fn band_task(filter: Filter, src: &JsValue, dst: &JsValue, width: &JsValue, height: &JsValue, y0: &JsValue, y1: &JsValue) -> Result<Task, JsValue> {
    if dst.is_null() || dst.is_undefined() {
        return by_value_task(filter, src, width, height, y0, y1);
    }
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
            "src and dst must not overlap: {} reads rows outside each band (only grayscale runs in place)",
            filter.name()
        ))));
    }
    Ok(Task::new(move || {
        let start = clock();
        let queued = queue_depth();
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

/// A band of `filter` over a plain `Uint8Array` (or `Uint8ClampedArray`), by value: the rows
/// `[y0 - reach, y1 + reach)` are copied now, and the task returns
/// `{ worker, start, end, pixels }` with the band's `(y1 - y0) * width * 4` new bytes.
fn by_value_task(filter: Filter, src: &JsValue, width: &JsValue, height: &JsValue, y0: &JsValue, y1: &JsValue) -> Result<Task, JsValue> {
    if !(src.is_instance_of::<js_sys::Uint8Array>() || src.is_instance_of::<js_sys::Uint8ClampedArray>()) {
        return Err(type_error("src must be a Uint8Array or Uint8ClampedArray of RGBA pixels (with dst null, the band comes back as the result's pixels)"));
    }
    let bytes = src.unchecked_ref::<js_sys::Uint8Array>();
    let (width, height) = (int(width, "width")?, int(height, "height")?);
    let (y0, y1) = (int(y0, "y0")?, int(y1, "y1")?);
    filter.validate().map_err(range)?;
    let stride = image::check_geometry(width, height, y0, y1, bytes.byte_length() as usize).map_err(|e| range(ImageError(format!("src: {e}"))))?;
    // Only the rows the band reads, so a worker gets a strip rather than the whole picture.
    let (s0, s1) = (y0.saturating_sub(filter.reach()), (y1 + filter.reach()).min(height));
    let strip = bytes.subarray(s0 * stride as u32, s1 * stride as u32).to_vec();
    let (h, b0, b1) = (s1 - s0, y0 - s0, y1 - s0);
    let args = export_args(filter, Value::Typed(ringpool::value::TypedKind::Uint8, strip.clone()), width, h, b0, b1);
    Ok(Task::new(move || {
        let start = clock();
        let mut band = vec![0; (b1 - b0) as usize * stride];
        image::apply(filter, &strip, &mut band, width, h, b0, b1).expect("checked when the task was made");
        let mut fields = timing_fields(start);
        fields.push(("pixels".into(), Value::Typed(ringpool::value::TypedKind::Uint8, band)));
        Value::Object(fields)
    })
    .remade_by(export_of(filter), args))
}

/// `{ worker, start, end }` of a task that started at `start` and ends now.
pub fn timing_fields(start: f64) -> Vec<(String, Value)> {
    let worker = ringpool::worker_index().map_or(-1.0, |i| i as f64);
    // Room for the caller's one extra field, so adding it does not reallocate.
    let mut fields = Vec::with_capacity(4);
    fields.push(("worker".into(), Value::Number(worker)));
    fields.push(("start".into(), Value::Number(start)));
    fields.push(("end".into(), Value::Number(clock())));
    fields
}

/// `image.grayscale(view, width, height, y0, y1)`: rows `[y0, y1)` to gray, in place; or
/// `image.grayscale(src, dst, width, height, y0, y1)` like the other kernels (`dst` null: by value).
#[wasm_bindgen(js_name = imageGrayscale)]
pub fn image_grayscale(a: &JsValue, b: &JsValue, c: &JsValue, d: &JsValue, e: &JsValue, f: &JsValue) -> Result<Task, JsValue> {
    if b.is_object() || b.is_null() || b.is_undefined() {
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
    let (w, h) = (int(width, "width")?, int(height, "height")?);
    if pool_view_offset(view_).is_none() && (view_.is_instance_of::<js_sys::Uint8Array>() || view_.is_instance_of::<js_sys::Uint8ClampedArray>()) {
        // A plain array (message mode has no pool views): filled by one copy.
        let bytes = view_.unchecked_ref::<js_sys::Uint8Array>();
        image::check_geometry(w, h, 0, h.max(1), bytes.byte_length() as usize).map_err(range)?;
        bytes.copy_from(&image::sample(w, h));
        return Ok(());
    }
    let v = view(view_, "view")?;
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
        return Err(type_error("bytes must be a Uint8Array or Uint8ClampedArray"));
    }
    if let Some(addr) = pool_view_offset(bytes) {
        let len = bytes.unchecked_ref::<js_sys::Uint8Array>().byte_length() as usize;
        // SAFETY: a pool view of `len` bytes at `addr`; only read.
        return Ok(image::fnv1a(unsafe { std::slice::from_raw_parts(addr as *const u8, len) }));
    }
    let copy = js_sys::Uint8Array::new(bytes).to_vec();
    Ok(image::fnv1a(&copy))
}
