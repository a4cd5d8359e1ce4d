//! A task's JS promise, made and settled on the thread that owns the pool. The resolvers stay in
//! a JS-side table under a number (`promises.js`): Rust holds no `Function` handles, so a task
//! costs no externref slots and no closure crossing into Rust to make its promise. The drain
//! (`Main::drain`) settles it through the task's owner-thread callback.

use crate::error::TaskError;
use crate::task::TaskHandle;
use crate::web::errors::task_error_to_js;
use js_sys::Promise;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/web/owner/promises.js")]
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
