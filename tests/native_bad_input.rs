#![cfg(not(target_arch = "wasm32"))]
//! Invalid pool sizes are refused with a `BuildError` naming the argument; nothing panics.

use ringpool::{BuildError, WorkerPool, MAX_QUEUE_CAPACITY, MAX_WORKERS};

#[test]
fn zero_workers() {
    let err = WorkerPool::new(0, 4).unwrap_err();
    assert_eq!(err, BuildError::Workers(0));
    assert!(err.to_string().contains("workers"), "{err}");
}

#[test]
fn zero_capacity() {
    let err = WorkerPool::new(2, 0).unwrap_err();
    assert_eq!(err, BuildError::QueueCapacity(0));
    assert!(err.to_string().contains("queueCapacity"), "{err}");
}

#[test]
fn absurd_sizes() {
    assert_eq!(WorkerPool::new(MAX_WORKERS + 1, 4).unwrap_err(), BuildError::Workers(MAX_WORKERS + 1));
    assert_eq!(WorkerPool::new(usize::MAX, 4).unwrap_err(), BuildError::Workers(usize::MAX));
    assert_eq!(WorkerPool::new(1, usize::MAX).unwrap_err(), BuildError::QueueCapacity(usize::MAX));
    assert_eq!(WorkerPool::new(1, MAX_QUEUE_CAPACITY + 1).unwrap_err(), BuildError::QueueCapacity(MAX_QUEUE_CAPACITY + 1));
}

#[test]
fn limits_are_usable() {
    let pool = WorkerPool::new(1, MAX_QUEUE_CAPACITY).unwrap();
    assert_eq!(pool.queue_capacity(), MAX_QUEUE_CAPACITY);
    assert_eq!(ringpool::block_on(pool.try_submit(|| 1).unwrap()).unwrap(), 1);
    ringpool::block_on(pool.shutdown()).unwrap();
}
