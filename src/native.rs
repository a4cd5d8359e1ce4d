//! Native back end: workers are `std::thread`s, timers run on one lazily started thread, and
//! completions are delivered on the worker that settles the task (wakers are thread-safe).

use crate::cancel::{sweep_when_doubled, Hook};
use crate::error::BuildError;
use crate::pool::{enter_worker, Shared, TaskRef};
use std::collections::BinaryHeap;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Natively nothing is needed to carry completions: the settling thread wakes the waker.
#[derive(Default)]
#[allow(dead_code)]
pub(crate) struct Delivery;

/// The wasm back end times tasks to pick its doorbell; nothing to do natively.
pub(crate) fn task_ended(_run_us: u64) {}

/// A pending [`Backend::at`] (natively the timer thread owns it).
pub(crate) struct Timer;

/// Natively a completion wakes its handle's waker at once: no results wait for the owner.
pub(crate) fn results_waiting(_shared: &Shared) -> bool {
    false
}

/// Natively a completion wakes its handle's waker directly (`submitAll` batches and their
/// quiet completions are a wasm doorbell matter).
pub(crate) fn deliver(_shared: &Shared, task: TaskRef, _fulfilled: bool) {
    task.header().deliver();
}

/// A popped task that was already settled: natively nobody waits for queue space.
pub(crate) fn skipped(_shared: &Shared) {}

/// Hand-over of memory between threads: natively every thread always sees all of it.
#[inline]
pub(crate) fn handing_over() {}

#[inline]
pub(crate) fn taken_over() {}

pub(crate) fn all_workers_exited(shared: &Shared) {
    shared.wake_shutdown_waiters();
}

/// Microseconds on a clock every thread shares (task wait and run times).
pub(crate) fn now_us() -> u64 {
    static EPOCH: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    EPOCH.get_or_init(Instant::now).elapsed().as_micros() as u64
}

pub(crate) type Deadline = Instant;

#[derive(Clone)]
pub(crate) struct Backend {
    timer: Arc<TimerQueue>,
}

impl Backend {
    pub(crate) fn start(shared: &Arc<Shared>) -> Result<Self, BuildError> {
        for index in 0..shared.workers {
            let worker = shared.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("ringpool-worker-{index}"))
                .spawn(move || {
                    enter_worker(index);
                    // Only JS tasks suspend, and they do not exist natively.
                    let suspended = worker.work(index);
                    debug_assert!(suspended.is_none());
                    worker.worker_exited();
                });
            if let Err(e) = spawned {
                // The ones already started drain nothing and exit; account for the rest.
                shared.dispatch.close();
                for _ in index..shared.workers {
                    shared.worker_exited();
                }
                return Err(BuildError::Spawn(e.to_string()));
            }
        }
        Ok(Backend { timer: Arc::new(TimerQueue::default()) })
    }

    /// A task was admitted; natively the owner has no event loop to spare a wake-up.
    pub(crate) fn admitted(&self) {}

    pub(crate) fn deadline(&self, after: Duration) -> Deadline {
        Instant::now() + after
    }

    pub(crate) fn passed(&self, deadline: Deadline) -> bool {
        Instant::now() >= deadline
    }

    /// Fires `hook` after `after`, unless it is stale by then (a task's deadline).
    pub(crate) fn after_hook(&self, after: Duration, hook: Box<dyn Hook>, _task: &crate::pool::TaskRef) {
        self.push(self.deadline(after), Action::Hook(hook));
    }

    /// Runs `action` at `at` (on the timer thread; it stays queued if the [`Timer`] is dropped,
    /// and must then do nothing harmful).
    pub(crate) fn at(&self, at: Deadline, action: Box<dyn FnOnce() + Send>) -> Timer {
        self.push(at, Action::Once(action));
        Timer
    }

    fn push(&self, at: Deadline, action: Action) {
        let mut state = self.timer.state.lock().unwrap_or_else(|e| e.into_inner());
        state.seq += 1;
        let seq = state.seq;
        // Deadlines of tasks that settled long before: a long timeout on many short tasks keeps
        // the heap within twice the tasks still waiting.
        let TimerState { heap, sweep_at, .. } = &mut *state;
        sweep_when_doubled(heap.len(), sweep_at, 64, || {
            heap.retain(|e| !matches!(&e.action, Action::Hook(h) if h.is_stale()));
            heap.len()
        });
        state.heap.push(Entry { at, seq, action });
        if !state.running {
            state.running = true;
            let timer = self.timer.clone();
            std::thread::Builder::new()
                .name("ringpool-timer".into())
                .spawn(move || timer.run())
                .expect("spawn the ringpool timer thread");
        }
        drop(state);
        self.timer.changed.notify_one();
    }
}

/// Deadlines of tasks and of `shutdown_timeout` calls. The thread exits when nothing is due.
#[derive(Default)]
struct TimerQueue {
    state: Mutex<TimerState>,
    changed: Condvar,
}

#[derive(Default)]
struct TimerState {
    heap: BinaryHeap<Entry>,
    seq: u64,
    running: bool,
    /// See [`sweep_when_doubled`].
    sweep_at: usize,
}

struct Entry {
    at: Instant,
    seq: u64,
    action: Action,
}

enum Action {
    Once(Box<dyn FnOnce() + Send>),
    Hook(Box<dyn Hook>),
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    // BinaryHeap is a max-heap: the earliest deadline must compare greatest.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

impl TimerQueue {
    fn run(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let now = Instant::now();
            match state.heap.peek().map(|e| e.at) {
                None => {
                    state.running = false;
                    return;
                }
                Some(at) if at <= now => {
                    let entry = state.heap.pop().expect("peeked");
                    drop(state);
                    match entry.action {
                        Action::Once(f) => f(),
                        Action::Hook(h) => h.fire(),
                    }
                    state = self.state.lock().unwrap_or_else(|e| e.into_inner());
                }
                Some(at) => {
                    state = self.changed.wait_timeout(state, at - now).unwrap_or_else(|e| e.into_inner()).0;
                }
            }
        }
    }
}
