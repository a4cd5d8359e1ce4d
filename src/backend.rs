//! The back-end seam: the one place where the core pool meets a platform.
//!
//! The core (`pool.rs`, `worker_loop.rs`, `broadcast.rs` and everything below them) is
//! generic over a [`Backend`] and names no platform. A back end starts the workers, carries a
//! settled task to whoever waits for it, keeps time and runs timers. Two implement it:
//! `native.rs` (`std::thread`) and `web/` (Web Workers and worker_threads sharing one wasm
//! memory); `lib.rs` picks one per target as `Platform`. The compiler checks the contract;
//! `src/README.md`, "The back-end seam", says what each item is for.
//!
//! [`Shared`] is what the pool, its workers and its back end hold in common: the queue, the
//! workers' slots, the counters, and the back end's own [`Backend::Delivery`] state.

use crate::cancel::Hook;
use crate::dispatch::Dispatch;
use crate::error::{BuildError, TaskError};
use crate::histogram::PoolTimes;
use crate::stats::{Counters, Settled, Stats};
use crate::sync::{Arc, AtomicBool, AtomicUsize, Mutex, Ordering};
use crate::task::{Phase, Runnable};
use crate::waiting::Waiting;
use crate::worker_slot::WorkerSlot;
use std::task::Waker;
use std::time::Duration;

/// A task as the pool and the back end hold it, whatever its closure and result types.
pub(crate) type TaskRef<B> = Arc<dyn Runnable<<B as Backend>::Resumed, <B as Backend>::Pending>>;

/// What a platform provides to the core pool. Owner-side items take `&self` (the back end's
/// handle, kept by the pool); items that any thread may call, workers included, are associated
/// functions, since a worker has no handle.
pub(crate) trait Backend: Sized + Clone + 'static {
    /// Start options of this platform (`()` natively; the doorbell and the task module on
    /// the web).
    type Config: Default;
    /// Per-pool state that carrying completions to the waiting thread needs (it lives in
    /// [`Shared`], so workers reach it).
    type Delivery: Default + Send + Sync;
    /// What a suspended body's promise settled with: the value a worker hands to
    /// [`Runnable::finish_suspended`] (only JS bodies suspend; natively uninhabited).
    type Resumed: Send + 'static;
    /// What a suspended body waits for, handed from the body up to the worker's entry (a JS
    /// promise; natively uninhabited).
    type Pending: 'static;
    /// A point on the back end's monotonic clock.
    type Deadline: Copy;
    /// A pending [`at`](Self::at); dropping it may cancel the action.
    type Timer;

    /// Starts `shared.workers` workers, each running `Shared::work(index)`, or refuses with a
    /// `BuildError` when the platform cannot (memory not shared, no cross-origin isolation,
    /// out of memory). A refusal closes the queue first.
    fn start(shared: &Arc<Shared<Self>>, config: Self::Config) -> Result<Self, BuildError>;
    /// A task was admitted on the owner thread (the web owner may catch its result, or give
    /// the workers it drives their turns).
    fn admitted(&self);
    /// The queue changed on the owner thread otherwise: a broadcast was admitted, or admission
    /// closed. Workers that wait on the queue see it themselves; workers the owner drives (the
    /// web's message mode, `Shared::turn`) are given their turns here.
    fn queue_changed(&self) {}
    /// The point `after` from now.
    fn deadline(&self, after: Duration) -> Self::Deadline;
    /// Whether `deadline` has passed.
    fn passed(&self, deadline: Self::Deadline) -> bool;
    /// Runs `action` at `deadline` unless the returned timer is dropped first.
    fn at(&self, deadline: Self::Deadline, action: Box<dyn FnOnce() + Send>) -> Self::Timer;
    /// Fires `hook` after `after` unless `task` settles first (`TaskOptions::timeout`).
    fn after_hook(&self, after: Duration, hook: Box<dyn Hook>, task: &TaskRef<Self>);

    /// Microseconds on a clock every thread shares (wait and run times).
    fn now_us() -> u64;
    /// Before a task goes into the queue: its memory must become visible to the thread that
    /// takes it.
    fn handing_over() {}
    /// After a worker took a task, before it touches it.
    fn taken_over() {}
    /// Makes a settled task's waiter see its result (a `Waker`, or the owner thread's promise).
    fn deliver(shared: &Shared<Self>, task: TaskRef<Self>, delivered: Delivered);
    /// A worker popped a task that had been settled while queued: it runs nothing and
    /// delivers nothing, but a queue slot is free for whoever waits for one.
    fn skipped(shared: &Shared<Self>);
    /// A worker took a task from the queue, so a place may be free: natively the Rust
    /// `Submit` futures waiting for one are woken here. On the web the owner's drain wakes
    /// them, which workers ring while anyone waits (a worker must not take the lock the
    /// owner takes to park a future: a contended lock would block a browser main thread).
    fn space_freed(_shared: &Shared<Self>) {}
    /// Whether delivered results still wait for the owner thread (it is busy).
    fn results_waiting(shared: &Shared<Self>) -> bool;
    /// The last worker left: wake `shutdown()`'s waiters.
    fn all_workers_exited(shared: &Shared<Self>);
}

