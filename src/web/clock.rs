//! The one clock of the web back end: `performance.timeOrigin + performance.now()` in ms,
//! comparable across the threads of a page or process (deadlines, wait and run times).

use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/web/runtime.js")]
extern "C" {
    /// `performance.timeOrigin + performance.now()`, ms, comparable across threads.
    pub(crate) fn clock() -> f64;
}
