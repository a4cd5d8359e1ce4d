//! Submissions waiting for queue space: how many there are (`Stats::waiting`, JS
//! `stats().waiting`), the pool's bound on them (`PoolOptions::max_waiting`, JS `maxWaiting`),
//! and the wakers of Rust [`Submit`](crate::Submit) futures (`src/README.md`, "Waiting for
//! queue space").
//!
//! A waiting submission holds [`Places`] from the moment it starts to wait until it is
//! admitted, refused, aborted or timed out; dropping them is leaving. The JS API's `submit` and
//! `submitAll` waiters queue on the owner thread (`web/api/pool.rs`) and hold places here too,
//! so one count covers both APIs.

use crate::sync::{Arc, AtomicUsize, Mutex, Ordering};
use std::task::Waker;

pub(crate) struct Waiting {
    /// Places held now. Invariant: `count <= limit`, except for places taken with
    /// [`Waiting::place_anyway`] (a `submitAll` item that waits where the call's check at its
    /// start expected it to fit).
    count: AtomicUsize,
    /// The bound; `usize::MAX` when unlimited.
    limit: usize,
    /// Rust `Submit` futures that found the queue full, woken together when a place in the
    /// queue frees (natively by the worker that took a task, on the web by the owner's drain).
    wakers: Mutex<Vec<Waker>>,
}

impl Waiting {
    pub(crate) fn new(limit: Option<usize>) -> Self {
        Waiting { count: AtomicUsize::new(0), limit: limit.unwrap_or(usize::MAX), wakers: Mutex::new(Vec::new()) }
    }

    /// Submissions waiting now.
    pub(crate) fn count(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }

    /// The bound, if there is one.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(crate) fn limit(&self) -> Option<usize> {
        (self.limit != usize::MAX).then_some(self.limit)
    }

    /// Takes `n` places if the count stays within the limit.
    fn try_enter(&self, n: usize) -> bool {
        let mut now = self.count.load(Ordering::SeqCst);
        loop {
            let Some(next) = now.checked_add(n).filter(|&m| m <= self.limit) else { return false };
            match self.count.compare_exchange_weak(now, next, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(_) => return true,
                Err(seen) => now = seen,
            }
        }
    }

    fn leave(&self, n: usize) {
        self.count.fetch_sub(n, Ordering::SeqCst);
    }

    /// A `Submit` future waits for a place in the queue.
    pub(crate) fn park(&self, waker: &Waker) {
        let mut wakers = self.wakers.lock().unwrap_or_else(|e| e.into_inner());
        if !wakers.iter().any(|w| w.will_wake(waker)) {
            wakers.push(waker.clone());
        }
    }

    /// A place in the queue freed, or admission closed: every parked future tries again.
    pub(crate) fn wake_all(&self) {
        if self.count() == 0 {
            return;
        }
        let wakers = std::mem::take(&mut *self.wakers.lock().unwrap_or_else(|e| e.into_inner()));
        for w in wakers {
            w.wake();
        }
    }
}

/// `n` places among the waiting submissions of one pool; dropping them leaves.
pub(crate) struct Places {
    waiting: Arc<Waiting>,
    n: usize,
}

impl Places {
    /// One of these places, for one submission that waits (`None` when all are given out).
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(crate) fn take_one(&mut self) -> Option<Places> {
        (self.n > 0).then(|| {
            self.n -= 1;
            Places { waiting: self.waiting.clone(), n: 1 }
        })
    }
}

impl Drop for Places {
    fn drop(&mut self) {
        if self.n > 0 {
            self.waiting.leave(self.n);
        }
    }
}

// Entering takes the `Arc`: the places keep the count alive.
impl Waiting {
    /// `n` places for submissions that will wait, or `None` if they would take the count past
    /// the limit (the caller refuses with `Overloaded`).
    pub(crate) fn places(self: &Arc<Self>, n: usize) -> Option<Places> {
        (n == 0 || self.try_enter(n)).then(|| Places { waiting: self.clone(), n })
    }

    /// A place whatever the limit: for a `submitAll` item that waits though the call's check
    /// expected it to be admitted (space was taken meanwhile by a submitter on another thread,
    /// or its transfer route was full). The call was within the limit when it was checked, so
    /// the count exceeds it by at most such items, and only until they are admitted.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(crate) fn place_anyway(self: &Arc<Self>) -> Places {
        self.count.fetch_add(1, Ordering::SeqCst);
        Places { waiting: self.clone(), n: 1 }
    }
}
