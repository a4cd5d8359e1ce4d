#![cfg(not(target_arch = "wasm32"))]
//! `shutdown_now`: queued and running tasks settle with `PoolClosed` at once; queued bodies
//! never run; a running body sees `is_cancelled()` and the pool then stops.

mod common;
use common::{assert_invariant, Latch};
use ringpool::{block_on, SubmitError, TaskError, WorkerPool};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

#[test]
fn force_settles_queued_and_running_tasks_at_once() {
    let pool = WorkerPool::new(1, 8).unwrap();
    let started = Latch::new();
    let s = started.clone();
    let running = pool
        .try_submit(move || {
            s.open();
            while !ringpool::is_cancelled() {
                std::hint::spin_loop();
            }
            "late result, dropped"
        })
        .unwrap();
    started.wait();
    let ran = Arc::new(AtomicUsize::new(0));
    let queued: Vec<_> = (0..5)
        .map(|_| {
            let r = ran.clone();
            pool.try_submit(move || r.fetch_add(1, Ordering::SeqCst)).unwrap()
        })
        .collect();

    let stopping = pool.shutdown_now();
    assert_eq!(block_on(running).unwrap_err(), TaskError::PoolClosed, "the running task settles now");
    for q in queued {
        assert_eq!(block_on(q).unwrap_err(), TaskError::PoolClosed);
    }
    assert!(matches!(pool.try_submit(|| 0), Err(SubmitError::Closed(_))));
    block_on(stopping).unwrap();
    assert_eq!(ran.load(Ordering::SeqCst), 0, "queued bodies never ran");
    let s = pool.stats();
    assert_eq!((s.accepted, s.failed, s.completed), (6, 6, 0));
    assert_invariant(&pool);
}
