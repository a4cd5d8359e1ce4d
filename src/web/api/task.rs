//! Tasks made by Rust for `pool.trySubmit`: [`Task`] (your crate's `#[wasm_bindgen]`
//! functions return one), and the package's `diagnostics.*` tasks built with it.

use crate::web::outcome::{self, JsOutcome};
use crate::web::worker::jsfn::{Recipe, RustBody};
use crate::value::Value;
use wasm_bindgen::prelude::*;


/// A task made by Rust (`diagnostics.*`, `image.*`, or your own crate) for `pool.trySubmit`.
/// Submitting it consumes it.
#[wasm_bindgen]
pub struct Task {
    pub(crate) body: RustBody,
    /// How a worker with its own memory makes it again (message mode).
    pub(crate) recipe: Option<Recipe>,
}

impl Task {
    /// Wraps a closure as a JS-submittable task; its [`Value`] is what the promise gets.
    pub fn new(f: impl FnOnce() -> Value + Send + 'static) -> Task {
        Task { body: Box::new(move || JsOutcome::Returned(f())), recipe: None }
    }

    /// Names the `#[wasm_bindgen]` export (its JS name) and the arguments that make this task
    /// again. A pool in message mode (a page that is not cross-origin isolated) cannot send a
    /// Rust closure to a worker, whose memory is its own: it calls `export(...args)` on the
    /// worker instead, and runs the task that makes. Without this, such a pool refuses the task
    /// with `NotIsolatedError`.
    ///
    /// ```no_run
    /// use ringpool::web::{Task, Value};
    /// use wasm_bindgen::prelude::*;
    ///
    /// #[wasm_bindgen]
    /// pub fn square(x: f64) -> Task {
    ///     Task::serde(move || x * x).remade_by("square", vec![Value::Number(x)])
    /// }
    /// ```
    pub fn remade_by(mut self, export: &str, args: Vec<Value>) -> Task {
        self.recipe = Some(Recipe { export: export.to_owned(), args });
        self
    }

    /// A task whose result is any `T: Serialize`: a worker runs `f`, and the thread that owns
    /// the pool turns the `T` into a JS value with serde-wasm-bindgen (JSON-compatible: structs
    /// and maps become plain objects, `Option::None` becomes `null`) when it settles the promise.
    /// A panic in `f` rejects with `PanicError`; a `T` that cannot be serialized rejects with
    /// serde-wasm-bindgen's `Error`.
    ///
    /// ```no_run
    /// use ringpool::web::Task;
    /// use wasm_bindgen::prelude::*;
    ///
    /// #[derive(serde::Deserialize)]
    /// struct Args { values: Vec<f64>, scale: f64 }
    ///
    /// #[derive(serde::Serialize)]
    /// struct Scaled { values: Vec<f64>, sum: f64 }
    ///
    /// /// JS: `await pool.trySubmit(scale({ values: [1, 2], scale: 2 }))`
    /// #[wasm_bindgen]
    /// pub fn scale(input: JsValue) -> Result<Task, JsValue> {
    ///     let args: Args = serde_wasm_bindgen::from_value(input)?; // on the caller's thread
    ///     Ok(Task::serde(move || {
    ///         let values: Vec<f64> = args.values.iter().map(|v| v * args.scale).collect();
    ///         Scaled { sum: values.iter().sum(), values }
    ///     }))
    /// }
    /// ```
    pub fn serde<T, F>(f: F) -> Task
    where
        F: FnOnce() -> T + Send + 'static,
        T: serde::Serialize + Send + 'static,
    {
        struct Serde<T>(T);
        impl<T: serde::Serialize + Send> outcome::IntoJs for Serde<T> {
            fn into_js(self: Box<Self>) -> Result<JsValue, JsValue> {
                let serializer = serde_wasm_bindgen::Serializer::json_compatible();
                self.0.serialize(&serializer).map_err(JsValue::from)
            }
        }
        Task { body: Box::new(move || JsOutcome::Local(Box::new(Serde(f())))), recipe: None }
    }
}

/// A task that panics with `message` (to test error handling).
#[wasm_bindgen(js_name = diagnosticsPanic)]
pub fn diagnostics_panic(message: String) -> Task {
    let args = vec![Value::String(message.clone())];
    Task::new(move || panic!("{message}")).remade_by("diagnosticsPanic", args)
}

/// A task that traps (crashes its worker; the pool replaces it).
#[wasm_bindgen(js_name = diagnosticsTrap)]
pub fn diagnostics_trap() -> Task {
    Task::new(|| core::arch::wasm32::unreachable()).remade_by("diagnosticsTrap", Vec::new())
}

/// A task that busy-waits for `ms` milliseconds (or until cancelled) and returns the time it
/// spun.
#[wasm_bindgen(js_name = diagnosticsSpin)]
pub fn diagnostics_spin(ms: f64) -> Task {
    Task::serde(move || {
        let start = js_sys::Date::now();
        while js_sys::Date::now() - start < ms && !crate::task::is_cancelled() {
            std::hint::spin_loop();
        }
        js_sys::Date::now() - start
    })
    .remade_by("diagnosticsSpin", vec![Value::Number(ms)])
}

/// A task that allocates and fills `bytes` bytes of the shared memory (infallibly, as any Rust
/// code does) and returns how many: past what the memory can hold it rejects with
/// `OutOfMemoryError` and the worker lives on (`src/memory.rs`).
#[wasm_bindgen(js_name = diagnosticsAlloc)]
pub fn diagnostics_alloc(bytes: f64) -> Task {
    let recipe = vec![Value::Number(bytes)];
    let bytes = bytes.max(0.0).min(usize::MAX as f64) as usize;
    Task::serde(move || {
        let block = vec![1u8; bytes];
        block.iter().map(|&b| b as f64).sum::<f64>()
    })
    .remade_by("diagnosticsAlloc", recipe)
}

/// A task that does nothing (for overhead measurements).
#[wasm_bindgen(js_name = diagnosticsNoop)]
pub fn diagnostics_noop() -> Task {
    Task::new(|| Value::Undefined).remade_by("diagnosticsNoop", Vec::new())
}

/// The index and incarnation id of the worker that runs it: `"index:id"`.
#[wasm_bindgen(js_name = diagnosticsWorker)]
pub fn diagnostics_worker() -> Task {
    Task::serde(|| {
        let index = crate::worker_loop::worker_index().unwrap_or(usize::MAX);
        let id = crate::worker_loop::worker_id().unwrap_or(0);
        format!("{index}:{id}")
    })
    .remade_by("diagnosticsWorker", Vec::new())
}
