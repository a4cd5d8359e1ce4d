//! Cancellation tokens for the Rust API (the JS API maps `AbortSignal` onto them).

use crate::sync::{Arc, AtomicBool, Mutex, Ordering};

/// What a token does for one task when it is cancelled.
pub(crate) trait Hook: Send {
    /// Cancels the task (runs once, on the thread that calls [`CancelToken::cancel`]).
    fn fire(self: Box<Self>);
    /// The task settled: firing would do nothing, so the token may forget the hook.
    fn is_stale(&self) -> bool;
}

/// Cancels the tasks it was submitted with. Cloning shares the token.
///
/// Cancelling settles every not-yet-settled task of the token with
/// [`TaskError::Cancelled`](crate::error::TaskError::Cancelled) at once. A queued body never runs; a
/// running body keeps running and can observe it with [`is_cancelled`](crate::task::is_cancelled).
///
/// A token may live as long as the program and serve any number of tasks: it keeps a hook only
/// for tasks that have not settled (stale ones are dropped as new ones arrive).
#[derive(Clone, Default)]
pub struct CancelToken(Arc<Inner>);

#[derive(Default)]
struct Inner {
    cancelled: AtomicBool,
    /// Taken by the `cancel` call that flips `cancelled`.
    hooks: Mutex<Hooks>,
}

#[derive(Default)]
struct Hooks {
    list: Vec<Box<dyn Hook>>,
    /// See [`sweep_when_doubled`].
    sweep_at: usize,
}

const MIN_SWEEP: usize = 32;

/// Keeps a collection of hooks within twice its live ones at O(1) amortised cost: once `len`
/// reaches `*mark`, `sweep` drops the stale hooks and returns how many are left, and the mark
/// moves to twice that (at least `min`). Used by cancel tokens and the native timer.
pub(crate) fn sweep_when_doubled(len: usize, mark: &mut usize, min: usize, sweep: impl FnOnce() -> usize) {
    if len >= *mark {
        *mark = (2 * sweep()).max(min);
    }
}

impl CancelToken {
    /// A token that is not cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// Cancels; later calls do nothing.
    pub fn cancel(&self) {
        if self.0.cancelled.swap(true, Ordering::SeqCst) {
            return;
        }
        let hooks = std::mem::take(&mut self.0.hooks.lock().unwrap_or_else(|e| e.into_inner()).list);
        for hook in hooks {
            hook.fire();
        }
    }

    /// Whether [`cancel`](Self::cancel) was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(Ordering::SeqCst)
    }

    /// Fires `hook` on cancellation, or now if the token is already cancelled.
    pub(crate) fn on_cancel(&self, hook: Box<dyn Hook>) {
        let mut hooks = self.0.hooks.lock().unwrap_or_else(|e| e.into_inner());
        if self.0.cancelled.load(Ordering::SeqCst) {
            drop(hooks);
            hook.fire();
            return;
        }
        let Hooks { list, sweep_at } = &mut *hooks;
        sweep_when_doubled(list.len(), sweep_at, MIN_SWEEP, || {
            list.retain(|h| !h.is_stale());
            list.len()
        });
        list.push(hook);
    }
}

impl std::fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CancelToken").field("cancelled", &self.is_cancelled()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// Stale once `settled` is set; counts firings.
    struct Probe {
        settled: Arc<AtomicBool>,
        fired: Arc<AtomicUsize>,
    }
    impl Hook for Probe {
        fn fire(self: Box<Self>) {
            self.fired.fetch_add(1, Ordering::SeqCst);
        }
        fn is_stale(&self) -> bool {
            self.settled.load(Ordering::SeqCst)
        }
    }

    #[test]
    fn stale_hooks_are_swept_and_live_ones_fire_once() {
        let token = CancelToken::new();
        let (fired_live, fired_stale) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let (live, done) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(true)));
        for _ in 0..10 {
            token.on_cancel(Box::new(Probe { settled: live.clone(), fired: fired_live.clone() }));
        }
        for _ in 0..10_000 {
            token.on_cancel(Box::new(Probe { settled: done.clone(), fired: fired_stale.clone() }));
            let len = token.0.hooks.lock().unwrap().list.len();
            assert!(len <= MIN_SWEEP, "{len} hooks kept for 11 tasks in flight");
        }
        token.cancel();
        token.cancel();
        assert_eq!(fired_live.load(Ordering::SeqCst), 10, "every live hook fires, once");
        // Settled ones not yet swept may fire too: harmless, the task ignores it.
        assert!(fired_stale.load(Ordering::SeqCst) < MIN_SWEEP);
        token.on_cancel(Box::new(Probe { settled: live.clone(), fired: fired_live.clone() }));
        assert_eq!(fired_live.load(Ordering::SeqCst), 11, "a hook added after cancel fires at once");
    }
}
