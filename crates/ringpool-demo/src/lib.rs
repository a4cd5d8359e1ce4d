//! The demo's wasm (`www/wasm/`): everything the npm package exports, plus the demo's rayon mode,
//! which runs the same image kernels under wasm-bindgen-rayon for the side-by-side comparison.
#![cfg(target_arch = "wasm32")]

pub use ringpool;
pub use ringpool_image;
/// Links wasm-bindgen-rayon in: its `initThreadPool(n)` export starts rayon's workers.
pub use wasm_bindgen_rayon::init_thread_pool;

use ringpool::value::TypedKind;
use ringpool::web::{clock, Task, Value};
use ringpool_image::web::{int, number, range, timing_fields, view};
use ringpool_image::{apply, check_geometry, Filter};
use wasm_bindgen::prelude::*;

/// The demo's rayon mode: one task that runs `par_chunks_mut` over `tile_rows`-row bands on
/// wasm-bindgen-rayon's thread pool (call `initThreadPool(n)` first). It runs on a pool worker
/// because rayon blocks its caller until the parallel loop is done.
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
        other => return Err(js_sys::RangeError::new(&format!("unknown filter {other:?}")).into()),
    };
    let (src, dst) = (view(src, "src")?, view(dst, "dst")?);
    let (width, height, tile_rows) = (int(width, "width")?, int(height, "height")?, int(tile_rows, "tileRows")?);
    filter.validate().map_err(range)?;
    check_geometry(width, height, 0, height, src.len).map_err(range)?;
    check_geometry(width, height, 0, height, dst.len).map_err(range)?;
    if tile_rows == 0 {
        return Err(js_sys::RangeError::new("tileRows must be at least 1").into());
    }
    if src.addr < dst.addr + dst.len && dst.addr < src.addr + src.len {
        return Err(js_sys::RangeError::new("src and dst must not overlap").into());
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
                apply(filter, src, band, width, height, y0, y1).expect("checked when the task was made");
                let thread = rayon::current_thread_index().map_or(-1.0, |i| i as f64);
                [thread, t0, clock(), y0 as f64, y1 as f64]
            })
            .collect();
        let bytes = chunks.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
        let mut fields = timing_fields(start);
        fields.push(("tiles".into(), Value::Typed(TypedKind::Float64, bytes)));
        Value::Object(fields)
    }))
}
