//! The queue as workers see it — three priority lanes and one mailbox per worker — plus the
//! sleep/wake protocol between submitters and workers.
//!
//! **Lanes.** One [`Ring`] per [`Priority`], each with `capacity` slots; the reservation count
//! `pushed - taken` covers what is reserved or waiting in all three, and admission only
//! proceeds while it is below `capacity`, so
//! `queueCapacity` bounds the levels together and a lane's own ring is never the one that is
//! full. A worker takes from its mailbox first, then the oldest item of the highest non-empty
//! lane (FIFO within a lane). The `Normal` lane's closed bit is the queue's: the other lanes
//! are made on first use (a pool that never uses them pays a pointer each), and a push into
//! them checks that bit after reserving its place.
//!
//! **Mailboxes** hold items for one worker alone (`broadcast` copies), made on the first
//! broadcast. A broadcast reserves a place in every mailbox before it pushes any, so it is
//! admitted whole or not at all.
//!
//! **Routes** hold items for one worker alone too: JS tasks whose transferred buffers were
//! posted to that worker (the handover protocol, `src/README.md`), made on the first route. A
//! worker takes its route after its mailbox and before the lanes. Routed items count against
//! `capacity` with the lanes: a lane push refuses while `pushed - taken + kept` is at
//! `capacity`, and the owner routes only into an empty queue below it.
//!
//! **Ahead** (message mode, `src/README.md`): a busy worker may take its next item before its
//! turn ([`Dispatch::pop_ahead`]). The item keeps its place — in its mailbox or route, or,
//! taken from a lane, in `kept` as a routed item does — until
//! [`Dispatch::free_place`] gives it back, when the worker starts it.
//!
//! **Sleep/wake** (in `dispatch/sleep.rs`, with polling and the hold). Workers sleep on one [`Futex`] (the *bell*) and announce themselves in
//! `sleepers` first; a submitter only touches the bell when somebody sleeps, so a busy pool
//! pays no wake-up cost. The protocol is the classic event count (see `src/README.md`):
//!
//! ```text
//!   worker                                  submitter
//!   seen = bell                             pushed += 1; lane.try_push(v)
//!   sleepers += 1            (SeqCst)       fence(SeqCst)
//!   if pushed == taken && mine == 0 && open: if sleepers > 0:
//!       bell.wait(seen)                         bell += 1; notify(1, or all for a broadcast)
//!   sleepers -= 1
//! ```
//!
//! Either the worker's re-check sees the reservation, or the submitter sees `sleepers > 0` and
//! bumps the bell, so `wait(seen)` returns at once or is woken: no lost wake-up. Nothing here
//! blocks a submitter, so it is safe on a browser main thread.

use crate::ring::{CachePadded, CapacityError, PushError, Ring};
use crate::sync::{fence, AtomicPtr, AtomicU32, AtomicUsize, Futex, Ordering};

mod sleep;
#[cfg(loom)]
pub use sleep::PollHold;

/// Broadcast copies that may wait for one worker at once; one more is refused as a full queue.
pub const MAILBOX_CAPACITY: usize = 16;

/// Most items routed to one worker at once (fewer if the queue's capacity is smaller).
const ROUTE_CAPACITY: usize = 1024;

/// Which lane a task waits in. A worker taking its next task takes the oldest task of the
/// highest level present. Nothing ages: a steady stream of `High` tasks keeps `Low` ones
/// waiting for as long as it lasts (strict priority; see docs/guide.md, "Priorities").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Priority {
    /// Taken before every `Normal` and `Low` task.
    High,
    /// The default.
    #[default]
    Normal,
    /// Taken only when no `High` or `Normal` task waits.
    Low,
}

/// A value made on first use by whichever thread needs it first (lock-free: a thread that
/// loses the race to install its value drops it), then never moved until the owner drops.
struct Lazy<V> {
    ptr: AtomicPtr<V>,
}

impl<V> Lazy<V> {
    fn new() -> Self {
        Lazy { ptr: AtomicPtr::new(std::ptr::null_mut()) }
    }

