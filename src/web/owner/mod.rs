//! The owner thread's half of the wasm pool: it starts the workers (`worker.js`), hears what
//! they report (`WorkerEvent`), replaces a crashed one, frees what a dead one held, and drains
//! the completions they deliver (`src/README.md`, "Workers" and "Results back to the owner
//! thread").

pub(crate) mod catch;
pub(crate) mod deadlines;
mod message;
pub(crate) use message::Reply;
pub(crate) mod promise;

use catch::Catch;
use deadlines::{Deadlines, Watch};
use crate::web::thread_locals::free_thread_locals;
use crate::error::BuildError;
use crate::sync::{Arc, AtomicU32, Ordering};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(module = "/src/web/owner/workers.js")]
extern "C" {
    pub(crate) type WorkerSet;
    #[wasm_bindgen(constructor)]
    #[allow(clippy::too_many_arguments)]
    fn new(
        glue_url: &str,
        module: &JsValue,
        memory: &JsValue,
        shared_ptr: u32,
        name: &str,
        task_module: Option<String>,
        mode: Mode,
        on_event: &js_sys::Function,
        on_reply: &js_sys::Function,
    ) -> WorkerSet;
    /// Message mode: posts a task's request to worker `index`, with the buffers its arguments
    /// hand over.
    #[wasm_bindgen(method, js_name = postTask)]
    fn post_task(this: &WorkerSet, index: u32, request: &JsValue);
    /// Message mode: task `seq` posted to worker `index` (its count of tasks posted to it, from
    /// 1) was settled by someone else (its signal, its timeout, a forced shutdown).
    #[wasm_bindgen(method, js_name = postAbort)]
    fn post_abort(this: &WorkerSet, index: u32, seq: u32);
    /// Message mode: worker `index` is asked to give back task `seq`, handed to it ahead, if it
    /// has not begun it (message.rs, `take_over_for_idle`).
    #[wasm_bindgen(method, js_name = postRecall)]
    fn post_recall(this: &WorkerSet, index: u32, seq: u32);
    #[wasm_bindgen(method)]
    fn spawn(this: &WorkerSet, index: u32);
    #[wasm_bindgen(method)]
    fn terminate(this: &WorkerSet, index: u32);
    #[wasm_bindgen(method, js_name = terminateAll)]
    fn terminate_all(this: &WorkerSet);
    #[wasm_bindgen(method)]
    fn watch(this: &WorkerSet, byte_addr: u32, drain: &js_sys::Function);
    #[wasm_bindgen(method)]
    fn route(this: &WorkerSet, index: u32, handover: u32);
    #[wasm_bindgen(method, js_name = dropRouted)]
    fn drop_routed(this: &WorkerSet, index: u32, handover: u32);
    #[wasm_bindgen(method, js_name = detachAll)]
    fn detach_all(this: &WorkerSet, items: &JsValue, handover: u32);
    #[wasm_bindgen(method, js_name = releaseHandover)]
    fn release_handover(this: &WorkerSet, handover: u32);

    fn schedule(ms: f64, callback: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = crossOriginIsolationProblem)]
    fn cross_origin_isolation_problem(headers: &str) -> Option<String>;
    #[wasm_bindgen(js_name = setWorkerScript)]
    fn set_worker_script(url: &JsValue, spawn_web: &js_sys::Function);
}

#[wasm_bindgen(module = "/src/web/runtime.js")]
extern "C" {
    #[wasm_bindgen(js_name = threadMayWait)]
    fn thread_may_wait() -> bool;
}

/// Whether this page or process lets workers share the memory, or why not (the error's text,
/// naming the headers that would isolate the page).
pub(crate) fn isolation_problem() -> Option<String> {
    cross_origin_isolation_problem(crate::web::errors::ISOLATION_HEADERS)
}

/// Called once by the npm package's entry: the worker script to start (see `worker.js`).
#[doc(hidden)]
#[wasm_bindgen(js_name = __setWorkerScript, skip_typescript)]
pub fn configure_worker_script(url: &JsValue, spawn_web: &js_sys::Function) {
    set_worker_script(url, spawn_web);
}

#[wasm_bindgen]
extern "C" {
    type ImportMeta;
    #[wasm_bindgen(method, getter)]
    fn url(this: &ImportMeta) -> String;
    #[wasm_bindgen(thread_local_v2, js_namespace = import, js_name = meta)]
    static IMPORT_META: ImportMeta;
}

