//! The wasm back end: what `pool.rs` calls on wasm (the contract every back end meets is in
//! `src/README.md`, "The back-end contract"), and the whole completion path: a settled task
//! goes onto a Treiber stack (`Delivery::head`), only the push that finds the stack empty rings
//! the doorbell, and the owner thread drains the stack (`Main::drain`) and resolves each
//! promise (`src/README.md`, "Results back to the owner thread").
//!
//! The owner thread's other half, which starts, watches and replaces the workers, is
//! `owner.rs`; what runs on each worker thread is `worker.rs`.

use super::deadlines::Watch;
use super::task_error_to_js;
use crate::error::TaskError;
use crate::task::TaskHandle;
use js_sys::Promise;
use super::owner::Main;
use super::owner::WebConfig;
use crate::completion::Completions;
use crate::error::BuildError;
use crate::pool::{Shared, TaskRef};
use crate::sync::{Arc, AtomicBool, AtomicU32, Futex, Ordering};
use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/web/worker.js")]
extern "C" {
    #[wasm_bindgen(js_name = postDoorbell)]
    fn post_doorbell();
    /// `performance.timeOrigin + performance.now()`, ms, comparable across threads.
    pub(crate) fn clock() -> f64;
}

/// Microseconds on a clock every thread shares (task wait and run times).
pub(crate) fn now_us() -> u64 {
    (clock() * 1000.0) as u64
}

/// Completions on their way to the owner thread.
pub(crate) struct Delivery {
    /// Settled tasks pushed by settling threads, taken whole by the owner.
    pub(super) head: Completions<TaskRef>,
    /// The doorbell word the owner watches (waitAsync mode).
    pub(super) bell: Futex,
    /// The word the owner sleeps on, with a timeout, while it catches (catch.rs).
    pub(super) catch_bell: Futex,
    /// How workers ring: `false`, the bell always; `true`, the doorbell message while no more
    /// tasks are in flight than workers (see [`ring`]).
    pub(super) message_while_few: AtomicBool,
    /// Thread id of the owner (the thread that created the pool).
    owner: AtomicU32,
    /// Submissions the owner holds back for queue space (`submit`, and `submitAll` while it
    /// admits); no completion is quiet while there are any.
    pub(crate) waiting: AtomicU32,
}

impl Default for Delivery {
    fn default() -> Self {
        Delivery {
            head: Completions::new(),
            bell: Futex::new(0),
            catch_bell: Futex::new(0),
            message_while_few: AtomicBool::new(false),
            owner: AtomicU32::new(thread_id()),
            waiting: AtomicU32::new(0),
        }
    }
}

fn thread_id() -> u32 {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
    std::thread_local!(static ID: u32 = NEXT.fetch_add(1, Ordering::SeqCst));
    ID.with(|id| *id)
}

impl Delivery {
    pub(super) fn bell_addr(&self) -> u32 {
        self.bell.as_ptr() as u32
    }
}

/// Hands a settled task to the owner thread. A member of a `submitAll` batch that fulfilled
/// is pushed quietly unless the owner must be awake anyway (to admit waiting submissions);
/// `Completions::push_member` rings after the member counts itself done, so the ring of the
/// member that finishes the batch comes after every member's push.
pub(crate) fn deliver(shared: &Shared, task: TaskRef, fulfilled: bool) {
    super::growth::publish();
    let d = &shared.delivery;
    let Some(batch) = task.header().batch.clone() else {
        if d.head.push(task) {
            ring(shared);
        }
        return;
    };
    let quiet = fulfilled && !batch.is_loud() && d.waiting.load(Ordering::SeqCst) == 0;
    if d.head.push_member(task, quiet, || batch.member_done()) {
        ring(shared);
    }
}

/// A worker popped a task that was settled while it was queued (cancelled, timed out): it
/// runs nothing and delivers nothing, but it freed a queue slot. The owner must hear of it if
/// submissions wait for space, and the ring is the only way: its last completion drain may
/// have come (and found the queue still full) before this pop. A skipped task is rare, so the
/// owner is rung whether or not anything waits (checking `waiting` here would race with a
/// submission that is about to wait).
pub(crate) fn skipped(shared: &Shared) {
    ring(shared);
}

std::thread_local! {
    /// How long this worker's last body ran (µs), for the doorbell choice in [`ring`].
    static LAST_RUN_US: Cell<u64> = const { Cell::new(0) };
}

/// A task that ran at least this long rings with the bell even with the message doorbell.
const LONG_TASK_US: u64 = 1_000;

/// Called by the worker loop as a body ends, before its result is settled: `run_us` comes
/// from the clock reading that also feeds `stats().runTime` (one reading, not two).
pub(crate) fn task_ended(run_us: u64) {
    LAST_RUN_US.with(|t| t.set(run_us));
}