    fn get(&self) -> Option<&V> {
        // SeqCst, as the counts and the closed bit are: a worker that sees a reservation in a
        // mailbox must also see the mailbox (tests/loom.rs found the Acquire version exit early).
        let p = self.ptr.load(Ordering::SeqCst);
        // SAFETY: a non-null pointer was installed from `Box::into_raw` and stays valid until
        // `self` is dropped.
        (!p.is_null()).then(|| unsafe { &*p })
    }

    fn get_or_init(&self, make: impl FnOnce() -> V) -> &V {
        if let Some(v) = self.get() {
            return v;
        }
        let new = Box::into_raw(Box::new(make()));
        match self.ptr.compare_exchange(std::ptr::null_mut(), new, Ordering::SeqCst, Ordering::SeqCst) {
            // SAFETY: just installed; valid until `self` is dropped.
            Ok(_) => unsafe { &*new },
            Err(current) => {
                // SAFETY: `new` lost the race and was never shared; `current` is installed.
                drop(unsafe { Box::from_raw(new) });
                unsafe { &*current }
            }
        }
    }
}

impl<V> Drop for Lazy<V> {
    fn drop(&mut self) {
        let p = self.ptr.load(Ordering::Acquire);
        if !p.is_null() {
            // SAFETY: installed from `Box::into_raw`, and `&mut self` means nobody else uses it.
            drop(unsafe { Box::from_raw(p) });
        }
    }
}

/// One worker's own items.
struct Mailbox<T> {
    ring: Ring<T>,
    /// Reserved or waiting items; raised before a push, lowered after a pop. Never above the
    /// ring's capacity, so pushes into a reserved place cannot fail.
    len: CachePadded<AtomicUsize>,
}

impl<T> Mailbox<T> {
    fn new(capacity: usize) -> Self {
        Mailbox { ring: Ring::new(capacity).expect("checked when the queue was made"), len: CachePadded(AtomicUsize::new(0)) }
    }

    /// Reserves a place, or `false` if all are reserved or waiting.
    fn reserve(&self) -> bool {
        let mut n = self.len.0.load(Ordering::SeqCst);
        loop {
            if n >= self.ring.capacity() {
                return false;
            }
            match self.len.0.compare_exchange_weak(n, n + 1, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(_) => return true,
                Err(now) => n = now,
            }
        }
    }

    /// Gives back a reserved place whose item was not pushed.
    fn release(&self) {
        self.len.0.fetch_sub(1, Ordering::SeqCst);
    }

    /// Pushes into a reserved place.
    fn push_reserved(&self, value: T) {
        if self.ring.try_push(value).is_err() {
            unreachable!("a reserved place is free: len never exceeds the capacity");
        }
    }

    /// Takes the oldest item, looking at the count first (an empty `pop` costs a fence).
    fn take(&self) -> Option<T> {
        if self.len.0.load(Ordering::SeqCst) == 0 {
            return None;
        }
        let v = self.ring.pop()?;
        self.len.0.fetch_sub(1, Ordering::SeqCst);
        Some(v)
    }

    /// Takes the oldest item and keeps its place reserved until [`release`](Self::release).
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    fn take_keeping_place(&self) -> Option<T> {
        // Only the one worker of this mailbox pops, so `len` counts its kept places too.
        if self.len.0.load(Ordering::SeqCst) == 0 {
            return None;
        }
        self.ring.pop()
    }

    fn is_empty(&self) -> bool {
        self.len.0.load(Ordering::SeqCst) == 0
    }
}

/// Where an item taken ahead ([`Dispatch::pop_ahead`]) keeps its place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub enum Place {
    /// In `capacity`, through `kept`.
    Lane,
    /// In worker `i`'s mailbox.
    Mailbox(usize),
    /// In worker `i`'s route.
    Route(usize),
}

/// The submitters' side of the reservation count.
struct Reserved {
    pushed: AtomicUsize,
    taken_seen: AtomicUsize,
}

