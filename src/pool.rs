//! Admission, accounting and shutdown: everything the native and the wasm back ends share
//! (the worker loop is `worker_loop.rs`). The back end (`native` or `web`, through the seam in
//! `backend.rs`) only starts workers, runs timers and carries completions to the thread that
//! waits for them.

use crate::backend::{Backend, Shared, TaskRef};
use crate::Platform;
use crate::cancel::CancelToken;
use crate::dispatch::{Dispatch, Priority, MAILBOX_CAPACITY};
use crate::histogram::PoolTimes;
use crate::stats::{Counters, Stats};
pub use crate::error::{MAX_QUEUE_CAPACITY, MAX_WORKERS};
use crate::error::{BuildError, ShutdownTimeout, SubmitError, TaskError};
use crate::ring::PushError;
use crate::sync::{Arc, AtomicBool, AtomicUsize, Mutex, Ordering};
use crate::task::{Output, Task, TaskHandle};
use crate::waiting::{Places, Waiting};
use crate::worker_slot::WorkerSlot;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;


/// Options for one submission.
#[derive(Debug, Clone, Default)]
pub struct TaskOptions {
    /// Cancelling it settles the task with [`TaskError::Cancelled`] at once; a queued body
    /// then never runs, a running one can see it through [`is_cancelled`](crate::is_cancelled).
    pub cancel: Option<CancelToken>,
    /// Queue time plus run time; when it passes the task settles with [`TaskError::TimedOut`].
    pub timeout: Option<Duration>,
    /// Which lane it waits in: a worker takes the oldest task of the highest level present.
    pub priority: Priority,
}

/// Options for a whole pool ([`WorkerPool::with_options`]).
#[derive(Debug, Clone, Default)]
pub struct PoolOptions {
    /// How many submissions may wait for queue space at once ([`WorkerPool::submit`], and the
    /// JS `submit`/`submitAll`); a submission that would wait past it is refused at once with
    /// [`SubmitError::Overloaded`]. `None` (the default): unlimited. `try_submit` never waits,
    /// so it is not bounded by this.
    pub max_waiting: Option<usize>,
}

/// A task's registration with its [`CancelToken`] or its deadline: settles it with `err`.
/// Weak, so that neither keeps a settled task (or the pool) alive, and stale once it settled.
struct SettleHook<B: Backend> {
    shared: std::sync::Weak<Shared<B>>,
    task: std::sync::Weak<dyn crate::task::Runnable<B::Resumed, B::Pending>>,
    err: TaskError,
}

impl<B: Backend> crate::cancel::Hook for SettleHook<B> {
    fn fire(self: Box<Self>) {
        if let (Some(shared), Some(task)) = (self.shared.upgrade(), self.task.upgrade()) {
            shared.settle_err(&task, self.err);
        }
    }

    fn is_stale(&self) -> bool {
        self.task.upgrade().is_none_or(|t| t.header().is_settled())
    }
}

/// A fixed set of worker threads consuming a bounded queue of tasks.
///
/// On wasm32 the workers are Web Workers (worker_threads in Node) sharing this module's memory;
/// natively they are `std::thread`s. Admission never blocks, so a browser main thread may own
/// the pool. Dropping the pool without `shutdown` closes admission; accepted tasks still run.
///
/// `B` is the back end (crate-internal); it defaults to this target's, and only that one is
/// ever built.
pub struct WorkerPool<B: Backend = Platform> {
    pub(crate) shared: Arc<Shared<B>>,
    pub(crate) backend: B,
}

impl WorkerPool {
    /// Starts `workers` workers and a queue of `queue_capacity` slots.
    pub fn new(workers: usize, queue_capacity: usize) -> Result<Self, BuildError> {
        Self::build(workers, queue_capacity, PoolOptions::default(), Default::default())
    }

    /// [`new`](Self::new) with options for the whole pool.
    ///
    /// ```
    /// use ringpool::{PoolOptions, WorkerPool};
    /// let pool = WorkerPool::with_options(2, 64, PoolOptions { max_waiting: Some(100) }).unwrap();
    /// assert_eq!(pool.stats().waiting, 0);
    /// ```
    pub fn with_options(workers: usize, queue_capacity: usize, options: PoolOptions) -> Result<Self, BuildError> {
        Self::build(workers, queue_capacity, options, Default::default())
    }
}

