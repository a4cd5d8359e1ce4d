//! JS-function tasks: the function travels as source, is compiled once per worker (bounded
//! JS-side cache) and called with the decoded arguments. An `async` function (any thenable result)
//! suspends the worker loop: the worker returns to its event loop, awaits, then finishes the
//! task and re-enters the loop (see `worker.js`). The worker stays busy meanwhile.
//!
//! `this` inside the function is a context: `this.isCancelled()` turns true once the task was
//! settled by cancellation, its timeout or a forced shutdown (its result will be dropped), and
//! `this.signal` is an `AbortSignal` that aborts then, while the task awaits.

use crate::task::Ran;
use crate::value::Value;
use crate::web::codec::to_js;
use crate::web::outcome::{outcome_of, thrown, JsOutcome, NOT_CAPTURED};
use js_sys::Array;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/web/worker/compile.js")]
extern "C" {
    #[wasm_bindgen(js_name = compileCached, catch)]
    fn compile_cached(id: f64, source: &str) -> Result<(), JsValue>;
}

#[wasm_bindgen(module = "/src/web/worker/jsfn.js")]
extern "C" {
    #[wasm_bindgen(js_name = runTask)]
    #[allow(clippy::too_many_arguments)]
    fn run_task(id: f64, name: Option<&str>, addr: u32, n: u32, a0: &JsValue, a1: &JsValue, rest: &JsValue, handover: u32, routed: bool) -> JsValue;
    /// What `runTask` returns when the task did not simply return a value.
    #[wasm_bindgen(js_name = Ran)]
    type JsRan;
    #[wasm_bindgen(method, getter)]
    fn kind(this: &JsRan) -> RunTask;
    #[wasm_bindgen(method, getter)]
    fn value(this: &JsRan) -> JsValue;
    #[wasm_bindgen(js_name = setTaskMemory)]
    fn set_task_memory(memory: &JsValue);
}


/// What a submission from JS runs: made by the API (`api/submission.rs`), run here on a
/// worker. Held inline in its task (no second allocation), and with up to two arguments inline
/// too: a no-op task then frees nothing on the worker, whose frees would contend with the
/// owner's allocations for the one heap lock.
pub(crate) enum Body {
    /// A JS function, by source.
    Source(Source, Args),
    /// An export of the pool's task module.
    Named(String, Args),
    /// A `Task` made by Rust.
    Rust(RustBody),
    /// A `Task` made by Rust, for a pool in message mode: made again on the worker from the
    /// export that made it and its arguments (`Task::remade_by`).
    Remade(Recipe),
}

/// The `#[wasm_bindgen]` export (its JS name) that made a Rust `Task`, and its arguments.
#[derive(Clone, Debug)]
pub(crate) struct Recipe {
    pub(crate) export: String,
    pub(crate) args: Vec<Value>,
}

/// What a request to a worker of a message-mode pool runs (`worker/posted.js` reads it);
/// wasm-bindgen hands JS the variant's string.
#[wasm_bindgen(skip_typescript)]
#[derive(Clone, Copy, PartialEq, Eq)]
enum Request {
    /// A JS function: `[kind, source id, source, args, handover]`.
    Source = "source",
    /// An export of the task module: `[kind, name, null, args, handover]`.
    Named = "named",
    /// A Rust `Task` made again by its export: `[kind, export, null, args, 0]`.
    Remade = "remade",
}

fn request(kind: Request, what: JsValue, source: JsValue, args: &[Value], handover: u32) -> JsValue {
    let args: Array = args.iter().map(to_js).collect();
    let kind: JsValue = kind.into();
    Array::of5(&kind, &what, &source, &args, &handover.into()).into()
}

/// What a Rust-made task runs on a worker.
pub(crate) type RustBody = Box<dyn FnOnce() -> JsOutcome + Send>;

impl crate::task::Body<JsOutcome, JsOutcome, JsValue> for Body {
    fn run(self) -> Ran<JsOutcome, JsValue> {
        match self {
            Body::Source(source, args) => run(source.id, &source.text, args.as_slice(), args.handover),
            Body::Named(name, args) => run_named(&name, args.as_slice(), args.handover),
            Body::Rust(f) => Ran::Returned(f()),
            Body::Remade(_) => unreachable!("a message-mode body is only posted"),
        }
    }

    /// The request a worker of a message-mode pool runs (owner/message.rs posts it).
    fn remote(self) -> Result<JsValue, Self> {
        Ok(match self {
            Body::Source(source, args) => {
                request(Request::Source, source.id.into(), source.text.as_str().into(), args.as_slice(), args.handover.id)
            }
            Body::Named(name, args) => request(Request::Named, name.into(), JsValue::NULL, args.as_slice(), args.handover.id),
            Body::Remade(recipe) => request(Request::Remade, recipe.export.into(), JsValue::NULL, &recipe.args, 0),
            Body::Rust(f) => return Err(Body::Rust(f)),
        })
    }

    /// A JS function's promise settled: its outcome is the task's result.
    fn resumed(value: JsOutcome) -> Option<JsOutcome> {
        Some(value)
    }
}

/// A task function's source, checked to be sendable (`api/submission.rs`, `source_of`), and an
/// id no other source ever gets, under which workers cache the compiled function (a number to
/// look up, not a string to hash).
#[derive(Clone)]
pub(crate) struct Source {
    pub(crate) id: f64,
    /// A `String` behind the `Arc`, not an `Arc<str>`: that would copy the text again, and
    /// infallibly (`src/memory.rs`).
    pub(crate) text: std::sync::Arc<String>,
}

