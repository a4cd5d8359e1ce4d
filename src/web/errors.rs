//! ringpool's Rust errors as the package's JS error classes (`errors.js`). Every error type of
//! the Rust API is `Into<JsValue>`, so that `?` works in a `#[wasm_bindgen]` function:
//!
//! | Rust | JS |
//! |---|---|
//! | [`BuildError::Workers`], [`BuildError::QueueCapacity`] | `RangeError` |
//! | [`BuildError::OutOfMemory`], [`TaskError::OutOfMemory`], [`SubmitError::OutOfMemory`] | `OutOfMemoryError` (a `RangeError`) |
//! | [`BuildError::MemoryNotShared`], [`BuildError::Spawn`] | `Error` |
//! | [`BuildError::NotIsolated`] | `NotIsolatedError` |
//! | [`SubmitError::QueueFull`] | `QueueFullError` |
//! | [`SubmitError::Overloaded`] | `PoolOverloadError` |
//! | [`SubmitError::Closed`], [`TaskError::PoolClosed`] | `PoolClosedError` |
//! | [`SubmitError::Cancelled`], [`TaskError::Cancelled`] | `CancelledError` |
//! | [`TaskError::Panicked`] | `PanicError` (`panicMessage`, `location`) |
//! | [`TaskError::WorkerCrashed`] | `WorkerCrashedError` |
//! | [`TaskError::TimedOut`], [`ShutdownTimeout`] | `TimeoutError` |

use crate::error::{BuildError, ShutdownTimeout, SubmitError, TaskError};
use crate::memory::OutOfMemory;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/web/errors.js")]
extern "C" {
    #[wasm_bindgen(js_name = makeError)]
    fn make_error(kind: ErrorKind, message: &str, location: Option<String>) -> JsValue;
    #[wasm_bindgen(js_name = errorClasses)]
    fn error_classes_js() -> JsValue;
    #[wasm_bindgen(js_name = outOfMemoryError)]
    fn out_of_memory_error(message: &str, needed: f64, in_use: f64, maximum: f64) -> JsValue;
}

/// Which JS error to make: a built-in `TypeError`/`RangeError` (bad input, naming it) or one
/// of the package's classes. wasm-bindgen hands `makeError` in `errors.js` the variant's string,
/// the `code` the class carries (the codes are part of the JS API), so they are written once.
#[wasm_bindgen(skip_typescript)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ErrorKind {
    Type = "TYPE",
    Range = "RANGE",
    QueueFull = "QUEUE_FULL",
    PoolClosed = "POOL_CLOSED",
    Cancelled = "CANCELLED",
    Timeout = "TIMEOUT",
    Panic = "PANIC",
    WorkerCrashed = "WORKER_CRASHED",
    NotIsolated = "NOT_ISOLATED",
    PoolOverload = "POOL_OVERLOAD",
}

/// The headers that make a page cross-origin isolated, for every message that needs them.
pub(crate) const ISOLATION_HEADERS: &str = "serve the page with \"Cross-Origin-Opener-Policy: same-origin\" and \
    \"Cross-Origin-Embedder-Policy: require-corp\" (or \"credentialless\"), or, where embeds break under COEP, \
    with \"Document-Isolation-Policy: isolate-and-credentialless\" (Chromium)";

/// `what` needs shared memory, which this pool does not have: why, and how to get it.
pub(crate) fn not_isolated(what: &str) -> String {
    format!("{what}: this pool runs in message mode (each worker has its own memory) because the page is not \
        cross-origin isolated or mode 'message' was asked for; for shared memory {ISOLATION_HEADERS}")
}

/// The JS error classes (`PanicError`, `QueueFullError`, …), for the package entry to re-export.
#[wasm_bindgen(js_name = errorClasses)]
pub fn error_classes() -> JsValue {
    error_classes_js()
}

