//! One accepted task: its closure, its result slot, and the state machine that lets exactly one
//! party settle it.
//!
//! ```text
//!   QUEUED ──worker──▶ RUNNING ──worker──▶ WRITING ──pool──▶ DONE ──handle──▶ TAKEN
//!      │  ╲               │                   ▲
//!      │   HANDED ─begin─▶┘                   │
//!      └───┴── cancel/timeout/crash/force ────┘   (whoever wins the CAS to WRITING settles)
//! ```
//!
//! `HANDED` is message mode's (`src/README.md`, "Message mode"): a busy worker in another
//! memory was handed the body ahead of its turn ([`Runnable::hand_ahead`]); the task still
//! counts as queued until the owner hears the worker begin it ([`Runnable::begin`]).
//!
//! The settling party writes the result under `WRITING`; the pool counts the task and only then
//! publishes `DONE` ([`Header::publish`], from `Shared::settled`), so whoever reads a result
//! and then `stats()` finds it counted.
//!
//! A body only runs if the worker wins `QUEUED → RUNNING`, so a task settled while queued never
//! runs. A task settled while running keeps running (cancellation is cooperative, see
//! [`is_cancelled`]); its late result is dropped.

use crate::batch::Batch;
use crate::error::TaskError;
use crate::sync::{Arc, AtomicU32, Mutex, Ordering, UnsafeCell};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

const QUEUED: u32 = 0;
const RUNNING: u32 = 1;
const WRITING: u32 = 2;
const DONE: u32 = 3;
const TAKEN: u32 = 4;
/// Out of order so that `RUNNING` stays 1, the value JS task contexts watch (`jsfn.js`).
const HANDED: u32 = 5;

/// Where a task was when it was settled: decides which counters move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    Queued,
    Running,
}

/// The type-erased part of every task.
pub(crate) struct Header {
    /// One of `QUEUED..=HANDED`; moves along the diagram above, never back.
    state: AtomicU32,
    /// Waker of the `TaskHandle` poll, woken on delivery.
    waker: Mutex<Option<Waker>>,
    /// The `submitAll` call it belongs to (its completion may then skip the doorbell).
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(crate) batch: Option<Arc<Batch>>,
    /// When it was admitted, on the back end's clock (µs): the start of its wait time.
    pub(crate) admitted_us: u64,
    /// Someone other than its worker may settle it before it runs (a cancel token or a
    /// timeout watches it): a task a worker may not be handed ahead of its turn.
    pub(crate) watched: bool,
    /// A callback run on delivery instead of waking the waker, for a back end that delivers
    /// on the thread that owns the pool (the web's promise table). Set and run only there:
    /// see [`Header::set_on_owner`].
    on_owner: std::cell::Cell<Option<Box<dyn FnOnce()>>>,
}

// SAFETY: every field but `on_owner` is Sync and Send. `on_owner` is set only through
// `set_on_owner`, whose contract keeps every access to it on the thread that owns the pool
// (the setter and the back end's delivery both run there), so no two threads touch it.
unsafe impl Sync for Header {}
unsafe impl Send for Header {}

impl Header {
    fn new(batch: Option<Arc<Batch>>, admitted_us: u64, watched: bool) -> Self {
        Header {
            state: AtomicU32::new(QUEUED),
            waker: Mutex::new(None),
            batch,
            admitted_us,
            watched,
            on_owner: std::cell::Cell::new(None),
        }
    }

    /// Claims the right to write the result. `None` if someone else already did.
    fn begin_settle(&self) -> Option<Phase> {
        self.begin_settle_from().map(|from| if from == RUNNING { Phase::Running } else { Phase::Queued })
    }

    /// [`begin_settle`](Self::begin_settle), telling the state it left (`QUEUED`, `HANDED` or
    /// `RUNNING`).
    fn begin_settle_from(&self) -> Option<u32> {
        let mut cur = self.state.load(Ordering::Acquire);
        loop {
            if !matches!(cur, QUEUED | HANDED | RUNNING) {
                return None;
            }
            match self.state.compare_exchange(cur, WRITING, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return Some(cur),
                Err(now) => cur = now,
            }
        }
    }

    /// Makes the written result takeable: the settling party calls it once the pool has
    /// counted the task (`Shared::settled`), on the thread that wrote it.
    pub(crate) fn publish(&self) {
        debug_assert_eq!(self.state.load(Ordering::Relaxed), WRITING);
        self.state.store(DONE, Ordering::Release);
    }

    /// The result is written, counted, and may be taken.
    #[allow(dead_code)]
    pub(crate) fn is_done(&self) -> bool {
        matches!(self.state.load(Ordering::Acquire), DONE | TAKEN)
    }

