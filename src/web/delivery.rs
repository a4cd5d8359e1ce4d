//! Completions on their way to the owner thread: the stack settled tasks are pushed onto, the
//! words that wake the owner, and which thread the owner is (`src/README.md`, "Results back
//! to the owner thread"). `T` is the back end's task reference.

use crate::completion::Completions;
use crate::sync::{AtomicBool, AtomicU32, Futex, Ordering};

/// Per-pool delivery state (the web back end's `Backend::Delivery`).
pub(crate) struct Delivery<T> {
    /// Settled tasks pushed by settling threads, taken whole by the owner.
    pub(crate) head: Completions<T>,
    /// The doorbell word the owner watches (waitAsync mode).
    pub(crate) bell: Futex,
    /// The word the owner sleeps on, with a timeout, while it catches (catch.rs).
    pub(crate) catch_bell: Futex,
    /// How workers ring: `false`, the bell always; `true`, the doorbell message while no more
    /// tasks are in flight than workers (`backend::ring`).
    pub(crate) message_while_few: AtomicBool,
    /// Thread id of the owner (the thread that created the pool).
    owner: AtomicU32,
    /// 1 while a `submitAll` call admits its items: a member that completes meanwhile must
    /// ring, as it must while submissions wait for space (`Shared::waiting`), since a later
    /// item refused for space would otherwise wait for a ring nobody owes it.
    pub(crate) admitting: AtomicU32,
}

impl<T> Default for Delivery<T> {
    fn default() -> Self {
        Delivery {
            head: Completions::new(),
            bell: Futex::new(0),
            catch_bell: Futex::new(0),
            message_while_few: AtomicBool::new(false),
            owner: AtomicU32::new(thread_id()),
            admitting: AtomicU32::new(0),
        }
    }
}

impl<T> Delivery<T> {
    /// The byte address of the bell, for the owner's `Atomics.waitAsync` watch.
    pub(crate) fn bell_addr(&self) -> u32 {
        self.bell.as_ptr() as u32
    }

    /// Whether submissions wait on the owner for queue space (or a `submitAll` is admitting):
    /// then no completion is quiet, and every drain tries to admit them.
    pub(crate) fn anyone_waits(&self, waiting: &crate::waiting::Waiting) -> bool {
        waiting.count() > 0 || self.admitting.load(Ordering::SeqCst) > 0
    }

    /// Whether the calling thread is the pool's owner.
    pub(crate) fn on_owner_thread(&self) -> bool {
        self.owner.load(Ordering::Relaxed) == thread_id()
    }
}

/// A number for the calling thread, unique in this module instance.
fn thread_id() -> u32 {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
    std::thread_local!(static ID: u32 = NEXT.fetch_add(1, Ordering::SeqCst));
    ID.with(|id| *id)
}