/// The JS error for a task error: `PanicError`, `WorkerCrashedError`, `TimeoutError`, ….
pub fn task_error_to_js(err: &TaskError) -> JsValue {
    match err {
        TaskError::Panicked { message, location } => make_error(ErrorKind::Panic, message, location.clone()),
        TaskError::WorkerCrashed => make_error(ErrorKind::WorkerCrashed, &err.to_string(), None),
        TaskError::Cancelled => make_error(ErrorKind::Cancelled, "", None),
        TaskError::TimedOut => make_error(ErrorKind::Timeout, "", None),
        TaskError::PoolClosed => make_error(ErrorKind::PoolClosed, "", None),
        TaskError::OutOfMemory(oom) => out_of_memory_to_js(oom, &oom.to_string()),
    }
}

/// `OutOfMemoryError` (a `RangeError` with code `OUT_OF_MEMORY`) saying `message`.
pub(crate) fn out_of_memory_to_js(oom: &OutOfMemory, message: &str) -> JsValue {
    out_of_memory_error(message, oom.needed as f64, oom.in_use as f64, oom.maximum as f64)
}

/// The JS error for a value that cannot cross: `TypeError`, `RangeError` or `OutOfMemoryError`.
pub(crate) fn codec_error_to_js(e: &crate::value::CodecError) -> JsValue {
    match e {
        crate::value::CodecError::OutOfMemory { oom, .. } => out_of_memory_to_js(oom, &e.to_string()),
        e if e.is_type_error() => js_error(ErrorKind::Type, &e.to_string()),
        e => js_error(ErrorKind::Range, &e.to_string()),
    }
}

/// A plain `TypeError` or `RangeError`, or one of the package's error classes.
pub(crate) fn js_error(kind: ErrorKind, message: &str) -> JsValue {
    make_error(kind, message, None)
}

/// The JS error for a refused pool: `RangeError` for a bad size, `OutOfMemoryError`, else `Error`.
pub(crate) fn build_error_to_js(e: &BuildError) -> JsValue {
    match e {
        BuildError::Workers(_) | BuildError::QueueCapacity(_) => js_error(ErrorKind::Range, &e.to_string()),
        BuildError::OutOfMemory(oom) => out_of_memory_to_js(oom, &e.to_string()),
        BuildError::NotIsolated(_) => js_error(ErrorKind::NotIsolated, &e.to_string()),
        BuildError::MemoryNotShared | BuildError::Spawn(_) => js_sys::Error::new(&e.to_string()).into(),
    }
}

impl From<BuildError> for JsValue {
    fn from(e: BuildError) -> JsValue {
        build_error_to_js(&e)
    }
}

impl From<TaskError> for JsValue {
    fn from(e: TaskError) -> JsValue {
        task_error_to_js(&e)
    }
}

/// The JS error for a refused submission, the one mapping of [`SubmitError`] (a refused
/// `trySubmit`, `submit`, `broadcast`, or a Rust API call's `?`).
pub(crate) fn submit_error_to_js<F>(e: &SubmitError<F>) -> JsValue {
    match e {
        SubmitError::QueueFull(_) => make_error(ErrorKind::QueueFull, "", None),
        SubmitError::Closed(_) => make_error(ErrorKind::PoolClosed, "", None),
        SubmitError::Cancelled(_) => make_error(ErrorKind::Cancelled, &e.to_string(), None),
        SubmitError::OutOfMemory(_, oom) => out_of_memory_to_js(oom, &format!("the task does not fit in memory: {oom}")),
        SubmitError::Overloaded(_) => make_error(ErrorKind::PoolOverload, &e.to_string(), None),
    }
}

/// The closure is dropped: match on the error first to get it back.
impl<F> From<SubmitError<F>> for JsValue {
    fn from(e: SubmitError<F>) -> JsValue {
        submit_error_to_js(&e)
    }
}

impl From<ShutdownTimeout> for JsValue {
    fn from(e: ShutdownTimeout) -> JsValue {
        make_error(ErrorKind::Timeout, &e.to_string(), None)
    }
}

impl From<OutOfMemory> for JsValue {
    fn from(e: OutOfMemory) -> JsValue {
        out_of_memory_to_js(&e, &e.to_string())
    }
}
