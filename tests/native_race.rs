#![cfg(not(target_arch = "wasm32"))]
//! 64 producers × 64 attempts racing 16 concurrent shutdowns: every accepted task runs once and
//! is delivered once; nothing refused runs.

mod common;
use common::assert_invariant;
use ringpool::{block_on, SubmitError, WorkerPool};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Barrier};

#[test]
fn producers_racing_shutdowns_lose_nothing() {
    for round in 0..5 {
        let pool = Arc::new(WorkerPool::new(4, 64).unwrap());
        let executed = Arc::new(AtomicU64::new(0));
        let start = Arc::new(Barrier::new(64 + 16));
        let producers: Vec<_> = (0..64u64)
            .map(|p| {
                let (pool, executed, start) = (pool.clone(), executed.clone(), start.clone());
                std::thread::spawn(move || {
                    start.wait();
                    let mut accepted = Vec::new();
                    let mut refused = 0u64;
                    for a in 0..64u64 {
                        let e = executed.clone();
                        let id = p * 64 + a;
                        match pool.try_submit(move || {
                            e.fetch_add(1, Ordering::SeqCst);
                            id
                        }) {
                            Ok(h) => accepted.push((id, h)),
                            Err(SubmitError::QueueFull(_) | SubmitError::Closed(_)) => refused += 1,
                            Err(e) => panic!("unexpected {e:?}"),
                        }
                    }
                    (accepted, refused)
                })
            })
            .collect();
        let closers: Vec<_> = (0..16)
            .map(|_| {
                let (pool, start) = (pool.clone(), start.clone());
                std::thread::spawn(move || {
                    start.wait();
                    block_on(pool.shutdown())
                })
            })
            .collect();
        let mut accepted = 0u64;
        let mut delivered = 0u64;
        let mut refused = 0u64;
        for p in producers {
            let (handles, r) = p.join().unwrap();
            refused += r;
            for (id, h) in handles {
                accepted += 1;
                assert_eq!(block_on(h).unwrap(), id);
                delivered += 1;
            }
        }
        for c in closers {
            c.join().unwrap().unwrap();
        }
        let s = pool.stats();
        assert_eq!(accepted + refused, 64 * 64, "round {round}");
        assert_eq!(executed.load(Ordering::SeqCst), accepted, "round {round}: executed");
        assert_eq!(delivered, accepted, "round {round}: delivered");
        assert_eq!((s.accepted, s.completed, s.rejected), (accepted, accepted, refused), "round {round}");
        assert_invariant(&pool);
    }
}
