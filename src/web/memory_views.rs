//! Views of the pool's shared memory: the memory itself, its size, and which JS views are views
//! of it (`pool.alloc`), with their JS half in `pool_views.js`.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The shared `WebAssembly.Memory` every worker uses.
#[wasm_bindgen(js_name = wasmMemory)]
pub fn wasm_memory() -> JsValue {
    wasm_bindgen::memory()
}

/// Current size of the shared wasm memory in bytes.
#[wasm_bindgen(js_name = memoryBytes)]
pub fn memory_bytes() -> f64 {
    let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
    let buffer: js_sys::SharedArrayBuffer = memory.buffer().unchecked_into();
    buffer.byte_length() as f64
}

#[wasm_bindgen(module = "/src/web/pool_views.js")]
extern "C" {
    #[wasm_bindgen(js_name = poolViewOffset)]
    fn pool_view_offset_js(memory: &JsValue, v: &JsValue) -> f64;
    #[wasm_bindgen(js_name = noteBuffer)]
    pub(crate) fn note_buffer(memory: &JsValue) -> JsValue;
}

/// Byte offset of `v` in pool memory if it is a view of it (from `pool.alloc` or a
/// `subarray` of one, before or after the memory grew). A task may then read and write those
/// bytes through a raw pointer (see the `ringpool-image` crate for kernels that do).
pub fn pool_view_offset(v: &JsValue) -> Option<u32> {
    let off = pool_view_offset_js(&wasm_bindgen::memory(), v);
    (off >= 0.0).then_some(off as u32)
}