/// A task's arguments (two or fewer need no allocation), and the handover their
/// `Value::Transferred` refer to.
pub(crate) struct Args {
    values: ArgValues,
    handover: Handover,
}

pub(crate) enum ArgValues {
    Few(usize, [Value; 2]),
    Many(Vec<Value>),
}

impl Args {
    pub(crate) fn new(values: ArgValues, handover: Handover) -> Self {
        Args { values, handover }
    }

    pub(crate) fn as_slice(&self) -> &[Value] {
        match &self.values {
            ArgValues::Few(n, values) => &values[..*n],
            ArgValues::Many(values) => values,
        }
    }
}

/// The buffers a task's arguments hand over (`options.transfer`): the handover id they come
/// under (0: none), and whether they are posted to the task's worker (routed) or claimed by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Handover {
    pub(crate) id: u32,
    pub(crate) routed: bool,
}

impl Handover {
    pub(crate) const NONE: Handover = Handover { id: 0, routed: false };
}

/// The body of a JS-function task, run on a worker.
fn run(id: f64, source: &str, args: &[Value], handover: Handover) -> Ran<JsOutcome, JsValue> {
    match call(id, None, args, handover) {
        Some(ran) => ran,
        None => match compile_cached(id, source) {
            Ok(_) => call(id, None, args, handover).expect("the function was just cached"),
            Err(e) => Ran::Failed(does_not_compile(&e)),
        },
    }
}

/// The task function's source did not compile in a worker (`e`: what compiling threw).
pub(crate) fn does_not_compile(e: &JsValue) -> JsOutcome {
    let detail = match thrown(e, false) {
        JsOutcome::Thrown(v) => v,
        _ => Value::Undefined,
    };
    let message = match &detail {
        Value::Error { name, message, .. } => format!("{name}: {message}"),
        _ => crate::web::codec::describe_throw(e),
    };
    let hint = if matches!(&detail, Value::Error { name, .. } if name == "EvalError") {
        "JS-function tasks are compiled from source like eval, which this page's Content-Security-Policy \
         forbids; load your tasks with Pool.create({ module: url }) and submit them by export name"
    } else {
        NOT_CAPTURED
    };
    thrown_type_error(format!("the task function does not compile in the worker ({message}); {hint}"))
}

/// The task module has no function export `name` in the worker.
pub(crate) fn no_export(name: &str) -> JsOutcome {
    thrown_type_error(format!("the task module has no function export named {name:?} in this worker"))
}

/// The body of a task given by name: that export of the task module, run on a worker.
fn run_named(name: &str, args: &[Value], handover: Handover) -> Ran<JsOutcome, JsValue> {
    call(0.0, Some(name), args, handover).unwrap_or_else(|| Ran::Failed(no_export(name)))
}

fn thrown_type_error(message: String) -> JsOutcome {
    JsOutcome::Thrown(Value::Error { name: "TypeError".into(), message, stack: String::new() })
}

/// What `runTask` in `jsfn.js` did when it returns a `Ran` (`kind`): wasm-bindgen turns the JS
/// string into this enum, so the names are written once, here. A plain value: it returned.
#[wasm_bindgen(skip_typescript)]
#[derive(Clone, Copy, PartialEq, Eq)]
enum RunTask {
    Threw = "threw",
    /// It returned a thenable: the worker awaits it.
    Thenable = "thenable",
    /// The function is not compiled in this worker yet (or the module has no such export).
    NotFound = "not-found",
    /// The worker's view of the state words must be remade (the memory grew).
    StaleMemory = "stale-memory",
}

/// Calls the task function (compiled source `id`, or export `name`) with `this` = its context;
/// a thenable result suspends the worker. `None`: no such function in this worker (yet).
fn call(id: f64, name: Option<&str>, args: &[Value], handover: Handover) -> Option<Ran<JsOutcome, JsValue>> {
    let addr = crate::task::current_state_addr() as u32;
    let (a0, a1, rest) = match args {
        [] => (JsValue::UNDEFINED, JsValue::UNDEFINED, JsValue::UNDEFINED),
        [a] => (to_js(a), JsValue::UNDEFINED, JsValue::UNDEFINED),
        [a, b] => (to_js(a), to_js(b), JsValue::UNDEFINED),
        _ => (JsValue::UNDEFINED, JsValue::UNDEFINED, args.iter().map(to_js).collect::<Array>().into()),
    };
    let run = || {
        let result = run_task(id, name, addr, args.len() as u32, &a0, &a1, &rest, handover.id, handover.routed);
        let kind = result.dyn_ref::<JsRan>().map(JsRan::kind);
        (result, kind)
    };
    let (mut result, mut kind) = run();
    if kind == Some(RunTask::StaleMemory) {
        set_task_memory(&wasm_bindgen::memory());
        (result, kind) = run();
    }
    let Some(kind) = kind else {
        return Some(match outcome_of(true, &result) {
            (outcome, false) => Ran::Returned(outcome),
            (outcome, true) => Ran::Failed(outcome),
        });
    };
    let value = || result.unchecked_ref::<JsRan>().value();
    Some(match kind {
        RunTask::Threw => Ran::Failed(thrown(&value(), true)),
        RunTask::Thenable => Ran::Suspended(value()),
        RunTask::NotFound | RunTask::StaleMemory => return None,
        RunTask::__Invalid => unreachable!("jsfn.js runTask reported an outcome RunTask does not name"),
    })
}
