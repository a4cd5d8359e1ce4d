//! What one JS call submits, read and checked before anything is admitted: the task body (a
//! function's source, an export name, or a Rust `Task`), its arguments, and the call's options
//! (`signal`, `timeout`, `priority`, `transfer`). A bad one is refused with a `TypeError`/`RangeError` that
//! names it; the pool is not touched. The admission itself is in `js.rs`.

use crate::web::api::abort::{abort_reason, Acquired, SignalUse};
use crate::web::codec::from_js_handing;
use crate::web::owner::{Main, Mode};
use crate::web::api::task::Task;
use crate::web::worker::jsfn::{ArgValues, Args, Body, Handover, Source};
use crate::web::errors::{codec_error_to_js, js_error, not_isolated, ErrorKind};
use crate::web::memory_views::pool_view_offset;
use crate::batch::Batch;
use crate::sync::Arc;
use crate::value::{Budget, Value};
use crate::cancel::CancelToken;
use crate::dispatch::Priority;
use js_sys::Reflect;
use std::cell::RefCell;
use std::collections::VecDeque;
use wasm_bindgen::convert::TryFromJsValue;
use wasm_bindgen::prelude::*;

/// A call's `options.signal`.
#[derive(Clone)]
pub(super) enum Signal {
    /// Listened to through the signal's link, whose token all its tasks share (src/web/api/abort.rs).
    Linked(SignalUse),
    /// It had aborted before the call.
    Aborted(JsValue),
}

impl Signal {
    pub(super) fn token(&self) -> CancelToken {
        match self {
            Signal::Linked(u) => u.token().clone(),
            Signal::Aborted(_) => {
                let token = CancelToken::new();
                token.cancel();
                token
            }
        }
    }

    pub(super) fn is_aborted(&self) -> bool {
        match self {
            Signal::Linked(u) => u.token().is_cancelled(),
            Signal::Aborted(_) => true,
        }
    }

    pub(super) fn reason(&self) -> JsValue {
        match self {
            Signal::Linked(u) => u.reason(),
            Signal::Aborted(s) => abort_reason(s),
        }
    }
}

#[wasm_bindgen(module = "/src/web/api/pool.js")]
extern "C" {
    #[wasm_bindgen(js_name = functionSource, catch)]
    fn function_source_js(f: &JsValue) -> Result<JsValue, JsValue>;
}

#[wasm_bindgen(module = "/src/web/owner/workers.js")]
extern "C" {
    /// `console.warn(text)`, once per page or process.
    #[wasm_bindgen(js_name = warnOnce)]
    fn warn_once(text: &str);
}

/// `Pool.create`'s `mode`: `'auto'` (the default) is shared memory where the page allows it,
/// else message mode with one warning naming the headers; `'shared'` fails where it cannot be
/// had (`BuildError::NotIsolated`).
pub(super) fn read_mode(options: &JsValue) -> Result<Mode, JsValue> {
    let v = get(options, "mode")?;
    match v.as_string().as_deref() {
        None if v.is_undefined() => {}
        Some("auto") => {}
        Some("shared") => return Ok(Mode::Shared),
        Some("message") => return Ok(Mode::Message),
        _ => {
            let got = v.as_string().map_or_else(|| type_name(&v), |s| format!("{s:?}"));
            return Err(js_error(ErrorKind::Type, &format!("mode must be 'auto', 'shared' or 'message', got {got}")));
        }
    }
    Ok(match crate::web::owner::isolation_problem() {
        None => Mode::Shared,
        Some(problem) => {
            warn_once(&format!(
                "ringpool: {problem}. Pools run in message mode here: tasks, arguments and results travel by postMessage \
                 and pool.alloc is unavailable. Pass mode: 'message' to say this is intended."
            ));
            Mode::Message
        }
    })
}

#[wasm_bindgen(module = "/src/web/transfer.js")]
extern "C" {
    /// An array copy of `options.transfer`, or a string naming the entry that cannot be
    /// transferred.
    #[wasm_bindgen(js_name = checkTransfer)]
    fn check_transfer(list: &JsValue) -> JsValue;
}