/// How a task that is being delivered ended, for the back end's choice of wake-up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delivered {
    /// It fulfilled (a `submitAll` member that fulfilled may complete quietly).
    pub fulfilled: bool,
    /// How long its body ran (µs), when a worker ran it and settles it now.
    pub run_us: Option<u64>,
}

/// State shared by the pool handle, the workers and the back end.
pub(crate) struct Shared<B: Backend> {
    pub(crate) dispatch: Dispatch<TaskRef<B>>,
    pub(crate) workers: usize,
    /// Workers that have not exited (a crashed worker counts until it is replaced).
    pub(crate) live: AtomicUsize,
    pub(crate) slots: Box<[WorkerSlot<TaskRef<B>>]>,
    /// Set by `shutdown_now`: everything still queued or running is settled as closed.
    pub(crate) forced: AtomicBool,
    pub(crate) counters: Counters,
    pub(crate) times: PoolTimes,
    /// Wakers of pending `shutdown` futures, woken when `live` reaches 0.
    pub(crate) shutdown_waiters: Mutex<Vec<Waker>>,
    /// Submissions waiting for queue space, and their bound (`waiting.rs`).
    pub(crate) waiting: Arc<Waiting>,
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(crate) delivery: B::Delivery,
}

impl<B: Backend> Shared<B> {
    /// Settlement bookkeeping, then the result is out (`DONE`) and handed to whoever waits for
    /// it: counted first, so `stats()` read after a result counts its task. The caller just
    /// wrote the result (it won the task's CAS to `WRITING`). `run_us`: how long its body ran,
    /// when its worker settles it.
    pub(crate) fn settled(&self, task: TaskRef<B>, phase: Phase, kind: Settled, run_us: Option<u64>) {
        self.counters.settled(phase == Phase::Queued, kind);
        task.header().publish();
        B::deliver(self, task, Delivered { fulfilled: kind == Settled::Completed, run_us });
    }

    /// Settles `task` with `err` if nobody has yet (cancel, timeout, crash, force).
    pub(crate) fn settle_err(&self, task: &TaskRef<B>, err: TaskError) -> bool {
        match task.settle_err(err.clone()) {
            Some(phase) => {
                self.settled(task.clone(), phase, Settled::from(&err), None);
                true
            }
            None => false,
        }
    }

    pub(crate) fn wake_shutdown_waiters(&self) {
        let waiters = std::mem::take(&mut *self.shutdown_waiters.lock().unwrap_or_else(|e| e.into_inner()));
        for w in waiters {
            w.wake();
        }
    }

    pub(crate) fn is_stopped(&self) -> bool {
        self.live.load(Ordering::SeqCst) == 0
    }

    pub(crate) fn stats(&self) -> Stats {
        let (run_time, wait_time) = self.times.summaries();
        self.counters.snapshot(self.workers, self.dispatch.capacity(), self.waiting.count() as u64, run_time, wait_time)
    }
}

// The shared state is only changed through atomics and short critical sections that do not
// panic, so a caught panic cannot leave it inconsistent (see the note in pool.rs).
impl<B: Backend> std::panic::UnwindSafe for Shared<B> {}
impl<B: Backend> std::panic::RefUnwindSafe for Shared<B> {}
