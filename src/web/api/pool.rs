//! The `#[wasm_bindgen]` `Pool` as the npm package exposes it, and Rust-made `Task`s.
//! `trySubmit` never throws and never waits: every refusal is an already-rejected promise.

use crate::web::owner::deadlines::{Deadlines, Watch};
use crate::web::outcome::outcome_to_js;
use crate::web::errors::{js_error, not_isolated, submit_error_to_js, task_error_to_js, ErrorKind};
use crate::web::owner::Mode;
use crate::web::errors::out_of_memory_to_js;
use crate::web::memory_views::{memory_bytes, note_buffer, pool_view_offset};
use crate::value::TypedKind;
use crate::batch::Batch;
use crate::sync::Arc;
use crate::dispatch::Priority;
use crate::error::{SubmitError, TaskError};
use crate::pool::{PoolOptions, TaskOptions, WorkerPool};
use crate::waiting::Places;
use js_sys::{Function, Object, Promise};
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::panic::AssertUnwindSafe;
use std::rc::{Rc, Weak};
use std::time::Duration;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

#[wasm_bindgen(module = "/src/web/runtime.js")]
extern "C" {
    #[wasm_bindgen(js_name = defaultWorkers)]
    fn default_workers() -> f64;
}

#[wasm_bindgen(module = "/src/web/owner/workers.js")]
extern "C" {
    #[wasm_bindgen(js_name = resolveModuleUrl, catch)]
    fn resolve_module_url(spec: &JsValue) -> Result<String, JsValue>;
}

#[wasm_bindgen(module = "/src/web/api/pool.js")]
extern "C" {
    #[wasm_bindgen(js_name = makeTypedView)]
    fn make_typed_view(ctor: &JsValue, buffer: &JsValue, offset: u32, length: u32) -> JsValue;
    #[wasm_bindgen(js_name = statsObject)]
    #[allow(clippy::too_many_arguments)]
    fn stats_object(
        workers: f64,
        queue_capacity: f64,
        queued: f64,
        running: f64,
        waiting: f64,
        accepted: f64,
        rejected: f64,
        completed: f64,
        failed: f64,
        panicked: f64,
        crashed: f64,
        cancelled: f64,
        timed_out: f64,
        times: &[f64],
    ) -> Object;
}

use crate::web::api::submission::{
    read_max_waiting, read_mode,
    check_object, check_options, check_repeatable_task, get, js_number, prefix_message, prepare, read_options, read_size, type_name,
    CallOptions, Prepared, Signal, Transfer,
};


/// Why an admission did not happen: the queue is full (the submission comes back, to wait for
/// space), or the rejection to answer with.
enum Refused {
    Full(Prepared),
    Rejected(JsValue),
}

impl Refused {
    fn into_error(self) -> JsValue {
        match self {
            Refused::Full(_) => submit_error_to_js(&SubmitError::QueueFull(())),
            Refused::Rejected(error) => error,
        }
    }
}

/// The rejection for a submission the memory cannot hold.
fn out_of_memory(oom: crate::memory::OutOfMemory) -> JsValue {
    submit_error_to_js(&SubmitError::OutOfMemory((), oom))
}

/// Runs an admission step (reading arguments, making the task), turning an allocation that
/// failed anywhere inside it into a rejection with `OutOfMemoryError` (`src/memory.rs`).
fn guarded<T>(step: impl FnOnce() -> Result<T, JsValue>) -> Result<T, JsValue> {
    crate::memory::rearm();
    crate::panic::catch_oom(step).unwrap_or_else(|oom| Err(out_of_memory(oom)))
}

/// A `submit` call (or a `submitAll` item) waiting for queue space.
struct Waiter {
    prepared: Option<Prepared>,
    resolve: Function,
    reject: Function,
    /// Its place among the pool's waiting submissions, and whether it left.
    left: Rc<Leave>,
    /// Its deadline, forgotten once it leaves the queue.
    _deadline: Option<Watch>,
}

/// Whether a waiter left (admitted, refused, aborted or timed out), and until then its place
/// among the pool's waiting submissions (`stats().waiting`), given up the moment it leaves.
struct Leave {
    gone: Cell<bool>,
    place: RefCell<Option<Places>>,
}

impl Leave {
    /// Leaves now; `false` if it had left already (its promise is settled).
    fn leave(&self) -> bool {
        if self.gone.replace(true) {
            return false;
        }
        drop(self.place.borrow_mut().take());
        true
    }

