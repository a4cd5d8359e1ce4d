//! The owner's catch: after admitting a task into an otherwise idle pool, an owner thread that
//! may block (Node's, Deno's and Bun's main threads, a worker that owns a pool; never a page's
//! thread) waits for the result for up to [`CATCH_US`] in a microtask, instead of going back to
//! its event loop for the worker's doorbell message: it polls the completion stack for
//! [`POLL_US`], then sleeps on the catch bell, which the worker notifies instead of posting the
//! message. A caller awaiting one short task at a time then gets its result without a
//! message's wake-up ("The owner's catch", src/README.md).

use crate::web::clock::clock;
use crate::web::delivery::Delivery;
use std::cell::Cell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// How long one catch waits (µs): a no-op task's round trip through a polling worker takes a
/// few µs, the message doorbell's ~10–20 µs more (src/README.md, "The owner's catch").
const CATCH_US: f64 = 40.0;
/// How much of that the owner polls before it sleeps: a worker on another core answers within
/// it; one that shares the owner's core only runs once the owner sleeps.
const POLL_US: f64 = 10.0;
/// A catch that took longer than this counts as a miss for the back-off, even though it got
/// the result: the doorbell's message would have been about as quick. On this project's VM
/// there are stretches where the owner and the worker do not run at once (a shared core, or
/// the host running both vCPUs on one); each catch then polled in vain and slept until
/// the worker's notify got the owner a core again, 35–40 µs in all, against ~20 µs for the
/// message (src/README.md, "The owner's catch").
const SLOW_US: f64 = 20.0;
/// Most solo admissions the owner passes over after a catch that found nothing (or was slow):
/// each miss in a row doubles the count (1, 2, 4, …) up to this, and a quick catch resets it,
/// so tasks that outlast a catch cost the owner one catch (≤ `POLL_US` of CPU, ≤ `CATCH_US` of
/// its event loop) per `MAX_SKIP` of them.
const MAX_SKIP: u32 = 64;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = queueMicrotask)]
    fn queue_microtask(f: &js_sys::Function);
}

/// One owner's catch state; the owner (`Main`) queues it after an admission and drains after
/// it.
pub(super) struct Catch {
    /// This owner thread may poll: it may block, and workers ring it with messages.
    enabled: bool,
    /// A catch is queued and has not run yet.
    queued: Cell<bool>,
    /// Solo admissions still to pass over before the next catch.
    skip: Cell<u32>,
    /// What `skip` becomes after the next catch that finds nothing (doubles up to `MAX_SKIP`).
    backoff: Cell<u32>,
    /// What the queued microtask runs: the owner's catch, then its drain.
    run: Closure<dyn FnMut()>,
}

impl Catch {
    pub(super) fn new(run: Closure<dyn FnMut()>, enabled: bool) -> Self {
        Catch { enabled, queued: Cell::new(false), skip: Cell::new(0), backoff: Cell::new(1), run }
    }

    /// After an admission on the owner thread: queues a catch if this task is the only one in
    /// flight (a caller awaiting one task at a time) and none is queued already.
    pub(super) fn admitted(&self, in_flight: impl FnOnce() -> u64) {
        if !self.enabled || self.queued.get() || in_flight() > 1 {
            return;
        }
        if self.skip.get() > 0 {
            self.skip.set(self.skip.get() - 1);
            return;
        }
        self.queued.set(true);
        // A microtask: submissions made in the same turn are all admitted first.
        queue_microtask(self.run.as_ref().unchecked_ref());
    }

    /// Waits until something is delivered or `CATCH_US` pass; the owner drains next. A push
    /// that must ring meanwhile notifies the catch bell instead (`Completions::begin_catch`,
    /// `ring`); the drain after `end_catch` takes every push.
    pub(super) fn catch<T>(&self, d: &Delivery<T>) {
        self.queued.set(false);
        d.head.begin_catch();
        let start = clock();
        let elapsed_us = || (clock() - start) * 1000.0;
        let caught = loop {
            // The bell first: a push after the look below has changed it, so a wait returns.
            let seen = d.catch_bell.load();
            if !d.head.is_empty() {
                break true;
            }
            let elapsed = elapsed_us();
            if elapsed >= CATCH_US {
                break false;
            }
            if elapsed >= POLL_US {
                d.catch_bell.wait_timeout(seen, CATCH_US - elapsed);
            }
        };
        d.head.end_catch();
        if caught && elapsed_us() < SLOW_US {
            self.backoff.set(1);
        } else {
            self.skip.set(self.backoff.get());
            self.backoff.set((self.backoff.get() * 2).min(MAX_SKIP));
        }
    }
}