/// Why a broadcast was refused (its values were dropped).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BroadcastError {
    /// Some worker's mailbox has [`MAILBOX_CAPACITY`] items waiting.
    Full,
    /// Admission is closed.
    Closed,
}

pub struct Dispatch<T> {
    /// The default lane; its closed bit is the whole queue's.
    normal: Ring<T>,
    /// The other lanes, `capacity` slots each, made on first use.
    high: Lazy<Ring<T>>,
    low: Lazy<Ring<T>>,
    /// Places reserved by submitters, ever (wrapping), and a submitter's last look at `taken`
    /// (never ahead of it). Only submitters write this line, so admission does not pull a line
    /// workers write on every task unless the queue looks full.
    submit: CachePadded<Reserved>,
    /// Places given back, ever (wrapping): by a pop, or by a push refused after reserving.
    /// Invariant: `pushed - taken` >= the items in the lanes, and admission keeps it
    /// `<= capacity`.
    taken: CachePadded<AtomicUsize>,
    capacity: usize,
    /// One per worker, taken before the lanes; made on the first broadcast.
    mailboxes: Lazy<Vec<Mailbox<T>>>,
    /// One per worker, taken after its mailbox and before the lanes; made on the first route.
    routes: Lazy<Vec<Mailbox<T>>>,
    /// Places held outside the lanes: reserved or waiting in all routes (raised before a route
    /// push, lowered after a route pop), and lane items taken ahead and not yet begun (raised
    /// before the pop, lowered by `free_place`). Admission into the lanes reads it once.
    kept: AtomicUsize,
    workers: usize,
    mailbox_capacity: usize,
    /// Workers sleep on it; bumped by a submitter that saw `sleepers > 0`, and by `close`.
    bell: Futex,
    /// Workers between announcing themselves and waking up.
    sleepers: AtomicU32,
    /// Workers polling in `spin_until_work`. A submitter that sees one skips its wake-up: the
    /// poller looks at the queue again after lowering this count.
    spinners: AtomicU32,
}

impl<T> Dispatch<T> {
    /// A queue of `capacity` places across the lanes, and `workers` mailboxes of
    /// `mailbox_capacity` places each.
    pub fn new(capacity: usize, workers: usize, mailbox_capacity: usize) -> Result<Self, CapacityError> {
        Ring::<T>::new(mailbox_capacity)?;
        Ok(Dispatch {
            normal: Ring::new(capacity)?,
            high: Lazy::new(),
            low: Lazy::new(),
            submit: CachePadded(Reserved { pushed: AtomicUsize::new(0), taken_seen: AtomicUsize::new(0) }),
            taken: CachePadded(AtomicUsize::new(0)),
            capacity,
            mailboxes: Lazy::new(),
            routes: Lazy::new(),
            kept: AtomicUsize::new(0),
            workers,
            mailbox_capacity,
            bell: Futex::new(0),
            sleepers: AtomicU32::new(0),
            spinners: AtomicU32::new(0),
        })
    }

    /// Queue places across all lanes.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Places free in the lanes now: a snapshot, which workers taking tasks only raise (and
    /// other submitters lower).
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub fn free(&self) -> usize {
        let used = self.submit.0.pushed.load(Ordering::SeqCst).wrapping_sub(self.taken.0.load(Ordering::SeqCst));
        self.capacity.saturating_sub(self.kept()).saturating_sub(used)
    }