impl<B: Backend> WorkerPool<B> {
    /// [`new`](Self::new) with the back end's start options.
    pub(crate) fn build(workers: usize, queue_capacity: usize, options: PoolOptions, config: B::Config) -> Result<Self, BuildError> {
        // Both hooks are installed here, while the memory has room: installing one allocates,
        // and a first submission may come when the memory is full.
        crate::memory::install_backstop();
        crate::panic::install_hook();
        if workers == 0 || workers > MAX_WORKERS {
            return Err(BuildError::Workers(workers));
        }
        if queue_capacity == 0 || queue_capacity > MAX_QUEUE_CAPACITY {
            return Err(BuildError::QueueCapacity(queue_capacity));
        }
        let dispatch = Dispatch::new(queue_capacity, workers, MAILBOX_CAPACITY).map_err(|_| BuildError::QueueCapacity(queue_capacity))?;
        let shared = Arc::new(Shared {
            dispatch,
            workers,
            live: AtomicUsize::new(workers),
            slots: (0..workers).map(|_| WorkerSlot::new()).collect(),
            forced: AtomicBool::new(false),
            counters: Counters::default(),
            times: PoolTimes::new(workers),
            shutdown_waiters: Mutex::new(Vec::new()),
            waiting: Arc::new(Waiting::new(options.max_waiting)),
            delivery: B::Delivery::default(),
        });
        let backend = B::start(&shared, config)?;
        Ok(WorkerPool { shared, backend })
    }

    /// Number of workers.
    pub fn workers(&self) -> usize {
        self.shared.workers
    }

    /// Number of queue slots.
    pub fn queue_capacity(&self) -> usize {
        self.shared.dispatch.capacity()
    }

