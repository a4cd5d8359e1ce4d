//! The ring plus the sleep/wake protocol between submitters and workers.
//!
//! Workers sleep on one [`Futex`] (the *bell*) and announce themselves in `sleepers` first;
//! a submitter only touches the bell when somebody sleeps, so a busy pool pays no wake-up cost.
//! The protocol is the classic event count (see `src/README.md`):
//!
//! ```text
//!   worker                                  submitter
//!   seen = bell                             ring.try_push(v)
//!   sleepers += 1            (SeqCst)       fence(SeqCst)
//!   if ring empty && open:                  if sleepers > 0:
//!       bell.wait(seen)                         bell += 1; notify(1)
//!   sleepers -= 1
//! ```
//!
//! Either the worker's re-check sees the new item, or the submitter sees `sleepers > 0` and
//! bumps the bell, so `wait(seen)` returns at once or is woken: no lost wake-up. Nothing here
//! blocks a submitter, so it is safe on a browser main thread.

use crate::ring::{PushError, Ring};
use crate::sync::{fence, AtomicU32, Ordering, Futex};

/// How many times an idle worker polls the ring before it sleeps (see `spin_until_work`):
/// the first idle worker polls long, the others briefly.
#[cfg(not(loom))]
const SPIN_POLLS: u32 = 512;
#[cfg(not(loom))]
const LEAD_SPIN_POLLS: u32 = 2048;

pub struct Dispatch<T> {
    pub(crate) ring: Ring<T>,
    /// Workers sleep on it; bumped by a submitter that saw `sleepers > 0`, and by `close`.
    bell: Futex,
    /// Workers between announcing themselves and waking up.
    sleepers: AtomicU32,
    /// Workers polling in `spin_until_work` (a hint only: it never decides a wake-up).
    #[cfg(not(loom))]
    spinners: AtomicU32,
}

impl<T> Dispatch<T> {
    pub fn new(ring: Ring<T>) -> Self {
        Dispatch {
            ring,
            bell: Futex::new(0),
            sleepers: AtomicU32::new(0),
            #[cfg(not(loom))]
            spinners: AtomicU32::new(0),
        }
    }

    /// Admission: lock-free, never waits; wakes one sleeping worker if there is one.
    pub fn try_push(&self, value: T) -> Result<(), PushError<T>> {
        self.ring.try_push(value)?;
        fence(Ordering::SeqCst);
        if self.sleepers.load(Ordering::SeqCst) > 0 {
            self.bell.bump_and_wake(1);
        }
        Ok(())
    }

    /// Worker side: the next item, sleeping while the ring is empty and open. `None` once the
    /// ring is closed and drained: the worker should exit.
    pub fn next(&self) -> Option<T> {
        loop {
            if let Some(v) = self.ring.pop() {
                return Some(v);
            }
            if self.ring.is_closed() && self.ring.is_empty() {
                return None;
            }
            if self.spin_until_work() {
                continue;
            }
            let seen = self.bell.load();
            self.sleepers.fetch_add(1, Ordering::SeqCst);
            if self.ring.is_empty() && !self.ring.is_closed() {
                self.bell.wait(seen);
            }
            self.sleepers.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// Polls the ring a little (a few µs) before going to sleep: in a stream of short tasks the
    /// next one usually arrives within microseconds, and a worker that is still awake then costs
    /// the submitter no `notify` and itself no futex round trip. `true` if work (or close)
    /// showed up. Measured (`target`-free no-op loop, Node, 2 workers, 64 in flight): ~99k
    /// tasks/s without it, 118k with 128 polls, 123–169k with 512, 122–126k with 4096 (longer
    /// spins take CPU from the submitting thread on a 2-core machine). Only the first idle
    /// worker polls long (`LEAD_SPIN_POLLS`, ~4× the time): A/B on fresh pools, 1.05–1.08×
    /// tasks/s and 5–9 % less CPU per task than every worker polling 512 times.
    fn spin_until_work(&self) -> bool {
        #[cfg(not(loom))]
        {
            // One idle worker at a time polls long: it catches the next submission without a
            // futex round trip, while the others sleep and leave the cores to the submitter.
            let lead = self.spinners.fetch_add(1, Ordering::Relaxed) == 0;
            let polls = if lead { LEAD_SPIN_POLLS } else { SPIN_POLLS };
            let mut found = false;
            for i in 0..polls {
                if !self.ring.is_empty() || self.ring.is_closed() {
                    found = true;
                    break;
                }
                for _ in 0..(1 + i.min(SPIN_POLLS) / 64) {
                    crate::sync::spin_hint();
                }
            }
            self.spinners.fetch_sub(1, Ordering::Relaxed);
            found
        }
        #[cfg(loom)]
        false
    }

    /// Closes admission and wakes every sleeper so workers can drain and exit.
    pub fn close(&self) -> bool {
        let first = self.ring.close();
        self.bell.bump_and_wake(crate::sync::WAKE_ALL);
        first
    }
}
