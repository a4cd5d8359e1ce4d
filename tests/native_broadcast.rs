//! `WorkerPool::broadcast`: exactly once on every worker, before that worker's next queued
//! task; all or nothing; a failing copy fails the whole and the pool keeps working.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::{assert_invariant, occupy_all};
use ringpool::{block_on, worker_index, SubmitError, TaskError, WorkerPool, MAILBOX_CAPACITY};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};

thread_local! {
    static LOADED: Cell<u32> = const { Cell::new(0) };
}

#[test]
fn runs_once_on_every_worker_in_worker_order() {
    let pool = WorkerPool::new(4, 8).unwrap();
    // Every worker must be inside its copy at once: a copy taken twice by one worker, or by the
    // wrong one, would leave the barrier short and the test would hang (nextest's limit).
    let all = Arc::new(Barrier::new(4));
    let a = all.clone();
    let got = block_on(
        pool.broadcast(move || {
            a.wait();
            LOADED.with(|l| l.set(l.get() + 1));
            worker_index().unwrap()
        })
        .unwrap(),
    )
    .unwrap();
    assert_eq!(got, [0, 1, 2, 3], "result i from worker i");
    // The module state is there on every worker, and was set exactly once.
    let counts = block_on(pool.broadcast(|| LOADED.with(|l| l.get())).unwrap()).unwrap();
    assert_eq!(counts, [1, 1, 1, 1]);
    assert_eq!(pool.stats().accepted, 8);
    assert_invariant(&pool);
}

#[test]
fn each_worker_runs_it_before_its_next_queued_task() {
    let pool = WorkerPool::new(2, 16).unwrap();
    // Both workers busy, then a queue of plain tasks, then the broadcast.
    let (release, busy) = occupy_all(&pool, 2);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let queued: Vec<_> = (0..6)
        .map(|i| {
            let seen = seen.clone();
            pool.try_submit(move || seen.lock().unwrap().push((worker_index().unwrap(), format!("task {i}")))).unwrap()
        })
        .collect();
    let s = seen.clone();
    let b = pool.broadcast(move || s.lock().unwrap().push((worker_index().unwrap(), "broadcast".into()))).unwrap();
    release.open();
    block_on(b).unwrap();
    for h in busy.into_iter().chain(queued) {
        block_on(h).unwrap();
    }
    let seen = seen.lock().unwrap();
    for w in 0..2 {
        let mine: Vec<&str> = seen.iter().filter(|(i, _)| *i == w).map(|(_, s)| s.as_str()).collect();
        assert_eq!(mine.first(), Some(&"broadcast"), "worker {w} ran: {mine:?}");
        assert_eq!(mine.iter().filter(|s| **s == "broadcast").count(), 1);
    }
}

#[test]
fn a_failing_copy_fails_the_whole_and_the_pool_keeps_working() {
    let pool = WorkerPool::new(3, 4).unwrap();
    let ran = Arc::new(AtomicUsize::new(0));
    let r = ran.clone();
    let result = block_on(
        pool.broadcast(move || {
            r.fetch_add(1, Ordering::SeqCst);
            if worker_index() == Some(1) {
                panic!("copy 1 fails");
            }
        })
        .unwrap(),
    );
    match result {
        Err(TaskError::Panicked { message, .. }) => assert_eq!(message, "copy 1 fails"),
        other => panic!("expected the panic, got {other:?}"),
    }
    assert_eq!(block_on(pool.try_submit(|| 5).unwrap()), Ok(5));
    block_on(pool.shutdown()).unwrap();
    assert_eq!(ran.load(Ordering::SeqCst), 3, "the other copies still ran");
    assert_invariant(&pool);
}

#[test]
fn refusals_hand_the_closure_back_and_admit_nothing() {
    let pool = WorkerPool::new(2, 4).unwrap();
    let (release, busy) = occupy_all(&pool, 2);
    let handles: Vec<_> = (0..MAILBOX_CAPACITY).map(|i| pool.broadcast(move || i).unwrap()).collect();
    let accepted = pool.stats().accepted;
    match pool.broadcast(|| 99) {
        Err(SubmitError::QueueFull(f)) => assert_eq!(f(), 99),
        other => panic!("a full mailbox refuses the broadcast, got {other:?}"),
    }
    assert_eq!(pool.stats().accepted, accepted, "no copy was admitted");
    assert_eq!(pool.stats().rejected, 1);
    release.open();
    for (i, h) in handles.into_iter().enumerate() {
        assert_eq!(block_on(h), Ok(vec![i, i]));
    }
    for h in busy {
        block_on(h).unwrap();
    }
    let shutdown = pool.shutdown();
    match pool.broadcast(|| 7) {
        Err(SubmitError::Closed(f)) => assert_eq!(f(), 7),
        other => panic!("a closed pool refuses it, got {other:?}"),
    }
    block_on(shutdown).unwrap();
    assert_invariant(&pool);
}