    /// Submits `f` unless the queue is full or the pool is closed; never waits. A refusal hands
    /// the closure back, so the caller can run it itself, retry or drop it.
    ///
    /// ```ignore-wasm32
    /// use ringpool::{SubmitError, WorkerPool};
    /// let pool = WorkerPool::new(1, 1).unwrap();
    /// let gate = std::sync::Arc::new(std::sync::Barrier::new(2));
    /// let g = gate.clone();
    /// let running = pool.try_submit(move || { g.wait(); 1 }).unwrap(); // occupies the worker
    /// let mut queued = Vec::new();
    /// // Submit until the one queue slot is full (whether or not the worker took the first).
    /// let refused = loop {
    ///     match pool.try_submit(|| 2) {
    ///         Ok(h) => queued.push(h),
    ///         Err(SubmitError::QueueFull(f)) => break f,
    ///         Err(e) => panic!("{e}"),
    ///     }
    /// };
    /// assert_eq!(refused(), 2, "the closure came back");
    /// assert!(queued.len() <= 1, "one slot");
    /// gate.wait();
    /// assert_eq!(ringpool::block_on(running), Ok(1));
    /// for h in queued {
    ///     assert_eq!(ringpool::block_on(h), Ok(2));
    /// }
    /// ```
    pub fn try_submit<F, T>(&self, f: F) -> Result<TaskHandle<T>, SubmitError<F>>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        self.try_submit_with(f, TaskOptions::default())
    }

    /// [`try_submit`](Self::try_submit) with cancellation and a deadline.
    ///
    /// ```ignore-wasm32
    /// use ringpool::{CancelToken, TaskError, TaskOptions, WorkerPool};
    /// let pool = WorkerPool::new(1, 4).unwrap();
    /// let token = CancelToken::new();
    /// let options = TaskOptions { cancel: Some(token.clone()), ..TaskOptions::default() };
    /// let handle = pool.try_submit_with(|| (0..1000u64).sum::<u64>(), options).unwrap();
    /// token.cancel(); // settles it at once, whether it was queued, running or done
    /// let result = ringpool::block_on(handle);
    /// assert!(matches!(result, Ok(499500) | Err(TaskError::Cancelled)));
    /// ```
    pub fn try_submit_with<F, T>(&self, f: F, options: TaskOptions) -> Result<TaskHandle<T>, SubmitError<F>>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        self.offer(f, options, true, None, None)
    }

    /// `try_submit_with`; `count_full: false` for a caller that will wait for space and
    /// offer again (JS `submit`), so that `stats().rejected` counts only refusals the
    /// submitter saw. `batch`: the `submitAll` call the task belongs to. `route`: the worker
    /// that alone may take it (its transferred buffers went there), instead of the queue.
    pub(crate) fn offer<F, T>(
        &self,
        f: F,
        options: TaskOptions,
        count_full: bool,
        batch: Option<&Arc<crate::batch::Batch>>,
        route: Option<usize>,
    ) -> Result<TaskHandle<T>, SubmitError<F>>
    where
        F: crate::task::Body<T, B::Resumed, B::Pending>,
        T: Send + 'static,
    {
        let c = &self.shared.counters;
        if options.cancel.as_ref().is_some_and(CancelToken::is_cancelled) {
            c.rejected.fetch_add(1, Ordering::SeqCst);
            return Err(SubmitError::Cancelled(f));
        }
        let watched = options.cancel.is_some() || options.timeout.is_some();
        let task = match Task::try_new(f, batch.cloned(), B::now_us(), watched) {
            Ok(task) => task,
            Err(f) => {
                c.rejected.fetch_add(1, Ordering::SeqCst);
                let needed = std::mem::size_of::<crate::task::Task<F, T>>();
                return Err(SubmitError::OutOfMemory(f, crate::memory::out_of_memory(needed)));
            }
        };
        if let Err(oom) = self.prepare_queue(options.priority, false).and_then(|_| self.prepare_routes(route.is_some())) {
            c.rejected.fetch_add(1, Ordering::SeqCst);
            return Err(SubmitError::OutOfMemory(task.into_body(), oom));
        }
        B::handing_over();
        let pushed = match route {
            Some(index) => self.shared.dispatch.try_route(index, task.clone()),
            None => self.shared.dispatch.try_push(task.clone(), options.priority),
        };
        if let Err(e) = pushed {
            let closed = matches!(e, PushError::Closed(_));
            if closed || count_full {
                c.rejected.fetch_add(1, Ordering::SeqCst);
            }
            drop(e);
            let f = task.into_body();
            return Err(if closed { SubmitError::Closed(f) } else { SubmitError::QueueFull(f) });
        }
        c.accepted.fetch_add(1, Ordering::SeqCst);
        if options.cancel.is_some() || options.timeout.is_some() {
            self.watch(&(task.clone() as TaskRef<B>), options);
        }
        self.backend.admitted();
        let task: Arc<dyn Output<T>> = task;
        Ok(TaskHandle { task })
    }

    /// Makes the queue's lane for `priority` (and the mailboxes, for a broadcast) on first use.
    /// On wasm a full memory refuses this as it refuses a task, instead of trapping.
    pub(crate) fn prepare_queue(&self, priority: Priority, broadcast: bool) -> Result<(), crate::memory::OutOfMemory> {
        if priority == Priority::Normal && !broadcast {
            return Ok(());
        }
        let dispatch = &self.shared.dispatch;
        #[cfg(target_arch = "wasm32")]
        return crate::panic::catch_oom(|| dispatch.prepare(priority, broadcast));
        #[cfg(not(target_arch = "wasm32"))]
        {
            dispatch.prepare(priority, broadcast);
            Ok(())
        }
    }

    /// Makes the per-worker routes on first use, where running out of memory is handled.
    fn prepare_routes(&self, route: bool) -> Result<(), crate::memory::OutOfMemory> {
        if !route {
            return Ok(());
        }
        let dispatch = &self.shared.dispatch;
        #[cfg(target_arch = "wasm32")]
        return crate::panic::catch_oom(|| dispatch.prepare_routes());
        #[cfg(not(target_arch = "wasm32"))]
        {
            dispatch.prepare_routes();
            Ok(())
        }
    }

    /// Arms cancellation and the deadline of an accepted task.
    fn watch(&self, erased: &TaskRef<B>, options: TaskOptions) {
        if let Some(token) = options.cancel {
            token.on_cancel(self.settle_hook(erased, TaskError::Cancelled));
        }
        if let Some(timeout) = options.timeout {
            self.backend.after_hook(timeout, self.settle_hook(erased, TaskError::TimedOut), erased);
        }
    }

    /// Settles `task` with `err` when fired, unless it settled before (cancel tokens, timers,
    /// the JS API's deadline queue).
    pub(crate) fn settle_hook(&self, task: &TaskRef<B>, err: TaskError) -> Box<dyn crate::cancel::Hook> {
        Box::new(SettleHook { shared: Arc::downgrade(&self.shared), task: Arc::downgrade(task), err })
    }

    /// Closes admission at once, runs every accepted task, and resolves when all workers have
    /// exited and released their resources.
    pub fn shutdown(&self) -> Shutdown<B> {
        self.shared.dispatch.close();
        self.backend.queue_changed();
        // Waiting `Submit` futures see the close and give their closures back.
        self.shared.waiting.wake_all();
        Shutdown { shared: self.shared.clone(), backend: self.backend.clone(), deadline: None, timer: None }
    }

    /// Forced shutdown: closes admission and settles every queued *and running* task with
    /// [`TaskError::PoolClosed`] at once; queued bodies never run. Running bodies are not
    /// killed (a thread stopped mid-allocation would wedge the shared allocator): they see
    /// [`is_cancelled`](crate::is_cancelled), their results are dropped, and the returned
    /// future resolves once the workers have exited.
    pub fn shutdown_now(&self) -> Shutdown<B> {
        let shared = &self.shared;
        shared.forced.store(true, Ordering::SeqCst);
        shared.dispatch.close();
        while let Some(task) = shared.dispatch.pop(usize::MAX) {
            shared.settle_err(&task, TaskError::PoolClosed);
        }
        for i in 0..shared.workers {
            while let Some(task) = shared.dispatch.pop_mailbox(i).or_else(|| shared.dispatch.pop_route(i)) {
                shared.settle_err(&task, TaskError::PoolClosed);
            }
        }
        for (i, slot) in shared.slots.iter().enumerate() {
            if let Some(task) = slot.try_take() {
                shared.settle_err(&task, TaskError::PoolClosed);
            }
            if let Some(task) = shared.take_next(i) {
                shared.settle_err(&task, TaskError::PoolClosed);
            }
        }
        self.shutdown()
    }

    /// [`shutdown`](Self::shutdown) that gives up waiting after `timeout` with
    /// [`ShutdownTimeout`]. Admission stays closed and accepted tasks keep running; a later
    /// call can wait again. An already finished shutdown succeeds whatever the timeout.
    ///
    /// ```ignore-wasm32
    /// use std::time::Duration;
    /// let pool = ringpool::WorkerPool::new(2, 8).unwrap();
    /// let h = pool.try_submit(|| "done").unwrap();
    /// ringpool::block_on(pool.shutdown_timeout(Duration::from_secs(10))).unwrap();
    /// assert_eq!(ringpool::block_on(h), Ok("done"), "accepted tasks ran first");
    /// assert!(pool.try_submit(|| ()).is_err(), "admission is closed");
    /// ```
    pub fn shutdown_timeout(&self, timeout: Duration) -> Shutdown<B> {
        let mut s = self.shutdown();
        s.deadline = Some(self.backend.deadline(timeout));
        s
    }

    /// Submits `f`, waiting for queue space if the queue is full: resolves with its handle once
    /// admitted, or with the refusal ([`SubmitError::Closed`] if shutdown starts while it
    /// waits, [`SubmitError::Overloaded`] at once if [`PoolOptions::max_waiting`] submissions
    /// already wait). While it waits it counts in [`Stats::waiting`]; dropping the future
    /// leaves at once. Waiting futures are not served in order: each tries again when a place
    /// frees.
    ///
    /// ```ignore-wasm32
    /// use ringpool::{PoolOptions, SubmitError, WorkerPool};
    /// use std::future::Future;
    /// let pool = WorkerPool::with_options(1, 1, PoolOptions { max_waiting: Some(1) }).unwrap();
    /// let gate = std::sync::Arc::new(std::sync::Barrier::new(2));
    /// let g = gate.clone();
    /// let (started_tx, started) = std::sync::mpsc::channel();
    /// let running = pool.try_submit(move || { started_tx.send(()).unwrap(); g.wait(); 1 }).unwrap();
    /// started.recv().unwrap(); // the worker holds it, so the queue is empty
    /// while pool.try_submit(|| 2).is_ok() {} // fills the one queue slot
    /// let mut waits = pool.submit(|| 3);
    /// let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    /// assert!(std::pin::Pin::new(&mut waits).poll(&mut cx).is_pending(), "the queue is full: it waits");
    /// assert_eq!(pool.stats().waiting, 1);
    /// match ringpool::block_on(pool.submit(|| 4)) {
    ///     Err(SubmitError::Overloaded(f)) => assert_eq!(f(), 4, "refused at once, closure back"),
    ///     other => panic!("{other:?}"),
    /// }
    /// gate.wait();
    /// let handle = ringpool::block_on(waits).unwrap();
    /// assert_eq!(ringpool::block_on(handle), Ok(3));
    /// assert_eq!(ringpool::block_on(running), Ok(1));
    /// assert_eq!(pool.stats().waiting, 0);
    /// ```
    pub fn submit<F, T>(&self, f: F) -> Submit<'_, F, T, B>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        self.submit_with(f, TaskOptions::default())
    }

    /// [`submit`](Self::submit) with [`TaskOptions`]; `timeout` starts once the task is
    /// admitted (drop the future to stop waiting).
    pub fn submit_with<F, T>(&self, f: F, options: TaskOptions) -> Submit<'_, F, T, B>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        Submit { pool: self, f: Some(f), options, place: None, _result: std::marker::PhantomData }
    }

    /// Whether shutdown has started.
    pub fn is_closed(&self) -> bool {
        self.shared.dispatch.is_closed()
    }

    /// Counters; see [`Stats`].
    pub fn stats(&self) -> Stats {
        self.shared.stats()
    }

    /// Most bodies that ever ran at once in this pool (never above `workers`).
    pub fn peak_running(&self) -> u64 {
        self.shared.counters.peak_running()
    }
}

