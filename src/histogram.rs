//! Run-time and wait-time histograms: fixed log buckets in microseconds, with 8 sub-buckets per
//! power of two (as HdrHistogram with 3 significant bits), so a percentile is off by at most
//! 1/16 of its value. Constant memory (one pair of arrays per worker), uncontended atomic adds
//! per sample, nothing allocated per task. Each worker records into its own histograms;
//! `stats()` adds them up.

use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

/// Sub-buckets per power of two.
const SUB_BITS: u32 = 3;
const SUB: usize = 1 << SUB_BITS;
/// Largest power of two kept apart (2^40 µs ≈ 12.7 days); longer samples share the top bucket.
const TOP_EXP: u32 = 40;
const BUCKETS: usize = SUB + (TOP_EXP - SUB_BITS + 1) as usize * SUB;

/// Bucket of a sample of `us` microseconds: values below 8 have one bucket each; above, the
/// power of two and the next three bits pick it.
fn bucket(us: u64) -> usize {
    if us < SUB as u64 {
        return us as usize;
    }
    let exp = (63 - us.leading_zeros()).min(TOP_EXP);
    if exp == TOP_EXP && us >> TOP_EXP > 1 {
        return BUCKETS - 1;
    }
    let sub = ((us >> (exp - SUB_BITS)) as usize) & (SUB - 1);
    SUB + (exp - SUB_BITS) as usize * SUB + sub
}

/// The smallest value of bucket `i` and its width.
fn bounds(i: usize) -> (u64, u64) {
    if i < SUB {
        return (i as u64, 1);
    }
    let exp = ((i - SUB) / SUB) as u32 + SUB_BITS;
    let sub = ((i - SUB) % SUB) as u64;
    let width = 1u64 << (exp - SUB_BITS);
    ((SUB as u64 + sub) * width, width)
}

/// Samples of one kind (run time or wait time) recorded by one worker.
pub(crate) struct Histogram {
    counts: Box<[AtomicU64]>,
    sum_us: AtomicU64,
    max_us: AtomicU64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram { counts: (0..BUCKETS).map(|_| AtomicU64::new(0)).collect(), sum_us: AtomicU64::new(0), max_us: AtomicU64::new(0) }
    }
}

impl Histogram {
    pub(crate) fn record(&self, us: u64) {
        self.counts[bucket(us)].fetch_add(1, Ordering::Relaxed);
        self.sum_us.fetch_add(us, Ordering::Relaxed);
        self.max_us.fetch_max(us, Ordering::Relaxed);
    }
}

/// One worker's samples.
#[derive(Default)]
struct WorkerTimes {
    run: Histogram,
    wait: Histogram,
}

/// A pool's run-time and wait-time histograms, one pair per worker, written by that worker only.
///
/// They are the largest part of a pool (about 5 KB per worker), and the wasm memory never
/// shrinks, so [`release`](Self::release) frees them as soon as the pool has stopped, keeping
/// their summaries. Readers may run on another thread meanwhile: each announces itself in
/// `readers`, and the block is freed by whoever leaves it unread last (the releaser, or the
/// last reader out), never under a reader.
pub(crate) struct PoolTimes {
    /// The block while the pool runs; null once released.
    live: AtomicPtr<Vec<WorkerTimes>>,
    /// The released block until nobody reads it.
    retired: AtomicPtr<Vec<WorkerTimes>>,
    readers: AtomicUsize,
    /// `(run, wait)` summaries, set just before `live` is cleared.
    last: OnceLock<(TimeStats, TimeStats)>,
}

impl PoolTimes {
    pub(crate) fn new(workers: usize) -> Self {
        let block: Vec<WorkerTimes> = (0..workers).map(|_| WorkerTimes::default()).collect();
        PoolTimes {
            live: AtomicPtr::new(Box::into_raw(Box::new(block))),
            retired: AtomicPtr::new(std::ptr::null_mut()),
            readers: AtomicUsize::new(0),
            last: OnceLock::new(),
        }
    }

    fn worker(&self, index: usize) -> Option<&WorkerTimes> {
        let p = self.live.load(Ordering::Acquire);
        // SAFETY: only workers record, and the block is released after every worker stopped,
        // so a non-null `live` seen by a worker stays valid while it records.
        (!p.is_null()).then(|| unsafe { &(&*p)[index] })
    }

    /// Worker `index`: a body ran for `us` microseconds.
    pub(crate) fn record_run(&self, index: usize, us: u64) {
        if let Some(w) = self.worker(index) {
            w.run.record(us);
        }
    }

    /// Worker `index`: a task waited `us` microseconds before its body started.
    pub(crate) fn record_wait(&self, index: usize, us: u64) {
        if let Some(w) = self.worker(index) {
            w.wait.record(us);
        }
    }

