//! The owner's half of message mode (`src/README.md`, "Message mode"): for a page that is not
//! cross-origin isolated, each worker has its own module instance and memory, so the owner's
//! pool does the workers' popping. Whenever the queue changes or a worker replies, each idle
//! worker gets its turn (`Shared::turn`, the one scheduler: lanes, mailboxes, accounting), and
//! the body it took goes to the worker as a request (`Body::remote`); the worker's reply
//! finishes the task (`Shared::resume`). A busy worker is also handed its next task ahead
//! (`Shared::take_ahead`), which it begins as soon as it has replied, so it never waits a
//! round trip for work. The worker's half is `worker/posted.js`.

use super::{Main, Mode, TaskRef};
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
    /// It was handed ahead and told it was settled before it began: its body never ran.
    Skipped = "skipped",
    /// `value`: the number of a task handed ahead that the worker gives back unbegun, as asked
    /// (`postRecall`): another worker, idle, takes it over.
    Recalled = "recalled",
}

/// A task posted to a worker.
pub(super) struct Posted {
    task: TaskRef,
    /// Its number among the tasks posted to this worker incarnation (from 1): an abort names it.
    seq: u32,
    /// Its body counts as started: always for a task posted for its turn; for one handed
    /// ahead, once its worker began it, unless it was settled first (a forced shutdown).
    started: bool,
    /// The worker was told it was settled.
    told: bool,
    /// The worker was asked to give it back (handed ahead; `postRecall`).
    recalling: bool,
    /// Handed ahead with no buffer handed over: its request, to post again if this worker
    /// dies before it begins it.
    again: Option<JsValue>,
}

/// What one worker was posted: the task it runs, and the one it was handed ahead.
#[derive(Default)]
pub(super) struct Posts {
    /// Tasks posted to this worker incarnation so far.
    count: u32,
    running: Option<Posted>,
    /// Begun by the worker as soon as it replies for `running`.
    ahead: Option<Posted>,
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

    /// Gives every idle, ready worker its turn, then hands each busy one its next task ahead:
    /// an idle worker comes first.
    pub(crate) fn pump(&self) {
        for index in 0..self.shared.workers {
            self.turn_if_idle(index);
        }
        for index in 0..self.shared.workers {
            self.hand_ahead(index);
        }
        self.take_over_for_idle();
    }

    /// Worker `index` takes its turn if it is idle, then is handed its next task ahead.
    pub(crate) fn take_turn(&self, index: usize) {
        self.turn_if_idle(index);
        self.hand_ahead(index);
        self.take_over_for_idle();
    }

    /// The first ready worker that runs no task.
    fn idle_worker(&self) -> Option<usize> {
        (0..self.shared.workers).find(|&j| self.is_ready(j) && self.posts.borrow()[j].running.is_none())
    }

    /// A worker is idle with nothing in the queue for it, while another holds a task it took
    /// ahead (a long or blocked task may keep it from beginning it for a while): the idle worker
    /// takes over a task that waits in its holder's slot at once, and asks for one handed over
    /// with no buffers back (`postRecall`; the holder's `recalled` reply, `on_recalled`). One
    /// whose buffers went with it stays with its holder.
    fn take_over_for_idle(&self) {
        let Some(idle) = self.idle_worker() else { return };
        for i in (0..self.shared.workers).filter(|&i| i != idle && self.shared.ahead_from_lanes(i)) {
            let alive = self.is_ready(i);
            let recall = {
                let mut posts = self.posts.borrow_mut();
                match posts[i].ahead.as_mut() {
                    // Waits in the slot, not posted: the idle worker takes it as its turn.
                    None => None,
                    Some(a) if a.again.is_some() && !a.recalling => {
                        a.recalling = true;
                        Some(a.seq)
                    }
                    Some(_) => continue,
                }
            };
            match recall {
                Some(seq) if alive => self.set.post_recall(i as u32, seq),
                // Its holder died: the idle worker takes it over at once.
                Some(seq) => self.on_recalled(i, seq),
                None => self.turn_of(idle, i),
            }
            return;
        }
    }

