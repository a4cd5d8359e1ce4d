//! wasm32 only: the workers, promises and the `#[wasm_bindgen]` API.
//!
//! From your own crate (start from `examples/app` in the repository, whose `npm run build`
//! writes a package exporting `Pool`, the error classes and your exports): every ringpool
//! error is `Into<JsValue>` as the package's JS error class (see the table in `errors.rs`:
//! `QueueFullError`, `PanicError`, …), and the pool, its handles and its shutdown may be held
//! across `.await` in an exported async fn.
//!
//! ```no_run
//! use ringpool::{web::Task, WorkerPool};
//! use wasm_bindgen::prelude::*;
//!
//! #[wasm_bindgen]
//! pub async fn total(n: u32) -> Result<f64, JsValue> {
//!     let pool = WorkerPool::new(3, 16)?;                  // BuildError -> RangeError, …
//!     let mut handles = Vec::new();
//!     for i in 0..n {
//!         handles.push(pool.try_submit(move || f64::from(i) * 2.0)?); // QueueFullError, …
//!     }
//!     let mut sum = 0.0;
//!     for h in handles {
//!         sum += h.await?;                                  // PanicError, WorkerCrashedError, …
//!     }
//!     pool.shutdown().await?;
//!     Ok(sum)
//! }
//!
//! /// JS: `await pool.trySubmit(square(4))` resolves with 16.
//! #[wasm_bindgen]
//! pub fn square(x: f64) -> Task {
//!     Task::serde(move || x * x)
//! }
//! ```

pub(crate) mod backend;
mod abort;
mod codec;
mod deadlines;
mod errors;
pub(crate) mod growth;
#[cfg(feature = "image")]
mod image;
mod js;
mod submission;
mod jsfn;
mod rust_task;
#[cfg(feature = "worker-alloc")]
pub(crate) mod worker_alloc;

#[cfg(feature = "worker-alloc")]
#[global_allocator]
static ALLOCATOR: worker_alloc::WorkerAlloc = worker_alloc::WorkerAlloc;

pub use crate::value::Value;
pub use backend::{Doorbell, WebConfig};
pub use js::{JsPool, Task};
pub use errors::{error_classes, task_error_to_js};
pub(crate) use errors::{codec_error_to_js, js_error, out_of_memory_to_js, ErrorKind};
pub(crate) use jsfn::JsOutcome;

use crate::error::TaskError;
use crate::task::TaskHandle;
use crate::WorkerPool;
use js_sys::Promise;
use std::panic::AssertUnwindSafe;
use wasm_bindgen::prelude::*;

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
/// `subarray` of one, before or after the memory grew).
pub(crate) fn pool_view_offset(v: &JsValue) -> Option<u32> {
    let off = pool_view_offset_js(&wasm_bindgen::memory(), v);
    (off >= 0.0).then_some(off as u32)
}

#[wasm_bindgen(module = "/src/web/promises.js")]
extern "C" {
    #[wasm_bindgen(js_name = taskPromise)]
    fn task_promise(id: f64) -> Promise;
    #[wasm_bindgen(js_name = settleTaskPromise)]
    fn settle_task_promise(id: f64, ok: bool, value: &JsValue);
    #[wasm_bindgen(js_name = forgetTaskPromise)]
    fn forget_task_promise(id: f64);
}

/// A promise made on this thread whose resolvers wait in the JS table under `id`. Dropped
/// unsettled (its task was freed without delivery), it takes its table entry along; the
/// promise then never settles, as before when the resolvers were dropped.
struct PendingPromise {
    id: f64,
    settled: bool,
}

impl PendingPromise {
    fn new() -> Self {
        std::thread_local!(static NEXT: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) });
        PendingPromise { id: NEXT.with(|n| n.replace(n.get() + 1.0)), settled: false }
    }

    fn promise(&self) -> Promise {
        task_promise(self.id)
    }

    fn settle(mut self, r: Result<JsValue, JsValue>) {
        self.settled = true;
        match r {
            Ok(v) => settle_task_promise(self.id, true, &v),
            Err(e) => settle_task_promise(self.id, false, &e),
        }
    }
}

impl Drop for PendingPromise {
    fn drop(&mut self) {
        if !self.settled {
            forget_task_promise(self.id);
        }
    }
}


impl<T: Send + 'static> TaskHandle<T> {
    /// A `Promise` that settles with the task: fulfilled with `convert(value)`, rejected with the
    /// matching error class. Must be called on the thread that created the pool; the promise is
    /// resolved from the pool's batched completion drain, with no per-task wake-up.
    pub fn into_promise_with(self, convert: impl FnOnce(T) -> JsValue + 'static) -> Promise {
        self.into_promise_map(move |r| r.map(convert).map_err(|e| task_error_to_js(&e)))
    }

    /// A `Promise` whose outcome is `settle(result)`: `Ok` fulfils, `Err` rejects.
    ///
    /// The promise's resolvers stay in a JS-side table under a number (see `promises.js`):
    /// Rust holds no `Function` handles, so a task costs no externref slots and no closure
    /// crossing into Rust to make its promise.
    pub(crate) fn into_promise_map(
        self,
        settle: impl FnOnce(Result<T, TaskError>) -> Result<JsValue, JsValue> + 'static,
    ) -> Promise {
        let task = self.task;
        if task_is_done(&*task) {
            return match task.take_result().map(settle) {
                Some(Ok(v)) => Promise::resolve(&v),
                Some(Err(e)) => Promise::reject(&e),
                None => Promise::new(&mut |_, _| {}),
            };
        }
        let pending = PendingPromise::new();
        let promise = pending.promise();
        let t = task.clone();
        task.header().on_main.set(Some(Box::new(move || {
            if let Some(r) = t.take_result() {
                pending.settle(settle(r));
            }
        })));
        promise
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
        Self::with_config(workers, queue_capacity, WebConfig { doorbell, ..WebConfig::default() })
    }

    /// Like [`WorkerPool::new`], with the web-specific start options.
    pub fn with_config(workers: usize, queue_capacity: usize, config: WebConfig) -> Result<Self, crate::BuildError> {
        Self::build(workers, queue_capacity, |shared| backend::Backend::start_with(shared, config))
    }

    /// Resolves when every worker has started (the pool accepts tasks before that). Rejects
    /// when a worker fails to start, once every worker of the pool has ended.
    pub fn ready(&self) -> Promise {
        let main = AssertUnwindSafe(self.backend.main().clone());
        let workers = self.shared.workers;
        let stopped = self.shared.is_stopped();
        Promise::new(&mut |resolve, reject| {
            let main = &main.0;
            if let Some(err) = main.start_error.borrow().clone().filter(|_| stopped) {
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

    /// Deadlines this pool still keeps (`timeout`s of unsettled tasks and waiting submits,
    /// a pending `shutdown_timeout`), and whether its one JS timer is armed, once the
    /// completions waiting for the owner thread are delivered: for tests.
    #[doc(hidden)]
    pub fn pending_deadlines(&self) -> (usize, bool) {
        self.backend.main().pending_deadlines()
    }
}
