//! Cancellation tokens for the Rust API (the JS API maps `AbortSignal` onto them).

use crate::sync::{Arc, AtomicBool, Mutex, Ordering};

type Callback = Box<dyn FnOnce() + Send>;

/// Cancels the tasks it was submitted with. Cloning shares the token.
///
/// Cancelling settles every not-yet-settled task of the token with
/// [`TaskError::Cancelled`](crate::TaskError::Cancelled) at once. A queued body never runs; a
/// running body keeps running and can observe it with [`is_cancelled`](crate::is_cancelled).
#[derive(Clone, Default)]
pub struct CancelToken(Arc<Inner>);

#[derive(Default)]
struct Inner {
    cancelled: AtomicBool,
    /// Run once by the `cancel` call that flips `cancelled`.
    callbacks: Mutex<Vec<Callback>>,
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
        let callbacks = std::mem::take(&mut *self.0.callbacks.lock().unwrap_or_else(|e| e.into_inner()));
        for cb in callbacks {
            cb();
        }
    }

    /// Whether [`cancel`](Self::cancel) was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(Ordering::SeqCst)
    }

    /// Runs `cb` on cancellation, or now if the token is already cancelled.
    pub(crate) fn on_cancel(&self, cb: Callback) {
        let mut callbacks = self.0.callbacks.lock().unwrap_or_else(|e| e.into_inner());
        if self.0.cancelled.load(Ordering::SeqCst) {
            drop(callbacks);
            cb();
        } else {
            callbacks.push(cb);
        }
    }
}

impl std::fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CancelToken").field("cancelled", &self.is_cancelled()).finish()
    }
}
