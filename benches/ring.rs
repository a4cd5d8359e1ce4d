//! `cargo bench --bench ring` (criterion): ringpool's ring against `crossbeam_queue::ArrayQueue`
//! and `std::sync::mpsc::sync_channel`, all with capacity 256, per operation:
//! - `uncontended`: one `try_push` + one `pop` on one thread, 1000 pairs per iteration;
//! - `2p2c`: two producers and two consumers moving 100 000 items (std's receiver is shared
//!   behind a `Mutex`, which is what two consumers of an mpsc channel need).
//!
//! Criterion measures one queue after the other, seconds apart, and this machine's speed drifts
//! by more than the queues differ (the same build gave ringpool/ArrayQueue 0.96–1.27×
//! uncontended in three runs). So after criterion, `RING_PAIRED=1` (bench/run.mjs sets it) also
//! times both queues in alternating rounds and writes the median of the per-round ratios to
//! `target/criterion/paired.json`; bench/run.mjs checks the target with those and prints
//! criterion's ns/op beside them.

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use crossbeam_queue::ArrayQueue;
use ringpool::ring::Ring;
use std::hint::black_box;
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

const CAP: usize = 256;
const PAIRS: u64 = 1000;
const ITEMS: u64 = 100_000;

trait Queue: Sync {
    fn push(&self, v: u64) -> bool;
    fn pop(&self) -> Option<u64>;
}

impl Queue for Ring<u64> {
    fn push(&self, v: u64) -> bool {
        self.try_push(v).is_ok()
    }
    fn pop(&self) -> Option<u64> {
        Ring::pop(self)
    }
}

impl Queue for ArrayQueue<u64> {
    fn push(&self, v: u64) -> bool {
        ArrayQueue::push(self, v).is_ok()
    }
    fn pop(&self) -> Option<u64> {
        ArrayQueue::pop(self)
    }
}

struct StdChannel(mpsc::SyncSender<u64>, Mutex<mpsc::Receiver<u64>>);

impl Queue for StdChannel {
    fn push(&self, v: u64) -> bool {
        self.0.try_send(v).is_ok()
    }
    fn pop(&self) -> Option<u64> {
        self.1.lock().unwrap().try_recv().ok()
    }
}

fn std_channel() -> StdChannel {
    let (tx, rx) = mpsc::sync_channel(CAP);
    StdChannel(tx, Mutex::new(rx))
}

fn uncontended(q: &dyn Queue) {
    for i in 0..PAIRS {
        black_box(q.push(black_box(i)));
        black_box(q.pop());
    }
}

fn two_by_two(q: &dyn Queue) -> Duration {
    let per = ITEMS / 2;
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                for i in 0..per {
                    while !q.push(i) {
                        // 4 threads may share 2 cores here: yield rather than spin out a slice.
                        std::thread::yield_now();
                    }
                }
            });
            s.spawn(|| {
                let mut got = 0;
                while got < per {
                    if q.pop().is_some() {
                        got += 1;
                    } else {
                        std::thread::yield_now();
                    }
                }
            });
        }
    });
    start.elapsed()
}

fn queues() -> Vec<(&'static str, Box<dyn Queue>)> {
    vec![
        ("ringpool", Box::new(Ring::<u64>::new(CAP).unwrap())),
        ("crossbeam ArrayQueue", Box::new(ArrayQueue::<u64>::new(CAP))),
        ("std sync_channel", Box::new(std_channel())),
    ]
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("uncontended");
    g.throughput(Throughput::Elements(PAIRS));
    for (name, q) in queues() {
        g.bench_function(BenchmarkId::from_parameter(name), |b| b.iter(|| uncontended(q.as_ref())));
    }
    g.finish();

    let mut g = c.benchmark_group("2p2c");
    g.throughput(Throughput::Elements(ITEMS));
    g.sample_size(20);
    for (name, q) in queues() {
        g.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter_custom(|iters| (0..iters).map(|_| two_by_two(q.as_ref())).sum())
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    targets = bench
}

/// Rounds of the paired comparison; each times ringpool and ArrayQueue back to back (the
/// order alternating between rounds).
const PAIRED_ROUNDS: usize = 51;

fn paired() {
    let median = |mut xs: Vec<f64>| {
        xs.sort_by(f64::total_cmp);
        xs[xs.len() / 2]
    };
    let (ring, aq): (Box<dyn Queue>, Box<dyn Queue>) = (Box::new(Ring::<u64>::new(CAP).unwrap()), Box::new(ArrayQueue::<u64>::new(CAP)));
    let time_uncontended = |q: &dyn Queue| {
        let start = Instant::now();
        for _ in 0..200 {
            uncontended(q);
        }
        start.elapsed().as_secs_f64()
    };
    let mut ratios = (Vec::new(), Vec::new());
    for round in 0..=PAIRED_ROUNDS {
        let pair = |f: &dyn Fn(&dyn Queue) -> f64| {
            if round % 2 == 0 {
                let r = f(ring.as_ref());
                r / f(aq.as_ref())
            } else {
                let a = f(aq.as_ref());
                f(ring.as_ref()) / a
            }
        };
        let u = pair(&time_uncontended);
        let c = pair(&|q| two_by_two(q).as_secs_f64());
        if round > 0 {
            ratios.0.push(u);
            ratios.1.push(c);
        }
    }
    let (u, c) = (median(ratios.0), median(ratios.1));
    println!("paired (median of {PAIRED_ROUNDS} alternating rounds), ringpool / ArrayQueue: uncontended {u:.3}, 2p2c {c:.3}");
    let json = format!("{{\"rounds\":{PAIRED_ROUNDS},\"uncontended\":{u},\"2p2c\":{c}}}\n");
    std::fs::create_dir_all("target/criterion").and_then(|_| std::fs::write("target/criterion/paired.json", json)).expect("write paired.json");
}

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    if std::env::var_os("RING_PAIRED").is_some() {
        paired();
    }
}
