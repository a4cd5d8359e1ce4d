//! Error types of the Rust API.

use crate::memory::OutOfMemory;
use std::fmt;

/// Most workers a pool may have ([`BuildError::Workers`] above it).
pub const MAX_WORKERS: usize = 256;
/// Largest queue a pool may have ([`BuildError::QueueCapacity`] above it).
pub const MAX_QUEUE_CAPACITY: usize = 1 << 20;

/// Why [`WorkerPool::new`](crate::WorkerPool::new) refused to build a pool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildError {
    /// `workers` was 0 or above [`MAX_WORKERS`].
    Workers(usize),
    /// `queue_capacity` was 0 or above [`MAX_QUEUE_CAPACITY`].
    QueueCapacity(usize),
    /// The platform could not start a worker (message from the platform).
    Spawn(String),
    /// The shared memory has no room for the workers' stacks (wasm).
    OutOfMemory(OutOfMemory),
    /// The page is not cross-origin isolated, so workers cannot share the memory (wasm; the
    /// platform's message, naming the headers that isolate a page). A Rust closure cannot
    /// cross to a worker's own memory; the JS `Pool` runs in message mode there instead.
    NotIsolated(String),
    /// The module's memory is not a shared memory (wasm): it was linked without the link
    /// arguments in [`REQUIRED_LINK_ARGS`](crate::memory::REQUIRED_LINK_ARGS), so workers cannot use it.
    MemoryNotShared,
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Workers(n) => {
                write!(f, "workers must be an integer in 1..={}, got {n}", MAX_WORKERS)
            }
            BuildError::QueueCapacity(n) => write!(
                f,
                "queueCapacity must be an integer in 1..={}, got {n}",
                MAX_QUEUE_CAPACITY
            ),
            BuildError::Spawn(msg) => write!(f, "could not start a worker: {msg}"),
            BuildError::NotIsolated(msg) => f.write_str(msg),
            BuildError::OutOfMemory(oom) => write!(f, "no room for the workers' stacks: {oom}"),
            BuildError::MemoryNotShared => {
                f.write_str("the wasm memory is not shared, so workers cannot use it: link the wasm32 build with")?;
                for arg in crate::memory::REQUIRED_LINK_ARGS {
                    write!(f, " -Clink-arg={arg}")?;
                }
                f.write_str(" (the rustflags in ringpool's cargo-config.toml; see examples/app in the ringpool repository)")
            }
        }
    }
}

impl std::error::Error for BuildError {}

/// Why a task was not admitted. The closure is handed back, as `ArrayQueue::push` does.
pub enum SubmitError<F> {
    /// The queue already holds `queue_capacity` tasks; nothing waited for space.
    QueueFull(F),
    /// `shutdown` has started; the pool accepts nothing any more.
    Closed(F),
    /// The task's [`CancelToken`](crate::CancelToken) was already cancelled.
    Cancelled(F),
    /// The shared memory could not hold the task (wasm; see [`OutOfMemory`]).
    OutOfMemory(F, OutOfMemory),
    /// [`WorkerPool::submit`](crate::WorkerPool::submit) found the queue full and as many
    /// submissions already waiting for space as [`PoolOptions::max_waiting`](crate::PoolOptions)
    /// allows; it did not wait.
    Overloaded(F),
}

impl<F> SubmitError<F> {
    /// The closure that was not submitted.
    pub fn into_inner(self) -> F {
        match self {
            SubmitError::QueueFull(f) | SubmitError::Closed(f) | SubmitError::Cancelled(f) | SubmitError::Overloaded(f) => f,
            SubmitError::OutOfMemory(f, _) => f,
        }
    }

    /// The same refusal, holding `op(value)` instead.
    pub fn map<G>(self, op: impl FnOnce(F) -> G) -> SubmitError<G> {
        match self {
            SubmitError::QueueFull(f) => SubmitError::QueueFull(op(f)),
            SubmitError::Closed(f) => SubmitError::Closed(op(f)),
            SubmitError::Cancelled(f) => SubmitError::Cancelled(op(f)),
            SubmitError::OutOfMemory(f, oom) => SubmitError::OutOfMemory(op(f), oom),
            SubmitError::Overloaded(f) => SubmitError::Overloaded(op(f)),
        }
    }
}

impl<F> fmt::Debug for SubmitError<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SubmitError::QueueFull(_) => f.write_str("QueueFull(..)"),
            SubmitError::Closed(_) => f.write_str("Closed(..)"),
            SubmitError::Cancelled(_) => f.write_str("Cancelled(..)"),
            SubmitError::OutOfMemory(_, oom) => write!(f, "OutOfMemory(.., {oom:?})"),
            SubmitError::Overloaded(_) => f.write_str("Overloaded(..)"),
        }
    }
}

impl<F> fmt::Display for SubmitError<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SubmitError::QueueFull(_) => f.write_str("the task queue is full"),
            SubmitError::Closed(_) => f.write_str("the pool is shut down and accepts no tasks"),
            SubmitError::Cancelled(_) => f.write_str("the task was cancelled before it was submitted"),
            SubmitError::OutOfMemory(_, oom) => oom.fmt(f),
            SubmitError::Overloaded(_) => f.write_str("the pool already has as many submissions waiting for queue space as its max_waiting allows"),
        }
    }
}

impl<F> std::error::Error for SubmitError<F> {}

/// Why an accepted task produced no value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskError {
    /// The task panicked; the worker caught it and went on.
    Panicked {
        /// The panic message.
        message: String,
        /// `file:line:col` of the panic, when known.
        location: Option<String>,
    },
    /// The worker died while running the task (a trap that is not a panic); it was replaced.
    WorkerCrashed,
    /// The task's [`CancelToken`](crate::CancelToken) was cancelled.
    Cancelled,
    /// The task's deadline passed (queue time plus run time).
    TimedOut,
    /// `shutdown` with `force` dropped the task.
    PoolClosed,
    /// The task (its body, or its result on the way back) needed more memory than the shared
    /// memory has left; the worker lives on.
    OutOfMemory(OutOfMemory),
}

impl fmt::Display for TaskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TaskError::Panicked { message, location: Some(loc) } => write!(f, "task panicked at {loc}: {message}"),
            TaskError::Panicked { message, location: None } => write!(f, "task panicked: {message}"),
            TaskError::WorkerCrashed => write!(f, "the worker running the task crashed{CRASH_HINT}"),
            TaskError::Cancelled => f.write_str("the task was cancelled"),
            TaskError::TimedOut => f.write_str("the task timed out"),
            TaskError::PoolClosed => f.write_str("the pool was closed before the task finished"),
            TaskError::OutOfMemory(oom) => oom.fmt(f),
        }
    }
}

impl std::error::Error for TaskError {}

/// Why a worker may have crashed, when the build says: under `panic=abort` every panic traps.
const CRASH_HINT: &str = if cfg!(panic = "abort") {
    " (this module was built with panic=abort, so a panic traps and kills its worker: build with \
     -Cpanic=unwind and -Zbuild-std=panic_unwind,std to get TaskError::Panicked / PanicError with the \
     message and location; see examples/app in the ringpool repository)"
} else {
    ""
};

/// `shutdown` did not finish before its deadline. Admission stays closed; accepted tasks go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShutdownTimeout;

impl fmt::Display for ShutdownTimeout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("shutdown did not finish before its deadline; tasks keep running")
    }
}

impl std::error::Error for ShutdownTimeout {}
