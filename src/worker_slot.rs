//! Each worker's slot: the task it is running, so that the owner can settle it when the worker
//! crashes or a forced shutdown comes, and when its body started; in message mode also the task
//! it took ahead of its turn.

use crate::dispatch::Place;
use crate::sync::{AtomicBool, AtomicU64, Mutex, Ordering};

/// Per-worker state shared with the back end; `T` is the pool's task reference.
pub(crate) struct WorkerSlot<T> {
    /// The task this worker is running, so a crash or a forced shutdown can settle it. The
    /// worker holds the lock only to set or clear it; the owner thread (possibly a browser main
    /// thread, where a contended lock would trap) only ever uses `try_lock`.
    current: Mutex<Option<T>>,
    /// When the current body started (µs on the back end's clock); kept here, not on the
    /// stack, because an async JS body finishes in a later call (`Shared::resume`).
    pub(crate) started_us: AtomicU64,
    /// A task is set (a hint for routing, read without the lock).
    busy: AtomicBool,
    /// Message mode: the task this worker took ahead of its turn, and where it keeps its queue
    /// place (`Shared::take_ahead`); only the owner thread touches it.
    next: Mutex<Option<(T, Place)>>,
}

impl<T: Clone> WorkerSlot<T> {
    pub(crate) fn new() -> Self {
        WorkerSlot { current: Mutex::new(None), started_us: AtomicU64::new(0), busy: AtomicBool::new(false), next: Mutex::new(None) }
    }

    /// Worker side: `task` is the one it runs now.
    pub(crate) fn set(&self, task: &T) {
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) = Some(task.clone());
        self.busy.store(true, Ordering::Relaxed);
    }

    /// Worker side: clears the slot.
    pub(crate) fn clear(&self) {
        self.busy.store(false, Ordering::Relaxed);
        self.current.lock().unwrap_or_else(|e| e.into_inner()).take();
    }

    /// Whether the worker is running a task (a snapshot).
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(crate) fn is_busy(&self) -> bool {
        self.busy.load(Ordering::Relaxed)
    }

    /// Owner side: `task`, kept at `place`, is the one it took ahead.
    pub(crate) fn set_next(&self, task: &T, place: Place) {
        *self.next.lock().unwrap_or_else(|e| e.into_inner()) = Some((task.clone(), place));
    }

    /// Owner side: where the task it took ahead keeps its place, if it holds one.
    pub(crate) fn next(&self) -> Option<Place> {
        self.next.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map(|(_, place)| *place)
    }

    /// Owner side: takes the task it took ahead, and its place.
    pub(crate) fn take_next(&self) -> Option<(T, Place)> {
        self.next.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Owner side: takes the current task without ever waiting. `None` also when the worker
    /// holds the lock at this instant (it is between tasks then).
    pub(crate) fn try_take(&self) -> Option<T> {
        match self.current.try_lock() {
            Ok(mut g) => g.take(),
            Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner().take(),
            Err(std::sync::TryLockError::WouldBlock) => None,
        }
    }
}
