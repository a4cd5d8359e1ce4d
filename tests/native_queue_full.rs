#![cfg(not(target_arch = "wasm32"))]
//! A full queue answers at once and hands the closure back; shutdown then drains what was
//! accepted, and later submissions are refused as closed.

mod common;
use common::{assert_invariant, occupy_worker};
use ringpool::{block_on, SubmitError, WorkerPool};

#[test]
fn queue_full_then_drain_on_shutdown() {
    let pool = WorkerPool::new(1, 2).unwrap();
    let (release, blocker) = occupy_worker(&pool);
    let a = pool.try_submit(|| "a").unwrap();
    let b = pool.try_submit(|| "b").unwrap();
    match pool.try_submit(|| "c") {
        Err(SubmitError::QueueFull(f)) => assert_eq!(f(), "c", "the closure comes back intact"),
        other => panic!("expected QueueFull, got {other:?}"),
    }
    assert_eq!(pool.stats().queued, 2);
    assert_eq!(pool.stats().rejected, 1);

    let shutdown = pool.shutdown();
    assert!(matches!(pool.try_submit(|| "d"), Err(SubmitError::Closed(_))));
    release.open();
    block_on(shutdown).unwrap();
    block_on(blocker).unwrap();
    assert_eq!(block_on(a).unwrap(), "a");
    assert_eq!(block_on(b).unwrap(), "b");
    let s = pool.stats();
    assert_eq!((s.accepted, s.completed, s.rejected), (3, 3, 2));
    assert_invariant(&pool);
}
