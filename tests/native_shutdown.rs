#![cfg(not(target_arch = "wasm32"))]
//! Shutdown: unread results never block it; a timed-out shutdown neither cancels tasks nor
//! reopens admission; a second shutdown completes; a finished one succeeds at once.

mod common;
use common::{assert_invariant, occupy_worker};
use ringpool::{block_on, ShutdownTimeout, SubmitError, WorkerPool};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[test]
fn unconsumed_results_do_not_block_shutdown() {
    let pool = WorkerPool::new(2, 128).unwrap();
    let done = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..100)
        .map(|i| {
            let d = done.clone();
            pool.try_submit(move || {
                d.fetch_add(1, Ordering::SeqCst);
                vec![i as u8; 1024]
            })
            .unwrap()
        })
        .collect();
    block_on(pool.shutdown()).unwrap();
    assert_eq!(done.load(Ordering::SeqCst), 100);
    assert_eq!(pool.stats().completed, 100);
    drop(handles);
    assert_invariant(&pool);
}

#[test]
fn shutdown_timeout_keeps_tasks_and_admission_closed() {
    let pool = WorkerPool::new(1, 4).unwrap();
    let (release, blocker) = occupy_worker(&pool);
    let queued = pool.try_submit(|| 41 + 1).unwrap();

    assert_eq!(block_on(pool.shutdown_timeout(Duration::from_millis(20))), Err(ShutdownTimeout));
    assert!(!queued.is_finished(), "a timed-out shutdown must not cancel queued tasks");
    assert!(matches!(pool.try_submit(|| 0), Err(SubmitError::Closed(_))), "admission stays closed");

    release.open();
    block_on(pool.shutdown()).unwrap();
    block_on(blocker).unwrap();
    assert_eq!(block_on(queued).unwrap(), 42);
    // Already finished: succeeds even with a deadline that has already passed.
    assert_eq!(block_on(pool.shutdown_timeout(Duration::ZERO)), Ok(()));
    assert_invariant(&pool);
}

#[test]
fn concurrent_shutdown_calls_all_complete() {
    let pool = Arc::new(WorkerPool::new(2, 8).unwrap());
    let (release, blocker) = occupy_worker(&pool);
    // Every caller has started its shutdown before the running task may finish.
    let started = Arc::new(std::sync::Barrier::new(5));
    let waiters: Vec<_> = (0..4)
        .map(|_| {
            let (p, started) = (pool.clone(), started.clone());
            std::thread::spawn(move || {
                let shutdown = p.shutdown();
                started.wait();
                block_on(shutdown)
            })
        })
        .collect();
    started.wait();
    assert!(pool.is_closed());
    assert!(!blocker.is_finished(), "the task was still running while four shutdowns waited");
    assert!(waiters.iter().all(|w| !w.is_finished()), "no shutdown finished while a task ran");
    release.open();
    for w in waiters {
        assert_eq!(w.join().unwrap(), Ok(()));
    }
    assert!(blocker.is_finished());
}
