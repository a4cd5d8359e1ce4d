#![cfg(not(target_arch = "wasm32"))]
//! Never more than `workers` bodies at once: 24 tasks on 3 workers.

mod common;
use common::assert_invariant;
use ringpool::{block_on, WorkerPool};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};

#[test]
fn peak_running_is_at_most_workers() {
    let pool = WorkerPool::new(3, 32).unwrap();
    let now = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    // The first three tasks meet at a barrier: they can only pass if 3 run at once.
    let barrier = Arc::new(Barrier::new(3));
    let handles: Vec<_> = (0..24)
        .map(|i| {
            let (now, peak, barrier) = (now.clone(), peak.clone(), barrier.clone());
            pool.try_submit(move || {
                let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                peak.fetch_max(n, Ordering::SeqCst);
                if i < 3 {
                    barrier.wait();
                }
                for _ in 0..2000 {
                    std::hint::spin_loop();
                }
                now.fetch_sub(1, Ordering::SeqCst);
                i
            })
            .unwrap()
        })
        .collect();
    for (i, h) in handles.into_iter().enumerate() {
        assert_eq!(block_on(h).unwrap(), i);
    }
    block_on(pool.shutdown()).unwrap();
    assert_eq!(peak.load(Ordering::SeqCst), 3);
    assert!(pool.peak_running() <= 3 && pool.peak_running() >= 3, "peak {}", pool.peak_running());
    assert_invariant(&pool);
}
