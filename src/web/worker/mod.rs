//! What runs on each worker thread: the exports `worker.js` calls (start, the worker loop's
//! entry, resume after an async task, release before exit), and the thread-locals they keep.

pub(crate) mod jsfn;

use crate::web::owner::{Shared, TaskRef};
use crate::web::thread_locals::free_thread_locals;
use crate::sync::Arc;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

// The message-mode worker (`posted.js`) is started by `worker.js`, never from Rust; binding it
// here is what makes wasm-bindgen ship the file (it copies only the snippets Rust names).
#[wasm_bindgen(module = "/src/web/worker/posted.js")]
extern "C" {
    #[wasm_bindgen(js_name = runPosted)]
    #[allow(dead_code)]
    fn run_posted();
}

/// This thread's part of its pool between the calls `worker.js` makes: the pool, and the task
/// whose body waits for the promise the entry returned, until `ringpool_worker_resume`.
struct WorkerThread {
    shared: Arc<Shared>,
    suspended: Option<TaskRef>,
}

std::thread_local! {
    static WORKER: RefCell<Option<WorkerThread>> = const { RefCell::new(None) };
}

/// Called by `worker.js` once, right after `initSync`, with this thread's TLS block and stack.
#[doc(hidden)]
#[wasm_bindgen(js_name = ringpool_worker_start, skip_typescript)]
pub fn worker_start(tls_base: u32, stack_alloc: u32) {
    #[cfg(feature = "worker-alloc")]
    {
        crate::web::worker_alloc::may_wait();
        crate::web::worker_alloc::learn_slab(tls_base as usize, stack_alloc as usize);
    }
    #[cfg(not(feature = "worker-alloc"))]
    let _ = (tls_base, stack_alloc);
}

/// Called by `worker.js` as the last Rust call of a worker that exits cleanly, before
/// `__wbindgen_thread_destroy`: frees what its thread-locals keep.
#[doc(hidden)]
#[wasm_bindgen(js_name = ringpool_worker_release, skip_typescript)]
pub fn worker_release(tls_base: u32) {
    // SAFETY: the worker makes no externref after this call (it destroys its thread next).
    unsafe { free_thread_locals(tls_base as usize) };
}

/// On a worker, inside a task: how many tasks wait in its pool's queue.
pub(crate) fn queued_here() -> Option<u64> {
    WORKER.with(|w| w.borrow().as_ref().map(|w| w.shared.stats().queued))
}

/// Entry of every worker thread; called (as the raw export, see `src/README.md`, "Workers") by
/// `worker.js` after `initSync`, and again after each suspended task is resumed. Returns
/// `undefined` when the pool is closed and drained (the worker should exit), or the promise a
/// task's body waits for (`worker.js` awaits it, then calls `ringpool_worker_resume`).
#[doc(hidden)]
#[wasm_bindgen(js_name = ringpool_worker_entry, skip_typescript)]
pub fn worker_entry(shared_ptr: u32, index: u32) -> JsValue {
    crate::web::growth::catch_up();
    let shared = WORKER.with(|w| {
        let mut w = w.borrow_mut();
        let here = w.get_or_insert_with(|| {
            crate::worker_loop::enter_worker(index as usize);
            // SAFETY: `Main::spawn` leaked one strong count for this worker and passed its
            // pointer; it is taken over exactly once, on the first entry.
            WorkerThread { shared: unsafe { Arc::from_raw(shared_ptr as *const Shared) }, suspended: None }
        });
        here.shared.clone()
    });
    match shared.work(index as usize) {
        None => {
            WORKER.with(|w| drop(w.borrow_mut().take()));
            JsValue::UNDEFINED
        }
        Some((task, promise)) => {
            WORKER.with(|w| w.borrow_mut().as_mut().expect("a running worker has its state").suspended = Some(task));
            promise
        }
    }
}

/// Finishes the suspended task with the settled promise's value (`ok`) or reason.
#[doc(hidden)]
#[wasm_bindgen(js_name = ringpool_worker_resume, skip_typescript)]
pub fn worker_resume(index: u32, ok: bool, value: JsValue) {
    let suspended = WORKER.with(|w| w.borrow_mut().as_mut().and_then(|w| Some((w.suspended.take()?, w.shared.clone()))));
    if let Some((task, shared)) = suspended {
        let (outcome, failed) = crate::web::outcome::outcome_of(ok, &value);
        shared.resume(index as usize, task, Ok(outcome), failed);
    }
}

/// Message mode, on a worker with its own module instance (`posted.js`): runs a Rust `Task`
/// that its export made again here (`Task::remade_by`), as worker `index`. Returns
/// `[reply, value]`, the reply the owner reads (`Reply` in owner/message.rs).
#[doc(hidden)]
#[wasm_bindgen(js_name = __ringpoolRunRemade, skip_typescript)]
pub fn run_remade(task: JsValue, index: u32) -> JsValue {
    use wasm_bindgen::convert::TryFromJsValue;
    let task = crate::web::api::task::Task::try_from_js_value(task).expect("the export named by Task::remade_by makes a Task");
    crate::memory::install_backstop();
    crate::panic::install_hook();
    if crate::worker_loop::worker_index() != Some(index as usize) {
        crate::worker_loop::enter_worker(index as usize);
    }
    let body = task.body;
    use crate::web::owner::Reply;
    let pair = |reply: Reply, value: JsValue| -> JsValue { js_sys::Array::of2(&reply.into(), &value).into() };
    match crate::panic::catch(body) {
        Ok(outcome) => match crate::web::outcome::outcome_to_js(outcome) {
            Ok(value) => pair(Reply::Returned, value),
            Err(thrown) => pair(Reply::Threw, thrown),
        },
        Err(crate::error::TaskError::OutOfMemory(oom)) => {
            let n = |v: usize| JsValue::from(v as f64);
            pair(Reply::OutOfMemory, js_sys::Array::of3(&n(oom.needed), &n(oom.in_use), &n(oom.maximum)).into())
        }
        Err(crate::error::TaskError::Panicked { message, location }) => {
            pair(Reply::Panicked, js_sys::Array::of2(&message.into(), &location.map_or(JsValue::NULL, JsValue::from)).into())
        }
        Err(other) => pair(Reply::Threw, crate::web::errors::task_error_to_js(&other)),
    }
}

/// What a message-mode worker posts back for a result structured clone would not copy as the
/// codec reads it (`clonesAlike` in codec.js, `worker/posted.js`): `["returned", copy]` with the
/// codec's copy, or `["refused", [name, message]]` with its error naming the place
/// (`result.tiles[1].f cannot be sent …`), as in shared mode.
#[doc(hidden)]
#[wasm_bindgen(js_name = __ringpoolResultCopy, skip_typescript)]
pub fn result_copy(value: JsValue) -> JsValue {
    use crate::web::owner::Reply;
    let (reply, value): (Reply, JsValue) = match crate::web::codec::from_js(&value, "result", &mut crate::value::Budget::default(), &|_| None) {
        Ok(v) => (Reply::Returned, crate::web::codec::to_js(&v)),
        Err(e) => {
            let name = if e.is_type_error() { "TypeError" } else { "RangeError" };
            (Reply::Refused, js_sys::Array::of2(&name.into(), &e.to_string().into()).into())
        }
    };
    js_sys::Array::of2(&reply.into(), &value).into()
}