    /// Worker `index` gave back task `seq`, which it was handed ahead and had not begun: an
    /// idle worker begins it, or else `index` is handed it again.
    fn on_recalled(&self, index: usize, seq: u32) {
        let back = {
            let mut posts = self.posts.borrow_mut();
            let p = &mut posts[index];
            if p.ahead.as_ref().is_some_and(|a| a.seq == seq) { p.ahead.take() } else { None }
        };
        let Some(Posted { task, again: Some(request), .. }) = back else { return };
        match self.idle_worker() {
            Some(j) => self.begin_on(j, index, task, request),
            None => self.post(index, task, request, false),
        }
    }

    /// Worker `index` begins, for its turn, the task `held_by` was handed ahead and did not
    /// begin (it gave it back, or died), posting its request again; unless it was settled.
    fn begin_on(&self, index: usize, held_by: usize, task: TaskRef, request: JsValue) {
        if self.shared.begin_ahead(index, held_by, &task) {
            self.post(index, task, request, true);
        }
    }

    fn is_ready(&self, index: usize) -> bool {
        let slots = self.slots.borrow();
        self.mode == Mode::Message && slots[index].alive && slots[index].ready_now
    }

    /// Worker `index`, if it is ready and runs no task, takes its next one, which is posted to
    /// it; a worker whose turn finds the pool closed and drained is ended.
    fn turn_if_idle(&self, index: usize) {
        if !self.is_ready(index) {
            return;
        }
        // A task handed ahead to a worker that died before it began goes first.
        let again = {
            let mut posts = self.posts.borrow_mut();
            let p = &mut posts[index];
            if p.running.is_none() && p.ahead.as_ref().is_some_and(|a| a.again.is_some()) { p.ahead.take() } else { None }
        };
        if let Some(Posted { task, again: Some(request), .. }) = again {
            self.begin_on(index, index, task, request);
        }
        if self.posts.borrow()[index].running.is_none() {
            self.turn_of(index, index);
        }
    }

    /// Worker `index`'s turn (`Shared::turn`), which begins with what `held_by` holds in its slot.
    fn turn_of(&self, index: usize, held_by: usize) {
        match self.shared.turn(index, held_by) {
            Turn::Posted(task, request) => self.post(index, task, request, true),
            Turn::Idle => {}
            Turn::Exited => self.on_event(index as i32, super::WorkerEvent::Exited),
        }
    }

    /// Worker `index`, if it is ready and busy, is handed its next task ahead of its turn.
    fn hand_ahead(&self, index: usize) {
        let busy = self.posts.borrow()[index].running.is_some();
        if busy && self.is_ready(index) && self.posts.borrow()[index].ahead.is_none() {
            if let Some((task, Some(request))) = self.shared.take_ahead(index) {
                self.post(index, task, request, false);
            }
        }
    }

    /// Posts `task`'s request to worker `index`, for its turn (`started`) or ahead of it.
    fn post(&self, index: usize, task: TaskRef, request: JsValue, started: bool) {
        let again = (!started && !hands_over(&request)).then(|| request.clone());
        {
            let mut posts = self.posts.borrow_mut();
            let p = &mut posts[index];
            p.count += 1;
            let posted = Some(Posted { task, seq: p.count, started, told: false, recalling: false, again });
            if started { p.running = posted } else { p.ahead = posted }
        }
        self.set.post_task(index as u32, &request);
    }

    /// Worker `index` replied: its task ends with `reply`, and it takes its next turn.
    pub(super) fn on_reply(&self, index: usize, reply: Reply, value: JsValue) {
        if reply == Reply::Recalled {
            return self.on_recalled(index, value.as_f64().unwrap_or(0.0) as u32);
        }
        let (running, ahead) = {
            let mut posts = self.posts.borrow_mut();
            let Some(p) = posts.get_mut(index) else { return };
            (p.running.take(), p.ahead.take())
        };
        let Some(Posted { task, started, .. }) = running else { return };
        // A task settled before it began (a forced shutdown) did not start: its reply is dropped.
        if let Some((result, failed)) = started.then(|| reply_result(reply, &value)).flatten() {
            // The drain below takes the completion: it rings no bell meanwhile (catch.rs's
            // protocol, `Completions::begin_catch`).
            let head = &self.shared.delivery.head;
            head.begin_catch();
            self.shared.resume(index, task, result, failed);
            head.end_catch();
        }
        // The worker began the task it was handed ahead as soon as it replied.
        if let Some(mut next) = ahead {
            next.started = self.shared.begin_ahead(index, index, &next.task);
            next.again = None;
            self.posts.borrow_mut()[index].running = Some(next);
        }
        self.take_turn(index);
        self.drain();
    }

