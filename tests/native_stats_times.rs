//! `stats().run_time` and `wait_time`: percentiles of known task times.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::occupy_worker;
use ringpool::{block_on, WorkerPool};
use std::time::{Duration, Instant};

/// Busy-waits `d` (sleeping could overshoot by a whole scheduler tick); returns how long it
/// really ran.
fn spin(d: Duration) -> Duration {
    let start = Instant::now();
    while start.elapsed() < d {
        std::hint::spin_loop();
    }
    start.elapsed()
}

/// The nearest-rank percentile of `sorted`, as the histogram defines it.
fn rank(sorted: &[Duration], q: f64) -> Duration {
    sorted[((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1]
}

/// Within the histogram's 1/16, plus 500 µs for what lies between the pool's clock readings
/// and the body's own.
fn close_to(got: Duration, want: Duration) -> bool {
    let slack = want / 16 + Duration::from_micros(500);
    got + slack >= want && got <= want + slack
}

#[test]
fn run_time_percentiles_match_the_task_times_the_bodies_measured() {
    let pool = WorkerPool::new(2, 128).unwrap();
    assert_eq!(pool.stats().run_time.count, 0);
    // 80 tasks of ~2 ms, 15 of ~10 ms, 5 of ~40 ms; each reports how long it really ran.
    let plan: Vec<u64> = std::iter::repeat_n(2, 80).chain(std::iter::repeat_n(10, 15)).chain(std::iter::repeat_n(40, 5)).collect();
    let handles: Vec<_> = plan.iter().map(|&ms| pool.try_submit(move || spin(Duration::from_millis(ms))).unwrap()).collect();
    let mut took: Vec<Duration> = handles.into_iter().map(|h| block_on(h).unwrap()).collect();
    took.sort();
    let s = pool.stats();
    let t = s.run_time;
    let want = (rank(&took, 0.5), rank(&took, 0.9), rank(&took, 0.99), took[99]);
    assert_eq!(t.count, 100, "{t:?}");
    assert!(close_to(t.p50, want.0), "p50 {t:?} vs {want:?}");
    assert!(close_to(t.p90, want.1), "p90 {t:?} vs {want:?}");
    assert!(close_to(t.p99, want.2), "p99 {t:?} vs {want:?}");
    assert!(close_to(t.max, want.3) && t.p50 <= t.p90 && t.p90 <= t.p99 && t.p99 <= t.max, "max {t:?} vs {want:?}");
    let mean = took.iter().sum::<Duration>() / 100;
    assert!(close_to(t.mean, mean), "mean {t:?}, want about {mean:?}");
    assert_eq!(s.wait_time.count, 100);
}

#[test]
fn wait_time_counts_time_in_the_queue() {
    let pool = WorkerPool::new(1, 8).unwrap();
    let (release, blocker) = occupy_worker(&pool);
    let queued: Vec<_> = (0..4).map(|_| pool.try_submit(|| ()).unwrap()).collect();
    // Held for at least 30 ms (measured here, so no guess at scheduling is involved).
    let held = Instant::now();
    spin(Duration::from_millis(30));
    // Read before opening: the queued tasks start once it opens, so they waited at least this
    // long; read after, it would also count any stall of this thread past their start.
    let held = held.elapsed();
    release.open();
    block_on(blocker).unwrap();
    for h in queued {
        block_on(h).unwrap();
    }
    let w = pool.stats().wait_time;
    assert_eq!(w.count, 5, "the blocker and the 4 queued: {w:?}");
    // The blocker waited ~0; the 4 queued waited at least `held` each.
    assert!(w.p50 >= held - held / 16, "p50 {w:?}, held {held:?}");
    assert!(w.max >= held - held / 16 && w.p99 <= w.max, "{w:?}");
    let r = pool.stats().run_time;
    assert!(r.max >= held - held / 16, "the blocker ran as long as it was held: {r:?}");
}