/// The buffers of `options.transfer`, checked: detached once their task is admitted (or
/// queued by a waiting `submit`). If an argument hands one over (`Value::Transferred`), the
/// detached buffers wait under `id` for the worker's claim, and dropping this (the task
/// settled, or it was refused) releases whatever is left of them.
pub(super) struct Transfer {
    items: JsValue,
    id: u32,
    /// An argument refers to these buffers by `id` (set by the codec).
    used: std::cell::Cell<bool>,
    detached: bool,
    /// The pool's owner half, whose worker set keeps the buffers until they are posted (set
    /// when the submission is prepared for that pool).
    owner: Option<std::rc::Rc<Main>>,
    /// The worker the task goes to, with the buffers posted to it at admission, if the queue
    /// was empty when the call was read (`Main::route_target`); else the worker that takes
    /// the task from the queue claims them.
    route: Option<usize>,
}

/// The bit of a handover id that says its buffers are posted to the task's worker (the worker
/// waits for them instead of claiming them).
const ROUTED: u32 = 1 << 31;

impl Transfer {
    fn read(v: &JsValue) -> Result<Option<Self>, JsValue> {
        if v.is_undefined() {
            return Ok(None);
        }
        let checked = check_transfer(v);
        match checked.as_string() {
            Some(why) => Err(js_error(ErrorKind::Type, &why)),
            None => Ok(Some(Transfer { items: checked, id: next_handover_id(), used: false.into(), detached: false, owner: None, route: None })),
        }
    }

    /// Prepared for the pool whose owner half is `main`; with `route`, routed to the worker
    /// `Main::route_target` picks, if any (before the arguments are read: the id they carry
    /// says whether the worker waits for its buffers or claims them).
    fn attach(&mut self, main: &std::rc::Rc<Main>, route: bool) {
        if let Some(index) = main.route_target().filter(|_| route) {
            self.id |= ROUTED;
            self.route = Some(index);
        }
        self.owner = Some(main.clone());
    }

    /// The worker whose route the task must go to: routed, and an argument hands a buffer over.
    pub(super) fn route(&self) -> Option<usize> {
        self.route.filter(|_| self.used.get())
    }

    /// The task settled with an error: if it was routed, its worker may hold buffers for a
    /// body that will never run, and forgets them.
    pub(super) fn abandoned(&self) {
        if let (Some(index), Some(main)) = (self.route(), self.owner.as_ref()) {
            main.drop_routed(index, self.id);
        }
    }

    /// What the codec needs to hand this list's buffers over.
    fn handover(&self) -> crate::web::codec::Handover<'_> {
        let any_size = self.owner.as_ref().is_some_and(|main| main.mode == crate::web::owner::Mode::Message);
        crate::web::codec::Handover { items: &self.items, id: self.id, used: &self.used, any_size }
    }

    /// Detaches the caller's buffers (once): the task is admitted or waits for space, and its
    /// arguments are copied or refer to the buffers by handover id.
    pub(super) fn detach(&mut self) {
        let Some(main) = self.owner.as_ref() else { return };
        if !std::mem::replace(&mut self.detached, true) {
            main.detach_all(&self.items, if self.used.get() { self.id } else { 0 });
            if let Some(index) = self.route() {
                main.route(index, self.id);
            }
        }
    }
}

impl Drop for Transfer {
    fn drop(&mut self) {
        if let Some(main) = self.owner.as_ref().filter(|_| self.used.get() && self.detached) {
            main.release_handover(self.id);
        }
    }
}

/// Handover ids of this thread's submissions (never 0, which means none).
fn next_handover_id() -> u32 {
    std::thread_local!(static NEXT: std::cell::Cell<u32> = const { std::cell::Cell::new(0) });
    NEXT.with(|n| {
        let id = if n.get() + 1 >= ROUTED { 1 } else { n.get() + 1 };
        n.set(id);
        id
    })
}

/// `{signal, timeout, priority, transfer}`, read once per call (a `submitAll` shares them
/// among its items).
pub(super) struct CallOptions {
    pub(super) signal: Option<Signal>,
    /// Absolute deadline in [`clock`](crate::web::clock::clock) ms (monotonic).
    pub(super) deadline: Option<f64>,
    pub(super) priority: Priority,
    pub(super) transfer: Option<Transfer>,
}