    /// Admission: lock-free, never waits; wakes one sleeping worker if there is one.
    pub fn try_push(&self, value: T, priority: Priority) -> Result<(), PushError<T>> {
        let Reserved { pushed, taken_seen } = &self.submit.0;
        let mut n = pushed.load(Ordering::SeqCst);
        // Places the routes and items taken ahead hold (0 in a pool that has neither).
        let limit = self.capacity.saturating_sub(self.kept());
        loop {
            if n.wrapping_sub(taken_seen.load(Ordering::Relaxed)) >= limit {
                let taken = self.taken.0.load(Ordering::SeqCst);
                taken_seen.store(taken, Ordering::Relaxed);
                if n.wrapping_sub(taken) >= limit {
                    // A closed queue says so even when it is also full.
                    return Err(if self.is_closed() { PushError::Closed(value) } else { PushError::Full(value) });
                }
            }
            match pushed.compare_exchange_weak(n, n.wrapping_add(1), Ordering::SeqCst, Ordering::SeqCst) {
                Ok(_) => break,
                Err(now) => n = now,
            }
        }
        // Reservation, then the closed bit; a worker reads them the other way round (`next`).
        // The fences make that a Dekker pair even where SeqCst accesses alone are modelled as
        // acquire/release (loom).
        if priority != Priority::Normal {
            fence(Ordering::SeqCst);
        }
        let pushed = match priority {
            Priority::Normal => self.normal.try_push(value),
            // Their rings are never closed: the queue's closed bit is checked after reserving,
            // so a worker that saw the close also sees the reservation and stays for the item.
            _ if self.is_closed() => Err(PushError::Closed(value)),
            Priority::High => self.lane(&self.high).try_push(value),
            Priority::Low => self.lane(&self.low).try_push(value),
        };
        if let Err(e) = pushed {
            self.taken.0.fetch_add(1, Ordering::SeqCst);
            return Err(e);
        }
        self.wake_for_lanes();
        Ok(())
    }

