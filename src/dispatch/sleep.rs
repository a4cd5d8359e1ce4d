//! The worker side of the queue's sleep/wake protocol: polling before sleeping, the hold a
//! worker keeps across settling a task, sleeping on the bell, and the wake-ups submitters and
//! workers owe sleepers ("Waking workers" and "Polling workers" in src/README.md).

use super::Dispatch;
use crate::sync::{fence, AtomicU32, Ordering};

/// How many times an idle worker polls the queue before it sleeps (see `spin_until_work`):
/// the first idle worker polls long enough to bridge a caller's round trip (its result
/// reaching the caller and the next task coming back: tens of µs), the others briefly. Wasm
/// has no pause instruction (`spin_loop` is a no-op there), so a poll takes a few ns and the
/// lead polls ~0.15 ms; natively each poll also pauses, and 2048 already last that long.
/// Under loom a worker polls once, so that the model covers a submitter skipping its wake-up.
#[cfg(not(loom))]
const SPIN_POLLS: u32 = 512;
#[cfg(loom)]
const SPIN_POLLS: u32 = 1;
#[cfg(all(not(loom), target_arch = "wasm32"))]
const LEAD_SPIN_POLLS: u32 = 65536;
#[cfg(all(not(loom), not(target_arch = "wasm32")))]
const LEAD_SPIN_POLLS: u32 = 2048;
#[cfg(loom)]
const LEAD_SPIN_POLLS: u32 = 1;

/// A worker counted as polling (`Dispatch::spinners`) until this is dropped; see
/// [`Dispatch::hold_poll`]. `lead`: no other worker polled when it was taken, so this one
/// polls long.
#[must_use = "dropping the hold at once stops counting the worker as polling"]
pub struct PollHold<'a> {
    spinners: &'a AtomicU32,
    lead: bool,
}

impl Drop for PollHold<'_> {
    fn drop(&mut self) {
        self.spinners.fetch_sub(1, Ordering::SeqCst);
    }
}

impl<T> Dispatch<T> {
    /// After a push into a lane: wakes one sleeper, unless a worker is polling the queue. That
    /// worker then takes an item without a futex round trip, and the submitter (a browser main
    /// thread, say) pays no `notify` ("Polling workers", src/README.md): it stops polling only
    /// after its `spinners` decrement, which comes after our load, so its next look at the
    /// queue (a poll, `pass_on`, or the re-check before sleeping) sees this item.
    pub(super) fn wake_for_lanes(&self) {
        fence(Ordering::SeqCst);
        if self.sleepers.load(Ordering::SeqCst) > 0 && !self.polling() {
            self.bell.bump_and_wake(1);
        }
    }

    /// Whether some worker is in `spin_until_work`.
    fn polling(&self) -> bool {
        self.spinners.load(Ordering::SeqCst) > 0
    }

    /// Called by a worker that just took an item: if more wait in the lanes and nobody polls,
    /// it wakes one sleeper for them. A burst that found one polling worker then spreads over
    /// the sleeping ones one wake-up at a time, instead of waiting for that worker.
    fn pass_on(&self) {
        // Sleepers first: a busy pool, where nobody sleeps, pays this one load per task.
        if self.sleepers.load(Ordering::SeqCst) == 0 {
            return;
        }
        let taken = self.taken.0.load(Ordering::SeqCst);
        if self.submit.0.pushed.load(Ordering::SeqCst) != taken {
            self.wake_for_lanes();
        }
    }

    /// After a push: wakes `n` sleepers if there are any.
    pub(super) fn wake(&self, n: u32) {
        fence(Ordering::SeqCst);
        if self.sleepers.load(Ordering::SeqCst) > 0 {
            self.bell.bump_and_wake(n);
        }
    }