    pub(crate) fn is_settled(&self) -> bool {
        matches!(self.state.load(Ordering::Acquire), WRITING | DONE | TAKEN)
    }

    /// Wakes whoever watches `state` while a body awaits (a JS task's context), so a running
    /// async task learns at once that it was cancelled.
    fn notify_state(&self) {
        crate::sync::notify_word(&self.state);
    }

    /// Has `deliver` run `callback` instead of waking the waker.
    ///
    /// # Safety
    /// Only on the thread that owns the pool, whose back end calls [`deliver`](Self::deliver)
    /// for this task on that same thread (never on a worker).
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(crate) unsafe fn set_on_owner(&self, callback: Box<dyn FnOnce()>) {
        self.on_owner.set(Some(callback));
    }

    /// Wakes whoever waits for the result (runs on the delivering thread).
    pub(crate) fn deliver(&self) {
        if let Some(cb) = self.on_owner.take() {
            cb();
            return;
        }
        let waker = self.waker.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(w) = waker {
            w.wake();
        }
    }
}

/// What the pool needs from any task, whatever its closure and result types. A body may
/// suspend on a `P` and resume with an `R` ([`Backend::Pending`](crate::backend::Backend::Pending)
/// and [`Backend::Resumed`](crate::backend::Backend::Resumed)).
pub(crate) trait Runnable<R, P>: Send + Sync {
    fn header(&self) -> &Header;
    /// Runs the body if the task is still queued. Returns how it ended when this call settled
    /// the task or it suspended, `None` when it had been settled before (then the body did not
    /// run, or its result was dropped).
    fn run(&self, on_start: &mut dyn FnMut()) -> Option<Outcome<P>>;
    /// Like [`run`](Self::run), for a worker in another memory (the web's message mode): the
    /// body is not run here but handed over as its [`Body::remote`] request, and the task
    /// suspends on it (`Outcome::Suspended`) until [`finish_suspended`](Self::finish_suspended).
    fn post(&self, on_start: &mut dyn FnMut()) -> Option<Outcome<P>>;
    /// Message mode, for a worker busy with another task: hands the body over as its
    /// [`Body::remote`] request ahead of its turn (`QUEUED → HANDED`). `None` (and nothing
    /// changes) if the task was settled or its body cannot leave this memory.
    fn hand_ahead(&self) -> Option<P>;
    /// The worker began the body it was handed ahead (`HANDED → RUNNING`): runs `on_start`
    /// and returns true, or false if the task was settled meanwhile (a forced shutdown).
    fn begin(&self, on_start: &mut dyn FnMut()) -> bool;
    /// Settles the task with `err` unless it is settled already.
    fn settle_err(&self, err: TaskError) -> Option<Phase>;
    /// Finishes a task whose body suspended, with what its promise settled with (`Err`: the
    /// body panicked where it ran, in another memory).
    fn finish_suspended(&self, result: Result<R, TaskError>, failed: bool) -> Option<Outcome<P>>;
}

/// How a task that a worker ran ended, for the pool's counters.
#[derive(Debug)]
pub(crate) enum Outcome<P> {
    Returned,
    /// The body returned, but reported a failure (a JS task that threw).
    Failed,
    Panicked,
    /// The body waits for `P` (a JS promise): the worker returns to its event loop with it and
    /// finishes the task later with [`Runnable::finish_suspended`].
    Suspended(P),
}

/// A task whose result type is `T`: what a [`TaskHandle`] polls.
pub(crate) trait Output<T>: Send + Sync {
    fn header(&self) -> &Header;
    fn poll_result(&self, cx: &mut Context<'_>) -> Poll<Result<T, TaskError>>;
    /// Takes the result if it is there and not yet taken.
    fn take_result(&self) -> Option<Result<T, TaskError>>;
}

/// What a task runs: any `FnOnce() -> T + Send` closure, or a named type, so that a refused
/// submission hands back data its submitter can keep (the JS layer's bodies, which then also
/// live inline in the task instead of in a second allocation). A body may suspend on a `P` and
/// resume with an `R`.
pub(crate) trait Body<T, R, P>: Send + 'static {
    fn run(self) -> Ran<T, P>;

    /// The result of a body of this type that suspended ([`Ran::Suspended`]), from what its
    /// promise settled with; `None` for bodies that never suspend.
    fn resumed(value: R) -> Option<T> {
        drop(value);
        None
    }

    /// What a worker in another memory needs to run this body (the web's message mode), or the
    /// body back if it cannot leave this memory (a Rust closure).
    fn remote(self) -> Result<P, Self>
    where
        Self: Sized,
    {
        Err(self)
    }
}

