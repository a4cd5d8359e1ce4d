//! wasm32 only: the workers, promises and the `#[wasm_bindgen]` API.

pub(crate) mod backend;
mod js;

pub use backend::Doorbell;
pub use js::{JsPool, Task, Value};

use crate::error::TaskError;
use crate::task::TaskHandle;
use crate::WorkerPool;
use js_sys::Promise;
use std::panic::AssertUnwindSafe;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/web/errors.js")]
extern "C" {
    #[wasm_bindgen(js_name = makeError)]
    fn make_error(kind: &str, message: &str, location: Option<String>) -> JsValue;
    #[wasm_bindgen(js_name = errorClasses)]
    fn error_classes_js() -> JsValue;
}

/// The JS error classes (`PanicError`, `QueueFullError`, …), for the package entry to re-export.
#[wasm_bindgen(js_name = errorClasses)]
pub fn error_classes() -> JsValue {
    error_classes_js()
}

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

/// The JS error for a task error: `PanicError`, `WorkerCrashedError`, `TimeoutError`, ….
pub fn task_error_to_js(err: &TaskError) -> JsValue {
    match err {
        TaskError::Panicked { message, location } => make_error("PANIC", message, location.clone()),
        TaskError::WorkerCrashed => make_error("WORKER_CRASHED", "", None),
        TaskError::Cancelled => make_error("CANCELLED", "", None),
        TaskError::TimedOut => make_error("TIMEOUT", "", None),
        TaskError::PoolClosed => make_error("POOL_CLOSED", "", None),
    }
}

pub(crate) fn js_error(kind: &str, message: &str) -> JsValue {
    make_error(kind, message, None)
}

impl<T: Send + 'static> TaskHandle<T> {
    /// A `Promise` that settles with the task: fulfilled with `convert(value)`, rejected with the
    /// matching error class. Must be called on the thread that created the pool; the promise is
    /// resolved from the pool's batched completion drain, with no per-task wake-up.
    pub fn into_promise_with(self, convert: impl FnOnce(T) -> JsValue + 'static) -> Promise {
        let mut state = Some((self.task, convert));
        let mut state = AssertUnwindSafe(&mut state);
        Promise::new(&mut move |resolve, reject| {
            let state = &mut state;
            let (task, convert) = state.0.take().expect("the executor runs once");
            let settle = {
                let task = task.clone();
                move || match task.take_result() {
                    Some(Ok(v)) => drop(resolve.call1(&JsValue::UNDEFINED, &convert(v))),
                    Some(Err(e)) => drop(reject.call1(&JsValue::UNDEFINED, &task_error_to_js(&e))),
                    None => {}
                }
            };
            if task.header().is_settled() && task_is_done(&*task) {
                settle();
            } else {
                task.header().on_main.set(Some(Box::new(settle)));
            }
        })
    }

    /// [`into_promise_with`](Self::into_promise_with) for values that convert into `JsValue`.
    pub fn into_promise(self) -> Promise
    where
        T: Into<JsValue>,
    {
        self.into_promise_with(Into::into)
    }
}

/// Whether the result is written (not merely being written by another thread).
fn task_is_done<T>(task: &dyn crate::task::Output<T>) -> bool {
    task.header().is_done()
}

impl WorkerPool {
    /// Like [`WorkerPool::new`], choosing how workers signal completions (for measurements).
    pub fn with_doorbell(workers: usize, queue_capacity: usize, doorbell: Doorbell) -> Result<Self, crate::BuildError> {
        Self::build(workers, queue_capacity, |shared| backend::Backend::start_with(shared, doorbell))
    }

    /// Resolves when every worker has started (the pool accepts tasks before that).
    pub fn ready(&self) -> Promise {
        let main = AssertUnwindSafe(self.backend.main().clone());
        let workers = self.shared.workers;
        Promise::new(&mut |resolve, reject| {
            let main = &main.0;
            if let Some(err) = main.start_error.borrow().clone() {
                drop(reject.call1(&JsValue::UNDEFINED, &js_sys::Error::new(&err)));
            } else if main.ready.get() == workers {
                drop(resolve.call0(&JsValue::UNDEFINED));
            } else {
                main.on_ready.borrow_mut().push(Box::new(move |r| match r {
                    Ok(()) => drop(resolve.call0(&JsValue::UNDEFINED)),
                    Err(e) => drop(reject.call1(&JsValue::UNDEFINED, &js_sys::Error::new(&e))),
                }));
            }
        })
    }

    /// Workers replaced after a crash so far.
    pub fn workers_replaced(&self) -> u64 {
        self.backend.main().replaced()
    }
}
