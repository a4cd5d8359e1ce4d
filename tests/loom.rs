//! loom models of the ring, admission vs close, the worker sleep/wake protocol, and the
//! completion/doorbell handoff to the owner thread.
//! Run: `RUSTFLAGS="--cfg loom" cargo test --release --test loom` (scripts/test.sh).
#![cfg(loom)]

use loom::sync::Arc;
use loom::thread;
use ringpool::ring::{PushError, Ring};
use ringpool::{Completions, Dispatch, Futex, Priority};

fn model(f: impl Fn() + Sync + Send + 'static) {
    model_bounded(3, f)
}

fn model_bounded(preemptions: usize, f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    b.preemption_bound = Some(preemptions);
    // The ring spins (with loom's yield) while another thread is between its CAS and its
    // stamp store; those paths are long but finite.
    b.max_branches = 100_000;
    b.check(f);
}

/// Two producers race for the last slot: exactly one wins, the loser gets its value back.
#[test]
fn ring_producers_race_for_one_slot() {
    model(|| {
        let ring = Arc::new(Ring::new(1).unwrap());
        let producers: Vec<_> = (1..=2u32)
            .map(|v| {
                let ring = ring.clone();
                thread::spawn(move || match ring.try_push(v) {
                    Ok(()) => Some(v),
                    Err(PushError::Full(back)) => {
                        assert_eq!(back, v);
                        None
                    }
                    Err(PushError::Closed(_)) => unreachable!(),
                })
            })
            .collect();
        let won: Vec<u32> = producers.into_iter().filter_map(|p| p.join().unwrap()).collect();
        assert_eq!(won.len(), 1);
        assert_eq!(ring.pop(), Some(won[0]));
        assert_eq!(ring.pop(), None);
    });
}

/// A producer and a consumer across a lap boundary of a one-slot ring: what was pushed is
/// popped once, in order, never torn.
#[test]
fn ring_producer_consumer_wraparound() {
    model(|| {
        let ring = Arc::new(Ring::new(1).unwrap());
        let producer = {
            let ring = ring.clone();
            thread::spawn(move || (1..=2u32).filter(|&v| ring.try_push(v).is_ok()).collect::<Vec<_>>())
        };
        let consumer = {
            let ring = ring.clone();
            thread::spawn(move || (0..2).filter_map(|_| ring.pop()).collect::<Vec<_>>())
        };
        let pushed = producer.join().unwrap();
        let mut popped = consumer.join().unwrap();
        popped.extend(std::iter::from_fn(|| ring.pop()));
        assert_eq!(pushed, popped);
    });
}

/// A push racing `close`: it either lands before the close (and is drained) or is refused
/// with its value handed back. Never both, never lost.
#[test]
fn admission_and_close_are_ordered() {
    model(|| {
        let ring = Arc::new(Ring::new(2).unwrap());
        let producer = {
            let ring = ring.clone();
            thread::spawn(move || ring.try_push(7u8).is_ok())
        };
        let closer = {
            let ring = ring.clone();
            thread::spawn(move || assert!(ring.close()))
        };
        let accepted = producer.join().unwrap();
        closer.join().unwrap();
        assert!(ring.is_closed());
        assert_eq!(ring.pop().is_some(), accepted);
        assert_eq!(ring.try_push(8), Err(PushError::Closed(8)));
    });
}

/// A worker that finds the ring empty goes to sleep; a push must wake it (a lost wake-up is a
/// loom deadlock), and close must let it exit after draining.
#[test]
fn sleeping_worker_is_woken_and_drains_before_exit() {
    model(|| {
        let d = Arc::new(Dispatch::new(2, 1, 1).unwrap());
        let worker = {
            let d = d.clone();
            thread::spawn(move || {
                let mut got = Vec::new();
                while let Some(v) = d.next(0, None) {
                    got.push(v);
                }
                got
            })
        };
        let accepted = d.try_push(1u8, Priority::Normal).is_ok();
        d.close();
        let got = worker.join().unwrap();
        assert!(accepted);
        assert_eq!(got, vec![1]);
    });
}

/// A wake-up with no close to mask a lost one: a worker polls once before it sleeps, and a
/// submitter that sees it polling skips its notify; the worker must still take the item
/// ("Polling workers" in src/README.md). A lost wake-up is a loom deadlock.
#[test]
fn a_polling_worker_takes_the_item_without_a_wake_up() {
    model(|| {
        let d = Arc::new(Dispatch::new(2, 1, 1).unwrap());
        let worker = {
            let d = d.clone();
            thread::spawn(move || d.next(0, None))
        };
        assert!(d.try_push(1u8, Priority::Normal).is_ok());
        assert_eq!(worker.join().unwrap(), Some(1));
        d.close();
    });
}

/// Worker 0 taking its hold as after settling a task, then its next item.
fn held_worker(d: &Arc<Dispatch<u8>>) -> thread::JoinHandle<Option<u8>> {
    let d = d.clone();
    thread::spawn(move || {
        let hold = d.hold_poll(true);
        d.next(0, Some(hold))
    })
}