/// How a body ended, when it did not panic.
#[derive(Debug)]
pub(crate) enum Ran<T, P> {
    /// It returned a result.
    Returned(T),
    /// It returned a value that stands for a failure (a JS task that threw): the handle gets
    /// the value, and `stats()` counts the task as failed.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    Failed(T),
    /// It waits for `P` (a JS promise): the worker returns to its event loop with it and
    /// finishes the task later with [`Runnable::finish_suspended`].
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    Suspended(P),
}

impl<T, R, P, F: FnOnce() -> T + Send + 'static> Body<T, R, P> for F {
    fn run(self) -> Ran<T, P> {
        Ran::Returned(self())
    }
}

pub(crate) struct Task<F, T> {
    header: Header,
    /// Taken by the worker that wins `QUEUED → RUNNING` or `QUEUED → HANDED`.
    body: UnsafeCell<Option<F>>,
    /// Written by the settling party while the state is `WRITING`, read after `DONE`, which
    /// that same party publishes.
    result: UnsafeCell<Option<Result<T, TaskError>>>,
}

// SAFETY: `body` is only touched by the worker that won `QUEUED → RUNNING` (or `→ HANDED`), or by
// a settler that won `QUEUED → WRITING`; `result` only by the
// party that won the CAS to `WRITING` and, after that party publishes `DONE` (release/acquire),
// by the handle that wins `DONE → TAKEN`. So no two threads access either cell at once.
unsafe impl<F: Send, T: Send> Sync for Task<F, T> {}
unsafe impl<F: Send, T: Send> Send for Task<F, T> {}

impl<F, T> Task<F, T>
where
    F: Send + 'static,
    T: Send + 'static,
{
    fn with_body(body: F, batch: Option<Arc<Batch>>, admitted_us: u64, watched: bool) -> Self {
        Task { header: Header::new(batch, admitted_us, watched), body: UnsafeCell::new(Some(body)), result: UnsafeCell::new(None) }
    }

    /// The task, or its body handed back if the memory cannot hold it (wasm: a full memory
    /// stays full, so this must not trap; natively allocation failure aborts as usual).
    pub(crate) fn try_new(body: F, batch: Option<Arc<Batch>>, admitted_us: u64, watched: bool) -> Result<Arc<Self>, F> {
        #[cfg(target_arch = "wasm32")]
        {
            // The memory is claimed before the body moves in, so a refusal can hand it back.
            // The allocation fails through the alloc-error backstop (`src/memory.rs`), which
            // `catch_oom` turns back into a value: `Arc::try_new_uninit` is not stable.
            let Ok(mut slot) = crate::panic::catch_oom(Arc::<Self>::new_uninit) else {
                return Err(body);
            };
            Arc::get_mut(&mut slot).expect("a new Arc has one owner").write(Self::with_body(body, batch, admitted_us, watched));
            // SAFETY: the slot was written on the line above.
            Ok(unsafe { slot.assume_init() })
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            Ok(Arc::new(Self::with_body(body, batch, admitted_us, watched)))
        }
    }

    /// Hands the closure back from a task that was never admitted.
    pub(crate) fn into_body(self: Arc<Self>) -> F {
        match Arc::try_unwrap(self) {
            Ok(task) => task.body.with_mut(|b| unsafe { (*b).take() }).expect("body present until run"),
            Err(_) => unreachable!("a task that was not admitted has one owner"),
        }
    }

    /// Writes the result; it is out once the pool publishes it ([`Header::publish`]).
    fn write(&self, result: Result<T, TaskError>) {
        // SAFETY: the caller won the CAS to WRITING, so it is the only one touching `result`.
        self.result.with_mut(|r| unsafe { *r = Some(result) });
    }
}

