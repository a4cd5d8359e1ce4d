//! Completions on their way to the thread that owns the pool: an intrusive Treiber stack that
//! settling threads push onto and the owner swaps out whole (the wasm back end's delivery
//! path; see `src/README.md`, "Results back to the owner thread").
//!
//! The doorbell rule lives with the callers: a push that finds the stack *empty* must ring
//! (bump the bell word, then notify or post); the owner reads the bell, takes everything,
//! and sleeps only while the bell still holds the value it read. A push that lands after the
//! take finds the stack empty and rings again, so no completion is stranded — model-checked
//! in `tests/loom.rs`.
//!
//! A *quiet* push ([`Completions::push_quiet`], for members of a `submitAll` batch that are
//! not its last) never rings: it raises `unrung` before it publishes its node, and the next
//! loud push that finds the stack non-empty takes the flag and rings in its place. Whoever
//! pushes on top of a quiet node therefore sees the flag (the head CAS that reads the node
//! synchronises with the CAS that published it), so a loud push is never left without a
//! ring; quiet items wait at most until the next loud push (model-checked too).
//!
//! While the owner *catches* (waits for the stack itself for a moment after admitting a task
//! into an idle pool: [`Completions::begin_catch`]), a push that must ring rings the catch
//! instead of the doorbell ([`Completions::catching`]): the owner takes the stack after
//! [`Completions::end_catch`], and a pusher that saw the flag raised pushed before that
//! (src/README.md, "The owner's catch"; model-checked too).

use crate::sync::{AtomicBool, AtomicPtr, Ordering};

struct Node<T> {
    next: *mut Node<T>,
    item: T,
}

/// A lock-free multi-producer stack whose single consumer takes everything at once.
pub struct Completions<T> {
    /// Top of the stack: a `Box`-allocated node list owned by the stack, or null.
    head: AtomicPtr<Node<T>>,
    /// Raised by every quiet push before it publishes its node; the next loud push that
    /// finds the stack non-empty lowers it and rings. May be stale (an extra ring, no harm).
    unrung: AtomicBool,
    /// Raised while the owner waits for the stack itself; a push that must ring and sees it
    /// rings the owner's catch instead. Written only by the owner.
    catching: AtomicBool,
}

// SAFETY: items move between threads through the stack; nodes are owned by exactly one side
// at a time (the pusher until its CAS publishes the node, the stack after, the taker after
// its swap).
unsafe impl<T: Send> Send for Completions<T> {}
unsafe impl<T: Send> Sync for Completions<T> {}

impl<T> Default for Completions<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Completions<T> {
    pub fn new() -> Self {
        Completions { head: AtomicPtr::new(std::ptr::null_mut()), unrung: AtomicBool::new(false), catching: AtomicBool::new(false) }
    }

    /// Owner side: from now until [`end_catch`](Self::end_catch) the owner watches the stack
    /// ([`is_empty`](Self::is_empty)) itself, and a push that must ring rings the catch.
    pub fn begin_catch(&self) {
        self.catching.store(true, Ordering::SeqCst);
    }

    /// Owner side: ends a catch. The owner must then take the stack ([`take_all`](Self::take_all)):
    /// a push that rang the catch instead of the doorbell published its node before it read
    /// the flag, and that read came before this store. No fence is needed: the take's swap
    /// and the push's CAS are read-modify-writes of `head`, so one of them reads the other. If
    /// the swap reads the push, the node is taken; if the CAS reads the swap, the push comes
    /// after the store, so it reads the flag lowered and rings the doorbell.
    pub fn end_catch(&self) {
        self.catching.store(false, Ordering::SeqCst);
    }

    /// Whether nothing is waiting to be taken (the owner's poll while it catches).
    pub fn is_empty(&self) -> bool {
        self.head.load(Ordering::Acquire).is_null()
    }

    /// Pusher side, after a push that must ring: whether the owner is catching, so that the
    /// ring goes to its catch and not to the doorbell (see `end_catch`).
    pub fn catching(&self) -> bool {
        self.catching.load(Ordering::SeqCst)
    }

    /// Pushes `item`. Returns `true` if the caller must ring the doorbell: the stack was
    /// empty, or it holds quiet items nobody has rung for.
    pub fn push(&self, item: T) -> bool {
        // The load keeps the common case (no quiet items) free of a second read-modify-write.
        self.publish(item) || (self.unrung.load(Ordering::SeqCst) && self.unrung.swap(false, Ordering::SeqCst))
    }

    /// Pushes `item` without ringing: it reaches the owner with the next ring.
    pub fn push_quiet(&self, item: T) {
        self.unrung.store(true, Ordering::SeqCst);
        self.publish(item);
    }

    /// Delivers a member of a completion group (a `submitAll` batch): pushes `item` (quietly
    /// if `quiet`), then calls `done`, which counts the member done and says whether it was
    /// the group's last. `true` if the caller must ring, once, now: its push needs a ring, or
    /// it finished the group.
    ///
    /// The last member rings even when its own push needed a ring anyway: the drain answering
    /// that push's ring may come before the other members push (quietly, onto the emptied
    /// stack), and only a ring after `done` comes after every member's push. (An earlier
    /// version rang at the push and skipped the last ring then; a worker preempted between
    /// the two lost the batch's items — `tests/loom.rs`, `loud_member_pushed_first`.)
    pub fn push_member(&self, item: T, quiet: bool, done: impl FnOnce() -> bool) -> bool {
        let must = if quiet {
            self.push_quiet(item);
            false
        } else {
            self.push(item)
        };
        let last = done();
        must || last
    }

    /// Links `item` on top; `true` if the stack was empty.
    fn publish(&self, item: T) -> bool {
        let node = Box::into_raw(Box::new(Node { next: std::ptr::null_mut(), item }));
        let mut head = self.head.load(Ordering::Acquire);
        loop {
            // SAFETY: `node` is ours until the CAS publishes it.
            unsafe { (*node).next = head };
            match self.head.compare_exchange_weak(head, node, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return head.is_null(),
                Err(h) => head = h,
            }
        }
    }

    /// Takes every item pushed so far, oldest first.
    pub fn take_all(&self) -> Vec<T> {
        self.take_all_then(|| {})
    }

    /// `take_all`, calling `taken` once the items are ours and before any node is read.
    pub fn take_all_then(&self, taken: impl FnOnce()) -> Vec<T> {
        let mut p = self.head.swap(std::ptr::null_mut(), Ordering::AcqRel);
        taken();
        let mut out = Vec::new();
        while !p.is_null() {
            // SAFETY: the swap made the whole list ours; every node came from `Box::into_raw`.
            let node = unsafe { Box::from_raw(p) };
            p = node.next;
            out.push(node.item);
        }
        out.reverse();
        out
    }
}

impl<T> Drop for Completions<T> {
    fn drop(&mut self) {
        drop(self.take_all());
    }
}