    /// `(run, wait)` over every worker.
    pub(crate) fn summaries(&self) -> (TimeStats, TimeStats) {
        self.readers.fetch_add(1, Ordering::SeqCst);
        let p = self.live.load(Ordering::SeqCst);
        let s = if p.is_null() {
            self.last.get().copied().unwrap_or_default()
        } else {
            // SAFETY: announced in `readers` before loading a non-null `live`: the releaser
            // then leaves the block in `retired` and the last reader out frees it.
            let block = unsafe { &*p };
            (summarize(block.iter().map(|w| &w.run)), summarize(block.iter().map(|w| &w.wait)))
        };
        if self.readers.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.free_retired();
        }
        s
    }

    /// Keeps the summaries and frees the histograms. Call once no worker records any more
    /// (every worker has exited).
    pub(crate) fn release(&self) {
        let p = self.live.load(Ordering::SeqCst);
        if p.is_null() {
            return;
        }
        // SAFETY: `live` is still set, so the block is allocated.
        let block = unsafe { &*p };
        let _ = self.last.set((summarize(block.iter().map(|w| &w.run)), summarize(block.iter().map(|w| &w.wait))));
        if self.live.compare_exchange(p, std::ptr::null_mut(), Ordering::SeqCst, Ordering::SeqCst).is_ok() {
            self.retired.store(p, Ordering::SeqCst);
            if self.readers.load(Ordering::SeqCst) == 0 {
                self.free_retired();
            }
        }
    }

    fn free_retired(&self) {
        let p = self.retired.swap(std::ptr::null_mut(), Ordering::SeqCst);
        if !p.is_null() {
            // SAFETY: `p` came from `Box::into_raw` in `new`, left `live` before it was put here,
            // and the swap makes this the only call that frees it.
            drop(unsafe { Box::from_raw(p) });
        }
    }
}

impl Drop for PoolTimes {
    fn drop(&mut self) {
        for p in [*self.live.get_mut(), *self.retired.get_mut()] {
            if !p.is_null() {
                // SAFETY: owned blocks from `Box::into_raw`; nobody else holds the pool now.
                drop(unsafe { Box::from_raw(p) });
            }
        }
    }
}

/// A summary of durations: how many, their mean, percentiles and maximum.
///
/// Percentiles come from log buckets: each is within 1/16 of the true value (exact below
/// 8 µs), and never above `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TimeStats {
    /// Samples.
    pub count: u64,
    /// Their mean.
    pub mean: Duration,
    /// Median.
    pub p50: Duration,
    /// 90th percentile.
    pub p90: Duration,
    /// 99th percentile.
    pub p99: Duration,
    /// Largest sample.
    pub max: Duration,
}

/// Adds up histograms (one per worker) and summarises them.
pub(crate) fn summarize<'a>(parts: impl Iterator<Item = &'a Histogram> + Clone) -> TimeStats {
    let mut counts = [0u64; BUCKETS];
    let (mut sum, mut max) = (0u64, 0u64);
    for h in parts {
        for (c, a) in counts.iter_mut().zip(h.counts.iter()) {
            *c += a.load(Ordering::Relaxed);
        }
        sum += h.sum_us.load(Ordering::Relaxed);
        max = max.max(h.max_us.load(Ordering::Relaxed));
    }
    let count: u64 = counts.iter().sum();
    if count == 0 {
        return TimeStats::default();
    }
    let percentile = |q: f64| {
        // The sample at rank ceil(q * count), as nearest-rank percentiles are defined.
        let rank = ((q * count as f64).ceil() as u64).clamp(1, count);
        let mut seen = 0;
        for (i, &c) in counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (low, width) = bounds(i);
                // The middle of the bucket, but never above the largest sample.
                let mid = if width == 1 { low } else { low + width / 2 };
                return Duration::from_micros(mid.min(max));
            }
        }
        Duration::from_micros(max)
    };
    TimeStats {
        count,
        mean: Duration::from_micros(sum / count),
        p50: percentile(0.50),
        p90: percentile(0.90),
        p99: percentile(0.99),
        max: Duration::from_micros(max),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_cover_every_value_in_order() {
        let mut last = 0;
        for us in (0..5000u64).chain([1 << 20, (1 << 20) + 1, 1 << 39, (1 << 40) - 1, 1 << 40, u64::MAX]) {
            let b = bucket(us);
            assert!(b < BUCKETS, "{us} -> {b}");
            assert!(b >= last, "buckets grow with the value");
            last = b;
            let (low, width) = bounds(b);
            if us < 1 << 41 && b < BUCKETS - 1 {
                assert!(low <= us && us < low + width, "{us} in [{low}, {})", low + width);
                assert!(width * 8 <= low.max(8), "width {width} at {low}: within 1/8");
            }
        }
    }

    #[test]
    fn percentiles_of_known_samples() {
        let h = Histogram::default();
        // 90 samples of 1 ms, 9 of 10 ms, 1 of 100 ms.
        for _ in 0..90 {
            h.record(1_000);
        }
        for _ in 0..9 {
            h.record(10_000);
        }
        h.record(100_000);
        let s = summarize(std::iter::once(&h));
        assert_eq!(s.count, 100);
        assert_eq!(s.max, Duration::from_millis(100));
        assert_eq!(s.mean, Duration::from_micros((90 * 1_000 + 9 * 10_000 + 100_000) / 100));
        let near = |d: Duration, us: u64| (d.as_micros() as i64 - us as i64).unsigned_abs() * 16 <= us;
        assert!(near(s.p50, 1_000), "{:?}", s.p50);
        assert!(near(s.p90, 1_000), "{:?}", s.p90);
        assert!(near(s.p99, 10_000), "{:?}", s.p99);
        assert_eq!(summarize(std::iter::once(&Histogram::default())), TimeStats::default());
    }

    #[test]
    fn released_times_keep_their_summaries() {
        let t = PoolTimes::new(2);
        t.record_run(0, 10);
        t.record_wait(1, 3);
        let before = t.summaries();
        t.release();
        t.record_run(0, 99); // a late sample is dropped, not written into freed memory
        assert_eq!(t.summaries(), before);
        assert_eq!((before.0.count, before.1.count), (1, 1));
        t.release();
    }

    #[test]
    fn parts_add_up() {
        let (a, b) = (Histogram::default(), Histogram::default());
        a.record(3);
        b.record(5);
        b.record(7);
        let s = summarize([&a, &b].into_iter());
        assert_eq!((s.count, s.p50, s.max), (3, Duration::from_micros(5), Duration::from_micros(7)));
    }
}
