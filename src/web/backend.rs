//! The wasm back end: `Web` as the [`Backend`] of wasm32 (the seam every back end implements
//! is `src/backend.rs`), the settling side of the completion path, and a task's promise. A
//! settled task goes onto a Treiber stack (`Delivery::head`), only the push that finds the
//! stack empty rings the owner, and the owner thread drains the stack (`Main::drain`,
//! `owner.rs`) and resolves each promise (`src/README.md`, "Results back to the owner thread").
//!
//! What runs on each worker thread is `worker.rs`.

use super::clock::clock;
use super::deadlines::Watch;
use super::errors::task_error_to_js;
use super::jsfn::JsOutcome;
use crate::backend::{Backend, Delivered};
use crate::error::TaskError;
use crate::task::TaskHandle;
use js_sys::Promise;
use super::delivery::Delivery;
use super::owner::{task_key, Main, Shared, TaskRef, Web, WebConfig};
use crate::error::BuildError;
use crate::sync::{Arc, Ordering};
use std::time::Duration;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/web/worker.js")]
extern "C" {
    #[wasm_bindgen(js_name = postDoorbell)]
    fn post_doorbell();
}

/// Hands a settled task to the owner thread. A member of a `submitAll` batch that fulfilled
/// is pushed quietly unless the owner must be awake anyway (to admit waiting submissions);
/// `Completions::push_member` rings after the member counts itself done, so the ring of the
/// member that finishes the batch comes after every member's push.
fn deliver(shared: &Shared, task: TaskRef, delivered: Delivered) {
    super::growth::publish();
    let d = &shared.delivery;
    let Some(batch) = task.header().batch.clone() else {
        if d.head.push(task) {
            ring(shared, delivered.run_us);
        }
        return;
    };
    let quiet = delivered.fulfilled && !batch.is_loud() && d.waiting.load(Ordering::SeqCst) == 0;
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

    fn deadline(&self, after: Duration) -> f64 {
        clock() + after.as_secs_f64() * 1000.0
    }

    fn passed(&self, deadline: f64) -> bool {
        clock() >= deadline
    }

    fn at(&self, deadline: f64, action: Box<dyn FnOnce() + Send>) -> Watch {
        self.main.deadlines.watch(deadline, action)
    }

    /// A Rust API task's deadline, in the pool's one deadline queue; forgotten when its
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
        super::growth::publish();
    }

    #[inline]
    fn taken_over() {
        super::growth::catch_up();
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

#[wasm_bindgen(module = "/src/web/promises.js")]
extern "C" {
    #[wasm_bindgen(js_name = taskPromise)]
    fn task_promise(id: f64) -> Promise;
    #[wasm_bindgen(js_name = settleTaskPromise)]
    fn settle_task_promise(id: f64, ok: bool, value: &JsValue);
    #[wasm_bindgen(js_name = forgetTaskPromise)]
    fn forget_task_promise(id: f64);
}

/// A promise made on this thread whose resolvers wait in the JS table under `id`. Dropped
/// unsettled (its task was freed without delivery), it takes its table entry along; the
/// promise then never settles, as before when the resolvers were dropped.
struct PendingPromise {
    id: f64,
    settled: bool,
}

impl PendingPromise {
    fn new() -> Self {
        std::thread_local!(static NEXT: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) });
        PendingPromise { id: NEXT.with(|n| n.replace(n.get() + 1.0)), settled: false }
    }

    fn promise(&self) -> Promise {
        task_promise(self.id)
    }

    fn settle(mut self, r: Result<JsValue, JsValue>) {
        self.settled = true;
        match r {
            Ok(v) => settle_task_promise(self.id, true, &v),
            Err(e) => settle_task_promise(self.id, false, &e),
        }
    }
}

impl Drop for PendingPromise {
    fn drop(&mut self) {
        if !self.settled {
            forget_task_promise(self.id);
        }
    }
}

impl<T: Send + 'static> TaskHandle<T> {
    /// A `Promise` that settles with the task: fulfilled with `convert(value)`, rejected with the
    /// matching error class. Must be called on the thread that created the pool; the promise is
    /// resolved from the pool's batched completion drain, with no per-task wake-up.
    pub fn into_promise_with(self, convert: impl FnOnce(T) -> JsValue + 'static) -> Promise {
        self.into_promise_map(move |r| r.map(convert).map_err(|e| task_error_to_js(&e)))
    }

    /// A `Promise` whose outcome is `settle(result)`: `Ok` fulfils, `Err` rejects.
    ///
    /// The promise's resolvers stay in a JS-side table under a number (see `promises.js`):
    /// Rust holds no `Function` handles, so a task costs no externref slots and no closure
    /// crossing into Rust to make its promise.
    pub(crate) fn into_promise_map(
        self,
        settle: impl FnOnce(Result<T, TaskError>) -> Result<JsValue, JsValue> + 'static,
    ) -> Promise {
        let task = self.task;
        if task_is_done(&*task) {
            return match task.take_result().map(settle) {
                Some(Ok(v)) => Promise::resolve(&v),
                Some(Err(e)) => Promise::reject(&e),
                None => Promise::new(&mut |_, _| {}),
            };
        }
        let pending = PendingPromise::new();
        let promise = pending.promise();
        let t = task.clone();
        let on_owner = Box::new(move || {
            if let Some(r) = t.take_result() {
                pending.settle(settle(r));
            }
        });
        // SAFETY: this is the pool's owner thread (this method's contract), and the web back
        // end delivers completions only there (`Main::drain`).
        unsafe { task.header().set_on_owner(on_owner) };
        promise
    }

    /// [`into_promise_with`](Self::into_promise_with) for values that convert into `JsValue`.
    pub fn into_promise(self) -> Promise
    where
        T: Into<JsValue>,
    {
        self.into_promise_with(Into::into)
    }
}

/// Whether the result is written (not merely being written by another thread).
fn task_is_done<T>(task: &dyn crate::task::Output<T>) -> bool {
    task.header().is_done()
}
