//! The pool's counters: what `stats()` reports, and how a settled task is counted.

use crate::error::TaskError;
use crate::histogram::TimeStats;
use crate::sync::{AtomicU64, Ordering};

/// A snapshot of the pool's counters. After the pool is quiet,
/// `accepted == completed + failed + queued + running`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stats {
    /// Worker count.
    pub workers: usize,
    /// Queue slots.
    pub queue_capacity: usize,
    /// Accepted tasks waiting for a worker.
    pub queued: u64,
    /// Task bodies running now.
    pub running: u64,
    /// Submissions waiting for queue space now (each JS `submit` call, each `submitAll` item
    /// and each pending [`Submit`](crate::Submit) future is one); not yet accepted.
    pub waiting: u64,
    /// Submissions admitted (each settles exactly once).
    pub accepted: u64,
    /// Submissions refused: queue full, closed, or already cancelled. A JS `submit` that
    /// waits for space is not refused, and is not counted while it waits.
    pub rejected: u64,
    /// Accepted tasks that returned a value.
    pub completed: u64,
    /// Every accepted task that settled with an error (panicked, crashed, cancelled, timed
    /// out, closed).
    pub failed: u64,
    /// Of `failed`: the body panicked ([`TaskError::Panicked`]).
    pub panicked: u64,
    /// Of `failed`: the worker died running it ([`TaskError::WorkerCrashed`]).
    pub crashed: u64,
    /// Of `failed`: cancelled by a token or signal ([`TaskError::Cancelled`]).
    pub cancelled: u64,
    /// Of `failed`: its deadline passed ([`TaskError::TimedOut`]).
    pub timed_out: u64,
    /// How long bodies ran, from start to return (every body that started and returned,
    /// threw or panicked, also when cancellation settled its task first).
    pub run_time: TimeStats,
    /// How long tasks waited from admission until a worker started them.
    pub wait_time: TimeStats,
}

#[derive(Default)]
pub(crate) struct Counters {
    pub(crate) accepted: AtomicU64,
    pub(crate) rejected: AtomicU64,
    /// Bodies started by a worker.
    started: AtomicU64,
    /// Tasks settled before a worker reached them.
    settled_queued: AtomicU64,
    completed: AtomicU64,
    failed: AtomicU64,
    panicked: AtomicU64,
    crashed: AtomicU64,
    cancelled: AtomicU64,
    timed_out: AtomicU64,
    /// Peak number of bodies running at once (for tests and the demo).
    running_now: AtomicU64,
    running_peak: AtomicU64,
}

/// How a task was settled, for the counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Settled {
    Completed,
    /// The body returned a failure (a JS task that threw).
    Failed,
    Panicked,
    Crashed,
    Cancelled,
    TimedOut,
    Closed,
}

impl From<&TaskError> for Settled {
    fn from(e: &TaskError) -> Self {
        match e {
            TaskError::Panicked { .. } => Settled::Panicked,
            TaskError::WorkerCrashed => Settled::Crashed,
            TaskError::Cancelled => Settled::Cancelled,
            TaskError::TimedOut => Settled::TimedOut,
            TaskError::PoolClosed => Settled::Closed,
            TaskError::OutOfMemory(_) => Settled::Failed,
        }
    }
}

impl Counters {
    /// A task settled `kind`, still queued (`queued`: its body never started) or after it ran.
    pub(crate) fn settled(&self, queued: bool, kind: Settled) {
        if queued {
            self.settled_queued.fetch_add(1, Ordering::SeqCst);
        }
        let specific = match kind {
            Settled::Completed => Some(&self.completed),
            Settled::Panicked => Some(&self.panicked),
            Settled::Crashed => Some(&self.crashed),
            Settled::Cancelled => Some(&self.cancelled),
            Settled::TimedOut => Some(&self.timed_out),
            Settled::Failed | Settled::Closed => None,
        };
        if let Some(k) = specific {
            k.fetch_add(1, Ordering::SeqCst);
        }
        if kind != Settled::Completed {
            self.failed.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// Accepted tasks not settled yet (queued or running): the wasm owner's catch asks.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(crate) fn in_flight(&self) -> u64 {
        let settled = self.completed.load(Ordering::SeqCst) + self.failed.load(Ordering::SeqCst);
        self.accepted.load(Ordering::SeqCst).saturating_sub(settled)
    }

    /// A worker started a body.
    pub(crate) fn body_started(&self) {
        self.started.fetch_add(1, Ordering::SeqCst);
        let now = self.running_now.fetch_add(1, Ordering::SeqCst) + 1;
        self.running_peak.fetch_max(now, Ordering::SeqCst);
    }

    /// A body returned, threw or panicked.
    pub(crate) fn body_ended(&self) {
        self.running_now.fetch_sub(1, Ordering::SeqCst);
    }

    /// Most bodies that ran at once.
    pub(crate) fn peak_running(&self) -> u64 {
        self.running_peak.load(Ordering::SeqCst)
    }

    /// The counters as [`Stats`]; `queued` and `running` follow from the others.
    pub(crate) fn snapshot(&self, workers: usize, queue_capacity: usize, waiting: u64, run_time: TimeStats, wait_time: TimeStats) -> Stats {
        let accepted = self.accepted.load(Ordering::SeqCst);
        let started = self.started.load(Ordering::SeqCst);
        let settled_queued = self.settled_queued.load(Ordering::SeqCst);
        let completed = self.completed.load(Ordering::SeqCst);
        let failed = self.failed.load(Ordering::SeqCst);
        let settled_running = (completed + failed).saturating_sub(settled_queued);
        Stats {
            workers,
            queue_capacity,
            queued: accepted.saturating_sub(started + settled_queued),
            running: started.saturating_sub(settled_running),
            waiting,
            accepted,
            rejected: self.rejected.load(Ordering::SeqCst),
            completed,
            failed,
            panicked: self.panicked.load(Ordering::SeqCst),
            crashed: self.crashed.load(Ordering::SeqCst),
            cancelled: self.cancelled.load(Ordering::SeqCst),
            timed_out: self.timed_out.load(Ordering::SeqCst),
            run_time,
            wait_time,
        }
    }
}