/// How the pool's workers start.
#[derive(Debug, Clone, Default)]
pub struct WebConfig {
    /// How workers tell the owner thread that tasks completed.
    pub doorbell: Doorbell,
    /// Absolute URL of an ES module every worker imports before it is ready; its function
    /// exports are tasks by name (`Pool.create({module})`).
    pub task_module: Option<String>,
    /// How workers get their tasks: only the JS `Pool` picks message mode, since Rust
    /// closures cannot run there (`BuildError::NotIsolated` instead).
    pub(crate) mode: Mode,
}

/// How a pool's workers get their tasks (`Pool.create({mode})`, `src/README.md`, "Message
/// mode"). wasm-bindgen hands `WorkerSet` the variant's string, `pool.mode`'s value.
#[wasm_bindgen(skip_typescript)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Workers share the module's memory and pop the ring themselves (zero copy): needs a
    /// cross-origin isolated page.
    Shared = "shared",
    /// Each worker has its own module instance; the owner pops a task for an idle worker and
    /// posts it, the worker replies with its outcome.
    Message = "message",
}

impl Default for Mode {
    fn default() -> Self {
        Mode::Shared
    }
}

/// How a worker tells the owner thread that completions are waiting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Doorbell {
    /// `memory.atomic.notify` on a word the owner watches with `Atomics.waitAsync`.
    WaitAsync,
    /// One `postMessage` to the owner (the default: lower latency, see `src/README.md`).
    #[default]
    Message,
}

/// Whoever holds submissions that wait for queue space (the JS `Pool`, `js.rs`): a drain may
/// have freed space for them.
pub(crate) trait Waiting {
    /// Admits what waits, in order, while there is space.
    fn admit_waiting(&self);
}

/// The web back end's handle (its `Backend` impl is `backend.rs`): the owner-thread half of
/// the pool, shared by the pool and its `Shutdown`s.
#[derive(Clone)]
pub struct Web {
    pub(super) main: Rc<Main>,
}

impl Web {
    pub(crate) fn main(&self) -> &Rc<Main> {
        &self.main
    }
}

/// The pool's state as the web back end sees it.
pub(crate) type Shared = crate::backend::Shared<Web>;
/// A task as the web back end holds it.
pub(crate) type TaskRef = crate::backend::TaskRef<Web>;

/// A task's key in the owner's tables (its address).
pub(crate) fn task_key(task: &TaskRef) -> usize {
    Arc::as_ptr(task) as *const () as usize
}

pub(crate) struct Main {
    pub(super) shared: Arc<Shared>,
    set: WorkerSet,
    pub(crate) mode: Mode,
    /// Message mode: the tasks posted to each worker (message.rs). The owner's counterpart of a
    /// shared worker's own reference to its task: the core's slot (`WorkerSlot`) may be
    /// emptied meanwhile (a forced shutdown), and the reply must still finish the task's run.
    posts: RefCell<Vec<message::Posts>>,
    /// Message mode: a pump is queued (a microtask) after the queue changed.
    pump_queued: Cell<bool>,
    me: std::rc::Weak<Main>,
    /// What the owner knows of each worker, by index.
    slots: RefCell<Vec<WorkerState>>,
    /// The function exports of the task module, as the first worker reported them.
    pub(crate) task_exports: RefCell<Option<Vec<String>>>,
    /// Crashes in a row with no task completed in between, and `completed` at the last one.
    crash_streak: Cell<u32>,
    completed_at_crash: Cell<u64>,
    /// Workers that said "ready" at least once (replacements included).
    pub(crate) ready: Cell<usize>,
    /// Called once every worker is ready, or with the first start failure once every worker
    /// has ended.
    pub(crate) on_ready: RefCell<Vec<Box<dyn FnOnce(Result<(), String>)>>>,
    pub(crate) start_error: RefCell<Option<String>>,
    replaced: Cell<u64>,
    /// Where `route_target` starts looking, so that ties take turns.
    route_turn: Cell<usize>,
    /// Keeps the owner half alive until every worker has exited, even if the pool handle is
    /// dropped: accepted tasks still run.
    keepalive: RefCell<Option<Rc<Main>>>,
    /// Told after each drain that delivered something or found submissions waiting for space:
    /// the JS `Pool`, which admits them.
    waiting: RefCell<Option<std::rc::Weak<dyn Waiting>>>,
    /// Every deadline of this pool, on one JS timer: tasks' `timeout`s (`TaskOptions::timeout`,
    /// from JS or Rust), waiting `submit`s' (src/web/api/pool.rs) and `shutdown_timeout`s.
    pub(crate) deadlines: Rc<Deadlines>,
    /// The entries of tasks' deadlines, by task address: forgotten when the task's
    /// completion is drained, so a settled task keeps no entry (and no timer) alive.
    pub(super) timed: RefCell<HashMap<usize, Watch>>,
    /// Polling for the result of a task admitted into an idle pool (catch.rs).
    catch: Catch,
    _on_event: Closure<dyn FnMut(String, i32, JsValue)>,
    _on_reply: Closure<dyn FnMut(u32, message::Reply, JsValue)>,
    _drain: Closure<dyn FnMut() -> bool>,
}