    /// Tells each worker whose task was settled by someone else (its signal, timeout, a forced
    /// shutdown) once, so that the task's `this.signal` aborts, or, handed ahead, it never
    /// begins.
    pub(super) fn tell_settled(&self) {
        for index in 0..self.shared.workers {
            let mut tell = Vec::new();
            {
                let mut posts = self.posts.borrow_mut();
                let p = &mut posts[index];
                for posted in [p.running.as_mut(), p.ahead.as_mut()].into_iter().flatten() {
                    if !posted.told && posted.task.header().is_settled() {
                        posted.told = true;
                        tell.push(posted.seq);
                    }
                }
            }
            for seq in tell {
                self.set.post_abort(index as u32, seq);
            }
        }
    }

    /// Worker `index` died: its running task is settled by the caller; a task it was handed
    /// ahead is posted again to its replacement, unless buffers were handed over with it (they
    /// went with the worker): then it fails too, as a routed task does in shared mode.
    pub(super) fn posts_of_dead_worker(&self, index: usize) {
        let mut posts = std::mem::take(&mut self.posts.borrow_mut()[index]);
        if let Some(ahead) = posts.ahead.take() {
            if ahead.again.is_some() {
                self.posts.borrow_mut()[index].ahead = Some(ahead);
            } else if let Some(task) = self.shared.take_next(index) {
                self.shared.settle_err(&task, TaskError::WorkerCrashed);
            }
        }
    }
}

/// Whether a request (`[kind, what, source, args, handover]`, `Request` in jsfn.rs) hands over
/// buffers with it.
fn hands_over(request: &JsValue) -> bool {
    js_sys::Reflect::get_u32(request, 4).ok().and_then(|h| h.as_f64()).is_some_and(|h| h != 0.0)
}

/// What a reply finishes its task with, and whether that counts as a failure; `None` for a
/// reply that finishes nothing (`skipped` comes only for a task settled before it began).
fn reply_result(reply: Reply, value: &JsValue) -> Option<(Result<JsOutcome, TaskError>, bool)> {
    // `value[i]` of an array reply, as a string or a number.
    let part = |i: u32| js_sys::Reflect::get_u32(value, i).ok();
    let text = |i: u32| part(i).and_then(|v| v.as_string());
    Some(match reply {
        Reply::Returned => {
            let (outcome, failed) = outcome_of(true, value);
            (Ok(outcome), failed)
        }
        Reply::Threw => (Ok(outcome_of(false, value).0), true),
        Reply::ThrewError => (Ok(thrown_error(text(0).unwrap_or_default(), text(1).unwrap_or_default(), text(2).unwrap_or_default(), true)), true),
        Reply::Unsendable => {
            let why = value.as_string().unwrap_or_default();
            (Ok(error_outcome("TypeError".into(), format!("the task's result cannot be posted back to the pool's thread: {why}"))), true)
        }
        Reply::Refused => (Ok(error_outcome(text(0).unwrap_or_default(), text(1).unwrap_or_default())), true),
        Reply::DoesNotCompile => (Ok(crate::web::worker::jsfn::does_not_compile(value)), true),
        Reply::NotFound => (Ok(crate::web::worker::jsfn::no_export(&value.as_string().unwrap_or_default())), true),
        Reply::Panicked => (Err(TaskError::Panicked { message: text(0).unwrap_or_default(), location: text(1) }), true),
        Reply::OutOfMemory => {
            let n = |i: u32| part(i).and_then(|v| v.as_f64()).unwrap_or(0.0) as usize;
            (Err(TaskError::OutOfMemory(OutOfMemory { needed: n(0), in_use: n(1), maximum: n(2) })), true)
        }
        Reply::Skipped | Reply::Recalled | Reply::__Invalid => return None,
    })
}

/// An error of the built-in class `name` (`TypeError`, `RangeError`) as the task's outcome.
fn error_outcome(name: String, message: String) -> JsOutcome {
    JsOutcome::Thrown(Value::Error { name, message, stack: String::new() })
}