// The pool's shared state is only changed through atomics and short critical sections that do
// not panic, so a caught panic cannot leave it inconsistent. wasm-bindgen needs these when
// panics unwind, because every export runs under `catch_unwind`, and an exported async fn that
// holds a pool, a `TaskHandle` (task.rs) or a `Shutdown` across `.await` is such an export.
impl<B: Backend> std::panic::UnwindSafe for WorkerPool<B> {}
impl<B: Backend> std::panic::RefUnwindSafe for WorkerPool<B> {}
impl<B: Backend> std::panic::UnwindSafe for Shutdown<B> {}
impl<B: Backend> std::panic::RefUnwindSafe for Shutdown<B> {}

impl<B: Backend> Drop for WorkerPool<B> {
    fn drop(&mut self) {
        // Workers drain what was accepted and exit; nobody needs to wait for them.
        self.shared.dispatch.close();
        self.backend.queue_changed();
    }
}

impl<B: Backend> std::fmt::Debug for WorkerPool<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkerPool").field("stats", &self.stats()).finish()
    }
}

/// Future returned by [`WorkerPool::submit`]: the task's handle once it is admitted.
#[must_use = "a submission waits for queue space only while its future is polled"]
pub struct Submit<'a, F, T, B: Backend = Platform> {
    pool: &'a WorkerPool<B>,
    /// The closure, until it is admitted or handed back.
    f: Option<F>,
    options: TaskOptions,
    /// Its place among the waiting submissions, from the first time it found the queue full.
    place: Option<Places>,
    _result: std::marker::PhantomData<fn() -> T>,
}

