//! The worker side of the pool: the loop each worker runs (take a task, run it, settle it),
//! the slot through which the owner can reach a worker's current task, and which worker a
//! thread is (`worker_index`, `worker_id`). Admission and shutdown are `pool.rs`.

use crate::backend;
use crate::error::TaskError;
use crate::pool::{Shared, TaskRef};
use crate::stats::Settled;
use crate::sync::{AtomicBool, AtomicU64, Mutex, Ordering};
use crate::task::{Outcome, Phase};

/// Per-worker state shared with the back end.
pub(crate) struct WorkerSlot {
    /// The task this worker is running, so a crash or a forced shutdown can settle it. The
    /// worker holds the lock only to set or clear it; the owner thread (possibly a browser main
    /// thread, where a contended lock would trap) only ever uses `try_lock`.
    current: Mutex<Option<TaskRef>>,
    /// When the current body started (µs on the back end's clock); kept here, not on the
    /// stack, because an async JS body finishes in a later call (`Shared::resume`).
    started_us: AtomicU64,
    /// A task is set (a hint for routing, read without the lock).
    busy: AtomicBool,
}

impl WorkerSlot {
    pub(crate) fn new() -> Self {
        WorkerSlot { current: Mutex::new(None), started_us: AtomicU64::new(0), busy: AtomicBool::new(false) }
    }

    fn set(&self, task: &TaskRef) {
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) = Some(task.clone());
        self.busy.store(true, Ordering::Relaxed);
    }

    /// Worker side: clears the slot.
    fn clear(&self) {
        self.busy.store(false, Ordering::Relaxed);
        self.current.lock().unwrap_or_else(|e| e.into_inner()).take();
    }

    /// Whether the worker is running a task (a snapshot).
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(crate) fn is_busy(&self) -> bool {
        self.busy.load(Ordering::Relaxed)
    }

    /// Owner side: takes the current task without ever waiting. `None` also when the worker
    /// holds the lock at this instant (it is between tasks then).
    pub(crate) fn try_take(&self) -> Option<TaskRef> {
        match self.current.try_lock() {
            Ok(mut g) => g.take(),
            Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner().take(),
            Err(std::sync::TryLockError::WouldBlock) => None,
        }
    }
}

impl Shared {
    /// The worker loop: run tasks until the ring is closed and drained (`None`), or until a
    /// body suspends on a JS promise (`Some(task)`: finish it with [`Shared::resume`], then
    /// call `work` again).
    pub(crate) fn work(&self, index: usize) -> Option<TaskRef> {
        let slot = &self.slots[index];
        let c = &self.counters;
        LIVE_THREADS.fetch_add(1, Ordering::SeqCst);
        // Held from before a task is settled until the next look at the queue: the caller
        // answering the result finds this worker polling ("Polling workers", src/README.md).
        let mut hold = None;
        while let Some(task) = self.dispatch.next(index, hold.take()) {
            backend::taken_over();
            slot.set(&task);
            if self.forced.load(Ordering::SeqCst) {
                // `shutdown_now` raced this pop: it may have missed the task in both the ring
                // and the slot, so settle it here (settling is exactly-once either way).
                self.settle_err(&task, TaskError::PoolClosed);
            }
            let mut ran = false;
            let outcome = task.run(&mut || {
                ran = true;
                let now = backend::now_us();
                slot.started_us.store(now, Ordering::Relaxed);
                self.times.record_wait(index, now.saturating_sub(task.header().admitted_us));
                c.body_started();
            });
            if outcome == Some(Outcome::Suspended) {
                LIVE_THREADS.fetch_sub(1, Ordering::SeqCst);
                return Some(task);
            }
            // A long poll only while the owner keeps up: results it has not taken yet say
            // it is busy, and the poll would take a core from it ("Polling workers").
            hold = Some(self.dispatch.hold_poll(!backend::results_waiting(self)));
            if !ran {
                // Settled while queued: no completion follows, but its slot is free now.
                backend::skipped(self);
            }
            self.after_run(index, task, ran, outcome);
        }
        LIVE_THREADS.fetch_sub(1, Ordering::SeqCst);
        None
    }

    /// Finishes a task that suspended in [`Shared::work`] on worker `index`.
    #[cfg(target_arch = "wasm32")]
    pub(crate) fn resume(&self, index: usize, task: TaskRef, result: crate::task::Resumed, failed: bool) {
        let outcome = task.finish_suspended(result, failed);
        self.after_run(index, task, true, outcome);
    }

    /// Settles a task `work` took. Its run is recorded before the result is out, so `stats()`
    /// read after the result counts it.
    fn after_run(&self, index: usize, task: TaskRef, ran: bool, outcome: Option<Outcome>) {
        let slot = &self.slots[index];
        slot.clear();
        if ran {
            let end = backend::now_us();
            let run_us = end.saturating_sub(slot.started_us.load(Ordering::Relaxed));
            self.times.record_run(index, run_us);
            backend::task_ended(run_us);
            self.counters.body_ended();
        }
        match outcome {
            Some(Outcome::Returned) => self.settled(task, Phase::Running, Settled::Completed),
            Some(Outcome::Failed) => self.settled(task, Phase::Running, Settled::Failed),
            Some(Outcome::Panicked) => self.settled(task, Phase::Running, Settled::Panicked),
            Some(Outcome::Suspended) | None => {}
        }
    }

    /// A worker returns from `work`: the last one out finishes shutdown.
    pub(crate) fn worker_exited(&self) {
        if self.live.fetch_sub(1, Ordering::SeqCst) == 1 {
            // Nobody records any more: keep the summaries, free the histograms.
            self.times.release();
            backend::all_workers_exited(self);
        }
    }

}

std::thread_local! {
    /// `(index, id)` of the worker running on this thread; `id` is new for each replacement.
    static WORKER: std::cell::Cell<Option<(usize, u64)>> = const { std::cell::Cell::new(None) };
}

/// Marks the calling thread as worker `index` (a fresh incarnation id each time).
pub(crate) fn enter_worker(index: usize) {
    static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let id = NEXT_ID.fetch_add(1, Ordering::SeqCst);
    WORKER.with(|w| w.set(Some((index, id))));
}

/// Worker threads currently inside the worker loop, across all pools (for leak tests).
static LIVE_THREADS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

#[doc(hidden)]
pub fn live_worker_threads() -> usize {
    LIVE_THREADS.load(Ordering::SeqCst)
}

/// Inside a task: the index (`0..workers`) of the worker running it.
pub fn worker_index() -> Option<usize> {
    WORKER.with(|w| w.get().map(|(i, _)| i))
}

/// Inside a task: an id unique to this worker incarnation (a replaced worker gets a new one).
pub fn worker_id() -> Option<u64> {
    WORKER.with(|w| w.get().map(|(_, id)| id))
}

