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

// The layout (`src/README.md`, "A map of the source"): the wings, each with one owner, over
// leaves both sides of a pool share.
/// The JS face: the `#[wasm_bindgen]` `Pool`, what one call submits, admission and the
/// submissions that wait for space, `AbortSignal`s, Rust-made `Task`s.
mod api;
/// The owner thread: the workers' lifecycle, the drain, the catch, deadlines, the promises.
mod owner;
/// What runs on a worker thread: its entry, and JS-function bodies.
mod worker;
/// `Web` as the core's `Backend`, and the settling side of the completion path.
pub(crate) mod backend;

mod clock;
mod codec;
mod delivery;
mod errors;
pub(crate) mod growth;
mod memory_views;
mod outcome;
mod thread_locals;
#[cfg(feature = "worker-alloc")]
pub(crate) mod worker_alloc;

#[cfg(feature = "worker-alloc")]
#[global_allocator]
static ALLOCATOR: worker_alloc::WorkerAlloc = worker_alloc::WorkerAlloc;

pub use crate::value::Value;
pub use api::pool::JsPool;
pub use api::task::Task;
pub use errors::{error_classes, task_error_to_js};
pub use memory_views::{memory_bytes, pool_view_offset, wasm_memory};
pub use owner::{Doorbell, WebConfig};
pub(crate) use owner::Web;

use crate::pool::WorkerPool;
use js_sys::Promise;
use std::panic::AssertUnwindSafe;
use wasm_bindgen::prelude::*;

/// Milliseconds on `performance.timeOrigin + performance.now()`: one clock that every thread of
/// the page or process shares, so times taken on workers and on the caller compare.
pub fn clock() -> f64 {
    clock::clock()
}

/// On a worker, inside a task: how many tasks wait in its pool's queue; `None` elsewhere.
pub fn queue_depth() -> Option<u64> {
    worker::queued_here()
}

impl WorkerPool {
    /// Like [`WorkerPool::new`], choosing how workers signal completions (for measurements).
    pub fn with_doorbell(workers: usize, queue_capacity: usize, doorbell: Doorbell) -> Result<Self, crate::error::BuildError> {
        Self::with_config(workers, queue_capacity, crate::pool::PoolOptions::default(), WebConfig { doorbell, ..WebConfig::default() })
    }

    /// Like [`WorkerPool::with_options`], with the web-specific start options too.
    pub fn with_config(workers: usize, queue_capacity: usize, options: crate::pool::PoolOptions, config: WebConfig) -> Result<Self, crate::error::BuildError> {
        Self::build(workers, queue_capacity, options, config)
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
