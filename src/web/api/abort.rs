//! `AbortSignal` → [`CancelToken`]: one abort listener per signal on this thread, however many
//! tasks use the signal, removed when the last of them settles.
//!
//! A listener per task would cost ~20 µs per admission, trip Node's
//! `MaxListenersExceededWarning` at the 11th task in flight on one signal, and — unless removed
//! again — keep its closure, its token and (through the token) every task it ever saw for as
//! long as the signal lives: ~350 bytes of wasm memory per task, which never shrinks.
//!
//! Here a signal gets a [`Link`] on first use: a token shared by all its tasks and one JS
//! listener that calls back with the link's id. Each task (or `submit` waiting for space) holds
//! a [`SignalUse`]; dropping the last one removes the listener and the link. The listener is a
//! plain JS function, so a link can be dropped while its own abort is being dispatched.

use crate::cancel::CancelToken;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Weak;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/web/api/abort.js")]
extern "C" {
    #[wasm_bindgen(js_name = abortReason)]
    pub(crate) fn abort_reason(signal: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = signalId)]
    fn signal_id(s: &JsValue) -> i32;
    #[wasm_bindgen(js_name = listen, catch)]
    fn listen(s: &JsValue, id: u32, on_abort: &Closure<dyn Fn(u32)>) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = unlisten)]
    fn unlisten(s: &JsValue, listener: &JsValue);
}

/// A signal in use by at least one task on this thread.
struct Link {
    signal: JsValue,
    /// Shared by every task of the signal; cancelled when the signal aborts.
    token: CancelToken,
    /// The JS listener, to remove when `users` drops to zero.
    listener: JsValue,
    /// Live [`SignalUse`]s.
    users: usize,
    /// Told after the token is cancelled: pools with `submit`s waiting for space on this
    /// signal (their tasks are not admitted, so the token has no hook of theirs).
    after: Vec<Weak<dyn AfterAbort>>,
}

thread_local! {
    /// Links by the signal's id (JS assigns ids through a `WeakMap`, so a signal keeps its id).
    static LINKS: RefCell<HashMap<u32, Link>> = RefCell::new(HashMap::new());
    /// Calls [`on_abort`]; made once per thread and kept for good (every listener calls it).
    static HANDLER: Closure<dyn Fn(u32)> = Closure::<dyn Fn(u32)>::new(on_abort);
}

/// A pool's part in an abort beyond its token: rejecting `submit`s that wait for space.
pub(crate) trait AfterAbort {
    fn after_abort(&self);
}

fn on_abort(id: u32) {
    // Not borrowed across `cancel`: settling tasks drops their `SignalUse`s, which release.
    let found = LINKS.with(|l| l.borrow().get(&id).map(|link| (link.token.clone(), link.after.clone())));
    if let Some((token, after)) = found {
        token.cancel();
        for pool in after.iter().filter_map(Weak::upgrade) {
            pool.after_abort();
        }
    }
}

/// One task's use of a signal. Dropping it (on this thread) releases the signal's link.
pub(crate) struct SignalUse {
    id: u32,
    token: CancelToken,
}

/// What [`SignalUse::acquire`] found.
pub(crate) enum Acquired {
    Linked(SignalUse),
    /// The signal had aborted already.
    Aborted,
    /// Not an `AbortSignal` (no boolean `aborted`, no `addEventListener`).
    NotASignal,
    /// Its `addEventListener` threw.
    ListenFailed,
}

impl SignalUse {
    /// Links `signal`: one call into JS when the signal is linked already, two when not.
    /// Whether `v` is an `AbortSignal` (or quacks like one), aborted or not.
    pub(crate) fn is_signal(v: &JsValue) -> bool {
        signal_id(v) != -1
    }

    pub(crate) fn acquire(signal: &JsValue) -> Acquired {
        let id = match signal_id(signal) {
            -1 => return Acquired::NotASignal,
            0 => return Acquired::Aborted,
            id => id as u32,
        };
        LINKS.with(|l| {
            let mut links = l.borrow_mut();
            if let Some(link) = links.get_mut(&id) {
                link.users += 1;
                return Acquired::Linked(SignalUse { id, token: link.token.clone() });
            }
            let Ok(listener) = HANDLER.with(|handler| listen(signal, id, handler)) else {
                return Acquired::ListenFailed;
            };
            let token = CancelToken::new();
            links.insert(id, Link { signal: signal.clone(), token: token.clone(), listener, users: 1, after: Vec::new() });
            Acquired::Linked(SignalUse { id, token })
        })
    }

    pub(crate) fn token(&self) -> &CancelToken {
        &self.token
    }

    /// Has `pool` told after the signal aborts (once per pool), while the link lives: a
    /// `submit` of that pool waits for space with this signal.
    pub(crate) fn tell_after_abort(&self, pool: Weak<dyn AfterAbort>) {
        LINKS.with(|l| {
            let mut links = l.borrow_mut();
            let after = &mut links.get_mut(&self.id).expect("a SignalUse keeps its link").after;
            after.retain(|w| w.strong_count() > 0);
            if !after.iter().any(|w| Weak::ptr_eq(w, &pool)) {
                after.push(pool);
            }
        });
    }

    /// The signal's `reason` (the link lives as long as this use).
    pub(crate) fn reason(&self) -> JsValue {
        LINKS.with(|l| abort_reason(&l.borrow().get(&self.id).expect("a SignalUse keeps its link").signal))
    }
}

impl Clone for SignalUse {
    /// Another use of the same link, without asking JS for the signal's id again.
    fn clone(&self) -> Self {
        LINKS.with(|l| l.borrow_mut().get_mut(&self.id).expect("a SignalUse keeps its link").users += 1);
        SignalUse { id: self.id, token: self.token.clone() }
    }
}

impl Drop for SignalUse {
    fn drop(&mut self) {
        let gone = LINKS.with(|l| {
            let mut links = l.borrow_mut();
            let link = links.get_mut(&self.id)?;
            link.users -= 1;
            if link.users == 0 {
                links.remove(&self.id)
            } else {
                None
            }
        });
        if let Some(link) = gone {
            unlisten(&link.signal, &link.listener);
        }
    }
}
