//! The `#[wasm_bindgen]` `Pool` and Rust-made `Task`s, as the npm package exposes them.
//! `trySubmit` never throws: every refusal is an already-rejected promise.

use super::{js_error, memory_bytes};
use crate::{SubmitError, WorkerPool};
use js_sys::{Object, Promise, Reflect};
use wasm_bindgen::convert::TryFromJsValue;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

#[wasm_bindgen(module = "/src/web/worker.js")]
extern "C" {
    #[wasm_bindgen(js_name = defaultWorkers)]
    fn default_workers() -> f64;
}

/// A task result that can cross from a worker to the owner thread.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Undefined,
    Bool(bool),
    Number(f64),
    String(String),
    Bytes(Vec<u8>),
}

impl From<Value> for JsValue {
    fn from(v: Value) -> JsValue {
        match v {
            Value::Undefined => JsValue::UNDEFINED,
            Value::Bool(b) => b.into(),
            Value::Number(n) => n.into(),
            Value::String(s) => s.into(),
            Value::Bytes(b) => js_sys::Uint8Array::from(&b[..]).into(),
        }
    }
}

type Body = Box<dyn FnOnce() -> Value + Send>;

/// A task made by Rust (`diagnostics.*`, `image.*`, or your own crate) for `pool.trySubmit`.
/// Submitting it consumes it.
#[wasm_bindgen]
pub struct Task {
    body: Option<Body>,
}

impl Task {
    /// Wraps a closure as a JS-submittable task.
    pub fn new(f: impl FnOnce() -> Value + Send + 'static) -> Task {
        Task { body: Some(Box::new(f)) }
    }
}

/// A task that panics with `message` (to test error handling).
#[wasm_bindgen(js_name = diagnosticsPanic)]
pub fn diagnostics_panic(message: String) -> Task {
    Task::new(move || panic!("{message}"))
}

/// A task that traps (crashes its worker; the pool replaces it).
#[wasm_bindgen(js_name = diagnosticsTrap)]
pub fn diagnostics_trap() -> Task {
    Task::new(|| core::arch::wasm32::unreachable())
}

/// A task that busy-waits for `ms` milliseconds and returns the time it spun.
#[wasm_bindgen(js_name = diagnosticsSpin)]
pub fn diagnostics_spin(ms: f64) -> Task {
    Task::new(move || {
        let start = js_sys::Date::now();
        while js_sys::Date::now() - start < ms {
            if crate::is_cancelled() {
                break;
            }
            std::hint::spin_loop();
        }
        Value::Number(js_sys::Date::now() - start)
    })
}

/// A task that does nothing (for overhead measurements).
#[wasm_bindgen(js_name = diagnosticsNoop)]
pub fn diagnostics_noop() -> Task {
    Task::new(|| Value::Undefined)
}

/// The index and incarnation id of the worker that runs it: `[index, id]`.
#[wasm_bindgen(js_name = diagnosticsWorker)]
pub fn diagnostics_worker() -> Task {
    Task::new(|| {
        let index = crate::worker_index().unwrap_or(usize::MAX);
        let id = crate::worker_id().unwrap_or(0);
        Value::String(format!("{index}:{id}"))
    })
}

/// The JS `Pool`.
#[wasm_bindgen(js_name = Pool)]
pub struct JsPool {
    pool: WorkerPool,
}

fn read_size(options: &JsValue, key: &str, default: f64) -> Result<usize, JsValue> {
    let v = if options.is_undefined() || options.is_null() {
        JsValue::UNDEFINED
    } else {
        Reflect::get(options, &key.into()).unwrap_or(JsValue::UNDEFINED)
    };
    if v.is_undefined() {
        return Ok(default as usize);
    }
    let Some(n) = v.as_f64() else {
        return Err(js_error("TYPE", &format!("{key} must be an integer, got {}", type_name(&v))));
    };
    if n.fract() != 0.0 || n < 1.0 || !n.is_finite() {
        return Err(js_error("RANGE", &format!("{key} must be an integer >= 1, got {n}")));
    }
    Ok(if n > usize::MAX as f64 { usize::MAX } else { n as usize })
}

fn type_name(v: &JsValue) -> String {
    v.js_typeof().as_string().unwrap_or_default()
}