/// A worker that holds its poll across settling a task ("Polling workers" in src/README.md):
/// the caller's next item, pushed while the hold counts the worker as polling, skips its
/// notify; the worker's next look must take it. A lost wake-up is a loom deadlock.
#[test]
fn a_worker_holding_its_poll_takes_the_next_item() {
    model(|| {
        let d = Arc::new(Dispatch::new(2, 1, 1).unwrap());
        let worker = held_worker(&d);
        assert!(d.try_push(1u8, Priority::Normal).is_ok());
        assert_eq!(worker.join().unwrap(), Some(1));
        d.close();
    });
}

/// A second item pushed while one worker holds its poll and another sleeps: the holder takes
/// one, and the other is not stranded behind the skipped notify (the holder's `pass_on`, after
/// it lowers the count, wakes the sleeper). Each worker takes exactly one. The first item is
/// queued before the workers start, which keeps the model small enough to explore.
#[test]
fn a_held_poll_passes_a_second_item_on_to_a_sleeper() {
    model(|| {
        let d = Arc::new(Dispatch::new(2, 2, 1).unwrap());
        assert!(d.try_push(1u8, Priority::Normal).is_ok());
        let holder = held_worker(&d);
        let sleeper = {
            let d = d.clone();
            thread::spawn(move || d.next(1, None))
        };
        assert!(d.try_push(2u8, Priority::Normal).is_ok());
        let mut got = [holder.join().unwrap(), sleeper.join().unwrap()];
        got.sort();
        assert_eq!(got, [Some(1), Some(2)]);
        d.close();
    });
}

/// A worker thread taking items until `next` says to exit; returns how many it took.
fn counting_worker(d: &Arc<Dispatch<u8>>) -> thread::JoinHandle<usize> {
    let d = d.clone();
    thread::spawn(move || {
        let mut n = 0;
        while d.next(0, None).is_some() {
            n += 1;
        }
        n
    })
}

/// Admission racing close with a live worker: every accepted item is consumed exactly once,
/// from whichever lane it went into.
#[test]
fn accepted_equals_consumed_under_close() {
    model(|| {
        let d = Arc::new(Dispatch::new(1, 1, 1).unwrap());
        let worker = counting_worker(&d);
        let producer = {
            let d = d.clone();
            thread::spawn(move || [(0u8, Priority::High), (1, Priority::Low)].into_iter().filter(|&(v, p)| d.try_push(v, p).is_ok()).count())
        };
        d.close();
        let accepted = producer.join().unwrap();
        assert_eq!(worker.join().unwrap(), accepted);
    });
}

/// A broadcast racing close: admitted whole (the worker takes its copy before it exits, even
/// if it saw the close first) or refused; never stranded in a mailbox.
#[test]
fn broadcast_racing_close_is_taken_or_refused() {
    model(|| {
        let d = Arc::new(Dispatch::new(1, 1, 1).unwrap());
        let worker = counting_worker(&d);
        let broadcaster = {
            let d = d.clone();
            thread::spawn(move || usize::from(d.try_broadcast(vec![7u8]).is_ok()))
        };
        d.close();
        let accepted = broadcaster.join().unwrap();
        assert_eq!(worker.join().unwrap(), accepted);
    });
}

/// A routed item (handed-over buffers, src/README.md "Handovers") racing close: taken by its
/// worker or refused, never stranded; and a routed item keeps its worker from exiting.
#[test]
fn routed_item_racing_close_is_taken_or_refused() {
    model(|| {
        let d = Arc::new(Dispatch::new(1, 1, 1).unwrap());
        d.prepare_routes();
        let worker = counting_worker(&d);
        let router = {
            let d = d.clone();
            thread::spawn(move || usize::from(d.try_route(0, 7u8).is_ok()))
        };
        d.close();
        let accepted = router.join().unwrap();
        assert_eq!(worker.join().unwrap(), accepted);
    });
}

/// The completion path: two workers settle a task each and ring only if they found the stack
/// empty; the owner reads the bell, takes everything, and sleeps only while the bell still
/// shows what it read (`Atomics.waitAsync` semantics). No completion may be stranded — a
/// lost ring would leave the owner asleep forever, which loom reports as a deadlock.
#[test]
fn completions_are_never_stranded() {
    model(|| {
        let stack = Arc::new(Completions::new());
        let bell = Arc::new(Futex::new(0));
        let settlers: Vec<_> = (0..2u32)
            .map(|v| {
                let (stack, bell) = (stack.clone(), bell.clone());
                thread::spawn(move || {
                    if stack.push(v) {
                        bell.bump_and_wake(1);
                    }
                })
            })
            .collect();
        let mut got = Vec::new();
        loop {
            let seen = bell.load();
            got.extend(stack.take_all());
            if got.len() == 2 {
                break;
            }
            bell.wait(seen);
        }
        for s in settlers {
            s.join().unwrap();
        }
        got.sort();
        assert_eq!(got, vec![0, 1]);
    });
}

