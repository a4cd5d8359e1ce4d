//! The wasm back end: `Web` as the [`Backend`] of wasm32 (the seam every back end implements
//! is `src/backend.rs`), and the settling side of the completion path. A settled task goes onto
//! a Treiber stack (`Delivery::head`), only the push that finds the stack empty rings the owner,
//! and the owner thread drains the stack (`Main::drain`, `owner/mod.rs`) and resolves each
//! promise (`owner/promise.rs`; `src/README.md`, "Results back to the owner thread").

use crate::backend::{Backend, Delivered};
use crate::error::BuildError;
use crate::sync::{Arc, Ordering};
use crate::web::clock::clock;
use crate::web::delivery::Delivery;
use crate::web::outcome::JsOutcome;
use crate::web::owner::deadlines::Watch;
use crate::web::owner::{task_key, Main, Shared, TaskRef, Web, WebConfig};
use std::time::Duration;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/web/worker/worker.js")]
extern "C" {
    #[wasm_bindgen(js_name = postDoorbell)]
    fn post_doorbell();
}

/// Hands a settled task to the owner thread. A member of a `submitAll` batch that fulfilled
/// is pushed quietly unless the owner must be awake anyway (to admit waiting submissions);
/// `Completions::push_member` rings after the member counts itself done, so the ring of the
/// member that finishes the batch comes after every member's push.
fn deliver(shared: &Shared, task: TaskRef, delivered: Delivered) {
    crate::web::growth::publish();
    let d = &shared.delivery;
    let Some(batch) = task.header().batch.clone() else {
        if d.head.push(task) {
            ring(shared, delivered.run_us);
        }
        return;
    };
    let quiet = delivered.fulfilled && !batch.is_loud() && !d.anyone_waits(&shared.waiting);
    if d.head.push_member(task, quiet, || batch.member_done()) {
        ring(shared, delivered.run_us);
    }
}

/// A task that ran at least this long rings with the bell even with the message doorbell.
const LONG_TASK_US: u64 = 1_000;

/// Wakes the owner thread's drain. With the message doorbell, while no more tasks are in
/// flight than workers (a caller awaiting one result, or a few), a worker posts one message:
/// the lowest round trip for short tasks. Otherwise it notifies the bell the owner watches with
/// `Atomics.waitAsync`:
/// - after a task of a millisecond or more: the notify costs the worker far less than a
///   `postMessage` and, measured on the demo's 4096² blur in Chromium, gave 1.01–1.05×
///   rayon's time where messages gave 0.94×;
/// - while more tasks are in flight than workers: a caller that keeps many in flight waits on
///   no one result, and the owner's `waitAsync` wake-up costs it less than a message event,
///   in a page and in Node (src/README.md, "Results back to the owner thread").
///
/// `run_us`: how long the body whose settling rings ran, if one did (the clock reading that
/// also fed `stats().runTime`). While the owner catches (catch.rs) the ring is a notify of its
/// catch bell instead.
pub(crate) fn ring(shared: &Shared, run_us: Option<u64>) {
    let d = &shared.delivery;
    // The owner waits for this completion itself (catch.rs): a notify, no message.
    if d.head.catching() {
        d.catch_bell.bump_and_wake(1);
        return;
    }
    // On the owner thread itself (cancel, timeout, crash) the bell is the only way: its own
    // pending `waitAsync` wakes on the next turn.
    let message = d.message_while_few.load(Ordering::Relaxed)
        && !d.on_owner_thread()
        && run_us.unwrap_or(0) < LONG_TASK_US
        && shared.counters.in_flight() <= shared.workers as u64;
    if message {
        post_doorbell();
    } else {
        d.bell.bump_and_wake(1);
    }
}



impl Backend for Web {
    type Config = WebConfig;
    type Delivery = Delivery<TaskRef>;
    type Resumed = JsOutcome;
    /// The promise a JS task's body returned.
    type Pending = JsValue;
    /// Milliseconds on [`clock`]: monotonic, as the JS API's deadlines are (`Date.now()` jumps
    /// with the wall clock).
    type Deadline = f64;
    /// An entry in the pool's one deadline queue; dropping it cancels it.
    type Timer = Watch;

    fn start(shared: &Arc<Shared>, config: WebConfig) -> Result<Self, BuildError> {
        Ok(Web { main: Main::start(shared, config)? })
    }

    /// A task was admitted (on the owner thread): see `Main::admitted` (catch.rs).
    fn admitted(&self) {
        self.main.admitted();
    }

    /// Message mode: the owner pops for the workers (owner/message.rs).
    fn queue_changed(&self) {
        if self.main.mode == crate::web::owner::Mode::Message {
            self.main.queue_pump();
        }
    }

    fn deadline(&self, after: Duration) -> f64 {
        clock() + after.as_secs_f64() * 1000.0
    }

    fn passed(&self, deadline: f64) -> bool {
        clock() >= deadline
    }

    fn at(&self, deadline: f64, action: Box<dyn FnOnce() + Send>) -> Watch {
        self.main.deadlines.watch(deadline, action)
    }

    /// A task's deadline (JS or Rust API), in the pool's one deadline queue; forgotten when its
    /// completion is drained.
    fn after_hook(&self, after: Duration, hook: Box<dyn crate::cancel::Hook>, task: &TaskRef) {
        let watch = self.main.deadlines.watch(self.deadline(after), Box::new(move || hook.fire()));
        self.main.timed.borrow_mut().insert(task_key(task), watch);
    }

    fn now_us() -> u64 {
        (clock() * 1000.0) as u64
    }

    /// Its memory must be visible to the worker that takes it (`growth.rs`).
    #[inline]
    fn handing_over() {
        crate::web::growth::publish();
    }

    #[inline]
    fn taken_over() {
        crate::web::growth::catch_up();
    }

    fn deliver(shared: &Shared, task: TaskRef, delivered: Delivered) {
        deliver(shared, task, delivered);
    }

    /// The owner must hear of the free slot if submissions wait for space, and the ring is
    /// the only way: its last completion drain may have come (and found the queue still full)
    /// before this pop. A skipped task is rare, so the owner is rung whether or not anything
    /// waits (checking `waiting` here would race with a submission that is about to wait).
    fn skipped(shared: &Shared) {
        ring(shared, None);
    }

    /// Completions wait for the owner's drain: it is busy (or its doorbell is on its way), so
    /// an idle worker polls briefly (`Dispatch::hold_poll`).
    fn results_waiting(shared: &Shared) -> bool {
        !shared.delivery.head.is_empty()
    }

    /// Runs on the owner thread (exits are counted from the workers' "exited" messages).
    fn all_workers_exited(shared: &Shared) {
        shared.wake_shutdown_waiters();
    }
}
