#![cfg(not(target_arch = "wasm32"))]
//! A panic becomes `TaskError::Panicked` with message and location; the same worker then runs
//! the next task. A task's own error value comes back untouched.

mod common;
use common::assert_invariant;
use ringpool::{block_on, worker_id, TaskError, WorkerPool};

#[test]
fn panic_is_reported_and_the_same_worker_goes_on() {
    let pool = WorkerPool::new(1, 4).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let failing = pool
        .try_submit(move || {
            tx.send(worker_id().unwrap()).unwrap();
            let n = 7;
            if n == 7 {
                panic!("boom {n}");
            }
        })
        .unwrap();
    match block_on(failing).unwrap_err() {
        TaskError::Panicked { message, location } => {
            assert_eq!(message, "boom 7");
            let loc = location.expect("location recorded");
            assert!(loc.starts_with("tests/native_panic.rs:"), "{loc}");
        }
        other => panic!("expected a panic, got {other:?}"),
    }
    let first = rx.recv().unwrap();
    let second = block_on(pool.try_submit(|| worker_id().unwrap()).unwrap()).unwrap();
    assert_eq!(first, second, "the panicking worker must survive and run the next task");
    block_on(pool.shutdown()).unwrap();
    let s = pool.stats();
    assert_eq!((s.panicked, s.failed, s.completed, s.crashed), (1, 1, 1, 0));
    assert_invariant(&pool);
}

#[derive(Debug, PartialEq)]
struct AppError {
    code: u32,
    detail: String,
}

#[test]
fn task_error_is_preserved() {
    let pool = WorkerPool::new(2, 4).unwrap();
    let h = pool.try_submit(|| -> Result<u8, AppError> { Err(AppError { code: 7, detail: "bad pixel".into() }) }).unwrap();
    assert_eq!(block_on(h).unwrap(), Err(AppError { code: 7, detail: "bad pixel".into() }));
    block_on(pool.shutdown()).unwrap();
    assert_eq!(pool.stats().completed, 1);
}