/// What a worker, or its `Worker` object, told the owner thread (`worker.js` posts
/// `{ type, index, detail }`). The doorbell's `ring` message is not one: `worker.js` hands
/// it to the drain that `watch` was given.
enum WorkerEvent {
    /// `ready`: it started. Its TLS block and stack (the owner frees them if it dies in a
    /// trap), and the task module's function exports.
    Ready { thread_memory: Option<(f64, f64)>, exports: Vec<String> },
    /// `exited`: the pool closed and drained, and it left the worker loop.
    Exited,
    /// `crashed` or `failed`: its own report. It caught a trap, or its module failed, and will
    /// not touch wasm again, so what it held can be freed.
    Crashed(String),
    /// `error`: an uncaught error event. The thread may still be stopping; its memory is left.
    Error(String),
    /// `exit` (Node): the thread is gone without reporting (e.g. `process.exit`).
    Gone(String),
}

impl WorkerEvent {
    /// `None` for a kind this version does not know (ignored).
    fn read(kind: &str, detail: &JsValue) -> Option<Self> {
        let text = || detail.as_string().unwrap_or_default();
        Some(match kind {
            "ready" => {
                let get = |k: &str| js_sys::Reflect::get(detail, &k.into()).unwrap_or(JsValue::UNDEFINED);
                let exports = get("exports");
                let exports = if js_sys::Array::is_array(&exports) {
                    js_sys::Array::from(&exports).iter().filter_map(|e| e.as_string()).collect()
                } else {
                    Vec::new()
                };
                WorkerEvent::Ready { thread_memory: get("tls").as_f64().zip(get("stack").as_f64()), exports }
            }
            "exited" => WorkerEvent::Exited,
            "crashed" | "failed" => WorkerEvent::Crashed(text()),
            "error" => WorkerEvent::Error(text()),
            "exit" => WorkerEvent::Gone(text()),
            _ => return None,
        })
    }
}

#[derive(Clone, Copy, Default)]
struct WorkerState {
    /// The current incarnation runs (spawned, not yet exited or crashed).
    alive: bool,
    /// Some incarnation at this index said "ready" (so a later death is a crash, not a
    /// failed start).
    was_ready: bool,
    /// The current incarnation said "ready": handed-over buffers may be routed to it.
    ready_now: bool,
    /// The `__tls_base` and `__stack_alloc` the current incarnation reported, freed by the
    /// owner if it dies (a dead thread cannot free them itself).
    thread_memory: Option<(f64, f64)>,
}