/// A submission checked and ready to be admitted (kept while `submit` waits for space).
pub(super) struct Prepared {
    pub(super) body: Body,
    /// Held until the task settles: it keeps the signal's listener.
    pub(super) signal: Option<Signal>,
    /// Absolute deadline in [`clock`](crate::web::clock::clock) ms (monotonic).
    pub(super) deadline: Option<f64>,
    /// The `submitAll` call it belongs to.
    pub(super) batch: Option<Arc<Batch>>,
    pub(super) priority: Priority,
    /// Detached when the task is admitted, or queued to wait for space.
    pub(super) transfer: Option<Transfer>,
}

/// A `Task` wrapper (looked at, not taken: taking would consume its Rust value): an object with
/// the prototype of a `Task` made here to compare with, not one whose class is named "Task" (a
/// minifier renames the class: the package's own build and a user's bundler both minify).
pub(super) fn is_task_wrapper(v: &JsValue) -> bool {
    if !v.is_object() {
        return false;
    }
    let probe = JsValue::from(Task::new(|| Value::Undefined));
    let same = JsValue::from(js_sys::Object::get_prototype_of(v)) == JsValue::from(js_sys::Object::get_prototype_of(&probe));
    // Taken back, the probe's Rust value is dropped now rather than by the JS garbage collector.
    drop(Task::try_from_js_value(probe));
    same
}


pub(super) fn type_name(v: &JsValue) -> String {
    if v.is_null() {
        return "null".into();
    }
    v.js_typeof().as_string().unwrap_or_default()
}

/// `obj[key]`, or `undefined` if `obj` is not an object. A getter that throws is the
/// caller's error (options are read as arguments are: the call is refused with it).
pub(super) fn get(obj: &JsValue, key: &str) -> Result<JsValue, JsValue> {
    get_key(obj, &key.into())
}

pub(super) fn get_key(obj: &JsValue, key: &JsValue) -> Result<JsValue, JsValue> {
    if obj.is_object() || obj.is_function() {
        Reflect::get(obj, key)
    } else {
        Ok(JsValue::UNDEFINED)
    }
}

/// `n` as JS prints it in a message (`Infinity`, `NaN`, `1.5`, `1e+21`): JS's `String(n)`,
/// which also keeps Rust's float formatting out of the module.
pub(crate) fn js_number(n: f64) -> String {
    js_sys::Number::from(n).to_string_with_radix(10).map_or_else(|_| "a number".into(), String::from)
}

std::thread_local! {
    /// `"signal"`, `"timeout"` and `"priority"` as JS strings, made once: decoding a key out of
    /// shared memory on every `trySubmit` with options cost more than reading the property.
    static OPTION_KEYS: [JsValue; 4] = ["signal", "timeout", "priority", "transfer"].map(JsValue::from_str);
}

pub(super) fn read_size(options: &JsValue, key: &str, default: f64) -> Result<usize, JsValue> {
    let v = get(options, key)?;
    if v.is_undefined() {
        return Ok(default as usize);
    }
    let Some(n) = v.as_f64() else {
        return Err(js_error(ErrorKind::Type, &format!("{key} must be an integer, got {}", type_name(&v))));
    };
    if n.fract() != 0.0 || n < 1.0 || !n.is_finite() {
        return Err(js_error(ErrorKind::Range, &format!("{key} must be an integer >= 1, got {}", js_number(n))));
    }
    Ok(if n > usize::MAX as f64 { usize::MAX } else { n as usize })
}

/// `Pool.create({ maxWaiting })`: an integer >= 0, or `Infinity`/absent for no bound.
pub(super) fn read_max_waiting(options: &JsValue) -> Result<Option<usize>, JsValue> {
    let v = get(options, "maxWaiting")?;
    if v.is_undefined() {
        return Ok(None);
    }
    let Some(n) = v.as_f64() else {
        return Err(js_error(ErrorKind::Type, &format!("maxWaiting must be an integer >= 0 or Infinity, got {}", type_name(&v))));
    };
    if n == f64::INFINITY {
        return Ok(None);
    }
    if n.fract() != 0.0 || n < 0.0 || !n.is_finite() {
        return Err(js_error(ErrorKind::Range, &format!("maxWaiting must be an integer >= 0 or Infinity, got {}", js_number(n))));
    }
    Ok(Some(if n > usize::MAX as f64 { usize::MAX } else { n as usize }))
}

