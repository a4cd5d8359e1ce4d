//! Helpers shared by the native test files: latches (never sleeps) and the stats invariant.
#![allow(dead_code)]

use ringpool::WorkerPool;
use std::sync::{Arc, Condvar, Mutex};

/// A one-shot latch: `wait` blocks until `open` was called.
#[derive(Clone, Default)]
pub struct Latch(Arc<(Mutex<bool>, Condvar)>);

impl Latch {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn open(&self) {
        *self.0 .0.lock().unwrap() = true;
        self.0 .1.notify_all();
    }
    pub fn wait(&self) {
        let mut open = self.0 .0.lock().unwrap();
        while !*open {
            open = self.0 .1.wait(open).unwrap();
        }
    }
    pub fn is_open(&self) -> bool {
        *self.0 .0.lock().unwrap()
    }
}

/// Occupies one worker until the returned `release` latch opens; returns once the task runs.
pub fn occupy_worker(pool: &WorkerPool) -> (Latch, ringpool::TaskHandle<()>) {
    let (running, release) = (Latch::new(), Latch::new());
    let (r, g) = (running.clone(), release.clone());
    let handle = pool
        .try_submit(move || {
            r.open();
            g.wait();
        })
        .expect("submit the blocking task");
    running.wait();
    (release, handle)
}

/// Occupies all `workers` workers until the returned latch opens; returns once every one runs.
pub fn occupy_all(pool: &WorkerPool, workers: usize) -> (Latch, Vec<ringpool::TaskHandle<()>>) {
    let (started, release) = (Arc::new(std::sync::Barrier::new(workers + 1)), Latch::new());
    let busy = (0..workers)
        .map(|_| {
            let (s, r) = (started.clone(), release.clone());
            pool.try_submit(move || {
                s.wait();
                r.wait();
            })
            .expect("submit a blocking task")
        })
        .collect();
    started.wait();
    (release, busy)
}

/// `accepted = completed + failed + queued + running`, checked once the pool is quiet.
pub fn assert_invariant(pool: &WorkerPool) {
    let s = pool.stats();
    assert_eq!(s.accepted, s.completed + s.failed + s.queued + s.running, "stats invariant broken: {s:?}");
    assert!(s.running <= s.workers as u64, "more bodies running than workers: {s:?}");
    assert!(pool.peak_running() <= s.workers as u64, "peak above workers: {s:?}");
}
