//! Priorities: a worker takes the oldest task of the highest level present; FIFO within a
//! level; `queue_capacity` bounds the levels together.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::{assert_invariant, occupy_worker};
use ringpool::{block_on, Priority, SubmitError, TaskOptions, WorkerPool};
use std::sync::{Arc, Mutex};

fn with(priority: Priority) -> TaskOptions {
    TaskOptions { priority, ..TaskOptions::default() }
}

#[test]
fn runs_highest_level_first_and_fifo_within_a_level() {
    let pool = WorkerPool::new(1, 16).unwrap();
    let (release, blocker) = occupy_worker(&pool);
    let order = Arc::new(Mutex::new(Vec::new()));
    let plan = [
        ("low-1", Priority::Low),
        ("normal-1", Priority::Normal),
        ("high-1", Priority::High),
        ("low-2", Priority::Low),
        ("high-2", Priority::High),
        ("normal-2", Priority::Normal),
    ];
    let handles: Vec<_> = plan
        .iter()
        .map(|&(name, p)| {
            let order = order.clone();
            pool.try_submit_with(move || order.lock().unwrap().push(name), with(p)).unwrap()
        })
        .collect();
    release.open();
    block_on(blocker).unwrap();
    for h in handles {
        block_on(h).unwrap();
    }
    assert_eq!(*order.lock().unwrap(), ["high-1", "high-2", "normal-1", "normal-2", "low-1", "low-2"]);
    assert_invariant(&pool);
}

#[test]
fn capacity_bounds_all_levels_together() {
    let pool = WorkerPool::new(1, 3).unwrap();
    let (release, blocker) = occupy_worker(&pool);
    let mut handles = vec![
        pool.try_submit_with(|| 1, with(Priority::High)).unwrap(),
        pool.try_submit_with(|| 2, with(Priority::Low)).unwrap(),
        pool.try_submit_with(|| 3, with(Priority::Normal)).unwrap(),
    ];
    for p in [Priority::High, Priority::Normal, Priority::Low] {
        match pool.try_submit_with(|| 9, with(p)) {
            Err(SubmitError::QueueFull(f)) => assert_eq!(f(), 9, "the closure came back"),
            other => panic!("a fourth task at {p:?} must be refused as full, got {other:?}"),
        }
    }
    assert_eq!(pool.stats().queued, 3);
    release.open();
    block_on(blocker).unwrap();
    // Space again once the worker has taken one (the high one, first).
    let first = handles.remove(0);
    assert_eq!(block_on(first), Ok(1));
    handles.push(pool.try_submit_with(|| 4, with(Priority::Low)).unwrap());
    let got: Vec<i32> = handles.into_iter().map(|h| block_on(h).unwrap()).collect();
    assert_eq!(got, [2, 3, 4]);
    assert_eq!(pool.stats().rejected, 3);
    assert_invariant(&pool);
}

#[test]
fn shutdown_drains_every_level_and_force_rejects_every_level() {
    let pool = WorkerPool::new(1, 8).unwrap();
    let (release, blocker) = occupy_worker(&pool);
    let drained: Vec<_> = [Priority::Low, Priority::High, Priority::Normal]
        .into_iter()
        .map(|p| pool.try_submit_with(move || p, with(p)).unwrap())
        .collect();
    let shutdown = pool.shutdown();
    assert!(matches!(pool.try_submit_with(|| Priority::High, with(Priority::High)), Err(SubmitError::Closed(_))));
    release.open();
    block_on(blocker).unwrap();
    block_on(shutdown).unwrap();
    let got: Vec<_> = drained.into_iter().map(|h| block_on(h).unwrap()).collect();
    assert_eq!(got, [Priority::Low, Priority::High, Priority::Normal]);

    let pool = WorkerPool::new(1, 8).unwrap();
    let (release, blocker) = occupy_worker(&pool);
    let ran = Arc::new(Mutex::new(0));
    let queued: Vec<_> = [Priority::Low, Priority::High, Priority::Normal]
        .into_iter()
        .map(|p| {
            let ran = ran.clone();
            pool.try_submit_with(move || *ran.lock().unwrap() += 1, with(p)).unwrap()
        })
        .collect();
    let shutdown = pool.shutdown_now();
    for h in queued {
        assert_eq!(block_on(h), Err(ringpool::TaskError::PoolClosed));
    }
    release.open();
    drop(block_on(blocker));
    block_on(shutdown).unwrap();
    assert_eq!(*ran.lock().unwrap(), 0, "queued bodies never ran");
}
