//! Every deadline of one pool, kept on its owner thread: tasks' `TaskOptions::timeout`s, from
//! JS or Rust (forgotten as their completions are drained, `Main::drain`), waiting `submit`s'
//! and `shutdown_timeout`s. One JS timer for the earliest, on the monotonic
//! clock, and one entry each that is forgotten as soon as the task settles (or the `submit`
//! is admitted).
//!
//! A timer per task keeps its closure — and through it the task's record — until it fires,
//! however early the task finished: with `timeout: 600000`, 50,000 short tasks grew wasm memory
//! (which never shrinks) by 13 MiB and the JS heap by 35 MB, and in Node the last timer kept
//! the process alive for ten minutes after `shutdown()`. Here the timer is cleared once no
//! task waits for a deadline.
//!
//! The heap may hold entries of settled tasks (16 bytes each) until they come due; it is
//! rebuilt from the live ones when it grows past twice their number.

use crate::web::clock::clock;
use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(callback: &JsValue, ms: f64) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(handle: &JsValue);
}

#[derive(Default)]
pub(crate) struct Deadlines {
    state: RefCell<State>,
}

#[derive(Default)]
struct State {
    /// `(deadline in clock ms, rounded up; id)`, earliest first. May hold settled ids.
    heap: BinaryHeap<Reverse<(u64, u64)>>,
    /// What to do at each live deadline, by id.
    live: HashMap<u64, (u64, Box<dyn FnOnce()>)>,
    next_id: u64,
    /// The JS timer and the deadline it was set for: the only one pending.
    armed: Option<(u64, JsValue)>,
    /// The timer's callback, made once: a callback per timer would leak each time its timer is
    /// cleared before it fires (a `once_into_js` closure is freed only by its call).
    fire: Option<Closure<dyn FnMut()>>,
}

impl Drop for Deadlines {
    /// The pending timer must not call `fire` once it is freed.
    fn drop(&mut self) {
        if let Some((_, handle)) = self.state.get_mut().armed.take() {
            clear_timeout(&handle);
        }
    }
}

/// An entry; dropping it (when the task settles, on the owner thread) forgets it.
pub(crate) struct Watch {
    id: u64,
    deadlines: Weak<Deadlines>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        if let Some(d) = self.deadlines.upgrade() {
            d.forget(self.id);
        }
    }
}

impl Deadlines {
    /// Runs `due` at `at` ([`clock`] ms: monotonic, unlike `Date.now()`) unless the returned
    /// [`Watch`] is dropped first.
    pub(crate) fn watch(self: &Rc<Self>, at: f64, due: Box<dyn FnOnce()>) -> Watch {
        let at = at.max(0.0).ceil() as u64;
        let mut s = self.state.borrow_mut();
        s.next_id += 1;
        let id = s.next_id;
        s.live.insert(id, (at, due));
        s.heap.push(Reverse((at, id)));
        if s.heap.len() > 2 * s.live.len() + 64 {
            s.heap = s.live.iter().map(|(&id, &(at, _))| Reverse((at, id))).collect();
        }
        if s.armed.as_ref().is_none_or(|(armed_at, _)| at < *armed_at) {
            self.arm(&mut s, at);
        }
        Watch { id, deadlines: Rc::downgrade(self) }
    }

    /// How many deadlines are live, and whether the timer is armed.
    pub(crate) fn pending(&self) -> (usize, bool) {
        let s = self.state.borrow();
        (s.live.len(), s.armed.is_some())
    }

    fn forget(&self, id: u64) {
        let mut s = self.state.borrow_mut();
        s.live.remove(&id);
        if s.live.is_empty() {
            s.heap.clear();
            if let Some((_, handle)) = s.armed.take() {
                clear_timeout(&handle);
            }
        }
    }

    /// Sets the one timer for `at`, replacing an armed one.
    fn arm(self: &Rc<Self>, s: &mut State, at: u64) {
        if let Some((_, handle)) = s.armed.take() {
            clear_timeout(&handle);
        }
        let fire = s.fire.get_or_insert_with(|| {
            let me = std::panic::AssertUnwindSafe(Rc::downgrade(self));
            Closure::new(move || {
                let me = &me;
                if let Some(d) = me.0.upgrade() {
                    d.expire();
                }
            })
        });
        let ms = (at as f64 - clock()).max(0.0);
        s.armed = Some((at, set_timeout(fire.as_ref(), ms)));
    }

    /// The timer fired: runs what is due, then sets the timer for the next deadline.
    fn expire(self: &Rc<Self>) {
        let now = clock();
        let mut due = Vec::new();
        {
            let mut s = self.state.borrow_mut();
            s.armed = None;
            while let Some(&Reverse((at, id))) = s.heap.peek() {
                if at as f64 > now {
                    break;
                }
                s.heap.pop();
                if let Some((_, action)) = s.live.remove(&id) {
                    due.push(action);
                }
            }
            // The next live deadline (entries of settled tasks are dropped on the way).
            while let Some(&Reverse((at, id))) = s.heap.peek() {
                if s.live.contains_key(&id) {
                    self.arm(&mut s, at);
                    break;
                }
                s.heap.pop();
            }
        }
        // Outside the borrow: settling a task may drop its `Watch` right here.
        for action in due {
            action();
        }
    }
}