impl Main {
    /// Checks the page or process can run a pool, starts its workers and watches the bell.
    pub(super) fn start(shared: &Arc<Shared>, config: WebConfig) -> Result<Rc<Main>, BuildError> {
        let doorbell = config.doorbell;
        let mode = config.mode;
        if mode == Mode::Shared {
            if let Some(problem) = isolation_problem() {
                shared.dispatch.close();
                return Err(BuildError::NotIsolated(problem));
            }
            if !memory_is_shared() {
                shared.dispatch.close();
                return Err(BuildError::MemoryNotShared);
            }
            if let Err(oom) = stacks_fit(shared.workers) {
                shared.dispatch.close();
                return Err(BuildError::OutOfMemory(oom));
            }
        }
        // An owner thread that may block (Node's, Deno's and Bun's main threads, a worker that
        // owns a pool; not a page's thread) sleeps on a busy heap lock like the workers do,
        // instead of spinning while a descheduled worker holds it.
        let may_wait = thread_may_wait();
        #[cfg(feature = "worker-alloc")]
        if may_wait {
            crate::web::worker_alloc::may_wait();
        }
        shared.delivery.message_while_few.store(doorbell == Doorbell::Message, Ordering::Relaxed);
        let glue_url = IMPORT_META.with(ImportMeta::url);
        let main = Rc::new_cyclic(|weak: &std::rc::Weak<Main>| {
            // Closures must be UnwindSafe under panic=unwind; `Main` is only used on this thread.
            let w = AssertUnwindSafe(weak.clone());
            let on_event = Closure::new(move |kind: String, index: i32, detail: JsValue| {
                let w = &w;
                if let (Some(main), Some(event)) = (w.0.upgrade(), WorkerEvent::read(&kind, &detail)) {
                    main.on_event(index, event);
                }
            });
            let w = AssertUnwindSafe(weak.clone());
            let on_reply = Closure::new(move |index: u32, reply: message::Reply, value: JsValue| {
                let w = &w;
                if let Some(main) = w.0.upgrade() {
                    main.on_reply(index as usize, reply, value);
                }
            });
            let w = AssertUnwindSafe(weak.clone());
            let drain = Closure::new(move || {
                let w = &w;
                w.0.upgrade().is_some_and(|main| main.drain())
            });
            // One strong count per worker is handed over as a raw pointer.
            let set = WorkerSet::new(
                &glue_url,
                &wasm_bindgen::module(),
                &wasm_bindgen::memory(),
                Arc::as_ptr(shared) as u32,
                "pool",
                config.task_module.clone(),
                mode,
                on_event.as_ref().unchecked_ref(),
                on_reply.as_ref().unchecked_ref(),
            );
            Main {
                shared: shared.clone(),
                set,
                mode,
                posts: RefCell::new((0..shared.workers).map(|_| message::Posts::default()).collect()),
                pump_queued: Cell::new(false),
                me: weak.clone(),
                slots: RefCell::new(vec![WorkerState::default(); shared.workers]),
                task_exports: RefCell::new(None),
                crash_streak: Cell::new(0),
                completed_at_crash: Cell::new(0),
                ready: Cell::new(0),
                on_ready: RefCell::new(Vec::new()),
                start_error: RefCell::new(None),
                replaced: Cell::new(0),
                route_turn: Cell::new(0),
                keepalive: RefCell::new(None),
                waiting: RefCell::new(None),
                deadlines: Rc::default(),
                timed: RefCell::new(HashMap::new()),
                catch: Catch::new(catch_run(weak.clone()), doorbell == Doorbell::Message && may_wait && mode == Mode::Shared),
                _on_event: on_event,
                _on_reply: on_reply,
                _drain: drain,
            }
        });
        *main.keepalive.borrow_mut() = Some(main.clone());
        for index in 0..shared.workers {
            main.spawn(index);
        }
        main.set.watch(shared.delivery.bell_addr(), main._drain.as_ref().unchecked_ref());
        Ok(main)
    }
}

/// wasm-bindgen's glue keeps an "instance terminated" flag in (shared) linear memory and sets
/// it when a trap passes through any of its wrappers; every thread's glue then refuses calls.
/// Workers enter Rust through the raw export so their traps do not set it, and a crash
/// clears it in case something else did: the other threads are healthy.
fn clear_terminated_flag() {
    let exports = wasm_bindgen::exports();
    let Ok(global) = js_sys::Reflect::get(&exports, &"__instance_terminated".into()) else { return };
    let Ok(addr) = js_sys::Reflect::get(&global, &"value".into()) else { return };
    if let Some(addr) = addr.as_f64() {
        if addr > 0.0 {
            // SAFETY: the export is the address of an aligned i32 static in our own memory.
            unsafe { (*(addr as usize as *const AtomicU32)).store(0, Ordering::SeqCst) };
        }
    }
}

// wasm-bindgen requires unwind safety of everything its exports touch when panics unwind. The
// owner-thread state is only mutated in small steps that cannot panic half-way.
impl std::panic::RefUnwindSafe for Main {}
impl std::panic::UnwindSafe for Main {}

/// Bytes of a worker's thread stack: wasm-bindgen's default, which it allocates in the new
/// worker (`__wbindgen_start`), where an allocation that fails is a trap.
const THREAD_STACK: usize = 2 << 20;