pub(super) const ARG_PATHS: [&str; 8] = ["args[0]", "args[1]", "args[2]", "args[3]", "args[4]", "args[5]", "args[6]", "args[7]"];

std::thread_local! {
    /// The sources of the last few task functions submitted from this thread: a loop that
    /// submits the same function again skips `toString` and the copy into wasm memory.
    static RECENT_SOURCES: RefCell<VecDeque<(JsValue, Source)>> = const { RefCell::new(VecDeque::new()) };
}
pub(super) const RECENT_SOURCES_LIMIT: usize = 8;


/// The source of a task function, checked to be sendable.
pub(super) fn source_of(f: &JsValue) -> Result<Source, JsValue> {
    static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    if let Some(src) = RECENT_SOURCES.with(|r| r.borrow().iter().find(|(g, _)| g == f).map(|(_, s)| s.clone())) {
        return Ok(src);
    }
    let Some(text) = function_source(f).map_err(|e| codec_error_to_js(&e))? else {
        return Err(js_error(ErrorKind::Type, "task must be a self-contained function; native and bound functions cannot be sent to a worker"));
    };
    if text.trim_start().starts_with("class") {
        return Err(js_error(ErrorKind::Type, "task must be a function, not a class"));
    }
    let id = NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed) as f64;
    let source = Source { id, text: std::sync::Arc::new(text) };
    RECENT_SOURCES.with(|r| {
        let mut r = r.borrow_mut();
        if r.len() == RECENT_SOURCES_LIMIT {
            r.pop_front();
        }
        r.push_back((f.clone(), source.clone()));
    });
    Ok(source)
}

/// Reads the arguments of a JS task (function or named export) into values that cross.
/// `shared`: a view of pool memory crosses by reference (shared mode); in message mode every
/// value is copied.
pub(super) fn read_args(args: &JsValue, transfer: Option<&Transfer>, shared: bool) -> Result<Args, JsValue> {
    if args.is_undefined() {
        return Ok(Args::new(ArgValues::Few(0, [Value::Undefined, Value::Undefined]), Handover::NONE));
    }
    let arr = match crate::web::codec::array_copy(args) {
        Ok(Some(arr)) => arr,
        Ok(None) => return Err(js_error(ErrorKind::Type, &format!("args must be an array, got {}", type_name(args)))),
        Err(e) => return Err(js_error(ErrorKind::Type, &e.to_string())),
    };
    let mut budget = Budget::default();
    let n = arr.length() as usize;
    let mut few = [Value::Undefined, Value::Undefined];
    if n.saturating_mul(8) > budget.remaining() {
        return Err(codec_error_to_js(&crate::value::CodecError::TooLarge { path: "args".into() }));
    }
    let mut many = if n > 2 {
        crate::memory::try_vec(n).map_err(|oom| codec_error_to_js(&crate::value::CodecError::OutOfMemory { path: "args".into(), oom }))?
    } else {
        Vec::new()
    };
    let handover = transfer.map(Transfer::handover);
    let no_views = |_: &JsValue| None;
    let views: &dyn Fn(&JsValue) -> Option<u32> = if shared { &pool_view_offset } else { &no_views };
    for (i, a) in arr.iter().enumerate() {
        let path = ARG_PATHS.get(i).map_or_else(|| format!("args[{i}]").into(), |p| std::borrow::Cow::Borrowed(*p));
        let v = from_js_handing(&a, &path, &mut budget, views, handover.as_ref()).map_err(|e| codec_error_to_js(&e))?;
        if n <= 2 {
            few[i] = v;
        } else {
            many.push(v);
        }
    }
    let values = if n <= 2 { ArgValues::Few(n, few) } else { ArgValues::Many(many) };
    // An argument refers to the list's buffers: the worker gets them under its id.
    let handover = transfer.filter(|t| t.used.get()).map_or(Handover::NONE, |t| Handover { id: t.id, routed: t.id & ROUTED != 0 });
    Ok(Args::new(values, handover))
}

/// `e` with `prefix: ` before its message (which item of a `submitAll` was refused).
pub(super) fn prefix_message(e: JsValue, prefix: &str) -> JsValue {
    if let Some(message) = Reflect::get(&e, &"message".into()).ok().and_then(|m| m.as_string()) {
        drop(Reflect::set(&e, &"message".into(), &format!("{prefix}: {message}").into()));
    }
    e
}