    fn is_gone(&self) -> bool {
        self.gone.get()
    }
}

pub(super) struct Inner {
    pub(super) pool: WorkerPool,
    waiters: RefCell<VecDeque<Waiter>>,
    /// `pool.alloc` blocks: byte offset → layout.
    allocs: RefCell<HashMap<u32, std::alloc::Layout>>,
    /// Made with `Pool.create({module})`: string tasks name its exports.
    pub(super) task_module: bool,
    /// `timeout`s of tasks and waiting submits.
    deadlines: Rc<Deadlines>,
}

// Owner-thread state mutated in small steps that do not panic half-way (see pool.rs).
impl std::panic::RefUnwindSafe for Inner {}

/// The JS `Pool`.
#[wasm_bindgen(js_name = Pool)]
pub struct JsPool {
    inner: Rc<Inner>,
}


impl crate::web::owner::Waiting for Inner {
    fn admit_waiting(&self) {
        self.pump();
    }
}

impl crate::web::api::abort::AfterAbort for Inner {
    fn after_abort(&self) {
        self.reject_aborted();
    }
}

impl Inner {
    /// Reads one submission of this pool (`submission::prepare`).
    fn prepare(&self, task: JsValue, args: JsValue, options: &mut CallOptions) -> Result<Prepared, JsValue> {
        prepare(self.pool.backend.main(), self.task_module, task, args, options)
    }

    /// Offers a prepared task to the ring. `waiting`: a `submit` that will wait for space if
    /// the queue is full (not counted as rejected).
    fn admit(&self, p: Prepared, waiting: bool) -> Result<Promise, Refused> {
        // `timeout` covers the time it waited for space too: what is left of it now goes into
        // the pool's one deadline queue (`Backend::after_hook`, src/web/owner/deadlines.rs).
        let timeout = p.deadline.map(|at| Duration::from_secs_f64(((at - crate::web::clock::clock()) / 1000.0).max(0.0)));
        let options = TaskOptions { cancel: p.signal.as_ref().map(Signal::token), timeout, priority: p.priority };
        let Prepared { body, signal, deadline, batch, priority, transfer } = p;
        let route = transfer.as_ref().and_then(Transfer::route);
        match self.pool.offer(body, options, !waiting, batch.as_ref(), route) {
            Ok(handle) => {
                let mut transfer = transfer;
                if let Some(t) = transfer.as_mut() {
                    t.detach();
                }
                // Moved into the settle callback: the signal's link and the handed-over buffers
                // not yet claimed live until the task settles.
                let held = AssertUnwindSafe((signal, transfer));
                Ok(handle.into_promise_map(move |r| {
                    let held = held;
                    let signal = &held.0 .0;
                    if let (Err(_), Some(t)) = (&r, &held.0 .1) {
                        t.abandoned();
                    }
                    match r {
                        Ok(outcome) => outcome_to_js(outcome),
                        Err(TaskError::Cancelled) => Err(signal.as_ref().map(Signal::reason).unwrap_or_else(|| task_error_to_js(&TaskError::Cancelled))),
                        Err(e) => Err(task_error_to_js(&e)),
                    }
                }))
            }
            Err(SubmitError::QueueFull(body)) => Err(Refused::Full(Prepared { body, signal, deadline, batch, priority, transfer })),
            Err(e) => {
                self.refused(batch.as_ref());
                // An aborted signal's task rejects with the signal's reason.
                Err(Refused::Rejected(match (&e, signal.as_ref()) {
                    (SubmitError::Cancelled(_), Some(signal)) => signal.reason(),
                    _ => submit_error_to_js(&e),
                }))
            }
        }
    }

    /// A `submitAll` member will never run: its batch turns loud, and completions already
    /// pushed quietly are rung for (on this thread `ring` uses the bell: its drain runs next turn).
    fn refused(&self, batch: Option<&Arc<Batch>>) {
        if let Some(b) = batch {
            b.member_refused();
            crate::web::backend::ring(&self.pool.shared, None);
        }
    }

    /// While a `submitAll` admits its items, workers do not complete quietly
    /// (`Delivery::admitting`).
    fn set_admitting(&self, on: bool) {
        self.pool.shared.delivery.admitting.store(on as u32, std::sync::atomic::Ordering::SeqCst);
    }