#[wasm_bindgen(js_class = Pool)]
impl JsPool {
    /// `Pool.create({workers, queueCapacity})`: resolves once every worker is ready.
    pub fn create(options: JsValue) -> Promise {
        if !(options.is_undefined() || options.is_null() || options.is_object()) {
            return Promise::reject(&js_error("TYPE", "options must be an object"));
        }
        let sizes = read_size(&options, "workers", default_workers())
            .and_then(|w| read_size(&options, "queueCapacity", 256.0).map(|q| (w, q)));
        let (workers, capacity) = match sizes {
            Ok(s) => s,
            Err(e) => return Promise::reject(&e),
        };
        // Undocumented measurement knob (bench/doorbell.mjs): how workers signal completions.
        let doorbell = match Reflect::get(&options, &"doorbell".into()).ok().and_then(|d| d.as_string()).as_deref() {
            Some("waitAsync") => crate::web::Doorbell::WaitAsync,
            _ => crate::web::Doorbell::Message,
        };
        let pool = match WorkerPool::with_doorbell(workers, capacity, doorbell) {
            Ok(p) => p,
            Err(crate::BuildError::Workers(_) | crate::BuildError::QueueCapacity(_)) => {
                let e = WorkerPool::with_doorbell(workers, capacity, doorbell).unwrap_err();
                return Promise::reject(&js_error("RANGE", &e.to_string()));
            }
            Err(e) => return Promise::reject(&js_sys::Error::new(&e.to_string())),
        };
        let ready = pool.ready();
        let js = JsValue::from(JsPool { pool });
        future_to_promise(async move {
            wasm_bindgen_futures::JsFuture::from(ready).await?;
            Ok(js)
        })
    }

    #[wasm_bindgen(getter)]
    pub fn workers(&self) -> usize {
        self.pool.workers()
    }

    #[wasm_bindgen(getter, js_name = queueCapacity)]
    pub fn queue_capacity(&self) -> usize {
        self.pool.queue_capacity()
    }

    /// Submits a `Task`; never throws, never waits.
    #[wasm_bindgen(js_name = trySubmit)]
    pub fn try_submit(&self, task: JsValue) -> Promise {
        let body = match Task::try_from_js_value(task) {
            Ok(mut t) => match t.body.take() {
                Some(b) => b,
                None => return Promise::reject(&js_error("TYPE", "task was already submitted")),
            },
            Err(other) => {
                return Promise::reject(&js_error(
                    "TYPE",
                    &format!("task must be a Task (e.g. diagnostics.spin(1)), got {}", type_name(&other)),
                ))
            }
        };
        match self.pool.try_submit(body) {
            Ok(handle) => handle.into_promise_with(JsValue::from),
            Err(SubmitError::QueueFull(_)) => Promise::reject(&js_error("QUEUE_FULL", "")),
            Err(SubmitError::Closed(_)) => Promise::reject(&js_error("POOL_CLOSED", "")),
            Err(SubmitError::Cancelled(_)) => Promise::reject(&js_error("CANCELLED", "")),
        }
    }

    /// `shutdown({timeout})`: closes admission, drains, waits for the workers to exit.
    pub fn shutdown(&self, options: JsValue) -> Promise {
        let timeout = if options.is_object() {
            Reflect::get(&options, &"timeout".into()).ok().and_then(|t| t.as_f64())
        } else {
            None
        };
        let fut = match timeout {
            Some(ms) if ms.is_finite() && ms >= 0.0 => self.pool.shutdown_timeout(std::time::Duration::from_secs_f64(ms / 1000.0)),
            _ => self.pool.shutdown(),
        };
        future_to_promise(async move {
            match fut.await {
                Ok(()) => Ok(JsValue::UNDEFINED),
                Err(_) => Err(js_error("TIMEOUT", "shutdown did not finish before its timeout; tasks keep running")),
            }
        })
    }

    /// Counters: `{workers, queueCapacity, queued, running, accepted, rejected, completed,
    /// failed, panicked, crashed, cancelled, timedOut}`.
    pub fn stats(&self) -> Object {
        let s = self.pool.stats();
        let o = Object::new();
        let set = |k: &str, v: f64| drop(Reflect::set(&o, &k.into(), &v.into()));
        set("workers", s.workers as f64);
        set("queueCapacity", s.queue_capacity as f64);
        set("queued", s.queued as f64);
        set("running", s.running as f64);
        set("accepted", s.accepted as f64);
        set("rejected", s.rejected as f64);
        set("completed", s.completed as f64);
        set("failed", s.failed as f64);
        set("panicked", s.panicked as f64);
        set("crashed", s.crashed as f64);
        set("cancelled", s.cancelled as f64);
        set("timedOut", s.timed_out as f64);
        o
    }

    /// Size of the shared memory in bytes (same as the `memoryBytes()` export).
    #[wasm_bindgen(js_name = memoryBytes)]
    pub fn memory_bytes(&self) -> f64 {
        memory_bytes()
    }
}
