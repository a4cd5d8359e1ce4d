//! # ringpool
//!
//! A bounded worker pool for WebAssembly with shared memory and atomics (and natively on
//! `std::thread`). A fixed set of workers consume a lock-free bounded MPMC [`ring`]; every
//! accepted task settles exactly one [`TaskHandle`] (a JS `Promise` on wasm); a panic becomes
//! [`TaskError::Panicked`] and the worker goes on; [`WorkerPool::shutdown`] closes admission,
//! drains what was accepted and lets the workers exit.
//!
//! ```ignore-wasm32
//! # fn block_on<F: std::future::Future>(f: F) -> F::Output { ringpool::block_on(f) }
//! let pool = ringpool::WorkerPool::new(2, 16).unwrap();
//! let handle = pool.try_submit(|| 6 * 7).unwrap();
//! assert_eq!(block_on(handle).unwrap(), 42);
//! block_on(pool.shutdown()).unwrap();
//! ```

#![warn(missing_docs)]
// The back-end seam (`backend.rs`) is crate-private: `pool::WorkerPool<B>` and its siblings are
// generic over it, and users see them only as this target's `WorkerPool` (below).
#![allow(private_bounds, private_interfaces)]
#![cfg_attr(all(target_arch = "wasm32", not(loom)), feature(stdarch_wasm_atomic_wait, alloc_error_hook))]

pub mod ring;
mod sync;
#[cfg_attr(not(any(loom, target_arch = "wasm32")), allow(dead_code))]
mod completion;

#[cfg(not(loom))]
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
mod batch;
#[cfg(not(loom))]
mod cancel;
mod dispatch;
#[cfg(not(loom))]
mod histogram;
#[cfg(not(loom))]
mod error;
#[cfg(not(loom))]
pub mod memory;
#[cfg(not(loom))]
mod panic;
#[cfg(not(loom))]
mod broadcast;
#[cfg(not(loom))]
mod backend;
#[cfg(not(loom))]
mod pool;
#[cfg(not(loom))]
mod worker_loop;
#[cfg(not(loom))]
mod worker_slot;
#[cfg(not(loom))]
mod waiting;
#[cfg(not(loom))]
mod stats;
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
mod restart;
#[cfg(not(loom))]
mod task;
#[cfg(not(loom))]
pub mod value;

#[cfg(all(not(loom), not(target_arch = "wasm32")))]
mod native;
#[cfg(all(not(loom), target_arch = "wasm32"))]
pub mod web;

/// This target's back end: the one place that picks a platform (`backend.rs` is the seam).
#[cfg(all(not(loom), not(target_arch = "wasm32")))]
pub(crate) type Platform = native::Native;
#[cfg(all(not(loom), target_arch = "wasm32"))]
pub(crate) type Platform = web::Web;

#[cfg(not(loom))]
pub use cancel::CancelToken;
#[cfg(not(loom))]
pub use error::{BuildError, ShutdownTimeout, SubmitError, TaskError};
#[cfg(not(loom))]
pub use memory::OutOfMemory;
#[cfg(not(loom))]
pub use broadcast::BroadcastHandle;
#[cfg(not(loom))]
pub use pool::{PoolOptions, Shutdown, Submit, TaskOptions, WorkerPool, MAX_QUEUE_CAPACITY, MAX_WORKERS};
#[cfg(not(loom))]
pub use worker_loop::{live_worker_threads, worker_id, worker_index};
#[cfg(not(loom))]
pub use dispatch::{Priority, MAILBOX_CAPACITY};
#[cfg(not(loom))]
pub use histogram::TimeStats;
#[cfg(not(loom))]
pub use stats::Stats;
#[cfg(not(loom))]
pub use task::{is_cancelled, TaskHandle};

#[cfg(loom)]
#[doc(hidden)]
pub use dispatch::{Dispatch, PollHold, Priority};
#[cfg(loom)]
#[doc(hidden)]
pub use {completion::Completions, sync::Futex};

/// Drives a future to completion on the calling thread (native only; never on a browser main
/// thread). Handy in tests and command-line tools.
#[cfg(all(not(loom), not(target_arch = "wasm32")))]
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    use std::task::{Context, Poll, Wake, Waker};
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(std::sync::Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park();
    }
}