/// `options.priority`: `'high'`, `'normal'` (also when absent) or `'low'`.
pub(super) fn read_priority(v: &JsValue) -> Result<Priority, JsValue> {
    if v.is_undefined() {
        return Ok(Priority::Normal);
    }
    match v.as_string().as_deref() {
        Some("high") => Ok(Priority::High),
        Some("normal") => Ok(Priority::Normal),
        Some("low") => Ok(Priority::Low),
        Some(other) => Err(js_error(ErrorKind::Range, &format!("options.priority must be 'high', 'normal' or 'low', got {other:?}"))),
        None => Err(js_error(ErrorKind::Type, &format!("options.priority must be 'high', 'normal' or 'low', got {}", type_name(v)))),
    }
}

/// `options` is absent or an object (every call that takes options).
pub(super) fn check_object(options: &JsValue) -> Result<(), JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok(());
    }
    present_object(options)
}

/// Given `options` (neither `undefined` nor `null`) is an object.
fn present_object(options: &JsValue) -> Result<(), JsValue> {
    if options.is_object() {
        Ok(())
    } else {
        Err(js_error(ErrorKind::Type, &format!("options must be an object, got {}", type_name(options))))
    }
}

/// A call's options with `signal`, `timeout` and `priority` checked, `transfer` as given
/// (`None` where absent: no `JsValue` is made for an option nobody gave).
pub(super) struct CheckedOptions {
    signal: Option<JsValue>,
    timeout_ms: Option<f64>,
    priority: Priority,
    transfer: Option<JsValue>,
}

/// The rules of a call's `{signal, timeout, priority}`, written once: every submission reads
/// its options through this, and `pool.map` checks its own with it (`Pool.checkMapCall`).
/// Any problem is a `TypeError`/`RangeError` naming the option.
pub(super) fn check_options(options: &JsValue) -> Result<CheckedOptions, JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok(CheckedOptions { signal: None, timeout_ms: None, priority: Priority::Normal, transfer: None });
    }
    present_object(options)?;
    let [signal, timeout, priority, transfer] = OPTION_KEYS.with(|[s, t, p, x]| {
        Ok::<_, JsValue>([get_key(options, s)?, get_key(options, t)?, get_key(options, p)?, get_key(options, x)?])
    })?;
    let priority = read_priority(&priority)?;
    if !signal.is_undefined() && !SignalUse::is_signal(&signal) {
        return Err(js_error(ErrorKind::Type, "options.signal must be an AbortSignal"));
    }
    let timeout_ms = if timeout.is_undefined() {
        None
    } else {
        match timeout.as_f64() {
            Some(ms) if ms.is_finite() && ms >= 0.0 => Some(ms),
            Some(ms) => return Err(js_error(ErrorKind::Range, &format!("options.timeout must be a finite number of ms >= 0, got {}", js_number(ms)))),
            None => return Err(js_error(ErrorKind::Type, &format!("options.timeout must be a number, got {}", type_name(&timeout)))),
        }
    };
    let given = |v: JsValue| (!v.is_undefined()).then_some(v);
    Ok(CheckedOptions { signal: given(signal), timeout_ms, priority, transfer: given(transfer) })
}

/// Reads a submission's `options` (`{signal, timeout, priority, transfer}`): checked by
/// [`check_options`], then the signal linked and the deadline fixed on the clock.
pub(super) fn read_options(options: &JsValue) -> Result<CallOptions, JsValue> {
    let CheckedOptions { signal, timeout_ms, priority, transfer } = check_options(options)?;
    let transfer = match transfer {
        Some(list) => Transfer::read(&list)?,
        None => None,
    };
    let signal = match signal {
        None => None,
        Some(signal) => match SignalUse::acquire(&signal) {
            Acquired::Linked(linked) => Some(Signal::Linked(linked)),
            Acquired::Aborted => Some(Signal::Aborted(signal)),
            // `check_options` saw a signal: it can only have refused its listener.
            Acquired::NotASignal | Acquired::ListenFailed => {
                return Err(js_error(ErrorKind::Type, "options.signal must be an AbortSignal (adding an abort listener threw)"))
            }
        },
    };
    let deadline = timeout_ms.map(|ms| crate::web::clock::clock() + ms);
    Ok(CallOptions { signal, deadline, priority, transfer })
}

