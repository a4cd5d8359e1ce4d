#![cfg(not(target_arch = "wasm32"))]
//! Cancellation and deadlines: a task cancelled before submission is refused and never runs;
//! cancelled or timed out while queued, it settles at once and its body never runs.

mod common;
use common::{assert_invariant, occupy_worker};
use ringpool::{block_on, CancelToken, SubmitError, TaskError, TaskOptions, WorkerPool};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[test]
fn cancelled_before_submission_never_runs() {
    let pool = WorkerPool::new(1, 4).unwrap();
    let ran = Arc::new(AtomicBool::new(false));
    let token = CancelToken::new();
    token.cancel();
    let r = ran.clone();
    let res = pool.try_submit_with(move || r.store(true, Ordering::SeqCst), TaskOptions { cancel: Some(token), timeout: None, ..TaskOptions::default() });
    assert!(matches!(res, Err(SubmitError::Cancelled(_))));
    block_on(pool.shutdown()).unwrap();
    assert!(!ran.load(Ordering::SeqCst));
    assert_eq!(pool.stats().accepted, 0);
    assert_eq!(pool.stats().rejected, 1);
}

#[test]
fn cancelled_while_queued_settles_at_once_and_never_runs() {
    let pool = WorkerPool::new(1, 4).unwrap();
    let (release, blocker) = occupy_worker(&pool);
    let ran = Arc::new(AtomicBool::new(false));
    let token = CancelToken::new();
    let r = ran.clone();
    let handle = pool
        .try_submit_with(move || r.store(true, Ordering::SeqCst), TaskOptions { cancel: Some(token.clone()), timeout: None, ..TaskOptions::default() })
        .unwrap();
    token.cancel();
    // The worker is still blocked, so this resolves without any worker reaching the task.
    assert_eq!(block_on(handle).unwrap_err(), TaskError::Cancelled);
    assert!(!blocker.is_finished(), "settled while the worker was still running the blocker");
    assert_eq!(pool.stats().running, 1);
    release.open();
    block_on(blocker).unwrap();
    block_on(pool.shutdown()).unwrap();
    assert!(!ran.load(Ordering::SeqCst), "a cancelled body must never run");
    let s = pool.stats();
    assert_eq!((s.cancelled, s.failed, s.completed), (1, 1, 1));
    assert_invariant(&pool);
}

#[test]
fn deadline_expiring_while_queued_skips_the_body() {
    let pool = WorkerPool::new(1, 4).unwrap();
    let (release, blocker) = occupy_worker(&pool);
    let ran = Arc::new(AtomicBool::new(false));
    let r = ran.clone();
    let handle = pool
        .try_submit_with(move || r.store(true, Ordering::SeqCst), TaskOptions { cancel: None, timeout: Some(Duration::from_millis(30)), ..TaskOptions::default() })
        .unwrap();
    assert_eq!(block_on(handle).unwrap_err(), TaskError::TimedOut);
    assert!(!blocker.is_finished(), "the timeout fired while the worker was still running the blocker");
    assert_eq!(pool.stats().running, 1);
    release.open();
    block_on(blocker).unwrap();
    block_on(pool.shutdown()).unwrap();
    assert!(!ran.load(Ordering::SeqCst));
    assert_eq!(pool.stats().timed_out, 1);
    assert_invariant(&pool);
}

#[test]
fn running_task_observes_cancellation() {
    let pool = WorkerPool::new(1, 4).unwrap();
    let started = common::Latch::new();
    let s = started.clone();
    let token = CancelToken::new();
    let handle = pool
        .try_submit_with(
            move || {
                s.open();
                while !ringpool::is_cancelled() {
                    std::hint::spin_loop();
                }
                "saw it"
            },
            TaskOptions { cancel: Some(token.clone()), timeout: None, ..TaskOptions::default() },
        )
        .unwrap();
    started.wait();
    token.cancel();
    assert_eq!(block_on(handle).unwrap_err(), TaskError::Cancelled);
    // The body saw the cancellation and returned, so shutdown completes.
    block_on(pool.shutdown()).unwrap();
    assert_invariant(&pool);
}