    /// `PoolOverloadError` for `call`, which would take the waiting submissions up by `adding`
    /// past `maxWaiting`; its `tasks` count as refused.
    fn overloaded(&self, call: &str, adding: usize, tasks: usize) -> JsValue {
        let shared = &self.pool.shared;
        shared.counters.rejected.fetch_add(tasks as u64, std::sync::atomic::Ordering::SeqCst);
        let now = shared.waiting.count();
        let limit = shared.waiting.limit().unwrap_or(usize::MAX);
        js_error(ErrorKind::PoolOverload, &format!(
            "{call} refused: it would take the tasks waiting for queue space from {now} to {}, past maxWaiting ({limit})",
            now.saturating_add(adding)
        ))
    }

    /// `submit`'s admission: at once if nobody waits ahead and there is space, else behind the
    /// earlier waiters, holding a place among the waiting submissions: one of `reserved` (a
    /// `submitAll`'s, checked against `maxWaiting` for the whole call), or its own, refused
    /// with `PoolOverloadError` past `maxWaiting`. Refusals (closed, aborted, overloaded) are
    /// rejected promises.
    fn enqueue(self: &Rc<Self>, prepared: Prepared, reserved: Option<&mut Places>) -> Promise {
        let prepared = if self.waiters.borrow().is_empty() {
            match self.admit(prepared, true) {
                Ok(p) => return p,
                Err(Refused::Full(p)) => p,
                Err(refused) => return Promise::reject(&refused.into_error()),
            }
        } else {
            prepared
        };
        let shared = &self.pool.shared;
        let place = match reserved {
            Some(places) => places.take_one().unwrap_or_else(|| shared.waiting.place_anyway()),
            None => match shared.waiting.places(1) {
                Some(place) => place,
                None => return Promise::reject(&self.overloaded("submit", 1, 1)),
            },
        };
        self.wait_for_space(prepared, place)
    }

    /// Queues `prepared` behind earlier waiters until there is space; the promise resolves to
    /// the task's promise once admitted. Timeout while waiting rejects it, and so does abort
    /// ([`reject_aborted`](Self::reject_aborted), run by the signal's link).
    fn wait_for_space(self: &Rc<Self>, prepared: Prepared, place: Places) -> Promise {
        let deadline = prepared.deadline;
        // Its signal's abort rejects it while it waits (`reject_aborted`).
        if let Some(Signal::Linked(signal)) = prepared.signal.as_ref() {
            signal.tell_after_abort(Rc::downgrade(self) as Weak<dyn crate::web::api::abort::AfterAbort>);
        }
        // Accepted to wait: the caller's buffers go now, as a message's would on posting.
        let left = Rc::new(Leave { gone: Cell::new(false), place: RefCell::new(Some(place)) });
        let mut slot = Some(prepared);
        let left_w = AssertUnwindSafe(left);
        let mut executor = |resolve: Function, reject: Function| {
            let left_w = &left_w.0;
            let watch = deadline.map(|at| {
                let (reject, left) = (reject.clone(), left_w.clone());
                self.deadlines.watch(at, Box::new(move || {
                    if left.leave() {
                        drop(reject.call1(&JsValue::UNDEFINED, &js_error(ErrorKind::Timeout, "")));
                    }
                }))
            });
            let mut waiters = self.waiters.borrow_mut();
            if waiters.try_reserve(1).is_err() {
                left_w.leave();
                let oom = crate::memory::out_of_memory(std::mem::size_of::<Waiter>() * (waiters.len() + 1));
                drop(reject.call1(&JsValue::UNDEFINED, &out_of_memory(oom)));
                return;
            }
            let mut prepared = slot.take();
            if let Some(t) = prepared.as_mut().and_then(|p| p.transfer.as_mut()) {
                t.detach();
            }
            waiters.push_back(Waiter { prepared, resolve, reject, left: left_w.clone(), _deadline: watch });
        };
        let mut executor = AssertUnwindSafe(&mut executor);
        Promise::new(&mut move |resolve, reject| {
            let executor = &mut executor;
            (executor.0)(resolve, reject)
        })
    }

