//! Broadcast: one task per worker, each taken from that worker's own mailbox before it takes
//! anything queued (the mailboxes and their close protocol: `dispatch.rs`, and the section
//! "Priority lanes, mailboxes and close" of `src/README.md`). Admission is all or nothing.

use crate::backend::{Backend, TaskRef};
use crate::dispatch::{BroadcastError, Priority};
use crate::error::{SubmitError, TaskError};
use crate::pool::WorkerPool;
use crate::sync::{Arc, Ordering};
use crate::task::{Output, Ran, Task, TaskHandle};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

impl<P: Backend> WorkerPool<P> {
    /// Runs `f` exactly once on every worker, each before that worker takes another queued
    /// task: to load a model or warm a cache kept in thread-local state. The handle resolves
    /// with the results in worker order (result `i` from worker `i`), or with the first error
    /// if any copy fails; the pool keeps working either way. Never waits: a worker with
    /// [`MAILBOX_CAPACITY`](crate::MAILBOX_CAPACITY) broadcasts still to take refuses it as
    /// [`SubmitError::QueueFull`], and `f` comes back on every refusal.
    ///
    /// ```ignore-wasm32
    /// use ringpool::{worker_index, WorkerPool};
    /// thread_local! { static WARM: std::cell::Cell<bool> = const { std::cell::Cell::new(false) }; }
    /// let pool = WorkerPool::new(3, 8).unwrap();
    /// let done = ringpool::block_on(pool.broadcast(|| { WARM.with(|w| w.set(true)); worker_index() }).unwrap());
    /// assert_eq!(done, Ok(vec![Some(0), Some(1), Some(2)]));
    /// let warm = pool.try_submit(|| WARM.with(|w| w.get())).unwrap();
    /// assert_eq!(ringpool::block_on(warm), Ok(true), "every worker ran it");
    /// ```
    pub fn broadcast<F, T>(&self, f: F) -> Result<BroadcastHandle<T>, SubmitError<F>>
    where
        F: Fn() -> T + Send + Sync + 'static,
        T: Send + 'static,
    {
        let f = std::sync::Arc::new(f);
        let copies = (0..self.workers()).map(|_| BroadcastCopy(f.clone())).collect();
        self.offer_broadcast(copies).map(BroadcastHandle::new).map_err(|e| {
            e.map(|copies| {
                drop(copies);
                match std::sync::Arc::try_unwrap(f) {
                    Ok(f) => f,
                    Err(_) => unreachable!("refused copies were dropped, so `f` has one owner"),
                }
            })
        })
    }

    /// Admits `bodies[i]` for worker `i`, for every worker, or none (the bodies come back).
    pub(crate) fn offer_broadcast<B, T>(&self, bodies: Vec<B>) -> Result<Vec<TaskHandle<T>>, SubmitError<Vec<B>>>
    where
        B: crate::task::Body<T, P::Resumed, P::Pending>,
        T: Send + 'static,
    {
        let c = &self.shared.counters;
        if let Err(oom) = self.prepare_queue(Priority::Normal, true) {
            c.rejected.fetch_add(1, Ordering::SeqCst);
            return Err(SubmitError::OutOfMemory(bodies, oom));
        }
        let now = P::now_us();
        let mut tasks = Vec::with_capacity(bodies.len());
        let mut bodies = bodies.into_iter();
        for body in bodies.by_ref() {
            match Task::try_new(body, None, now, false) {
                Ok(task) => tasks.push(task),
                Err(body) => {
                    c.rejected.fetch_add(1, Ordering::SeqCst);
                    let needed = std::mem::size_of::<crate::task::Task<B, T>>();
                    let back = tasks.into_iter().map(|t| t.into_body()).chain(std::iter::once(body)).chain(bodies).collect();
                    return Err(SubmitError::OutOfMemory(back, crate::memory::out_of_memory(needed)));
                }
            }
        }
        let erased: Vec<TaskRef<P>> = tasks.iter().map(|t| t.clone() as TaskRef<P>).collect();
        P::handing_over();
        if let Err(e) = self.shared.dispatch.try_broadcast(erased) {
            c.rejected.fetch_add(1, Ordering::SeqCst);
            let closed = e == BroadcastError::Closed;
            let back = tasks.into_iter().map(|t| t.into_body()).collect();
            return Err(if closed { SubmitError::Closed(back) } else { SubmitError::QueueFull(back) });
        }
        c.accepted.fetch_add(tasks.len() as u64, Ordering::SeqCst);
        self.backend.queue_changed();
        Ok(tasks.into_iter().map(|task| TaskHandle { task: task as Arc<dyn Output<T>> }).collect())
    }
}

/// One worker's copy of a broadcast closure.
struct BroadcastCopy<F>(std::sync::Arc<F>);

impl<F: Fn() -> T + Send + Sync + 'static, T, R, P> crate::task::Body<T, R, P> for BroadcastCopy<F> {
    fn run(self) -> Ran<T, P> {
        Ran::Returned((self.0)())
    }
}

/// Future returned by [`WorkerPool::broadcast`]: every worker's result in worker order, or the
/// first error as soon as one copy fails.
#[must_use = "a BroadcastHandle does nothing unless awaited (the copies run anyway)"]
pub struct BroadcastHandle<T> {
    handles: Vec<TaskHandle<T>>,
    results: Vec<Option<T>>,
}

impl<T> BroadcastHandle<T> {
    fn new(handles: Vec<TaskHandle<T>>) -> Self {
        let results = handles.iter().map(|_| None).collect();
        BroadcastHandle { handles, results }
    }

    /// The copies' own handles, in worker order (to follow each one, or to stop awaiting).
    pub fn into_handles(self) -> Vec<TaskHandle<T>> {
        self.handles
    }
}

impl<T> Unpin for BroadcastHandle<T> {}
// As for `TaskHandle`: results are taken through atomic state changes only.
impl<T> std::panic::UnwindSafe for BroadcastHandle<T> {}
impl<T> std::panic::RefUnwindSafe for BroadcastHandle<T> {}

impl<T> Future for BroadcastHandle<T> {
    type Output = Result<Vec<T>, TaskError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        let mut pending = false;
        for (h, r) in this.handles.iter_mut().zip(this.results.iter_mut()) {
            if r.is_some() {
                continue;
            }
            match Pin::new(h).poll(cx) {
                Poll::Ready(Ok(v)) => *r = Some(v),
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => pending = true,
            }
        }
        if pending {
            return Poll::Pending;
        }
        Poll::Ready(Ok(this.results.iter_mut().map(|r| r.take().expect("every copy finished")).collect()))
    }
}

impl<T> std::fmt::Debug for BroadcastHandle<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BroadcastHandle").field("workers", &self.handles.len()).finish()
    }
}