/// Whether the module's memory is a shared one: without `--shared-memory` (and the other
/// [`REQUIRED_LINK_ARGS`](crate::memory::REQUIRED_LINK_ARGS)) a `+atomics` build still links,
/// with a plain `ArrayBuffer` under it that workers cannot share.
fn memory_is_shared() -> bool {
    let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
    memory.buffer().is_instance_of::<js_sys::SharedArrayBuffer>()
}

/// Whether the memory has room for `n` worker stacks now: they are claimed and given back at
/// once, so that a full memory refuses a pool (or delays a replacement) instead of trapping
/// in the new worker. With `worker-alloc` the given-back blocks wait whole for the workers.
fn stacks_fit(n: usize) -> Result<(), crate::memory::OutOfMemory> {
    let layout = std::alloc::Layout::from_size_align(THREAD_STACK, 16).expect("stack layout");
    let mut held = Vec::new();
    crate::memory::try_reserve(&mut held, n)?;
    let result = loop {
        if held.len() == n {
            break Ok(());
        }
        // SAFETY: the layout has a non-zero size.
        let p = unsafe { std::alloc::alloc(layout) };
        if p.is_null() {
            break Err(crate::memory::out_of_memory(THREAD_STACK * (n - held.len())));
        }
        held.push(p);
    };
    for p in held {
        // SAFETY: allocated just above with this layout.
        unsafe { std::alloc::dealloc(p, layout) };
    }
    result
}

impl Main {
    fn spawn(&self, index: usize) {
        let shared_memory = self.mode == Mode::Shared;
        if shared_memory && stacks_fit(1).is_err() {
            // A replacement for a crashed worker, with the memory full: try again shortly
            // rather than trap in the new worker.
            let me = AssertUnwindSafe(self.me.clone());
            schedule(50.0, &Closure::once_into_js(move || {
                let me = me;
                if let Some(main) = me.0.upgrade() {
                    main.spawn(index);
                }
            }));
            return;
        }
        let mut slots = self.slots.borrow_mut();
        slots[index].alive = true;
        slots[index].ready_now = false;
        slots[index].thread_memory = None;
        drop(slots);
        if shared_memory {
            // The worker's `Arc::from_raw` takes over this count.
            std::mem::forget(self.shared.clone());
            // The new thread reads the pool's state first thing (`worker_entry`).
            crate::web::growth::publish();
        }
        self.set.spawn(index as u32);
    }

    fn on_event(&self, index: i32, event: WorkerEvent) {
        match event {
            WorkerEvent::Ready { thread_memory, exports } => {
                let i = index as usize;
                let first = {
                    let mut slots = self.slots.borrow_mut();
                    slots[i].thread_memory = thread_memory;
                    slots[i].ready_now = slots[i].alive;
                    !std::mem::replace(&mut slots[i].was_ready, true)
                };
                self.task_exports.borrow_mut().get_or_insert(exports);
                if first {
                    self.ready.set(self.ready.get() + 1);
                    if self.ready.get() == self.shared.workers {
                        self.fire_ready(Ok(()));
                    }
                }
                self.take_turn(i);
            }
            WorkerEvent::Exited => {
                self.slots.borrow_mut()[index as usize].ready_now = false;
                if !std::mem::replace(&mut self.slots.borrow_mut()[index as usize].alive, false) {
                    return;
                }
                self.set.terminate(index as u32);
                self.shared.worker_exited();
                self.stop_if_done();
            }
            WorkerEvent::Crashed(detail) => self.worker_crashed(index as usize, detail, true),
            WorkerEvent::Error(detail) => self.worker_crashed(index as usize, detail, false),
            WorkerEvent::Gone(detail) => self.worker_crashed(index as usize, detail, true),
        }
    }

    fn stop_if_done(&self) {
        if self.shared.is_stopped() {
            if let Some(err) = self.start_error.borrow().clone() {
                self.fire_ready(Err(err));
            }
            // Let the watch loop see the stop and end, then let go of ourselves.
            self.shared.delivery.bell.bump_and_wake(1);
            drop(self.keepalive.borrow_mut().take());
        }
    }

    fn fire_ready(&self, result: Result<(), String>) {
        let waiters = std::mem::take(&mut *self.on_ready.borrow_mut());
        for w in waiters {
            w(result.clone());
        }
    }