/// Wakes the owner thread's drain. With the message doorbell, while no more tasks are in
/// flight than workers (a caller awaiting one result, or a few), a worker posts one message:
/// the lowest round trip for short tasks. Otherwise it notifies the bell the owner watches with
/// `Atomics.waitAsync`:
/// - after a task of a millisecond or more: the notify costs the worker far less than a
///   `postMessage` and, measured on the demo's 4096² blur in Chromium, gave 1.01–1.05×
///   rayon's time where messages gave 0.94×;
/// - while more tasks are in flight than workers: a caller that keeps many in flight waits on
///   no one result, and the owner's `waitAsync` wake-up costs it less than a message event,
///   in a page (bench/README.md, "Handovers") and in Node ("The bell in Node").
///
/// While the owner catches (catch.rs) the ring is a notify of its catch bell instead.
pub(crate) fn ring(shared: &Shared) {
    let d = &shared.delivery;
    // The owner waits for this completion itself (catch.rs): a notify, no message.
    if d.head.catching() {
        d.catch_bell.bump_and_wake(1);
        return;
    }
    // On the owner thread itself (cancel, timeout, crash) the bell is the only way: its own
    // pending `waitAsync` wakes on the next turn.
    let message = d.message_while_few.load(Ordering::Relaxed)
        && d.owner.load(Ordering::Relaxed) != thread_id()
        && LAST_RUN_US.with(|t| t.get() < LONG_TASK_US)
        && shared.counters.in_flight() <= shared.workers as u64;
    if message {
        post_doorbell();
    } else {
        d.bell.bump_and_wake(1);
    }
}

pub(crate) fn all_workers_exited(shared: &Shared) {
    // Runs on the owner thread (exits are counted from the workers' "exited" messages).
    shared.wake_shutdown_waiters();
}

/// Whether delivered completions wait for the owner's drain: it is busy (or its doorbell is
/// on its way), so an idle worker polls briefly (`Dispatch::hold_poll`).
pub(crate) fn results_waiting(shared: &Shared) -> bool {
    !shared.delivery.head.is_empty()
}

/// Takes every delivered completion, oldest first.
fn take_completions(shared: &Shared) -> Vec<TaskRef> {
    // Results may lie in pages a worker added: see them before reading the nodes.
    shared.delivery.head.take_all_then(super::growth::catch_up)
}

/// The owner thread's half of the completion path (its workers and their lifecycle are
/// `owner.rs`).
impl Main {
    /// Resolves every delivered completion, oldest first, then lets the JS `Pool` admit what
    /// waits for queue space; `false` once the pool has stopped. Run by the bell's
    /// `Atomics.waitAsync` watch (`worker.js`) and by the message doorbell.
    pub(super) fn drain(&self) -> bool {
        let done = take_completions(&self.shared);
        let any = !done.is_empty();
        if !self.timed.borrow().is_empty() {
            // Their deadlines are moot now; forgetting the last one clears the pool's timer.
            let moot: Vec<Watch> = {
                let mut timed = self.timed.borrow_mut();
                done.iter().filter_map(|t| timed.remove(&task_key(t))).collect()
            };
            drop(moot);
        }
        for task in done {
            task.header().deliver();
        }
        // Also without completions if submissions wait: the ring may say a slot was freed.
        if any || self.shared.delivery.waiting.load(Ordering::SeqCst) > 0 {
            if let Some(f) = self.on_drain.borrow().as_ref() {
                f();
            }
        }
        !self.shared.is_stopped()
    }
}

/// Before a task goes into the queue: its memory must be visible to the worker that takes it.
#[inline]
pub(crate) fn handing_over() {
    super::growth::publish();
}

/// After a worker takes a task from the queue, before it touches it.
#[inline]
pub(crate) fn taken_over() {
    super::growth::catch_up();
}

pub(crate) type Deadline = f64;
/// A pending [`Backend::at`]; dropping it cancels it.
pub(crate) type Timer = Watch;

fn task_key(task: &TaskRef) -> usize {
    Arc::as_ptr(task) as *const () as usize
}

/// Owner-thread half of the pool: the workers, their lifecycle and the drain loop.
#[derive(Clone)]
pub(crate) struct Backend {
    main: Rc<Main>,
}

impl Backend {
    pub(crate) fn start(shared: &Arc<Shared>) -> Result<Self, BuildError> {
        // bench/doorbell.mjs, Node 20 on this project's 2-core machine: p50 round trip 25 µs
        // with a message vs 99 µs with waitAsync, equal burst throughput.
        Self::start_with(shared, WebConfig::default())
    }

    pub(crate) fn start_with(shared: &Arc<Shared>, config: WebConfig) -> Result<Self, BuildError> {
        Ok(Backend { main: Main::start(shared, config)? })
    }

    pub(crate) fn main(&self) -> &Rc<Main> {
        &self.main
    }

    /// A task was admitted (on the owner thread): see `Main::admitted` (catch.rs).
    pub(crate) fn admitted(&self) {
        self.main.admitted();
    }

    /// A deadline `after` from now, in [`clock`] ms: monotonic, as the JS API's deadlines are
    /// (`Date.now()` jumps with the wall clock).
    pub(crate) fn deadline(&self, after: Duration) -> Deadline {
        clock() + after.as_secs_f64() * 1000.0
    }

    pub(crate) fn passed(&self, deadline: Deadline) -> bool {
        clock() >= deadline
    }

    /// Fires `hook` after `after` unless `task` settles first (a Rust API task's deadline, in
    /// the pool's one deadline queue).
    pub(crate) fn after_hook(&self, after: Duration, hook: Box<dyn crate::cancel::Hook>, task: &TaskRef) {
        let watch = self.main.deadlines.watch(self.deadline(after), Box::new(move || hook.fire()));
        self.main.timed.borrow_mut().insert(task_key(task), watch);
    }

    /// Runs `action` at `at`, unless the returned timer is dropped first.
    pub(crate) fn at(&self, at: Deadline, action: Box<dyn FnOnce() + Send>) -> Timer {
        self.main.deadlines.watch(at, action)
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
        task.header().on_main.set(Some(Box::new(move || {
            if let Some(r) = t.take_result() {
                pending.settle(settle(r));
            }
        })));
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
