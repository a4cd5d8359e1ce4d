//! The real wasm pool in headless Chromium (`wasm-pack test --headless --chrome -- --test web`):
//! Web Workers sharing this module's memory, one promise per task, panics, a full queue,
//! draining shutdown, the concurrency bound and create/shutdown cycles.
//!
//! Coordination uses atomics in shared memory: workers block in `memory.atomic.wait32`, the
//! main thread waits with `Atomics.waitAsync` (it must never block). No sleeps.
#![cfg(target_arch = "wasm32")]
#![feature(stdarch_wasm_atomic_wait)]

use js_sys::{Promise, Reflect};
use ringpool::{TaskError, TaskOptions, WorkerPool};
use std::time::Duration;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen(inline_js = "
export function changed(memory, addr, from) {
  const cells = new Int32Array(memory.buffer);
  const r = Atomics.waitAsync(cells, addr >>> 2, from);
  return r.async ? r.value : Promise.resolve(r.value);
}
export function isShared(memory) { return memory.buffer instanceof SharedArrayBuffer; }
")]
extern "C" {
    fn changed(memory: &JsValue, addr: u32, from: i32) -> Promise;
    #[wasm_bindgen(js_name = isShared)]
    fn is_shared(memory: &JsValue) -> bool;
}

/// "Wake every waiter": Firefox wakes nobody for a count of `u32::MAX` (src/sync.rs).
const WAKE_ALL: u32 = i32::MAX as u32;

/// A flag in shared memory: workers block on it, the main thread awaits it without blocking.
#[derive(Clone, Default)]
struct Flag(Arc<AtomicI32>);

impl Flag {
    fn set(&self, v: i32) {
        self.0.store(v, Ordering::SeqCst);
        unsafe { core::arch::wasm32::memory_atomic_notify(self.0.as_ptr(), WAKE_ALL) };
    }
    fn add(&self, v: i32) -> i32 {
        let n = self.0.fetch_add(v, Ordering::SeqCst) + v;
        unsafe { core::arch::wasm32::memory_atomic_notify(self.0.as_ptr(), WAKE_ALL) };
        n
    }
    fn get(&self) -> i32 {
        self.0.load(Ordering::SeqCst)
    }
    /// Worker side: blocks until the value is at least `v`.
    fn block_until(&self, v: i32) {
        loop {
            let cur = self.get();
            if cur >= v {
                return;
            }
            unsafe { core::arch::wasm32::memory_atomic_wait32(self.0.as_ptr(), cur, -1) };
        }
    }
    /// Main side: resolves once the value is at least `v`.
    async fn reached(&self, v: i32) {
        loop {
            let cur = self.get();
            if cur >= v {
                return;
            }
            JsFuture::from(changed(&wasm_bindgen::memory(), self.0.as_ptr() as u32, cur)).await.unwrap();
        }
    }
}

async fn settle(p: Promise) -> Result<JsValue, JsValue> {
    JsFuture::from(p).await
}

fn field(v: &JsValue, k: &str) -> JsValue {
    Reflect::get(v, &k.into()).unwrap()
}

async fn new_pool(workers: usize, cap: usize) -> WorkerPool {
    let pool = WorkerPool::new(workers, cap).unwrap();
    settle(pool.ready()).await.unwrap();
    pool
}

fn assert_invariant(pool: &WorkerPool) {
    let s = pool.stats();
    assert_eq!(s.accepted, s.completed + s.failed + s.queued + s.running, "{s:?}");
}

#[wasm_bindgen_test]
fn memory_is_shared() {
    assert!(is_shared(&wasm_bindgen::memory()), "the wasm memory must be a SharedArrayBuffer");
}

#[wasm_bindgen_test]
async fn one_promise_per_task() {
    let pool = new_pool(3, 32).await;
    let promises: Vec<Promise> =
        (0..24u32).map(|i| pool.try_submit(move || i * i).unwrap().into_promise()).collect();
    for (i, p) in promises.into_iter().enumerate() {
        assert_eq!(settle(p).await.unwrap().as_f64(), Some((i * i) as f64));
    }
    settle_shutdown(&pool).await;
    assert_eq!(pool.stats().completed, 24);
    assert_invariant(&pool);
}

#[wasm_bindgen_test]
async fn panic_rejects_then_the_same_worker_runs_the_next_task() {
    let pool = new_pool(1, 4).await;
    let first_id = Flag::default();
    let f = first_id.clone();
    let failing = pool
        .try_submit(move || {
            f.set(ringpool::worker_id().unwrap() as i32);
            panic!("pixel {} out of range", 7);
        })
        .unwrap()
        .into_promise_with(|()| JsValue::UNDEFINED);
    let err = settle(failing).await.unwrap_err();
    assert_eq!(field(&err, "name").as_string().as_deref(), Some("PanicError"));
    assert_eq!(field(&err, "code").as_string().as_deref(), Some("PANIC"));
    assert_eq!(field(&err, "panicMessage").as_string().as_deref(), Some("pixel 7 out of range"));
    let location = field(&err, "location").as_string().unwrap();
    assert!(location.starts_with("tests/web.rs:"), "{location}");

    let next = pool.try_submit(|| ringpool::worker_id().unwrap() as u32).unwrap().into_promise();
    let second_id = settle(next).await.unwrap().as_f64().unwrap() as i32;
    assert_eq!(second_id, first_id.get(), "the worker survived the panic");
    assert_eq!(pool.workers_replaced(), 0);
    let s = pool.stats();
    assert_eq!((s.panicked, s.crashed, s.completed), (1, 0, 1));
    settle_shutdown(&pool).await;
}

/// `WorkerPool::submit` on the owner thread: it waits (counted in `Stats::waiting`) until the
/// owner's drain wakes it, past `max_waiting` it answers `Overloaded` at once.
#[wasm_bindgen_test]
async fn submit_waits_for_space_on_the_owner_thread() {
    let pool = WorkerPool::with_options(1, 1, ringpool::PoolOptions { max_waiting: Some(1) }).unwrap();
    settle(pool.ready()).await.unwrap();
    let (running, release) = (Flag::default(), Flag::default());
    let (r, g) = (running.clone(), release.clone());
    let blocker = pool.try_submit(move || {
        r.set(1);
        g.block_until(1);
        1u32
    });
    let blocker = blocker.unwrap().into_promise();
    running.reached(1).await;
    let queued = pool.try_submit(|| 2u32).unwrap().into_promise();
    let pool = std::rc::Rc::new(pool);
    let p = pool.clone();
    let waits = wasm_bindgen_futures::future_to_promise(async move {
        let handle = p.submit(|| 3u32).await.map_err(JsValue::from)?;
        Ok(handle.await?.into())
    });
    // The future has run up to its first wait by the time this turn yields.
    settle(Promise::resolve(&JsValue::NULL)).await.unwrap();
    assert_eq!(pool.stats().waiting, 1);
    match pool.submit(|| 4u32).await {
        Err(ringpool::SubmitError::Overloaded(f)) => assert_eq!(f(), 4),
        other => panic!("expected Overloaded, got {:?}", other.map(|_| ())),
    }
    release.set(1);
    assert_eq!(settle(waits).await.unwrap().as_f64(), Some(3.0));
    assert_eq!(settle(blocker).await.unwrap().as_f64(), Some(1.0));
    assert_eq!(settle(queued).await.unwrap().as_f64(), Some(2.0));
    let s = pool.stats();
    assert_eq!((s.waiting, s.accepted, s.rejected), (0, 3, 1));
    assert_invariant(&pool);
}

#[wasm_bindgen_test]
async fn queue_full_answers_at_once_and_shutdown_drains() {
    let pool = new_pool(1, 2).await;
    let (running, release) = (Flag::default(), Flag::default());
    let (r, g) = (running.clone(), release.clone());
    let blocker = pool.try_submit(move || {
        r.set(1);
        g.block_until(1);
        "blocker"
    });
    let blocker = blocker.unwrap().into_promise();
    running.reached(1).await;

    let queued: Vec<Promise> = (0..2u32).map(|i| pool.try_submit(move || i).unwrap().into_promise()).collect();
    let full = pool.try_submit(|| 99u32);
    assert!(matches!(full, Err(ringpool::SubmitError::QueueFull(_))), "a full queue answers at once");
    assert_eq!(pool.stats().queued, 2);

    let shutdown = pool.shutdown();
    assert!(matches!(pool.try_submit(|| 0u32), Err(ringpool::SubmitError::Closed(_))));
    let done = wasm_bindgen_futures::future_to_promise(async move {
        shutdown.await.unwrap();
        Ok(JsValue::TRUE)
    });
    release.set(1);
    assert_eq!(settle(done).await.unwrap(), JsValue::TRUE);
    assert_eq!(settle(blocker).await.unwrap().as_string().as_deref(), Some("blocker"));
    for (i, p) in queued.into_iter().enumerate() {
        assert_eq!(settle(p).await.unwrap().as_f64(), Some(i as f64), "accepted before shutdown, so it ran");
    }
    let s = pool.stats();
    assert_eq!((s.accepted, s.completed, s.rejected), (3, 3, 2));
    assert_invariant(&pool);
}

#[wasm_bindgen_test]
async fn peak_running_is_at_most_workers() {
    let pool = new_pool(3, 32).await;
    let (now, peak, arrived) = (Flag::default(), Flag::default(), Flag::default());
    let promises: Vec<Promise> = (0..24u32)
        .map(|i| {
            let (now, peak, arrived) = (now.clone(), peak.clone(), arrived.clone());
            pool.try_submit(move || {
                let n = now.add(1);
                peak.0.fetch_max(n, Ordering::SeqCst);
                if i < 3 {
                    // Only passes if three tasks run at the same time.
                    arrived.add(1);
                    arrived.block_until(3);
                }
                now.add(-1);
                i
            })
            .unwrap()
            .into_promise()
        })
        .collect();
    for p in promises {
        settle(p).await.unwrap();
    }
    settle_shutdown(&pool).await;
    assert_eq!(peak.get(), 3);
    assert!(pool.peak_running() <= 3);
    assert_invariant(&pool);
}

#[wasm_bindgen_test]
async fn create_and_shutdown_twenty_times_leaks_no_workers() {
    let mut after_first = 0.0;
    for round in 0..20 {
        let pool = new_pool(2, 4).await;
        let v = settle(pool.try_submit(move || round).unwrap().into_promise()).await.unwrap();
        assert_eq!(v.as_f64(), Some(round as f64));
        settle_shutdown(&pool).await;
        assert_eq!(ringpool::live_worker_threads(), 0, "round {round}: a worker loop is still running");
        if round == 1 {
            after_first = ringpool::web::memory_bytes();
        }
    }
    // Each worker has a 1 MiB stack: 36 unreleased stacks would show up here.
    let grown = ringpool::web::memory_bytes() - after_first;
    assert!(grown < 4.0 * 1024.0 * 1024.0, "memory grew by {grown} bytes over 18 cycles");
}

async fn settle_shutdown(pool: &WorkerPool) {
    let shutdown = pool.shutdown();
    let p = wasm_bindgen_futures::future_to_promise(async move {
        shutdown.await.map_err(|e| JsValue::from_str(&e.to_string()))?;
        Ok(JsValue::UNDEFINED)
    });
    settle(p).await.unwrap();
}

/// What a user's crate writes (README "Using ringpool from your own crate"): an exported async
/// fn that holds the pool and its handles across `.await` and uses `?` on every ringpool error.
/// That it compiles at all is half the test: under panic=unwind wasm-bindgen wraps the future
/// in `catch_unwind`, so the pool, the handles and the shutdown future must be `UnwindSafe`
/// without an `AssertUnwindSafe` in user code.
#[wasm_bindgen]
pub async fn user_total(n: u32, panic_at: u32) -> Result<f64, JsValue> {
    let pool = WorkerPool::new(2, 8)?;
    let mut handles = Vec::new();
    for i in 0..n {
        handles.push(pool.try_submit(move || {
            assert_ne!(i, panic_at, "task {i} was told to panic");
            f64::from(i) * 2.0
        })?);
    }
    let mut total = 0.0;
    for handle in handles {
        total += handle.await?;
    }
    pool.shutdown().await?;
    Ok(total)
}

/// `v instanceof errorClasses()[class]`.
fn is_class(v: &JsValue, class: &str) -> bool {
    let prototype: js_sys::Object = field(&field(&ringpool::web::error_classes(), class), "prototype").unchecked_into();
    prototype.is_prototype_of(v)
}

#[wasm_bindgen_test]
async fn an_exported_async_fn_awaits_handles_with_the_question_mark() {
    assert_eq!(user_total(5, u32::MAX).await.unwrap(), 20.0);
    let err = user_total(5, 2).await.unwrap_err();
    assert!(is_class(&err, "PanicError"), "{err:?}");
    assert_eq!(field(&err, "panicMessage").as_string().unwrap(), "assertion `left != right` failed: task 2 was told to panic\n  left: 2\n right: 2");
    assert!(field(&err, "location").as_string().unwrap().starts_with("tests/web.rs:"), "{err:?}");
}

#[wasm_bindgen_test]
fn every_ringpool_error_is_a_js_error_of_the_package_classes() {
    use ringpool::{BuildError, OutOfMemory, ShutdownTimeout, SubmitError, TaskError};
    let code = |v: &JsValue| field(v, "code").as_string().unwrap_or_default();
    let message = |v: &JsValue| field(v, "message").as_string().unwrap_or_default();

    let e: JsValue = WorkerPool::new(0, 4).unwrap_err().into();
    assert!(e.is_instance_of::<js_sys::RangeError>() && message(&e).contains("workers"), "{e:?}");
    let e: JsValue = BuildError::MemoryNotShared.into();
    assert!(message(&e).contains("-Clink-arg=--shared-memory") && message(&e).contains("examples/app"), "{e:?}");

    for (err, class, c) in [
        (SubmitError::QueueFull(()), "QueueFullError", "QUEUE_FULL"),
        (SubmitError::Closed(()), "PoolClosedError", "POOL_CLOSED"),
        (SubmitError::Cancelled(()), "CancelledError", "CANCELLED"),
    ] {
        let e: JsValue = err.into();
        assert!(is_class(&e, class) && code(&e) == c, "{class}: {e:?}");
    }
    let oom = OutOfMemory { needed: 10, in_use: 20, maximum: 30 };
    for e in [JsValue::from(SubmitError::OutOfMemory((), oom)), TaskError::OutOfMemory(oom).into(), oom.into()] {
        assert!(is_class(&e, "OutOfMemoryError") && e.is_instance_of::<js_sys::RangeError>(), "{e:?}");
        assert_eq!(field(&e, "needed").as_f64(), Some(10.0));
    }
    let e: JsValue = TaskError::Panicked { message: "boom".into(), location: Some("src/lib.rs:1:2".into()) }.into();
    assert!(is_class(&e, "PanicError") && code(&e) == "PANIC", "{e:?}");
    assert_eq!(message(&e), "panicked at src/lib.rs:1:2: boom");
    for (err, class) in [
        (TaskError::WorkerCrashed, "WorkerCrashedError"),
        (TaskError::Cancelled, "CancelledError"),
        (TaskError::TimedOut, "TimeoutError"),
        (TaskError::PoolClosed, "PoolClosedError"),
    ] {
        let e: JsValue = err.into();
        assert!(is_class(&e, class), "{class}: {e:?}");
    }
    let e: JsValue = ShutdownTimeout.into();
    assert!(is_class(&e, "TimeoutError") && message(&e).contains("deadline"), "{e:?}");
}

/// Rust API timeouts live in the pool's one deadline queue (src/web/owner/deadlines.rs), as the JS
/// API's do: a timeout fires while the task is queued, and tasks that settle first leave no
/// entry and no armed timer behind.
#[wasm_bindgen_test]
async fn rust_api_timeouts_share_the_pools_deadline_queue() {
    let pool = new_pool(1, 64).await;
    let gate = Flag::default();
    let g = gate.clone();
    let blocker = pool.try_submit(move || g.block_until(1)).unwrap();
    let late = pool
        .try_submit_with(|| 7, TaskOptions { timeout: Some(Duration::from_millis(30)), ..Default::default() })
        .unwrap();
    assert_eq!(late.await, Err(TaskError::TimedOut), "timed out while queued behind the blocker");
    gate.set(1);
    blocker.await.unwrap();

    let gate = Flag::default();
    let g = gate.clone();
    let blocker = pool.try_submit(move || g.block_until(1)).unwrap();
    let long = TaskOptions { timeout: Some(Duration::from_secs(600)), ..Default::default() };
    let handles: Vec<_> = (0..50).map(|i| pool.try_submit_with(move || i, long.clone()).unwrap()).collect();
    assert_eq!(pool.pending_deadlines(), (50, true), "queued behind the blocker, every deadline is kept");
    gate.set(1);
    blocker.await.unwrap();
    for (i, h) in handles.into_iter().enumerate() {
        assert_eq!(h.await, Ok(i));
    }
    assert_eq!(pool.pending_deadlines(), (0, false), "settled tasks keep no deadline and no timer");
    assert_invariant(&pool);
    settle_shutdown(&pool).await;
}

