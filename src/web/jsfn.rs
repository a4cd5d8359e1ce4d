//! JS-function tasks: the function travels as source, is compiled once per worker (bounded
//! JS-side cache) and called with the decoded arguments. An `async` function (any thenable result)
//! suspends the worker loop: the worker returns to its event loop, awaits, then finishes the
//! task and re-enters the loop (see `worker.js`). The worker stays busy meanwhile.
//!
//! `this` inside the function is a context: `this.isCancelled()` turns true once the task was
//! settled by cancellation, its timeout or a forced shutdown (its result will be dropped), and
//! `this.signal` is an `AbortSignal` that aborts then, while the task awaits.

use super::codec::{error_of, from_js, to_js};
use crate::value::{Budget, CodecError, Value};
use js_sys::{Array, Function};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(inline_js = "
export function compileTask(source) {
  let f;
  try {
    f = new Function('return (' + source + '\\n)')();
  } catch (e) {
    // A method of an object literal (`{ resize(img) { … } }.resize`) has method source.
    if (!(e instanceof SyntaxError)) throw e;
    try { f = Object.values(new Function('return ({' + source + '\\n})')())[0]; } catch { throw e; }
  }
  if (typeof f !== 'function') throw new TypeError('the task source is not a function');
  return f;
}
// Compiled task functions of this worker, by submission source id and by source text. They
// live in the worker's JS heap, so a worker that dies in a trap takes them along (a Rust
// thread-local cache would leak its heap memory with the dead thread).
const byId = new Map(), bySource = new Map();
export function cachedTask(id) { return byId.get(id); }
export function compileCached(id, source) {
  let f = bySource.get(source);
  if (f === undefined) {
    f = compileTask(source);
    if (bySource.size >= 256) bySource.clear();
    bySource.set(source, f);
  }
  if (byId.size >= 1024) byId.clear();
  byId.set(id, f);
  return f;
}
// Reading `then` can throw (a revoked proxy): then it is not a thenable, and the codec
// refuses the value with a TypeError.
export function isThenable(v) {
  try { return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof v.then === 'function'; } catch { return false; }
}
// `this` of a task function: `signal` aborts when the task is settled by someone else
// (cancellation, timeout, force) while it awaits; `isCancelled()` reads the task's state word
// in shared memory, so it works inside a synchronous loop too. `addr` holds 1 while running.
export function makeContext(memory, addr) {
  const cells = new Int32Array(memory.buffer), idx = addr >>> 2;
  let controller = null, live = true, cancelled = false, watching = false;
  const isCancelled = () => {
    if (live && !cancelled && Atomics.load(cells, idx) !== 1) cancelled = true;
    return cancelled;
  };
  const context = Object.freeze({
    isCancelled,
    // Made on first use: most tasks never look at it.
    get signal() {
      if (controller === null) {
        controller = new AbortController();
        if (isCancelled()) controller.abort();
      }
      return controller.signal;
    },
  });
  const watch = () => {
    watching = true;
    if (!live) return;
    if (isCancelled()) { controller?.abort(); return; }
    const r = Atomics.waitAsync(cells, idx, 1);
    if (r.async) r.value.then(watch); else watch();
  };
  const finish = () => {
    isCancelled();
    live = false;
    if (watching) Atomics.notify(cells, idx);
  };
  return { context, watch, finish };
}
export function functionSource(f) {
  const src = Function.prototype.toString.call(f);
  if (/\\{\\s*\\[native code\\]\\s*\\}\\s*$/.test(src)) return null;
  return src;
}
")]
extern "C" {
    #[wasm_bindgen(js_name = cachedTask)]
    fn cached_task(id: f64) -> JsValue;
    #[wasm_bindgen(js_name = compileCached, catch)]
    fn compile_cached(id: f64, source: &str) -> Result<Function, JsValue>;
    #[wasm_bindgen(js_name = isThenable)]
    fn is_thenable(v: &JsValue) -> bool;
    #[wasm_bindgen(js_name = makeContext)]
    fn make_context(memory: &JsValue, addr: u32) -> ContextParts;
    type ContextParts;
    #[wasm_bindgen(method, getter)]
    fn context(this: &ContextParts) -> JsValue;
    #[wasm_bindgen(method)]
    fn watch(this: &ContextParts);
    #[wasm_bindgen(method)]
    fn finish(this: &ContextParts);
    #[wasm_bindgen(js_name = functionSource, catch)]
    fn function_source_js(f: &JsValue) -> Result<Option<String>, JsValue>;
}

#[wasm_bindgen(module = "/src/web/worker.js")]
extern "C" {
    #[wasm_bindgen(js_name = taskExport)]
    fn task_export(name: &str) -> JsValue;
}

/// The source of a sendable function; `None` for native, bound and proxied functions.
pub(crate) fn function_source(f: &JsValue) -> Option<String> {
    function_source_js(f).ok().flatten()
}

/// What a JS task produced, in a form that crosses threads.
#[derive(Debug)]
pub(crate) enum JsOutcome {
    Returned(Value),
    Thrown(Value),
    /// Placeholder while the body waits for a promise (never delivered).
    Pending,
}

std::thread_local! {
    /// The promise a suspended task waits for, until `worker.js` takes it.
    static SUSPENDED: RefCell<Option<JsValue>> = const { RefCell::new(None) };
    /// The context of the suspended task, finished when it resumes.
    static SUSPENDED_CONTEXT: RefCell<Option<ContextParts>> = const { RefCell::new(None) };
}

const NOT_CAPTURED: &str = "task functions are sent as source and compiled in each worker, so variables \
    from the enclosing scope are not captured; pass them in args";

/// The worker's compiled function for submission source `id` (see `compileCached`).
fn compiled(id: f64, source: &str) -> Result<Function, JsValue> {
    match cached_task(id).dyn_into::<Function>() {
        Ok(f) => Ok(f),
        Err(_) => compile_cached(id, source),
    }
}

fn error_value(e: &JsValue, hint_closures: bool) -> Value {
    let memory = wasm_bindgen::memory();
    match from_js(e, "error", &mut Budget::default(), &|_| None) {
        Ok(Value::Error { name, mut message, stack }) => {
            if hint_closures && name == "ReferenceError" {
                message = format!("{message} ({NOT_CAPTURED})");
            }
            Value::Error { name, message, stack }
        }
        Ok(other) => other,
        Err(_) => {
            let _ = memory;
            Value::String(format!("{e:?}"))
        }
    }
}

fn codec_error_value(e: &CodecError) -> Value {
    let name = if e.is_type_error() { "TypeError" } else { "RangeError" };
    Value::Error { name: name.into(), message: e.to_string(), stack: String::new() }
}

/// Turns a value the task returned (or a promise settled with) into an outcome.
pub(crate) fn outcome_of(ok: bool, v: &JsValue) -> (JsOutcome, bool) {
    if !ok {
        return (JsOutcome::Thrown(error_value(v, true)), true);
    }
    match from_js(v, "result", &mut Budget::default(), &super::pool_view_offset) {
        Ok(value) => (JsOutcome::Returned(value), false),
        Err(e) => (JsOutcome::Thrown(codec_error_value(&e)), true),
    }
}

/// The body of a JS-function task, run on a worker.
pub(crate) fn run(id: f64, source: &str, args: &[Value]) -> JsOutcome {
    match compiled(id, source) {
        Ok(f) => call(&f, args),
        Err(e) => {
            crate::task::mark_failed();
            let detail = error_value(&e, false);
            let message = match &detail {
                Value::Error { name, message, .. } => format!("{name}: {message}"),
                other => format!("{other:?}"),
            };
            let hint = if matches!(&detail, Value::Error { name, .. } if name == "EvalError") {
                "JS-function tasks are compiled from source like eval, which this page's Content-Security-Policy \
                 forbids; load your tasks with Pool.create({ module: url }) and submit them by export name"
            } else {
                NOT_CAPTURED
            };
            thrown_type_error(format!("the task function does not compile in the worker ({message}); {hint}"))
        }
    }
}

/// The body of a task given by name: that export of the task module, run on a worker.
pub(crate) fn run_named(name: &str, args: &[Value]) -> JsOutcome {
    let f = task_export(name);
    match f.dyn_ref::<Function>() {
        Some(f) => call(f, args),
        None => {
            crate::task::mark_failed();
            thrown_type_error(format!("the task module has no function export named {name:?} in this worker"))
        }
    }
}

fn thrown_type_error(message: String) -> JsOutcome {
    JsOutcome::Thrown(Value::Error { name: "TypeError".into(), message, stack: String::new() })
}

/// Calls a task function with `this` = its context; a thenable result suspends the worker.
fn call(f: &Function, args: &[Value]) -> JsOutcome {
    let memory = wasm_bindgen::memory();
    let js_args: Array = args.iter().map(|a| to_js(a, &memory)).collect();
    let parts = make_context(&memory, crate::task::current_state_addr() as u32);
    let result = f.apply(&parts.context(), &js_args);
    if matches!(&result, Ok(r) if is_thenable(r)) {
        parts.watch();
        SUSPENDED_CONTEXT.with(|s| *s.borrow_mut() = Some(parts));
    } else {
        parts.finish();
    }
    match result {
        Ok(r) if is_thenable(&r) => {
            SUSPENDED.with(|s| *s.borrow_mut() = Some(r));
            crate::task::mark_suspended();
            JsOutcome::Pending
        }
        Ok(r) => {
            let (outcome, failed) = outcome_of(true, &r);
            if failed {
                crate::task::mark_failed();
            }
            outcome
        }
        Err(e) => {
            crate::task::mark_failed();
            JsOutcome::Thrown(error_value(&e, true))
        }
    }
}

/// On the owner thread: the promise value or rejection for an outcome.
pub(crate) fn outcome_to_js(o: JsOutcome) -> Result<JsValue, JsValue> {
    let memory = wasm_bindgen::memory();
    match o {
        JsOutcome::Returned(v) => Ok(to_js(&v, &memory)),
        JsOutcome::Thrown(v) => Err(to_js(&v, &memory)),
        JsOutcome::Pending => Err(error_of("Error", "internal: a suspended task was delivered", "")),
    }
}

/// The suspended task's promise settled: its context stops watching.
pub(crate) fn finish_suspended_context() {
    if let Some(parts) = SUSPENDED_CONTEXT.with(|s| s.borrow_mut().take()) {
        parts.finish();
    }
}

/// The promise the suspended task waits for (called by `worker.js`).
#[doc(hidden)]
#[wasm_bindgen(js_name = ringpool_worker_suspended, skip_typescript)]
pub fn take_suspended() -> JsValue {
    SUSPENDED.with(|s| s.borrow_mut().take()).unwrap_or(JsValue::UNDEFINED)
}