    /// Rejects, with the abort reason, the waiting submissions whose signal has aborted.
    fn reject_aborted(&self) {
        let mut refused = Vec::new();
        for w in self.waiters.borrow_mut().iter_mut() {
            if w.left.is_gone() || !w.prepared.as_ref().and_then(|p| p.signal.as_ref()).is_some_and(Signal::is_aborted) {
                continue;
            }
            w.left.leave();
            let p = w.prepared.take().expect("a live waiter holds its task");
            refused.push((w.reject.clone(), p));
        }
        // Outside the borrow: dropping `p` releases its signal's link.
        for (reject, p) in refused {
            let reason = p.signal.as_ref().map(Signal::reason).unwrap_or(JsValue::UNDEFINED);
            drop(reject.call1(&JsValue::UNDEFINED, &reason));
            self.refused(p.batch.as_ref());
        }
        self.pump();
    }

    /// Admits waiting `submit` calls in order while there is space; refuses them all once
    /// the pool is closed. Runs after every completion drain and at shutdown.
    fn pump(&self) {
        loop {
            let mut waiters = self.waiters.borrow_mut();
            let Some(front) = waiters.front_mut() else {
                return;
            };
            if front.left.is_gone() {
                let w = waiters.pop_front().expect("front exists");
                drop(waiters);
                self.refused(w.prepared.as_ref().and_then(|p| p.batch.as_ref()));
                continue;
            }
            let prepared = front.prepared.take().expect("a live waiter holds its task");
            match self.admit(prepared, true) {
                Err(Refused::Full(p)) => {
                    front.prepared = Some(p);
                    return;
                }
                result => {
                    let w = waiters.pop_front().expect("front exists");
                    drop(waiters);
                    // Its timeout, if it fires before the deadline is forgotten, finds it gone.
                    w.left.leave();
                    match result {
                        Ok(promise) => drop(w.resolve.call1(&JsValue::UNDEFINED, &promise)),
                        Err(refused) => drop(w.reject.call1(&JsValue::UNDEFINED, &refused.into_error())),
                    }
                }
            }
        }
    }
}

#[wasm_bindgen(js_class = Pool)]
impl JsPool {
    /// `Pool.create({workers, queueCapacity})`: resolves once every worker is ready.
    pub fn create(options: JsValue) -> Promise {
        if let Err(e) = check_object(&options) {
            return Promise::reject(&e);
        }
        let sizes = read_size(&options, "workers", default_workers())
            .and_then(|w| read_size(&options, "queueCapacity", 256.0).map(|q| (w, q)));
        let (workers, capacity) = match sizes {
            Ok(s) => s,
            Err(e) => return Promise::reject(&e),
        };
        // Undocumented measurement knob (bench/doorbell.mjs): how workers signal completions.
        let (doorbell, module) = match get(&options, "doorbell").and_then(|d| Ok((d, get(&options, "module")?))) {
            Ok(found) => found,
            Err(e) => return Promise::reject(&e),
        };
        let doorbell = match doorbell.as_string().as_deref() {
            Some("waitAsync") => crate::web::owner::Doorbell::WaitAsync,
            _ => crate::web::owner::Doorbell::Message,
        };
        let task_module = if module.is_undefined() {
            None
        } else {
            match resolve_module_url(&module) {
                Ok(url) => Some(url),
                Err(e) => return Promise::reject(&e),
            }
        };
        let mode = match read_mode(&options) {
            Ok(mode) => mode,
            Err(e) => return Promise::reject(&e),
        };
        let has_module = task_module.is_some();
        let max_waiting = match read_max_waiting(&options) {
            Ok(m) => m,
            Err(e) => return Promise::reject(&e),
        };
        let config = crate::web::owner::WebConfig { doorbell, task_module, mode };
        let pool = match WorkerPool::with_config(workers, capacity, PoolOptions { max_waiting }, config) {
            Ok(p) => p,
            Err(e) => return Promise::reject(&e.into()),
        };
        let ready = pool.ready();
        // One deadline queue per pool, shared with the Rust API's (src/web/owner/deadlines.rs).
        let deadlines = pool.backend.main().deadlines.clone();
        let inner = Rc::new(Inner {
            pool,
            waiters: RefCell::new(VecDeque::new()),
            allocs: RefCell::new(HashMap::new()),
            task_module: has_module,
            deadlines,
        });
        inner.pool.backend.main().hold_waiting(Rc::downgrade(&inner) as Weak<dyn crate::web::owner::Waiting>);
        // The JS object is made only once the pool is up: a failed start frees everything
        // now instead of whenever the wrapper would be garbage-collected.
        let inner = AssertUnwindSafe(inner);
        future_to_promise(async move {
            let inner = inner;
            wasm_bindgen_futures::JsFuture::from(ready).await?;
            Ok(JsValue::from(JsPool { inner: inner.0 }))
        })
    }