/// The owner's catch (src/README.md): after admitting into an idle pool the owner watches the
/// stack itself for a moment (one look here), and a push that must ring while it catches rings
/// the catch bell, not the doorbell. Then the owner takes the stack and falls back to the
/// doorbell. A ring that went to the catch for an item that take missed would leave the owner
/// asleep: loom reports a deadlock (it does if the owner takes the stack before it lowers the
/// flag).
#[test]
fn a_catching_owner_strands_no_completion() {
    model(|| {
        let stack = Arc::new(Completions::new());
        let (bell, catch_bell) = (Arc::new(Futex::new(0)), Arc::new(Futex::new(0)));
        stack.begin_catch();
        let settlers: Vec<_> = (0..2u32)
            .map(|v| {
                let (stack, bell, catch_bell) = (stack.clone(), bell.clone(), catch_bell.clone());
                thread::spawn(move || {
                    if stack.push(v) {
                        if stack.catching() { &catch_bell } else { &bell }.bump_and_wake(1);
                    }
                })
            })
            .collect();
        let mut got = Vec::new();
        if !stack.is_empty() {
            got.extend(stack.take_all());
        }
        stack.end_catch();
        got.extend(stack.take_all());
        // Then one take per ring, as the message doorbell drains once per message.
        let mut seen = 0;
        while got.len() < 2 {
            bell.wait(seen);
            seen = bell.load();
            got.extend(stack.take_all());
        }
        for s in settlers {
            s.join().unwrap();
        }
        got.sort();
        assert_eq!(got, vec![0, 1]);
    });
}

/// Two `submitAll` members complete quietly and the last one to finish rings; a plain task
/// completes alongside. Whatever the interleaving, the owner's drain loop receives all three
/// (a quiet item left without a ring would be a deadlock here).
#[test]
fn quiet_completions_are_never_stranded() {
    batch_model(3, &[true, true], false);
}

/// The same with a plain task's completion racing the batch (fewer preemptions: four threads).
#[test]
fn quiet_and_plain_completions_are_never_stranded() {
    batch_model(2, &[true, true], true);
}

/// One member pushes loudly (the owner was still admitting the batch), the other quietly. If
/// the loud one pushes first onto the empty stack, rings, and the owner drains before the
/// quiet one pushes, only a ring after the last member counts itself done reaches the quiet
/// item. The first version skipped that ring for a member that had already rung at its push:
/// this model deadlocks on it (and `submitAll` hung in Node about once in 3,000 batches).
#[test]
fn loud_member_pushed_first() {
    batch_model(3, &[false, true], false);
}

/// Members (`quiet[i]`: pushed quietly or loudly) deliver as `web::backend::deliver` does,
/// through `Completions::push_member`; `plain` adds a task outside the batch.
fn batch_model(preemptions: usize, quiet: &'static [bool], plain: bool) {
    model_bounded(preemptions, move || {
        let stack = Arc::new(Completions::new());
        let bell = Arc::new(Futex::new(0));
        let pending = Arc::new(loom::sync::atomic::AtomicUsize::new(quiet.len()));
        let mut settlers: Vec<_> = quiet
            .iter()
            .enumerate()
            .map(|(v, &q)| {
                let (stack, bell, pending) = (stack.clone(), bell.clone(), pending.clone());
                thread::spawn(move || {
                    let last = || pending.fetch_sub(1, loom::sync::atomic::Ordering::SeqCst) == 1;
                    if stack.push_member(v as u32, q, last) {
                        bell.bump_and_wake(1);
                    }
                })
            })
            .collect();
        if plain {
            let (stack, bell, v) = (stack.clone(), bell.clone(), quiet.len() as u32);
            settlers.push(thread::spawn(move || {
                if stack.push(v) {
                    bell.bump_and_wake(1);
                }
            }));
        }
        let want = settlers.len();
        let mut got = Vec::new();
        loop {
            let seen = bell.load();
            got.extend(stack.take_all());
            if got.len() == want {
                break;
            }
            bell.wait(seen);
        }
        for s in settlers {
            s.join().unwrap();
        }
        got.sort();
        assert_eq!(got, (0..want as u32).collect::<Vec<_>>());
    });
}

/// One settler's completions reach the owner in the order they were pushed, across takes
/// that race the pushes.
#[test]
fn completions_keep_push_order() {
    model(|| {
        let stack = Arc::new(Completions::new());
        let settler = {
            let stack = stack.clone();
            thread::spawn(move || {
                for v in 1..=3u32 {
                    stack.push(v);
                }
            })
        };
        let mut got = stack.take_all();
        settler.join().unwrap();
        got.extend(stack.take_all());
        assert_eq!(got, vec![1, 2, 3]);
    });
}