// The closure is moved in and out, never pinned in place.
impl<F, T, B: Backend> Unpin for Submit<'_, F, T, B> {}

impl<F, T, B: Backend> Future for Submit<'_, F, T, B>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    type Output = Result<TaskHandle<T>, SubmitError<F>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        let mut parked = false;
        loop {
            let f = this.f.take().expect("Submit polled after it finished");
            match this.pool.offer(f, this.options.clone(), false, None, None) {
                Err(SubmitError::QueueFull(f)) => {
                    if this.place.is_none() {
                        match this.pool.shared.waiting.places(1) {
                            Some(place) => this.place = Some(place),
                            None => {
                                this.pool.shared.counters.rejected.fetch_add(1, Ordering::SeqCst);
                                return Poll::Ready(Err(SubmitError::Overloaded(f)));
                            }
                        }
                    }
                    this.f = Some(f);
                    if parked {
                        return Poll::Pending;
                    }
                    // Parked before the second try: a place freed in between wakes it.
                    this.pool.shared.waiting.park(cx.waker());
                    parked = true;
                }
                done => {
                    this.place = None;
                    return Poll::Ready(done);
                }
            }
        }
    }
}

/// Future returned by [`WorkerPool::shutdown`]: resolves once every worker has exited.
#[must_use = "shutdown closes admission at once; await it to wait for the workers"]
pub struct Shutdown<B: Backend = Platform> {
    shared: Arc<Shared<B>>,
    backend: B,
    deadline: Option<B::Deadline>,
    /// The wake-up at `deadline`, once armed.
    timer: Option<B::Timer>,
}

impl<B: Backend> Unpin for Shutdown<B> {}

impl<B: Backend> Future for Shutdown<B> {
    type Output = Result<(), ShutdownTimeout>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if self.shared.is_stopped() {
            return Poll::Ready(Ok(()));
        }
        self.shared.shutdown_waiters.lock().unwrap_or_else(|e| e.into_inner()).push(cx.waker().clone());
        if self.shared.is_stopped() {
            return Poll::Ready(Ok(()));
        }
        if let Some(deadline) = self.deadline {
            if self.backend.passed(deadline) {
                return Poll::Ready(Err(ShutdownTimeout));
            }
            // Armed once: the back end fires it only when `passed` holds (on wasm the pool's
            // deadline queue re-arms a JS timer that fires early, src/web/owner/deadlines.rs).
            if self.timer.is_none() {
                let waker = cx.waker().clone();
                self.timer = Some(self.backend.at(deadline, Box::new(move || waker.wake())));
            }
        }
        Poll::Pending
    }
}