    /// `Pool.checkMapCall(task, options)`: what `pool.map` checks before it pulls an input
    /// (`pool-api.js`), by the rules every call uses: a repeatable task, and `signal`,
    /// `timeout` and `priority`. Throws a `TypeError`/`RangeError` naming the problem.
    #[wasm_bindgen(js_name = checkMapCall, skip_typescript)]
    pub fn check_map_call(task: JsValue, options: JsValue) -> Result<(), JsValue> {
        check_repeatable_task(&task)?;
        check_options(&options).map(drop)
    }

    /// Worker count.
    #[wasm_bindgen(getter)]
    pub fn workers(&self) -> usize {
        self.inner.pool.workers()
    }

    /// `'shared'` or `'message'`: how this pool's workers get their tasks.
    #[wasm_bindgen(getter, unchecked_return_type = "'shared' | 'message'")]
    pub fn mode(&self) -> Mode {
        self.inner.pool.backend.main().mode
    }

    /// Queue slots.
    #[wasm_bindgen(getter, js_name = queueCapacity)]
    pub fn queue_capacity(&self) -> usize {
        self.inner.pool.queue_capacity()
    }

    /// `trySubmit(task, args = [], {signal, timeout} = {})`: never throws, never waits.
    #[wasm_bindgen(js_name = trySubmit)]
    pub fn try_submit(&self, task: JsValue, args: JsValue, options: JsValue) -> Promise {
        let admitted = guarded(|| {
            let prepared = read_options(&options).and_then(|mut o| self.inner.prepare(task, args, &mut o))?;
            self.inner.admit(prepared, false).map_err(Refused::into_error)
        });
        admitted.unwrap_or_else(|e| Promise::reject(&e))
    }

    /// `submit(task, args, options)`: like `trySubmit`, but waits for queue space (in order),
    /// honouring `signal` and `timeout` while waiting; rejects with `PoolClosedError` if
    /// shutdown starts first.
    pub fn submit(&self, task: JsValue, args: JsValue, options: JsValue) -> Promise {
        guarded(|| {
            let prepared = read_options(&options).and_then(|mut o| self.inner.prepare(task, args, &mut o))?;
            Ok(self.inner.enqueue(prepared, None))
        })
        .unwrap_or_else(|e| Promise::reject(&e))
    }

    /// `submitAll(items, {signal, timeout})`: submits every item in order, each a task or a
    /// `[task, args]` pair, waiting for queue space as `submit` does. Resolves with the
    /// results in item order once all fulfilled; rejects with the first rejection (the other
    /// items still run). Every item is checked first: one bad item refuses the call (a
    /// `TypeError`/`RangeError` naming `items[i]`) and nothing is admitted. The items'
    /// completions wake this thread once, when the last one settles (or one fails), instead
    /// of once each: the cheaper way to run many tiles of one job (src/batch.rs).
    #[wasm_bindgen(js_name = submitAll)]
    pub fn submit_all(&self, items: JsValue, options: JsValue) -> Promise {
        let list = match crate::web::codec::array_copy(&items) {
            Ok(Some(list)) => list,
            _ => return Promise::reject(&js_error(ErrorKind::Type, &format!("items must be an array of tasks (each a task or [task, args]), got {}", type_name(&items)))),
        };
        // Every item is read before any is admitted; one that is refused (bad, too large, or
        // out of memory) refuses the call.
        let prepared = guarded(|| {
            let mut options = read_options(&options)?;
            let mut prepared = crate::memory::try_vec(list.length() as usize)
                .map_err(out_of_memory)?;
            for (i, item) in list.iter().enumerate() {
                let (task, args) = match crate::web::codec::array_copy(&item) {
                    Ok(Some(pair)) => (pair.get(0), pair.get(1)),
                    _ => (item, JsValue::UNDEFINED),
                };
                prepared.push(self.inner.prepare(task, args, &mut options).map_err(|e| prefix_message(e, &format!("items[{i}]")))?);
            }
            Ok(prepared)
        });
        let prepared: Vec<Prepared> = match prepared {
            Ok(p) => p,
            Err(e) => return Promise::reject(&e),
        };
        let inner = &self.inner;
        // The items that will wait: all of them behind earlier waiters, else those the free
        // places cannot take (workers only free more meanwhile on this thread's watch). Past
        // `maxWaiting` the whole call is refused before anything is admitted.
        let n = prepared.len();
        let shared = &inner.pool.shared;
        let need = if inner.waiters.borrow().is_empty() { n.saturating_sub(shared.dispatch.free()) } else { n };
        let Some(mut places) = shared.waiting.places(need) else {
            return Promise::reject(&inner.overloaded(&format!("submitAll of {n} tasks"), need, n));
        };
        let batch = Arc::new(Batch::new(n));
        // Until every item is admitted or queued, a member that completes meanwhile must ring:
        // a later item refused for space would otherwise wait for a ring nobody owes it.
        inner.set_admitting(true);
        let promises = js_sys::Array::new();
        for mut p in prepared {
            p.batch = Some(batch.clone());
            promises.push(&inner.enqueue(p, Some(&mut places)));
        }
        inner.set_admitting(false);
        // Places not needed after all (workers freed some meanwhile) leave with `places`.
        drop(places);
        Promise::all(&promises)
    }

