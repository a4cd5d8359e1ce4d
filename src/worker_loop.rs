//! The worker side of the pool: the loop each worker runs (take a task, run it, settle it),
//! and which worker a thread is (`worker_index`, `worker_id`). Admission and shutdown are
//! `pool.rs`; each worker's slot is `worker_slot.rs`.

use crate::backend::{Backend, Shared, TaskRef};
use crate::error::TaskError;
use crate::stats::Settled;
use crate::sync::Ordering;
use crate::task::{Outcome, Phase};

impl<B: Backend> Shared<B> {
    /// The worker loop: run tasks until the ring is closed and drained (`None`), or until a
    /// body suspends on a JS promise (`Some((task, promise))`: once the promise settles, finish
    /// the task with [`Shared::resume`], then call `work` again).
    pub(crate) fn work(&self, index: usize) -> Option<(TaskRef<B>, B::Pending)> {
        LIVE_THREADS.fetch_add(1, Ordering::SeqCst);
        // Held from before a task is settled until the next look at the queue: the caller
        // answering the result finds this worker polling ("Polling workers", src/README.md).
        let mut hold = None;
        while let Some(task) = self.dispatch.next(index, hold.take()) {
            let (ran, outcome) = self.start(index, &task, Start::Run);
            let outcome = match outcome {
                Some(Outcome::Suspended(pending)) => {
                    LIVE_THREADS.fetch_sub(1, Ordering::SeqCst);
                    return Some((task, pending));
                }
                settled => settled,
            };
            // A long poll only while the owner keeps up: results it has not taken yet say
            // it is busy, and the poll would take a core from it ("Polling workers").
            hold = Some(self.dispatch.hold_poll(!B::results_waiting(self)));
            if !ran {
                // Settled while queued: no completion follows, but its slot is free now.
                B::skipped(self);
            }
            self.after_run(index, task, ran, outcome);
        }
        LIVE_THREADS.fetch_sub(1, Ordering::SeqCst);
        None
    }

    /// One turn of worker `index` for a worker that the owner thread drives and that runs its
    /// bodies in another memory (the web's message mode, `src/README.md`, "Message mode"):
    /// never waits. Takes the worker's next task as [`work`](Self::work) would and hands its
    /// body over as a request (`Turn::Posted`), to be finished with [`Shared::resume`].
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    /// A task it took ahead and was not handed ([`take_ahead`](Self::take_ahead)) comes first,
    /// or `held_by`'s, when an idle worker takes over what a busy one holds.
    pub(crate) fn turn(&self, index: usize, held_by: usize) -> Turn<B> {
        let mut ahead = self.take_next(held_by);
        loop {
            let Some(task) = ahead.take().or_else(|| self.dispatch.pop(index)) else {
                return if self.dispatch.is_closed() && self.dispatch.drained(index) { Turn::Exited } else { Turn::Idle };
            };
            let (ran, outcome) = self.start(index, &task, Start::Post);
            if let Some(Outcome::Suspended(request)) = outcome {
                return Turn::Posted(task, request);
            }
            if !ran {
                B::skipped(self);
            }
            self.after_run(index, task, ran, outcome);
        }
    }

    /// Message mode: worker `index`, busy with a posted task, takes its next one ahead of its
    /// turn (`src/README.md`, "Message mode"), as [`turn`](Self::turn) would take it, into its
    /// slot; it keeps its queue place and counts as queued until it starts. With the task comes
    /// its request when it can be handed over now ([`Runnable::hand_ahead`]); a watched task
    /// (a signal or a timeout may settle it before it runs) waits in the slot for the turn.
    ///
    /// [`Runnable::hand_ahead`]: crate::task::Runnable::hand_ahead
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(crate) fn take_ahead(&self, index: usize) -> Option<(TaskRef<B>, Option<B::Pending>)> {
        let slot = &self.slots[index];
        if slot.next().is_some() {
            return None;
        }
        let (task, place) = self.dispatch.pop_ahead(index)?;
        B::taken_over();
        let request = if task.header().watched { None } else { task.hand_ahead() };
        slot.set_next(&task, place);
        Some((task, request))
    }

