//! The owner's half of message mode (`src/README.md`, "Message mode"): for a page that is not
//! cross-origin isolated, each worker has its own module instance and memory, so the owner's
//! pool does the workers' popping. Whenever the queue changes or a worker replies, each idle
//! worker gets its turn (`Shared::turn`, the one scheduler: lanes, mailboxes, accounting), and
//! the body it took goes to the worker as a request (`Body::remote`); the worker's reply
//! finishes the task (`Shared::resume`). The worker's half is `worker/posted.js`.

use super::{Main, Mode};
use crate::error::TaskError;
use crate::memory::OutOfMemory;
use crate::value::Value;
use crate::web::outcome::{outcome_of, thrown_error, JsOutcome};
use crate::worker_loop::Turn;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use std::panic::AssertUnwindSafe;

/// How a posted task ended, as its worker replies (`worker/posted.js`); wasm-bindgen turns
/// the JS string into this enum, so the names are written once, here.
#[wasm_bindgen(skip_typescript)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Reply {
    /// `value`: what it returned (or its promise fulfilled with).
    Returned = "returned",
    /// `value`: what it threw, not an `Error`.
    Threw = "threw",
    /// `value`: `[name, message, stack]` of the `Error` it threw (structured clone would keep
    /// only the built-in names).
    ThrewError = "threw-error",
    /// `value`: why its result could not be posted back (structured clone's words).
    Unsendable = "unsendable",
    /// `value`: `[name, message]` of the codec's error naming the place in the result that
    /// cannot cross, as in shared mode (`TypeError` or `RangeError`).
    Refused = "refused",
    /// `value`: the compile error of the task function's source.
    DoesNotCompile = "does-not-compile",
    /// The task module has no function export of that name.
    NotFound = "not-found",
    /// `value`: `[message, location]` of the Rust panic.
    Panicked = "panicked",
    /// `value`: `[needed, inUse, maximum]` bytes of the worker's memory.
    OutOfMemory = "out-of-memory",
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = queueMicrotask)]
    fn queue_microtask(f: &js_sys::Function);
}

impl Main {
    /// The queue changed (an admission, a broadcast, a close): the workers get their turns once this turn's
    /// synchronous code has run, so that a submission has detached its handed-over buffers
    /// first, and a burst of submissions is handed out in one go.
    pub(crate) fn queue_pump(&self) {
        if !self.pump_queued.replace(true) {
            // A closure of its own, not one `Main` holds: the pool may be gone when it runs.
            let me = AssertUnwindSafe(self.me.clone());
            queue_microtask(Closure::once_into_js(move || {
                let me = me;
                if let Some(main) = me.0.upgrade() {
                    main.pump_queued.set(false);
                    main.pump();
                }
            }).unchecked_ref());
        }
    }

    /// Gives every idle, ready worker its turn.
    pub(crate) fn pump(&self) {
        for index in 0..self.shared.workers {
            self.take_turn(index);
        }
    }

    /// Worker `index`, if it is ready and has no task, takes its next one, which is posted to
    /// it; a worker whose turn finds the pool closed and drained is ended.
    pub(crate) fn take_turn(&self, index: usize) {
        if self.mode != Mode::Message {
            return;
        }
        let idle = {
            let slots = self.slots.borrow();
            slots[index].alive && slots[index].ready_now && self.posted.borrow()[index].is_none()
        };
        if !idle {
            return;
        }
        match self.shared.turn(index) {
            Turn::Posted(task, request) => {
                self.posted.borrow_mut()[index] = Some((task, false));
                self.set.post_task(index as u32, &request);
            }
            Turn::Idle => {}
            Turn::Exited => self.on_event(index as i32, super::WorkerEvent::Exited),
        }
    }

    /// Worker `index` replied: its task ends with `reply`, and it takes its next turn.
    pub(super) fn on_reply(&self, index: usize, reply: Reply, value: JsValue) {
        let Some((task, _)) = self.posted.borrow_mut().get_mut(index).and_then(Option::take) else { return };
        // `value[i]` of an array reply, as a string or a number.
        let part = |i: u32| js_sys::Reflect::get_u32(&value, i).ok();
        let text = |i: u32| part(i).and_then(|v| v.as_string());
        let (result, failed) = match reply {
            Reply::Returned => {
                let (outcome, failed) = outcome_of(true, &value);
                (Ok(outcome), failed)
            }
            Reply::Threw => (Ok(outcome_of(false, &value).0), true),
            Reply::ThrewError => (Ok(thrown_error(text(0).unwrap_or_default(), text(1).unwrap_or_default(), text(2).unwrap_or_default(), true)), true),
            Reply::Unsendable => {
                let why = value.as_string().unwrap_or_default();
                (Ok(error_outcome("TypeError".into(), format!("the task's result cannot be posted back to the pool's thread: {why}"))), true)
            }
            Reply::Refused => (Ok(error_outcome(text(0).unwrap_or_default(), text(1).unwrap_or_default())), true),
            Reply::DoesNotCompile => (Ok(crate::web::worker::jsfn::does_not_compile(&value)), true),
            Reply::NotFound => (Ok(crate::web::worker::jsfn::no_export(&value.as_string().unwrap_or_default())), true),
            Reply::Panicked => (Err(TaskError::Panicked { message: text(0).unwrap_or_default(), location: text(1) }), true),
            Reply::OutOfMemory => {
                let n = |i: u32| part(i).and_then(|v| v.as_f64()).unwrap_or(0.0) as usize;
                (Err(TaskError::OutOfMemory(OutOfMemory { needed: n(0), in_use: n(1), maximum: n(2) })), true)
            }
            Reply::__Invalid => return,
        };
        // The drain below takes the completion: it rings no bell meanwhile (catch.rs's
        // protocol, `Completions::begin_catch`).
        let head = &self.shared.delivery.head;
        head.begin_catch();
        self.shared.resume(index, task, result, failed);
        head.end_catch();
        self.take_turn(index);
        self.drain();
    }

    /// Tells each worker whose task was settled by someone else (its signal, timeout, a forced
    /// shutdown) once, so that the task's `this.signal` aborts.
    pub(super) fn tell_settled(&self) {
        for index in 0..self.shared.workers {
            let tell = match self.posted.borrow_mut()[index].as_mut() {
                Some((task, told)) if !*told && task.header().is_settled() => {
                    *told = true;
                    true
                }
                _ => false,
            };
            if tell {
                self.set.post_abort(index as u32);
            }
        }
    }
}

/// An error of the built-in class `name` (`TypeError`, `RangeError`) as the task's outcome.
fn error_outcome(name: String, message: String) -> JsOutcome {
    JsOutcome::Thrown(Value::Error { name, message, stack: String::new() })
}