    /// Worker `index` died (a trap, or its task module failed to load): fail its task, free
    /// what the dead thread held, and replace it, with a growing delay in a crash loop. A
    /// worker that never became ready fails `Pool.create` instead.
    fn worker_crashed(&self, index: usize, detail: String, dead: bool) {
        self.slots.borrow_mut()[index].ready_now = false;
        if !std::mem::replace(&mut self.slots.borrow_mut()[index].alive, false) {
            return;
        }
        self.set.terminate(index as u32);
        clear_terminated_flag();
        self.posts_of_dead_worker(index);
        let task = self.shared.slots[index].try_take();
        if let Some(task) = &task {
            self.shared.settle_err(task, crate::error::TaskError::WorkerCrashed);
        }
        // Tasks routed to it: their handed-over buffers went with it (src/README.md, "Handovers").
        while let Some(routed) = self.shared.dispatch.pop_route(index) {
            self.shared.settle_err(&routed, crate::error::TaskError::WorkerCrashed);
        }
        if dead && self.mode == Mode::Shared {
            self.free_dead_thread(index, task.as_ref());
        }
        if !self.slots.borrow()[index].was_ready {
            // It never started: the pool cannot reach its size. The first failure is the one
            // reported, once every worker of the pool has ended (`stop_if_done`): the caller
            // sees the error with nothing of the pool left, so the next pool reuses its memory.
            self.start_error.borrow_mut().get_or_insert(format!("worker {index} failed to start: {detail}"));
            self.shared.dispatch.close();
            self.shared.worker_exited();
            self.stop_if_done();
            return;
        }
        self.replaced.set(self.replaced.get() + 1);
        let completed = self.shared.stats().completed;
        let streak = if completed == self.completed_at_crash.get() { self.crash_streak.get() + 1 } else { 1 };
        self.crash_streak.set(streak);
        self.completed_at_crash.set(completed);
        let delay = crate::restart::delay_ms(streak);
        if delay == 0 {
            self.spawn(index);
        } else {
            let me = AssertUnwindSafe(self.me.clone());
            schedule(delay as f64, &Closure::once_into_js(move || {
                let me = me;
                if let Some(main) = me.0.upgrade() {
                    main.spawn(index);
                }
            }));
        }
    }

    /// Releases what a dead worker can no longer release: its count of `Shared` (taken over
    /// from `spawn`, raw or in its thread-local), and its TLS block and stack.
    /// `task` is the one it was running, whose reference on the dead stack is released too.
    fn free_dead_thread(&self, index: usize, task: Option<&TaskRef>) {
        // SAFETY: `spawn` leaked exactly one strong count for this incarnation, and a thread
        // that died in a trap (or never entered Rust) never released it; `alive` makes this
        // run once per incarnation, never after a clean exit (which released it itself).
        unsafe { Arc::decrement_strong_count(Arc::as_ptr(&self.shared)) };
        if let Some(task) = task {
            // SAFETY: a worker holds exactly one reference of the task it runs besides the
            // slot's (the `task` local of `Shared::work`, or the suspended-task thread-local;
            // `Runnable::run` clones none). It died holding it; `task` (ours, from the slot)
            // keeps the count above zero across this.
            unsafe { Arc::decrement_strong_count(Arc::as_ptr(task)) };
        }
        let Some((tls, stack)) = self.slots.borrow_mut()[index].thread_memory.take() else { return };
        // SAFETY: the thread is dead and its TLS block not yet freed (that happens below).
        unsafe { free_thread_locals(tls as usize) };
        let exports = wasm_bindgen::exports();
        if let Ok(destroy) = js_sys::Reflect::get(&exports, &"__wbindgen_thread_destroy".into()) {
            if let Some(destroy) = destroy.dyn_ref::<js_sys::Function>() {
                // wasm-bindgen's destroy frees another thread's TLS and stack when given their
                // addresses (0 = the default stack size).
                drop(destroy.call3(&JsValue::UNDEFINED, &tls.into(), &stack.into(), &0.into()));
            }
        }
    }

    /// Deadlines still kept and whether the timer is armed, after taking the completions that
    /// are waiting to be drained (a settled task's entry goes with its completion).
    pub(crate) fn pending_deadlines(&self) -> (usize, bool) {
        self.drain();
        self.deadlines.pending()
    }

    /// `waiting` holds this pool's submissions that wait for queue space (the JS `Pool`).
    pub(crate) fn hold_waiting(&self, waiting: std::rc::Weak<dyn Waiting>) {
        *self.waiting.borrow_mut() = Some(waiting);
    }

