//! `cargo bench --bench ring`: ringpool's ring against crossbeam's `ArrayQueue`, measured side by
//! side in one run. Rounds alternate between the two so machine noise hits both alike; the
//! median round is reported. Prints ns per (try_push + pop) pair and the ratio.

use crossbeam_queue::ArrayQueue;
use ringpool::ring::Ring;
use std::hint::black_box;
use std::time::Instant;

const OPS: u64 = 2_000_000;
const ROUNDS: usize = 15;
const CAP: usize = 256;

fn ring_round(ring: &Ring<u64>) -> f64 {
    let start = Instant::now();
    for i in 0..OPS {
        let _ = ring.try_push(black_box(i));
        black_box(ring.pop());
    }
    start.elapsed().as_nanos() as f64 / OPS as f64
}

fn crossbeam_round(q: &ArrayQueue<u64>) -> f64 {
    let start = Instant::now();
    for i in 0..OPS {
        let _ = q.push(black_box(i));
        black_box(q.pop());
    }
    start.elapsed().as_nanos() as f64 / OPS as f64
}

fn contended<P: Fn(u64) + Sync, C: Fn() -> bool + Sync>(push: P, pop: C) -> f64 {
    let per = OPS / 4;
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| (0..per).for_each(&push));
            s.spawn(|| {
                let mut got = 0;
                while got < per {
                    if pop() {
                        got += 1;
                    } else {
                        std::hint::spin_loop();
                    }
                }
            });
        }
    });
    start.elapsed().as_nanos() as f64 / (2 * per) as f64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let ring = Ring::new(CAP).unwrap();
    let q = ArrayQueue::new(CAP);
    let (mut r, mut c) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        r.push(ring_round(&ring));
        c.push(crossbeam_round(&q));
    }
    let (r, c) = (median(r), median(c));
    println!("uncontended try_push+pop: ringpool {r:.2} ns, crossbeam ArrayQueue {c:.2} ns, ratio {:.3}", r / c);

    let (mut r2, mut c2) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        r2.push(contended(
            |i| while ring.try_push(i).is_err() { std::hint::spin_loop() },
            || ring.pop().is_some(),
        ));
        c2.push(contended(|i| while q.push(i).is_err() { std::hint::spin_loop() }, || q.pop().is_some()));
    }
    let (r2, c2) = (median(r2), median(c2));
    println!("2 producers / 2 consumers, per item: ringpool {r2:.1} ns, crossbeam ArrayQueue {c2:.1} ns, ratio {:.3}", r2 / c2);
}