    fn lane<'a>(&self, lazy: &'a Lazy<Ring<T>>) -> &'a Ring<T> {
        lazy.get_or_init(|| Ring::new(self.capacity).expect("the normal lane has this capacity"))
    }

    /// Makes the lane of `priority` and the mailboxes now, if they do not exist yet (so that a
    /// caller can make them where running out of memory is handled).
    pub fn prepare(&self, priority: Priority, broadcast: bool) {
        match priority {
            Priority::High => drop(self.lane(&self.high)),
            Priority::Low => drop(self.lane(&self.low)),
            Priority::Normal => {}
        }
        if broadcast {
            self.boxes();
        }
    }

    /// Makes the routes now, if they do not exist yet (see [`prepare`](Self::prepare)).
    pub fn prepare_routes(&self) {
        self.route_boxes();
    }

    fn route_boxes(&self) -> &[Mailbox<T>] {
        self.routes.get_or_init(|| (0..self.workers).map(|_| Mailbox::new(self.capacity.min(ROUTE_CAPACITY))).collect())
    }

    /// Admits `value` for worker `index` alone (its route), or hands it back: that route is
    /// full, or the queue is closed. Reserve, fence, check closed, push: a broadcast's
    /// protocol for one mailbox, so a worker that saw the close stays for the item.
    pub fn try_route(&self, index: usize, value: T) -> Result<(), PushError<T>> {
        let m = &self.route_boxes()[index];
        if !m.reserve() {
            return Err(if self.is_closed() { PushError::Closed(value) } else { PushError::Full(value) });
        }
        self.kept.fetch_add(1, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        if self.is_closed() {
            m.release();
            self.kept.fetch_sub(1, Ordering::SeqCst);
            return Err(PushError::Closed(value));
        }
        m.push_reserved(value);
        // One bell for all: only waking every sleeper is sure to wake this worker.
        self.wake(crate::sync::WAKE_ALL);
        Ok(())
    }

    /// Places held outside the lanes (a snapshot): items routed to workers and not yet taken,
    /// and lane items taken ahead and not yet begun.
    pub fn kept(&self) -> usize {
        self.kept.load(Ordering::SeqCst)
    }

    /// Items routed to worker `index` and not yet taken, and how many its route holds.
    // Used by the wasm owner's routing (`web/owner/mod.rs`).
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub fn route_load(&self, index: usize) -> (usize, usize) {
        match self.route(index) {
            Some(m) => (m.len.0.load(Ordering::SeqCst), m.ring.capacity()),
            None => (0, self.capacity.min(ROUTE_CAPACITY)),
        }
    }

    /// Whether nothing is reserved or waiting in the lanes (a snapshot).
    // Used by the wasm owner's routing (`web/owner/mod.rs`).
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub fn lanes_empty(&self) -> bool {
        let taken = self.taken.0.load(Ordering::SeqCst);
        self.submit.0.pushed.load(Ordering::SeqCst) == taken
    }

    /// Takes an item from worker `index`'s route only (its worker died, or a forced shutdown).
    pub fn pop_route(&self, index: usize) -> Option<T> {
        let v = self.route(index)?.take()?;
        self.kept.fetch_sub(1, Ordering::SeqCst);
        Some(v)
    }

    fn route(&self, index: usize) -> Option<&Mailbox<T>> {
        self.routes.get().and_then(|b| b.get(index))
    }

    fn boxes(&self) -> &[Mailbox<T>] {
        self.mailboxes.get_or_init(|| (0..self.workers).map(|_| Mailbox::new(self.mailbox_capacity)).collect())
    }

    /// Admits `values[i]` into worker `i`'s mailbox, for every worker, or none of them (then
    /// the values are dropped). `values.len()` must be the worker count.
    pub fn try_broadcast(&self, values: Vec<T>) -> Result<(), BroadcastError> {
        let boxes = self.boxes();
        debug_assert_eq!(values.len(), boxes.len());
        let release = |upto: usize| boxes[..upto].iter().for_each(Mailbox::release);
        for (i, m) in boxes.iter().enumerate() {
            if !m.reserve() {
                release(i);
                return Err(if self.is_closed() { BroadcastError::Closed } else { BroadcastError::Full });
            }
        }
        // Checked after reserving: a worker that saw the close then sees the reservation and
        // stays to take it (see `next`), and one that did not see it will see the items.
        fence(Ordering::SeqCst);
        if self.is_closed() {
            release(boxes.len());
            return Err(BroadcastError::Closed);
        }
        for (m, v) in boxes.iter().zip(values) {
            m.push_reserved(v);
        }
        self.wake(crate::sync::WAKE_ALL);
        Ok(())
    }

    /// Takes worker `index`'s next item without waiting: its mailbox first, then the lanes,
    /// highest first. Any thread may take from the lanes (`usize::MAX`: no mailbox).
    pub fn pop(&self, index: usize) -> Option<T> {
        if let Some(v) = self.mailbox(index).and_then(Mailbox::take) {
            return Some(v);
        }
        if let Some(v) = self.pop_route(index) {
            return Some(v);
        }
        // The other lanes are looked at before popping: an empty `pop` costs a fence.
        let high = self.high.get().filter(|r| !r.is_empty());
        let low = || self.low.get().filter(|r| !r.is_empty());
        let v = high.and_then(Ring::pop).or_else(|| self.normal.pop()).or_else(|| low().and_then(Ring::pop))?;
        self.taken.0.fetch_add(1, Ordering::SeqCst);
        Some(v)
    }

    /// [`pop`](Self::pop) for worker `index` while it is busy (message mode): the item keeps
    /// its place until [`free_place`](Self::free_place) is given the returned [`Place`].
    pub fn pop_ahead(&self, index: usize) -> Option<(T, Place)> {
        if let Some(v) = self.mailbox(index).and_then(Mailbox::take_keeping_place) {
            return Some((v, Place::Mailbox(index)));
        }
        if let Some(v) = self.route(index).and_then(Mailbox::take_keeping_place) {
            return Some((v, Place::Route(index)));
        }
        // Kept before the pop frees the lane place, so admission never counts it free.
        self.kept.fetch_add(1, Ordering::SeqCst);
        match self.pop(usize::MAX) {
            Some(v) => Some((v, Place::Lane)),
            None => {
                self.kept.fetch_sub(1, Ordering::SeqCst);
                None
            }
        }
    }

    /// Gives back the place of an item [`pop_ahead`](Self::pop_ahead) took.
    pub fn free_place(&self, place: Place) {
        match place {
            Place::Lane => drop(self.kept.fetch_sub(1, Ordering::SeqCst)),
            Place::Mailbox(i) => self.mailbox(i).into_iter().for_each(Mailbox::release),
            Place::Route(i) => {
                self.route(i).into_iter().for_each(Mailbox::release);
                self.kept.fetch_sub(1, Ordering::SeqCst);
            }
        }
    }

    fn mailbox(&self, index: usize) -> Option<&Mailbox<T>> {
        self.mailboxes.get().and_then(|b| b.get(index))
    }

    /// Takes an item from worker `index`'s mailbox only (forced shutdown empties them).
    pub fn pop_mailbox(&self, index: usize) -> Option<T> {
        self.mailbox(index)?.take()
    }

    /// Whether worker `index` has nothing to take (a snapshot), for a worker that never waits
    /// (`Shared::turn`): once the queue is closed, it may exit.
    pub fn drained(&self, index: usize) -> bool {
        fence(Ordering::SeqCst);
        self.idle(index)
    }

    /// Whether worker `index` has nothing to take (a snapshot).
    fn idle(&self, index: usize) -> bool {
        // `taken` first: a reservation not yet given back then shows as `pushed != taken`.
        let taken = self.taken.0.load(Ordering::SeqCst);
        self.submit.0.pushed.load(Ordering::SeqCst) == taken
            && self.mailbox(index).is_none_or(Mailbox::is_empty)
            && self.route(index).is_none_or(Mailbox::is_empty)
    }

    /// Closes admission and wakes every sleeper so workers can drain and exit. `true` for the
    /// call that closed it.
    pub fn close(&self) -> bool {
        let first = self.normal.close();
        self.bell.bump_and_wake(crate::sync::WAKE_ALL);
        first
    }

    /// Whether [`close`](Self::close) was called.
    pub fn is_closed(&self) -> bool {
        self.normal.is_closed()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn an_item_taken_ahead_keeps_its_lane_place_until_freed() {
        let d = Dispatch::new(2, 2, 2).unwrap();
        d.try_push(1, Priority::Normal).unwrap();
        d.try_push(2, Priority::High).unwrap();
        // The highest level first, as `pop` takes it.
        let (v, place) = d.pop_ahead(0).unwrap();
        assert_eq!((v, place), (2, Place::Lane));
        assert!(matches!(d.try_push(3, Priority::Normal), Err(PushError::Full(3))), "its place is still taken");
        assert_eq!(d.free(), 0);
        // Worker 1 may still take what is in the lanes, and has nothing else.
        assert_eq!(d.pop(1), Some(1));
        assert!(d.idle(1));
        d.free_place(place);
        assert_eq!(d.free(), 2);
        d.try_push(3, Priority::Normal).unwrap();
        assert_eq!(d.pop_ahead(1), Some((3, Place::Lane)));
        assert_eq!(d.pop_ahead(1), None, "an empty queue keeps nothing");
        d.free_place(Place::Lane);
        assert_eq!(d.free(), 2);
    }

    #[test]
    fn a_broadcast_copy_taken_ahead_keeps_its_mailbox_place() {
        let d = Dispatch::new(4, 2, 1).unwrap();
        d.try_push(9, Priority::Normal).unwrap();
        d.try_broadcast(vec![1, 2]).unwrap();
        // The mailbox comes before the lanes.
        let (v, place) = d.pop_ahead(0).unwrap();
        assert_eq!((v, place), (1, Place::Mailbox(0)));
        assert_eq!(d.try_broadcast(vec![3, 4]), Err(BroadcastError::Full), "worker 0's one place is kept");
        assert!(!d.idle(0), "worker 0 still has its place taken");
        d.free_place(place);
        assert_eq!(d.pop(1), Some(2));
        d.try_broadcast(vec![3, 4]).unwrap();
        assert_eq!(d.pop(0), Some(3));
        assert_eq!(d.pop(0), Some(9));
    }
}