    /// Message mode: whether worker `index` holds a task it took ahead from the lanes (not from
    /// its own mailbox or route), which another worker may take over.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(crate) fn ahead_from_lanes(&self, index: usize) -> bool {
        self.slots[index].next() == Some(crate::dispatch::Place::Lane)
    }

    /// The task worker `index` took ahead, out of its slot, its queue place given back.
    pub(crate) fn take_next(&self, index: usize) -> Option<TaskRef<B>> {
        let (task, place) = self.slots[index].take_next()?;
        self.dispatch.free_place(place);
        Some(task)
    }

    /// Message mode: worker `index` began `task`, which worker `held_by` (itself, or a busy
    /// worker that gave it back) was handed ahead: it leaves the queue and runs. `false` if it
    /// was settled meanwhile (a forced shutdown): its worker's reply is then dropped.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(crate) fn begin_ahead(&self, index: usize, held_by: usize, task: &TaskRef<B>) -> bool {
        // A forced shutdown may have taken it from the slot already, and freed its place.
        drop(self.take_next(held_by));
        let (ran, _) = self.start(index, task, Start::Begin);
        if !ran {
            self.slots[index].clear();
        }
        ran
    }

    /// Worker `index` took `task`: it runs its body here, hands it over (`Post`), or began the
    /// body it was handed ahead (`Begin`).
    fn start(&self, index: usize, task: &TaskRef<B>, how: Start) -> (bool, Option<Outcome<B::Pending>>) {
        let slot = &self.slots[index];
        B::taken_over();
        B::space_freed(self);
        slot.set(task);
        if self.forced.load(Ordering::SeqCst) {
            // `shutdown_now` raced this pop: it may have missed the task in both the ring
            // and the slot, so settle it here (settling is exactly-once either way).
            self.settle_err(task, TaskError::PoolClosed);
        }
        let mut ran = false;
        let mut on_start = || {
            ran = true;
            let now = B::now_us();
            slot.started_us.store(now, Ordering::Relaxed);
            self.times.record_wait(index, now.saturating_sub(task.header().admitted_us));
            self.counters.body_started();
        };
        let outcome = match how {
            Start::Run => task.run(&mut on_start),
            Start::Post => task.post(&mut on_start),
            Start::Begin => {
                task.begin(&mut on_start);
                None
            }
        };
        (ran, outcome)
    }

    /// Finishes a task that suspended in [`Shared::work`] or was posted by [`Shared::turn`] on
    /// worker `index` (`Err`: its body panicked in another memory).
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(crate) fn resume(&self, index: usize, task: TaskRef<B>, result: Result<B::Resumed, TaskError>, failed: bool) {
        let outcome = task.finish_suspended(result, failed);
        self.after_run(index, task, true, outcome);
    }

    /// Settles a task `work` took. Its run is recorded before the result is out, so `stats()`
    /// read after the result counts it.
    fn after_run(&self, index: usize, task: TaskRef<B>, ran: bool, outcome: Option<Outcome<B::Pending>>) {
        let slot = &self.slots[index];
        slot.clear();
        let run_us = ran.then(|| {
            let run_us = B::now_us().saturating_sub(slot.started_us.load(Ordering::Relaxed));
            self.times.record_run(index, run_us);
            self.counters.body_ended();
            run_us
        });
        let kind = match outcome {
            Some(Outcome::Returned) => Settled::Completed,
            Some(Outcome::Failed) => Settled::Failed,
            Some(Outcome::Panicked) => Settled::Panicked,
            Some(Outcome::Suspended(_)) | None => return,
        };
        self.settled(task, Phase::Running, kind, run_us);
    }

    /// A worker returns from `work`: the last one out finishes shutdown.
    pub(crate) fn worker_exited(&self) {
        if self.live.fetch_sub(1, Ordering::SeqCst) == 1 {
            // Nobody records any more: keep the summaries, free the histograms.
            self.times.release();
            B::all_workers_exited(self);
        }
    }

}

/// How [`Shared::start`] starts a task.
#[derive(Clone, Copy)]
enum Start {
    /// Its body runs on this thread.
    Run,
    /// Its body is handed over to a worker in another memory ([`Shared::turn`]).
    Post,
    /// Its body was handed over ahead; its worker began it ([`Shared::begin_ahead`]).
    Begin,
}

/// What one [`Shared::turn`] came to.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) enum Turn<B: Backend> {
    /// A task's body was handed over as this request; the task waits for [`Shared::resume`].
    Posted(TaskRef<B>, B::Pending),
    /// Nothing to take now.
    Idle,
    /// The pool is closed and this worker has nothing left: it exits.
    Exited,
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