    /// `broadcast(task, args)`: runs the task exactly once on every worker, each before that
    /// worker takes another queued task; resolves with the results in worker order, or rejects
    /// with the first failure (the other copies still run). `task` is a function or an export
    /// name (a `Task` runs once, so it cannot be copied). Never waits: a worker with
    /// `MAILBOX_CAPACITY` broadcasts still to take refuses it with `QueueFullError`.
    pub fn broadcast(&self, task: JsValue, args: JsValue) -> Promise {
        if let Err(e) = check_repeatable_task(&task) {
            return Promise::reject(&e);
        }
        let inner = &self.inner;
        guarded(|| {
            let mut options = CallOptions { signal: None, deadline: None, priority: Priority::Normal, transfer: None };
            let workers = inner.pool.workers();
            let mut bodies = crate::memory::try_vec(workers).map_err(out_of_memory)?;
            for _ in 0..workers {
                bodies.push(inner.prepare(task.clone(), args.clone(), &mut options)?.body);
            }
            let promises = match inner.pool.offer_broadcast(bodies) {
                Ok(handles) => handles,
                Err(SubmitError::QueueFull(_)) => {
                    return Err(js_error(ErrorKind::QueueFull, &format!("a worker already has {} broadcasts to run", crate::dispatch::MAILBOX_CAPACITY)))
                }
                Err(e) => return Err(submit_error_to_js(&e)),
            };
            let all = js_sys::Array::new();
            for h in promises {
                all.push(&h.into_promise_map(|r| match r {
                    Ok(outcome) => outcome_to_js(outcome),
                    Err(e) => Err(task_error_to_js(&e)),
                }));
            }
            Ok(Promise::all(&all))
        })
        .unwrap_or_else(|e| Promise::reject(&e))
    }

    /// `shutdown({timeout, force})`: closes admission, drains (or with `force`, rejects every
    /// queued and running task with `PoolClosedError` at once), waits for the workers to exit.
    pub fn shutdown(&self, options: JsValue) -> Promise {
        if let Err(e) = check_object(&options) {
            return Promise::reject(&e);
        }
        let (timeout, force) = match get(&options, "timeout").and_then(|t| Ok((t, get(&options, "force")?))) {
            Ok(found) => found,
            Err(e) => return Promise::reject(&e),
        };
        if !timeout.is_undefined() && !timeout.as_f64().is_some_and(|t| t >= 0.0) {
            return Promise::reject(&js_error(ErrorKind::Range, "options.timeout must be a number of ms >= 0"));
        }
        let timeout = timeout.as_f64();
        if force.is_truthy() {
            drop(self.inner.pool.shutdown_now());
        }
        let fut = match timeout {
            Some(ms) if ms.is_finite() && ms >= 0.0 => {
                self.inner.pool.shutdown_timeout(Duration::from_secs_f64(ms / 1000.0))
            }
            _ => self.inner.pool.shutdown(),
        };
        self.inner.pump();
        future_to_promise(async move {
            match fut.await {
                Ok(()) => Ok(JsValue::UNDEFINED),
                Err(_) => Err(js_error(ErrorKind::Timeout, "shutdown did not finish before its timeout; tasks keep running")),
            }
        })
    }

