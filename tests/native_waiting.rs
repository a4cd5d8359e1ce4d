#![cfg(not(target_arch = "wasm32"))]
//! `WorkerPool::submit` waits for queue space, counts in `Stats::waiting` while it does, and is
//! bounded by `PoolOptions::max_waiting` (`SubmitError::Overloaded` hands the closure back at
//! once). Dropping a waiting future leaves the count; shutdown refuses the waiters. Workers are
//! held with latches.

mod common;
use common::{assert_invariant, occupy_worker};
use ringpool::{block_on, PoolOptions, SubmitError, WorkerPool};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

/// Polls once with a waker that does nothing: is it still waiting?
fn pending<F: Future + Unpin>(f: &mut F) -> bool {
    Pin::new(f).poll(&mut Context::from_waker(Waker::noop())).is_pending()
}

/// A pool of one worker held by a latch, its one queue slot taken.
fn full(max_waiting: Option<usize>) -> (WorkerPool, common::Latch, Vec<ringpool::TaskHandle<()>>) {
    let pool = WorkerPool::with_options(1, 1, PoolOptions { max_waiting }).unwrap();
    let (release, blocker) = occupy_worker(&pool);
    let queued = pool.try_submit(|| ()).unwrap();
    (pool, release, vec![blocker, queued])
}

#[test]
fn submit_waits_for_space_and_counts_while_it_waits() {
    let (pool, release, held) = full(None);
    let mut a = pool.submit(|| "a");
    let mut b = pool.submit(|| "b");
    assert!(pending(&mut a) && pending(&mut b));
    assert_eq!(pool.stats().waiting, 2);
    assert_eq!(pool.stats().accepted, 2, "waiting submissions are not accepted yet");
    release.open();
    // Woken by the worker that frees a place; `block_on` parks until then.
    let a = block_on(a).unwrap();
    let b = block_on(b).unwrap();
    assert_eq!((block_on(a), block_on(b)), (Ok("a"), Ok("b")));
    for h in held {
        block_on(h).unwrap();
    }
    assert_eq!(pool.stats().waiting, 0);
    assert_invariant(&pool);
}

#[test]
fn past_max_waiting_submit_is_refused_at_once_with_the_closure() {
    let (pool, release, held) = full(Some(1));
    let mut first = pool.submit(|| 1);
    assert!(pending(&mut first));
    match block_on(pool.submit(|| 2)) {
        Err(SubmitError::Overloaded(f)) => assert_eq!(f(), 2, "the closure comes back"),
        other => panic!("expected Overloaded, got {other:?}"),
    }
    let s = pool.stats();
    assert_eq!((s.waiting, s.rejected), (1, 1));
    assert!(matches!(pool.try_submit(|| 3), Err(SubmitError::QueueFull(_))), "try_submit is not bounded by it");
    assert_eq!(SubmitError::Overloaded(()).to_string(), "the pool already has as many submissions waiting for queue space as its max_waiting allows");
    release.open();
    assert_eq!(block_on(block_on(first).unwrap()), Ok(1));
    for h in held {
        block_on(h).unwrap();
    }
    assert_eq!(pool.stats().waiting, 0);
}

#[test]
fn dropping_a_waiting_submit_leaves_at_once_and_a_new_one_fits() {
    let (pool, release, held) = full(Some(1));
    let mut gone = pool.submit(|| "gone");
    assert!(pending(&mut gone));
    assert_eq!(pool.stats().waiting, 1);
    drop(gone);
    assert_eq!(pool.stats().waiting, 0);
    let mut fits = pool.submit(|| "fits");
    assert!(pending(&mut fits));
    release.open();
    assert_eq!(block_on(block_on(fits).unwrap()), Ok("fits"));
    for h in held {
        block_on(h).unwrap();
    }
    let s = pool.stats();
    assert_eq!((s.waiting, s.accepted, s.rejected), (0, 3, 0));
}

#[test]
fn shutdown_refuses_waiting_submits() {
    let (pool, release, held) = full(None);
    let mut waits = pool.submit(|| "never");
    assert!(pending(&mut waits));
    let done = pool.shutdown();
    match block_on(waits) {
        Err(SubmitError::Closed(f)) => assert_eq!(f(), "never"),
        other => panic!("expected Closed, got {other:?}"),
    }
    assert_eq!(pool.stats().waiting, 0);
    release.open();
    block_on(done).unwrap();
    for h in held {
        block_on(h).unwrap();
    }
    assert_invariant(&pool);
}

#[test]
fn many_submitters_through_a_small_queue_all_run() {
    let pool = std::sync::Arc::new(WorkerPool::with_options(2, 2, PoolOptions { max_waiting: Some(64) }).unwrap());
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let pool = pool.clone();
            std::thread::spawn(move || (0..250).map(|i| block_on(block_on(pool.submit(move || t * 1000 + i)).unwrap()).unwrap()).sum::<usize>())
        })
        .collect();
    let total: usize = threads.into_iter().map(|t| t.join().unwrap()).sum();
    assert_eq!(total, (0..4).map(|t| (0..250).map(|i| t * 1000 + i).sum::<usize>()).sum());
    let s = pool.stats();
    assert_eq!((s.waiting, s.accepted, s.rejected), (0, 1000, 0));
}

#[test]
fn a_poll_that_finds_space_is_admitted_without_waiting() {
    let pool = WorkerPool::with_options(1, 4, PoolOptions { max_waiting: Some(0) }).unwrap();
    let h = block_on(pool.submit(|| 5)).unwrap();
    assert_eq!(block_on(h), Ok(5));
    assert_eq!(pool.stats().waiting, 0);
    let mut cx = Context::from_waker(Waker::noop());
    let mut s = pool.submit(|| 6);
    match Pin::new(&mut s).poll(&mut cx) {
        Poll::Ready(Ok(h)) => assert_eq!(block_on(h), Ok(6)),
        other => panic!("expected admission, got {:?}", other.map(|r| r.map(|_| ()))),
    }
}