    /// Worker side: counts the calling worker as polling from now until its next look at the
    /// queue, which [`next`](Self::next) makes with the returned hold. A worker takes one
    /// before it settles a task: a caller that answers the result with its next task then sees
    /// the worker as polling and skips its wake-up, and the worker takes that task itself
    /// instead of a sleeper being woken for it ("Polling workers", src/README.md). Dropping the
    /// hold (also on unwinding) lowers the count. `may_lead`: `false` makes the poll brief even
    /// for the first poller, as when the owner has results it has not taken yet (it is busy,
    /// and a long poll would take a core from it).
    pub fn hold_poll(&self, may_lead: bool) -> PollHold<'_> {
        // SeqCst: a submitter that sees this count skips its wake-up (`wake_for_lanes`).
        let first = self.spinners.fetch_add(1, Ordering::SeqCst) == 0;
        PollHold { spinners: &self.spinners, lead: first && may_lead }
    }

    /// Worker side: worker `index`'s next item, sleeping while there is none and admission is
    /// open. `None` once admission is closed and nothing is left for it: the worker should exit.
    /// `hold`, from [`hold_poll`](Self::hold_poll), is released after the first look at the
    /// queue finds an item, or carried into the poll before sleeping.
    pub fn next(&self, index: usize, mut hold: Option<PollHold<'_>>) -> Option<T> {
        loop {
            if let Some(v) = self.pop(index) {
                // Lowered before `pass_on` looks at the counts: a submitter that skipped its
                // wake-up for this hold reserved before it saw the count, so that look sees it.
                // The fence is the worker's half of the Dekker pair with the submitter's (loom
                // finds the stranded item without it: `a_held_poll_passes_a_second_item_on`).
                if let Some(hold) = hold.take() {
                    drop(hold);
                    fence(Ordering::SeqCst);
                }
                self.pass_on();
                return Some(v);
            }
            // The reservation counts cover reservations, so a push that is under way
            // keeps the worker here until it lands (or is refused and released).
            if self.is_closed() {
                // Pairs with the fence between a reservation and its closed check.
                fence(Ordering::SeqCst);
                if self.idle(index) {
                    return None;
                }
            }
            if self.spin_until_work(index, hold.take()) {
                continue;
            }
            let seen = self.bell.load();
            self.sleepers.fetch_add(1, Ordering::SeqCst);
            // The worker's half of the Dekker pair with `wake`'s fence. SeqCst accesses alone
            // already order it in the C++ model, but loom treats them as acquire/release and
            // then finds a lost wake-up (tests/loom.rs,
            // `a_polling_worker_takes_the_item_without_a_wake_up`). On the sleep path, already
            // a futex wait, the fence costs nothing measurable.
            fence(Ordering::SeqCst);
            let idle = self.idle(index);
            if idle && !self.is_closed() {
                self.bell.wait(seen);
            }
            self.sleepers.fetch_sub(1, Ordering::SeqCst);
            if !idle {
                // A place is reserved and its push not done yet: let the pusher run.
                crate::sync::spin_hint();
            }
        }
    }

    /// Polls the queue a while before going to sleep: in a stream of short tasks the next one
    /// usually arrives within microseconds, and a worker that is still awake then costs the
    /// submitter no `notify` and itself no futex round trip. `true` if work (or close) showed
    /// up. Only the first idle worker polls long (`LEAD_SPIN_POLLS`, ~0.15 ms of one core each
    /// time the pool falls idle), so that a caller awaiting one task at a time finds it awake;
    /// the others poll briefly and sleep, leaving the cores to the submitter. Why: src/README.md,
    /// "Polling workers".
    fn spin_until_work(&self, index: usize, hold: Option<PollHold<'_>>) -> bool {
        // One idle worker at a time polls long: it catches the next submission without a
        // futex round trip, while the others sleep and leave the cores to the submitter.
        let hold = hold.unwrap_or_else(|| self.hold_poll(true));
        let polls = if hold.lead { LEAD_SPIN_POLLS } else { SPIN_POLLS };
        let mut found = false;
        for i in 0..polls {
            if !self.idle(index) || self.is_closed() {
                found = true;
                break;
            }
            #[cfg(not(loom))]
            for _ in 0..(1 + i.min(SPIN_POLLS) / 64) {
                crate::sync::spin_hint();
            }
            #[cfg(loom)]
            let _ = i;
        }
        drop(hold);
        // A reservation whose push is under way also counts as work; loom must be told that
        // the retry waits on another thread (natively the retry just spins until it lands).
        #[cfg(loom)]
        if found {
            crate::sync::spin_hint();
        }
        found
    }
}