impl<F, T, R, P> Runnable<R, P> for Task<F, T>
where
    F: Body<T, R, P>,
    T: Send + 'static,
{
    fn header(&self) -> &Header {
        &self.header
    }

    fn run(&self, on_start: &mut dyn FnMut()) -> Option<Outcome<P>> {
        if self.header.state.compare_exchange(QUEUED, RUNNING, Ordering::AcqRel, Ordering::Acquire).is_err() {
            return None;
        }
        on_start();
        // SAFETY: winning QUEUED → RUNNING makes this the only thread touching `body`.
        let body = self.body.with_mut(|b| unsafe { (*b).take() })?;
        let result = CURRENT.with(|c| {
            let prev = c.replace(&self.header as *const Header);
            let r = crate::panic::catch(move || body.run());
            c.set(prev);
            r
        });
        let (result, outcome) = match result {
            Ok(Ran::Suspended(pending)) => return Some(Outcome::Suspended(pending)),
            Ok(Ran::Failed(v)) => (Ok(v), Outcome::Failed),
            Ok(Ran::Returned(v)) => (Ok(v), Outcome::Returned),
            Err(e @ TaskError::OutOfMemory(_)) => (Err(e), Outcome::Failed),
            Err(e) => (Err(e), Outcome::Panicked),
        };
        // Still ours unless cancel/timeout/crash settled it while it ran.
        self.header.begin_settle()?;
        self.write(result);
        Some(outcome)
    }

    fn post(&self, on_start: &mut dyn FnMut()) -> Option<Outcome<P>> {
        if self.header.state.compare_exchange(QUEUED, RUNNING, Ordering::AcqRel, Ordering::Acquire).is_err() {
            return None;
        }
        on_start();
        // SAFETY: winning QUEUED → RUNNING makes this the only thread touching `body`.
        let body = self.body.with_mut(|b| unsafe { (*b).take() })?;
        match body.remote() {
            Ok(request) => Some(Outcome::Suspended(request)),
            Err(body) => {
                drop(body);
                self.header.begin_settle()?;
                let message = "this task is a Rust closure, which cannot run on a worker in another memory (a pool in message mode)";
                self.write(Err(TaskError::Panicked { message: message.into(), location: None }));
                Some(Outcome::Panicked)
            }
        }
    }

    fn hand_ahead(&self) -> Option<P> {
        if self.header.state.compare_exchange(QUEUED, HANDED, Ordering::AcqRel, Ordering::Acquire).is_err() {
            return None;
        }
        // SAFETY: winning QUEUED → HANDED makes this the only thread touching `body`.
        let body = self.body.with_mut(|b| unsafe { (*b).take() })?;
        match body.remote() {
            Ok(request) => Some(request),
            Err(body) => {
                // SAFETY: as above; the state goes back to QUEUED only after the body is back.
                self.body.with_mut(|b| unsafe { *b = Some(body) });
                let back = self.header.state.compare_exchange(HANDED, QUEUED, Ordering::AcqRel, Ordering::Acquire);
                if back.is_err() {
                    // SAFETY: settled meanwhile; the settler saw HANDED and left the body alone.
                    drop(self.body.with_mut(|b| unsafe { (*b).take() }));
                }
                None
            }
        }
    }

    fn begin(&self, on_start: &mut dyn FnMut()) -> bool {
        let won = self.header.state.compare_exchange(HANDED, RUNNING, Ordering::AcqRel, Ordering::Acquire).is_ok();
        if won {
            on_start();
        }
        won
    }

    fn settle_err(&self, err: TaskError) -> Option<Phase> {
        let from = self.header.begin_settle_from()?;
        let phase = if from == RUNNING { Phase::Running } else { Phase::Queued };
        if from == QUEUED {
            // The body will never run: drop its captures now, not when a worker pops it.
            // SAFETY: the body is only taken by the worker that wins QUEUED → RUNNING or
            // → HANDED, and we just moved the state past QUEUED, so no worker can take it any
            // more (from HANDED the body is already gone, and its taker may still hold the cell).
            drop(self.body.with_mut(|b| unsafe { (*b).take() }));
        }
        self.write(Err(err));
        if phase == Phase::Running {
            self.header.notify_state();
        }
        Some(phase)
    }

    fn finish_suspended(&self, result: Result<R, TaskError>, failed: bool) -> Option<Outcome<P>> {
        let (result, outcome) = match result {
            Ok(value) => (Ok(F::resumed(value)?), if failed { Outcome::Failed } else { Outcome::Returned }),
            Err(e @ TaskError::OutOfMemory(_)) => (Err(e), Outcome::Failed),
            Err(e) => (Err(e), Outcome::Panicked),
        };
        self.header.begin_settle()?;
        self.write(result);
        Some(outcome)
    }
}

impl<F, T> Output<T> for Task<F, T>
where
    F: Send + 'static,
    T: Send + 'static,
{
    fn header(&self) -> &Header {
        &self.header
    }

    fn poll_result(&self, cx: &mut Context<'_>) -> Poll<Result<T, TaskError>> {
        if let Some(r) = self.take_result() {
            return Poll::Ready(r);
        }
        *self.header.waker.lock().unwrap_or_else(|e| e.into_inner()) = Some(cx.waker().clone());
        // Re-check after registering: delivery may have run between the two steps.
        match self.take_result() {
            Some(r) => Poll::Ready(r),
            None => Poll::Pending,
        }
    }

    fn take_result(&self) -> Option<Result<T, TaskError>> {
        if self.header.state.compare_exchange(DONE, TAKEN, Ordering::AcqRel, Ordering::Acquire).is_ok() {
            // SAFETY: DONE was published with release after the write; winning DONE → TAKEN
            // makes us the only reader.
            self.result.with_mut(|r| unsafe { (*r).take() })
        } else {
            None
        }
    }
}