    /// `alloc(TypedArrayCtor, length)`: a typed array backed by pool memory; it crosses to
    /// tasks by reference. Release it with `free`.
    pub fn alloc(&self, ctor: JsValue, length: JsValue) -> Result<JsValue, JsValue> {
        if self.inner.pool.backend.main().mode == Mode::Message {
            return Err(js_error(ErrorKind::NotIsolated, &not_isolated("pool.alloc needs memory the workers share")));
        }
        let name = if ctor.is_function() { get(&ctor, "name")?.as_string().unwrap_or_default() } else { String::new() };
        let kind = match TypedKind::from_name(&name) {
            Some(k) if k != TypedKind::DataView => k,
            _ => return Err(js_error(ErrorKind::Type, "alloc needs a typed array constructor such as Float32Array")),
        };
        let n = match length.as_f64() {
            Some(n) if n.fract() == 0.0 && n >= 0.0 => n,
            Some(n) => return Err(js_error(ErrorKind::Range, &format!("length must be an integer >= 0, got {}", js_number(n)))),
            None => return Err(js_error(ErrorKind::Type, &format!("length must be a number, got {}", type_name(&length)))),
        };
        const LIMIT: u64 = 512 << 20;
        let bytes = n * kind.size() as f64;
        if bytes > LIMIT as f64 {
            return Err(js_error(ErrorKind::Range, &format!("alloc of {} bytes exceeds the {LIMIT} byte limit", js_number(bytes))));
        }
        // Within the limit, so a whole number that fits.
        let bytes = bytes as u64;
        let layout = std::alloc::Layout::from_size_align((bytes as usize).max(8), 8)
            .map_err(|e| js_error(ErrorKind::Range, &e.to_string()))?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            let oom = crate::memory::out_of_memory(layout.size());
            return Err(out_of_memory_to_js(&oom, &format!("alloc of {bytes} bytes does not fit in memory: {oom}")));
        }
        self.inner.allocs.borrow_mut().insert(ptr as u32, layout);
        Ok(make_typed_view(&ctor, &note_buffer(&wasm_bindgen::memory()), ptr as u32, n as u32))
    }

    /// Returns a view from `alloc` to the pool's memory. The view must not be used after.
    pub fn free(&self, view: JsValue) -> Result<(), JsValue> {
        let offset = if view.is_object() { pool_view_offset(&view) } else { None };
        let layout = offset.and_then(|o| self.inner.allocs.borrow_mut().remove(&o));
        match (offset, layout) {
            (Some(o), Some(layout)) => {
                // SAFETY: `o` and `layout` are exactly what `alloc` returned and recorded; the
                // record was removed, so it cannot be freed twice.
                unsafe { std::alloc::dealloc(o as usize as *mut u8, layout) };
                Ok(())
            }
            _ => Err(js_error(ErrorKind::Type, "free needs a view returned by pool.alloc that was not freed yet")),
        }
    }

    /// Counters: `{workers, queueCapacity, queued, running, waiting, accepted, rejected, completed,
    /// failed, panicked, crashed, cancelled, timedOut, runTime, waitTime}`; the last two are
    /// `{count, mean, p50, p90, p99, max}` in ms.
    pub fn stats(&self) -> Object {
        // One call with numbers, not twelve property sets with keys decoded out of shared
        // memory: the demo samples the queue depth at every tile.
        let s = self.inner.pool.stats();
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let mut times = [0.0; 12];
        for (i, t) in [s.run_time, s.wait_time].into_iter().enumerate() {
            times[i * 6..i * 6 + 6].copy_from_slice(&[t.count as f64, ms(t.mean), ms(t.p50), ms(t.p90), ms(t.p99), ms(t.max)]);
        }
        stats_object(
            s.workers as f64,
            s.queue_capacity as f64,
            s.queued as f64,
            s.running as f64,
            s.waiting as f64,
            s.accepted as f64,
            s.rejected as f64,
            s.completed as f64,
            s.failed as f64,
            s.panicked as f64,
            s.crashed as f64,
            s.cancelled as f64,
            s.timed_out as f64,
            &times,
        )
    }

    /// Size of the shared memory in bytes (same as the `memoryBytes()` export).
    #[wasm_bindgen(js_name = memoryBytes)]
    pub fn memory_bytes(&self) -> f64 {
        memory_bytes()
    }
}