    pub(crate) fn replaced(&self) -> u64 {
        self.replaced.get()
    }

    /// The worker to route a handed-over task to, if the queue is empty and has room: the
    /// ready worker with the fewest routed tasks, counting the one it runs (src/README.md,
    /// "Handovers").
    pub(crate) fn route_target(&self) -> Option<usize> {
        let d = &self.shared.dispatch;
        // Message mode posts a task's buffers with the task.
        if self.mode == Mode::Message || !d.lanes_empty() || d.kept() >= d.capacity() {
            return None;
        }
        let slots = self.slots.borrow();
        let start = self.route_turn.get();
        let n = slots.len();
        let mut best: Option<(usize, usize)> = None;
        for k in 0..n {
            let i = (start + k) % n;
            if !slots[i].ready_now {
                continue;
            }
            // Its routed tasks, and the one it runs: a worker busy with a long task is passed
            // over for an idle one.
            let (len, cap) = d.route_load(i);
            let load = len + usize::from(self.shared.slots[i].is_busy());
            if len < cap && best.is_none_or(|(_, b)| load < b) {
                best = Some((i, load));
            }
        }
        self.route_turn.set((start + 1) % n.max(1));
        best.map(|(i, _)| i)
    }

    /// Posts the buffers of `handover` to worker `index`, whose route now holds its task.
    pub(crate) fn route(&self, index: usize, handover: u32) {
        self.set.route(index as u32, handover);
    }

    /// A routed task settled without running: worker `index` forgets its buffers.
    pub(crate) fn drop_routed(&self, index: usize, handover: u32) {
        self.set.drop_routed(index as u32, handover);
    }

    /// Detaches a submission's `options.transfer` list; its buffers wait under `handover`
    /// (0: no argument hands one over) until they are posted (transfer.js).
    pub(crate) fn detach_all(&self, items: &JsValue, handover: u32) {
        self.set.detach_all(items, handover);
    }

    /// A task settled: what is left of its handed-over buffers is dropped.
    pub(crate) fn release_handover(&self, handover: u32) {
        self.set.release_handover(handover);
    }

}

/// The owner's half of the completion path: the drain, and the catch (catch.rs).
impl Main {
    /// Resolves every delivered completion, oldest first, then lets the JS `Pool` admit what
    /// waits for queue space; `false` once the pool has stopped. Run by the bell's
    /// `Atomics.waitAsync` watch (`worker.js`), by the message doorbell and after a catch.
    pub(super) fn drain(&self) -> bool {
        // Results may lie in pages a worker added: see them before reading the nodes.
        let done = self.shared.delivery.head.take_all_then(crate::web::growth::catch_up);
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
        if self.mode == Mode::Message {
            self.tell_settled();
        }
        // Also without completions if submissions wait: the ring may say a slot was freed.
        if any || self.shared.delivery.anyone_waits(&self.shared.waiting) {
            let waiting = self.waiting.borrow().as_ref().and_then(std::rc::Weak::upgrade);
            if let Some(waiting) = waiting {
                waiting.admit_waiting();
            }
            // Rust `Submit` futures (`Backend::space_freed` says why here).
            self.shared.waiting.wake_all();
        }
        !self.shared.is_stopped()
    }

    /// After an admission on this thread: a catch for a caller awaiting one task at a time, or
    /// in message mode the workers' turns (message.rs).
    pub(crate) fn admitted(&self) {
        if self.mode == Mode::Message {
            self.queue_pump();
        } else {
            self.catch.admitted(|| self.shared.counters.in_flight());
        }
    }

    /// The queued catch runs: wait briefly for the result, then drain.
    fn catch_completions(&self) {
        self.catch.catch(&self.shared.delivery);
        self.drain();
    }
}

/// What a queued catch runs (a microtask): `Main::catch_completions`.
fn catch_run(main: std::rc::Weak<Main>) -> Closure<dyn FnMut()> {
    // Closures must be UnwindSafe under panic=unwind; `Main` is only used on this thread.
    let main = AssertUnwindSafe(main);
    Closure::new(move || {
        let main = &main;
        if let Some(main) = main.0.upgrade() {
            main.catch_completions();
        }
    })
}

impl Drop for Main {
    fn drop(&mut self) {
        self.set.terminate_all();
    }
}
