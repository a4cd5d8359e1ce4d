//! How a JS task ended, in a form that crosses threads: made on the worker from what the task
//! returned, threw or settled with (`outcome_of`), and turned into the promise's value or
//! rejection on the owner thread (`outcome_to_js`). It is the web back end's
//! `Backend::Resumed`: what a suspended body resumes with.

use crate::value::{Budget, CodecError, Value};
use crate::web::codec::{from_js, to_js};
use crate::web::errors::codec_error_to_js;
use wasm_bindgen::prelude::*;

/// What a JS task produced, in a form that crosses threads.
#[derive(Debug)]
pub(crate) enum JsOutcome {
    Returned(Value),
    Thrown(Value),
    /// Its result (or the value it threw) cannot cross: a `TypeError`, a `RangeError`, or
    /// the out-of-memory error when the memory cannot hold it.
    Unsendable(CodecError),
    /// A Rust value that becomes a JS value on the owner thread ([`Task::serde`](crate::web::Task::serde)).
    Local(Box<dyn IntoJs>),
}

/// A value made on a worker that turns into a JS value on the thread that owns the pool.
pub(crate) trait IntoJs: Send {
    fn into_js(self: Box<Self>) -> Result<JsValue, JsValue>;
}

impl std::fmt::Debug for dyn IntoJs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IntoJs(..)")
    }
}

pub(crate) const NOT_CAPTURED: &str = "task functions are sent as source and compiled in each worker, so variables \
    from the enclosing scope are not captured; pass them in args";

/// What the task threw, as an outcome: the value if it can cross, else why not.
pub(crate) fn thrown(e: &JsValue, hint_closures: bool) -> JsOutcome {
    match from_js(e, "error", &mut Budget::default(), &|_| None) {
        Ok(Value::Error { name, message, stack }) => thrown_error(name, message, stack, hint_closures),
        Ok(other) => JsOutcome::Thrown(other),
        Err(e) => JsOutcome::Unsendable(e),
    }
}

/// An `Error` the task threw, as an outcome; with `hint_closures`, a `ReferenceError` says
/// that task functions capture no outer variables.
pub(crate) fn thrown_error(name: String, mut message: String, stack: String, hint_closures: bool) -> JsOutcome {
    if hint_closures && name == "ReferenceError" {
        message = format!("{message} ({NOT_CAPTURED})");
    }
    JsOutcome::Thrown(Value::Error { name, message, stack })
}

/// Turns a value the task returned (or a promise settled with) into an outcome.
pub(crate) fn outcome_of(ok: bool, v: &JsValue) -> (JsOutcome, bool) {
    if !ok {
        return (thrown(v, true), true);
    }
    match from_js(v, "result", &mut Budget::default(), &crate::web::memory_views::pool_view_offset) {
        Ok(value) => (JsOutcome::Returned(value), false),
        Err(e) => (JsOutcome::Unsendable(e), true),
    }
}

/// On the owner thread: the promise value or rejection for an outcome.
pub(crate) fn outcome_to_js(o: JsOutcome) -> Result<JsValue, JsValue> {
    match o {
        JsOutcome::Returned(v) => Ok(to_js(&v)),
        JsOutcome::Thrown(v) => Err(to_js(&v)),
        JsOutcome::Unsendable(e) => Err(codec_error_to_js(&e)),
        JsOutcome::Local(v) => v.into_js(),
    }
}

