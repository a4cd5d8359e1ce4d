#![cfg(not(target_arch = "wasm32"))]
//! Nothing is kept for settled tasks by what outlives them: a long-lived `CancelToken` reused
//! for many tasks, or a deadline far in the future. Memory stays flat however many tasks went
//! through, and both still act on the tasks in flight.
//! (One test in its own file: the counting allocator sees the whole process.)

mod common;
use common::occupy_worker;
use ringpool::{block_on, CancelToken, TaskError, TaskOptions, WorkerPool};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Duration;

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

fn run(pool: &WorkerPool, options: &TaskOptions, n: usize) {
    for chunk in 0..n / 100 {
        let handles: Vec<_> = (0..100).map(|i| pool.try_submit_with(move || chunk * 100 + i, options.clone()).unwrap()).collect();
        for (i, h) in handles.into_iter().enumerate() {
            assert_eq!(block_on(h).unwrap(), chunk * 100 + i);
        }
    }
}

/// Bytes still allocated after `n` more tasks with `options` than before them.
fn growth(pool: &WorkerPool, options: &TaskOptions, n: usize) -> isize {
    run(pool, options, 2_000); // warm-up: the pool's, the timer's and the allocator's buffers
    let before = LIVE.load(Ordering::SeqCst);
    run(pool, options, n);
    LIVE.load(Ordering::SeqCst) - before
}

#[test]
fn a_reused_token_or_a_far_deadline_keeps_nothing_for_settled_tasks() {
    let pool = WorkerPool::new(2, 128).unwrap();
    let token = CancelToken::new();
    // Each settled task used to leave its hook or timer entry and, through a Weak, its
    // allocation: 3.5 MB for the token's 20,000.
    let grown = growth(&pool, &TaskOptions { cancel: Some(token.clone()), timeout: None, ..TaskOptions::default() }, 20_000);
    assert!(grown < 64 * 1024, "20,000 settled tasks left {grown} bytes behind on the token");
    let far = TaskOptions { cancel: None, timeout: Some(Duration::from_secs(600)), ..TaskOptions::default() };
    let grown = growth(&pool, &far, 20_000);
    assert!(grown < 64 * 1024, "20,000 settled tasks left {grown} bytes behind in the timer");

    // A near deadline still times out a queued task among all those far ones.
    let (release0, blocker0) = occupy_worker(&pool);
    let (release1, blocker1) = occupy_worker(&pool);
    let queued = pool.try_submit_with(|| 1, TaskOptions { cancel: None, timeout: Some(Duration::from_millis(20)), ..TaskOptions::default() }).unwrap();
    assert_eq!(block_on(queued).unwrap_err(), TaskError::TimedOut);
    release0.open();
    release1.open();
    block_on(blocker0).unwrap();
    block_on(blocker1).unwrap();

    // The same token still cancels what is in flight.
    let (release, blocker) = occupy_worker(&pool);
    let (release2, blocker2) = occupy_worker(&pool);
    let queued = pool.try_submit_with(|| 1, TaskOptions { cancel: Some(token.clone()), timeout: None, ..TaskOptions::default() }).unwrap();
    token.cancel();
    assert_eq!(block_on(queued).unwrap_err(), TaskError::Cancelled);
    release.open();
    release2.open();
    block_on(blocker).unwrap();
    block_on(blocker2).unwrap();
    block_on(pool.shutdown()).unwrap();
}
