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
    /// Submissions the owner holds back for queue space (`submit`, and `submitAll` while it
    /// admits); no completion is quiet while there are any.
    pub(crate) waiting: AtomicU32,
}

impl<T> Default for Delivery<T> {
    fn default() -> Self {
        Delivery {
            head: Completions::new(),
            bell: Futex::new(0),
            catch_bell: Futex::new(0),
            message_while_few: AtomicBool::new(false),
            owner: AtomicU32::new(thread_id()),
            waiting: AtomicU32::new(0),
        }
    }
}

impl<T> Delivery<T> {
    /// The byte address of the bell, for the owner's `Atomics.waitAsync` watch.
    pub(crate) fn bell_addr(&self) -> u32 {
        self.bell.as_ptr() as u32
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
