//! Completion groups: the tasks of one `pool.submitAll` call.
//!
//! A task's promise lives on the pool's owner thread, so every completion normally wakes that
//! thread (a `waitAsync` notify or a message). On a busy machine each wake-up costs the owner
//! ~0.1 ms of CPU and preempts a worker, which is most of what a pool of short-lived tiles pays
//! over a work-splitting scheduler such as rayon. The members of a batch are awaited together,
//! so only the member that settles last — or one that fails, which rejects the batch at once —
//! needs to wake the owner; the others are pushed quietly and ride along
//! ([`Completions::push_quiet`](crate::Completions::push_quiet)).
//!
//! Each member pushes its completion first and then counts itself done; the one that brings
//! the count to zero rings, so that ring finds every member's item in the stack. A batch turns
//! *loud* (every completion rings) once one of its members could not be admitted; and no
//! completion is quiet while the owner has submissions waiting for queue space, because
//! admitting them is the owner's job and needs it awake.

use crate::sync::{AtomicBool, AtomicUsize, Ordering};

pub(crate) struct Batch {
    /// Members not yet done: admitted and not settled, or still to be admitted.
    pending: AtomicUsize,
    /// Set once a member was refused (closed, aborted or timed out while waiting): from then
    /// on every completion rings.
    loud: AtomicBool,
}

impl Batch {
    pub(crate) fn new(members: usize) -> Self {
        Batch { pending: AtomicUsize::new(members), loud: AtomicBool::new(false) }
    }

    pub(crate) fn is_loud(&self) -> bool {
        self.loud.load(Ordering::SeqCst)
    }

    /// A settled member's item is in the completion stack. `true` for the last one, which
    /// must ring: every other member pushed its item before counting itself done.
    pub(crate) fn member_done(&self) -> bool {
        self.pending.fetch_sub(1, Ordering::SeqCst) == 1
    }

    /// A member will never be admitted: every later completion rings (the caller, on the
    /// owner thread, also rings for what was pushed quietly).
    pub(crate) fn member_refused(&self) {
        self.loud.store(true, Ordering::SeqCst);
        self.pending.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn the_last_member_is_done_and_refusals_turn_loud() {
        let b = Batch::new(3);
        assert!(!b.member_done());
        assert!(!b.is_loud());
        b.member_refused();
        assert!(b.is_loud());
        assert!(b.member_done(), "the last one to finish rings");
    }
}
