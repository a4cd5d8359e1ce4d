#![cfg(not(target_arch = "wasm32"))]
//! A long-lived `CancelToken` reused for many tasks holds nothing for the tasks that settled:
//! memory stays flat however many tasks it has seen, and it still cancels the ones in flight.
//! (Alone in its file: the counting allocator sees the whole process.)

mod common;
use common::occupy_worker;
use ringpool::{block_on, CancelToken, TaskError, TaskOptions, WorkerPool};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

struct Counting;
static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: forwards to `System` unchanged; only counts bytes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size() as isize, Ordering::SeqCst);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size() as isize, Ordering::SeqCst);
        System.dealloc(p, l)
    }
}

#[global_allocator]
static A: Counting = Counting;

fn run(pool: &WorkerPool, token: &CancelToken, n: usize) {
    for chunk in 0..n / 100 {
        let handles: Vec<_> = (0..100)
            .map(|i| pool.try_submit_with(move || chunk * 100 + i, TaskOptions { cancel: Some(token.clone()), timeout: None }).unwrap())
            .collect();
        for (i, h) in handles.into_iter().enumerate() {
            assert_eq!(block_on(h).unwrap(), chunk * 100 + i);
        }
    }
}

#[test]
fn a_reused_token_keeps_nothing_for_settled_tasks_and_still_cancels() {
    let pool = WorkerPool::new(2, 128).unwrap();
    let token = CancelToken::new();
    run(&pool, &token, 2_000); // warm-up: the pool's and the allocator's own buffers
    let before = LIVE.load(Ordering::SeqCst);
    run(&pool, &token, 20_000);
    let grown = LIVE.load(Ordering::SeqCst) - before;
    // Each settled task used to leave its hook and (through a Weak) its allocation: ~2 MB here.
    assert!(grown < 64 * 1024, "20,000 settled tasks left {grown} bytes behind on the token");

    // The same token still cancels what is in flight.
    let (release, blocker) = occupy_worker(&pool);
    let (release2, blocker2) = occupy_worker(&pool);
    let queued = pool.try_submit_with(|| 1, TaskOptions { cancel: Some(token.clone()), timeout: None }).unwrap();
    token.cancel();
    assert_eq!(block_on(queued).unwrap_err(), TaskError::Cancelled);
    release.open();
    release2.open();
    block_on(blocker).unwrap();
    block_on(blocker2).unwrap();
    block_on(pool.shutdown()).unwrap();
}