/// The source of a sendable function: `Ok(None)` for native, bound and proxied functions,
/// `Err` if it is over the payload limit or does not fit in memory.
fn function_source(f: &JsValue) -> Result<Option<String>, crate::value::CodecError> {
    match function_source_js(f) {
        Ok(text) if text.is_string() => {
            crate::web::codec::string_within(&text, crate::value::MAX_PAYLOAD_BYTES, &|| "task".into()).map(Some)
        }
        _ => Ok(None),
    }
}


/// A task that can run more than once (`broadcast`, `map`): a function or an export name.
pub(super) fn check_repeatable_task(task: &JsValue) -> Result<(), JsValue> {
    if task.is_function() || task.is_string() {
        return Ok(());
    }
    let got = if is_task_wrapper(task) { "a Task, which runs once".to_owned() } else { type_name(task) };
    Err(js_error(ErrorKind::Type, &format!("task must be a function or, with Pool.create({{ module }}), an export name; got {got}")))
}

/// Checks `task` and `args`; any problem is a `TypeError`/`RangeError`. The call's transfer
/// list goes with the first submission prepared from `options` (a `submitAll`'s first item).
/// `main`: the pool's owner half (its routes, and the task module's exports, which a string
/// task names only when `task_module`).
pub(super) fn prepare(main: &std::rc::Rc<Main>, task_module: bool, task: JsValue, args: JsValue, options: &mut CallOptions) -> Result<Prepared, JsValue> {
    let mut transfer = options.transfer.take();
    if let Some(t) = transfer.as_mut() {
        t.attach(main, options.priority == Priority::Normal);
    }
    let body: Body = if task.is_function() {
        let source = source_of(&task)?;
        Body::Source(source, read_args(&args, transfer.as_ref(), main.mode == Mode::Shared)?)
    } else if task.is_string() {
        // Export names are short; a longer string cannot name one (and is not copied whole).
        let name = crate::web::codec::string_within(&task, 1024, &|| "task".into()).map_err(|e| match e {
            crate::value::CodecError::TooLarge { .. } => js_error(ErrorKind::Type, "task is a string too long to name an export of the task module"),
            e => codec_error_to_js(&e),
        })?;
        let exports = main.task_exports.borrow();
        let Some(exports) = exports.as_ref().filter(|_| task_module) else {
            return Err(js_error(ErrorKind::Type, "a task given by name needs a pool made with Pool.create({ module: url })"));
        };
        if !exports.iter().any(|e| *e == name) {
            let list = if exports.is_empty() { "none".to_owned() } else { exports.join(", ") };
            return Err(js_error(ErrorKind::Type, &format!("the task module has no function export named {name:?} (its function exports: {list})")));
        }
        Body::Named(name, read_args(&args, transfer.as_ref(), main.mode == Mode::Shared)?)
    } else {
        match Task::try_from_js_value(task) {
            Ok(t) if main.mode == Mode::Shared => Body::Rust(t.body),
            // Message mode: the worker makes it again, if it says how.
            Ok(t) => match t.recipe {
                Some(recipe) => Body::Remade(recipe),
                None => return Err(js_error(ErrorKind::NotIsolated, &not_isolated(
                    "this Task is a Rust closure, which cannot cross to a worker's own memory (it does not name the export that makes it: Task::remade_by)",
                ))),
            },
            // A `Task` wrapper that could not be taken is empty: an earlier submission took
            // its Rust value.
            Err(other) if is_task_wrapper(&other) => {
                return Err(js_error(ErrorKind::Type, "task was already submitted: a Task runs once, make a new one for each submission"))
            }
            Err(other) => {
                return Err(js_error(
                    ErrorKind::Type,
                    &format!("task must be a function, a Task (e.g. diagnostics.spin(1)) or, with Pool.create({{ module }}), an export name; got {}", type_name(&other)),
                ))
            }
        }
    };
    Ok(Prepared { body, signal: options.signal.clone(), deadline: options.deadline, batch: None, priority: options.priority, transfer })
}