std::thread_local! {
    /// The header of the task this worker thread is running, for [`is_cancelled`].
    static CURRENT: std::cell::Cell<*const Header> = const { std::cell::Cell::new(std::ptr::null()) };
}

/// Inside a task body: the address of its state word, which stays `RUNNING` (1) until the task
/// is settled (by its own result, or by cancellation, deadline, crash or force). JS task
/// contexts watch it; 0 outside tasks.
#[cfg(all(target_arch = "wasm32", not(loom)))]
pub(crate) fn current_state_addr() -> usize {
    CURRENT.with(|c| {
        let p = c.get();
        // SAFETY: as in `is_cancelled`.
        if p.is_null() { 0 } else { unsafe { (*p).state.as_ptr() as usize } }
    })
}

/// Inside a task: whether its promise/handle was already settled by cancellation or its
/// deadline, so the body may stop early (its result will be dropped). `false` outside tasks.
pub fn is_cancelled() -> bool {
    CURRENT.with(|c| {
        let p = c.get();
        // SAFETY: CURRENT points at the header of the task this thread is running; the task is
        // kept alive by the worker for the whole run.
        !p.is_null() && unsafe { (*p).is_settled() }
    })
}

/// The result of an accepted task; a future that resolves once the task is settled.
///
/// Dropping the handle does not cancel the task, and an unread result never blocks a worker
/// or shutdown.
#[must_use = "a TaskHandle does nothing unless awaited (the task runs anyway)"]
pub struct TaskHandle<T> {
    pub(crate) task: Arc<dyn Output<T>>,
}

// A handle is a pointer to a result slot whose state changes are atomic (see the note above
// `impl Drop for WorkerPool` in pool.rs).
impl<T> std::panic::UnwindSafe for TaskHandle<T> {}
impl<T> std::panic::RefUnwindSafe for TaskHandle<T> {}

impl<T> TaskHandle<T> {
    /// Whether the task has been settled (a value, an error, or cancellation).
    pub fn is_finished(&self) -> bool {
        self.task.header().is_settled()
    }
}

impl<T> Future for TaskHandle<T> {
    type Output = Result<T, TaskError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.task.poll_result(cx)
    }
}

impl<T> std::fmt::Debug for TaskHandle<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskHandle").field("finished", &self.is_finished()).finish()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    /// A body that can leave this memory as its request (a JS task's, in message mode).
    struct Remote(u32);
    impl Body<u32, (), u32> for Remote {
        fn run(self) -> Ran<u32, u32> {
            Ran::Returned(self.0)
        }
        fn remote(self) -> Result<u32, Self> {
            Ok(self.0)
        }
    }

    type Dyn = dyn Runnable<(), u32>;

    #[test]
    fn a_task_handed_ahead_counts_as_queued_until_its_worker_begins_it() {
        let t: Arc<Dyn> = Task::try_new(Remote(7), None, 0, false).ok().unwrap();
        assert_eq!(t.hand_ahead(), Some(7));
        assert_eq!(t.hand_ahead(), None, "handed once");
        assert!(!t.header().is_settled());
        let mut started = 0;
        assert!(t.begin(&mut || started += 1));
        assert_eq!(started, 1);
        assert_eq!(t.settle_err(TaskError::Cancelled), Some(Phase::Running), "begun: settled as running");
    }

    #[test]
    fn a_task_settled_while_handed_never_begins() {
        let t: Arc<Dyn> = Task::try_new(Remote(7), None, 0, false).ok().unwrap();
        assert_eq!(t.hand_ahead(), Some(7));
        assert_eq!(t.settle_err(TaskError::PoolClosed), Some(Phase::Queued), "handed: settled as queued");
        let mut started = 0;
        assert!(!t.begin(&mut || started += 1));
        assert_eq!(started, 0);
    }

    #[test]
    fn a_closure_is_not_handed_ahead_and_stays_queued() {
        let t: Arc<Dyn> = Task::try_new(|| 5u32, None, 0, false).ok().unwrap();
        assert_eq!(t.hand_ahead(), None);
        let mut started = 0;
        assert!(matches!(t.run(&mut || started += 1), Some(Outcome::Returned)), "its body is still there");
        assert_eq!(started, 1);
    }
}
