#![cfg(not(target_arch = "wasm32"))]
//! A result is never out before the pool has counted it: `stats()` read right after a handle
//! resolves counts that task as completed (or failed), and its run time is recorded. The
//! window this guards is between a worker writing the result and counting it; more workers
//! than cores let the scheduler preempt a worker there, so many rounds find it if it exists.

use ringpool::{block_on, WorkerPool};

#[test]
fn stats_read_after_a_result_count_it() {
    let workers = 4 * std::thread::available_parallelism().map_or(2, |n| n.get());
    let pool = WorkerPool::new(workers, 64).unwrap();
    for i in 1..=30_000u64 {
        let v = block_on(pool.try_submit(move || i).unwrap()).unwrap();
        assert_eq!(v, i);
        let s = pool.stats();
        assert_eq!(s.completed, i, "round {i}: the result arrived before the pool counted it: {s:?}");
        assert_eq!(s.run_time.count, i, "round {i}: the result arrived before its run time was recorded");
        assert_eq!(s.queued + s.running, 0, "round {i}: {s:?}");
    }
    let failed = block_on(pool.try_submit(|| -> u64 { panic!("counted too") }).unwrap());
    assert!(failed.is_err());
    assert_eq!(pool.stats().panicked, 1);
    let _ = block_on(pool.shutdown());
}
