//! Native back end: workers are `std::thread`s, timers run on one lazily started thread, and
//! completions are delivered on the worker that settles the task (wakers are thread-safe).

use crate::backend::{Backend, Delivered, Shared, TaskRef};
use crate::cancel::{sweep_when_doubled, Hook};
use crate::error::BuildError;
use crate::worker_loop::enter_worker;
use std::collections::BinaryHeap;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The native back end: the pool's handle keeps its timer queue.
#[derive(Clone)]
pub struct Native {
    timer: Arc<TimerQueue>,
}

impl Backend for Native {
    type Config = ();
    /// Natively nothing is needed to carry completions: the settling thread wakes the waker.
    type Delivery = ();
    /// Only JS bodies suspend, and they do not exist natively.
    type Resumed = std::convert::Infallible;
    type Pending = std::convert::Infallible;
    type Deadline = Instant;
    /// Natively the timer thread owns a pending action; dropping this does not cancel it.
    type Timer = ();

    fn start(shared: &Arc<Shared<Self>>, _config: ()) -> Result<Self, BuildError> {
        for index in 0..shared.workers {
            let worker = shared.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("ringpool-worker-{index}"))
                .spawn(move || {
                    enter_worker(index);
                    let suspended = worker.work(index);
                    debug_assert!(suspended.is_none(), "only JS bodies suspend");
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
        Ok(Native { timer: Arc::new(TimerQueue::default()) })
    }

    /// Natively the owner has no event loop to spare a wake-up.
    fn admitted(&self) {}

    fn deadline(&self, after: Duration) -> Instant {
        Instant::now() + after
    }

    fn passed(&self, deadline: Instant) -> bool {
        Instant::now() >= deadline
    }

    /// Runs `action` at `at` on the timer thread (it stays queued if the timer is dropped,
    /// and must then do nothing harmful).
    fn at(&self, at: Instant, action: Box<dyn FnOnce() + Send>) {
        self.push(at, Action::Once(action));
    }

    /// Fires `hook` after `after`, unless it is stale by then.
    fn after_hook(&self, after: Duration, hook: Box<dyn Hook>, _task: &TaskRef<Self>) {
        self.push(self.deadline(after), Action::Hook(hook));
    }

    fn now_us() -> u64 {
        static EPOCH: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
        EPOCH.get_or_init(Instant::now).elapsed().as_micros() as u64
    }

    /// A completion wakes its handle's waker on the settling thread (`submitAll` batches and
    /// their quiet completions are a wasm doorbell matter).
    fn deliver(_shared: &Shared<Self>, task: TaskRef<Self>, _delivered: Delivered) {
        task.header().deliver();
    }

    /// `space_freed` has woken whoever waits for queue space already.
    fn skipped(_shared: &Shared<Self>) {}

    fn space_freed(shared: &Shared<Self>) {
        shared.waiting.wake_all();
    }

    /// A completion wakes its waker at once: no results wait for the owner.
    fn results_waiting(_shared: &Shared<Self>) -> bool {
        false
    }

    fn all_workers_exited(shared: &Shared<Self>) {
        shared.wake_shutdown_waiters();
    }
}

impl Native {
    fn push(&self, at: Instant, action: Action) {
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
