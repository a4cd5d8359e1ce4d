//! A bounded multi-producer multi-consumer ring with a *closed* bit.
//!
//! This is Dmitry Vyukov's bounded MPMC queue: every slot carries a sequence *stamp* that says
//! whether it is ready to be written (stamp == tail) or read (stamp == head + 1) in the current
//! lap, so producers and consumers only contend on one CAS each and never take a lock. The
//! layout of `head`/`tail` follows crossbeam-channel's array flavour, which adds a *mark bit*
//! to `tail`: [`Ring::close`] sets it with one `fetch_or`, and because every push must win a
//! CAS on `tail` *without* the bit, admission and close are totally ordered. A push either
//! lands before the close (and will be drained) or sees the bit and gets its value back.
//!
//! Word layout of `head` and `tail` (`mark_bit = (cap + 1).next_power_of_two()`):
//!
//! ```text
//!   | lap (multiples of one_lap = 2 * mark_bit) | mark (tail only) | index (< cap) |
//! ```
//!
//! See `src/README.md` for the protocol notes. All the queue's `unsafe` lives in this file.

use crate::sync::{fence, spin_hint, AtomicUsize, Ordering, UnsafeCell};
use std::mem::MaybeUninit;

/// Why [`Ring::try_push`] refused a value; the value is handed back either way.
#[derive(PartialEq, Eq)]
pub enum PushError<T> {
    /// Every slot holds an item nobody has popped yet.
    Full(T),
    /// [`Ring::close`] was called; nothing will be accepted again.
    Closed(T),
}

impl<T> PushError<T> {
    /// The value that was not pushed.
    pub fn into_inner(self) -> T {
        match self {
            PushError::Full(v) | PushError::Closed(v) => v,
        }
    }
}

impl<T> std::fmt::Debug for PushError<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PushError::Full(_) => "Full(..)",
            PushError::Closed(_) => "Closed(..)",
        })
    }
}

/// Keeps `head` and `tail` on separate cache lines so producers and consumers do not
/// false-share.
#[cfg_attr(any(target_arch = "x86_64", target_arch = "aarch64"), repr(align(128)))]
#[cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64")), repr(align(64)))]
#[derive(Debug)]
pub(crate) struct CachePadded<T>(pub(crate) T);

/// Exponential backoff for the retry paths, as crossbeam's: a lost CAS spins a little longer
/// each time; waiting for another thread's stamp eventually yields the core.
struct Backoff(u32);

impl Backoff {
    const SPIN_LIMIT: u32 = 6;
    const YIELD_LIMIT: u32 = 10;

    #[inline]
    fn spin(&mut self) {
        #[cfg(loom)]
        spin_hint();
        #[cfg(not(loom))]
        for _ in 0..1u32 << self.0.min(Self::SPIN_LIMIT) {
            spin_hint();
        }
        self.0 = (self.0 + 1).min(Self::SPIN_LIMIT + 1);
    }

    /// Out of line: the uncontended paths never get here, and keeping `yield_now` out of
    /// `try_push`/`pop` lets them inline without saving registers around a call.
    #[cold]
    #[inline(never)]
    fn snooze(&mut self) {
        #[cfg(loom)]
        spin_hint();
        #[cfg(not(loom))]
        if self.0 <= Self::SPIN_LIMIT {
            for _ in 0..1u32 << self.0 {
                spin_hint();
            }
        } else {
            std::thread::yield_now();
        }
        self.0 = (self.0 + 1).min(Self::YIELD_LIMIT);
    }
}

struct Slot<T> {
    /// `pos` of the producer that may write it (== pos), or `pos + 1` once written so the
    /// consumer at `pos` may read it; the consumer then sets it to `pos + one_lap`.
    stamp: AtomicUsize,
    /// Initialised exactly when `stamp == pos + 1` for the `pos` this slot serves.
    value: UnsafeCell<MaybeUninit<T>>,
}

/// Bounded MPMC queue; see the module docs for the algorithm.
pub struct Ring<T> {
    /// Position of the next pop: `{lap, index}`. Only moved forward by a successful CAS.
    head: CachePadded<AtomicUsize>,
    /// Position of the next push: `{lap, mark, index}`. The mark bit, once set, stays set.
    tail: CachePadded<AtomicUsize>,
    buffer: Box<[Slot<T>]>,
    cap: usize,
    /// `(cap + 1).next_power_of_two()`: the closed bit in `tail`, above every index.
    mark_bit: usize,
    /// `2 * mark_bit`: what a position advances by when it wraps around the buffer.
    one_lap: usize,
}

// SAFETY: values move between threads through the ring (so `T: Send`); a slot's value is only
// touched by the single thread that won the CAS for its position.
unsafe impl<T: Send> Send for Ring<T> {}
unsafe impl<T: Send> Sync for Ring<T> {}

/// The ring's capacity was 0 or too large for the position word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CapacityError(pub usize);

impl std::fmt::Display for CapacityError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ring capacity must be in 1..={}, got {}", Ring::<()>::MAX_CAPACITY, self.0)
    }
}

impl std::error::Error for CapacityError {}

impl<T> Ring<T> {
    /// Largest capacity accepted: leaves at least 2^8 laps in a 32-bit position word.
    pub const MAX_CAPACITY: usize = 1 << 22;

    /// A ring of `cap` slots.
    pub fn new(cap: usize) -> Result<Self, CapacityError> {
        if cap == 0 || cap > Self::MAX_CAPACITY {
            return Err(CapacityError(cap));
        }
        let mark_bit = (cap + 1).next_power_of_two();
        let buffer = (0..cap)
            .map(|i| Slot { stamp: AtomicUsize::new(i), value: UnsafeCell::new(MaybeUninit::uninit()) })
            .collect();
        Ok(Ring {
            head: CachePadded(AtomicUsize::new(0)),
            tail: CachePadded(AtomicUsize::new(0)),
            buffer,
            cap,
            mark_bit,
            one_lap: mark_bit * 2,
        })
    }

    /// The slot at `index`, which the caller took from a position word.
    #[inline]
    fn slot(&self, index: usize) -> &Slot<T> {
        debug_assert!(index < self.buffer.len());
        // SAFETY: every position's index is below `cap` (a push or pop at index `cap - 1` moves
        // on to index 0 of the next lap, and the mark bit is masked off), and `buffer` holds
        // exactly `cap` slots. Skipping the bounds check keeps the hot path as short as
        // `ArrayQueue`'s.
        unsafe { self.buffer.get_unchecked(index) }
    }

    /// Pushes `value` unless the ring is full or closed. Never blocks or waits for space.
    #[inline]
    pub fn try_push(&self, value: T) -> Result<(), PushError<T>> {
        let mut backoff = Backoff(0);
        let mut tail = self.tail.0.load(Ordering::Relaxed);
        loop {
            if tail & self.mark_bit != 0 {
                return Err(PushError::Closed(value));
            }
            let index = tail & (self.mark_bit - 1);
            let lap = tail & !(self.one_lap - 1);
            let next = if index + 1 < self.cap { tail + 1 } else { lap.wrapping_add(self.one_lap) };
            let slot = self.slot(index);
            let stamp = slot.stamp.load(Ordering::Acquire);
            if tail == stamp {
                // The slot is free in this lap: claim the position.
                match self.tail.0.compare_exchange_weak(tail, next, Ordering::SeqCst, Ordering::Relaxed) {
                    Ok(_) => {
                        // SAFETY: winning the CAS for `tail` gives this thread sole access to
                        // the slot until it publishes the stamp below.
                        slot.value.with_mut(|p| unsafe { (*p).write(value) });
                        slot.stamp.store(tail + 1, Ordering::Release);
                        return Ok(());
                    }
                    Err(t) => {
                        tail = t;
                        backoff.spin();
                    }
                }
            } else if stamp.wrapping_add(self.one_lap) == tail + 1 {
                // The slot still holds last lap's value: full, unless a pop is under way.
                fence(Ordering::SeqCst);
                let head = self.head.0.load(Ordering::Relaxed);
                if head.wrapping_add(self.one_lap) == tail {
                    return Err(PushError::Full(value));
                }
                backoff.spin();
                tail = self.tail.0.load(Ordering::Relaxed);
            } else {
                // Another producer claimed this position; catch up.
                backoff.snooze();
                tail = self.tail.0.load(Ordering::Relaxed);
            }
        }
    }

    /// Pops the oldest value, or `None` if the ring is empty (closed or not).
    #[inline]
    pub fn pop(&self) -> Option<T> {
        let mut backoff = Backoff(0);
        let mut head = self.head.0.load(Ordering::Relaxed);
        loop {
            let index = head & (self.mark_bit - 1);
            let lap = head & !(self.one_lap - 1);
            let slot = self.slot(index);
            let stamp = slot.stamp.load(Ordering::Acquire);
            if head + 1 == stamp {
                let next = if index + 1 < self.cap { head + 1 } else { lap.wrapping_add(self.one_lap) };
                match self.head.0.compare_exchange_weak(head, next, Ordering::SeqCst, Ordering::Relaxed) {
                    Ok(_) => {
                        // SAFETY: the stamp said the slot was written for `head`, and winning
                        // the CAS makes this thread its only reader.
                        let value = slot.value.with_mut(|p| unsafe { (*p).assume_init_read() });
                        slot.stamp.store(head.wrapping_add(self.one_lap), Ordering::Release);
                        return Some(value);
                    }
                    Err(h) => {
                        head = h;
                        backoff.spin();
                    }
                }
            } else if stamp == head {
                // Not written yet: empty, unless a push is between its CAS and its stamp.
                fence(Ordering::SeqCst);
                let tail = self.tail.0.load(Ordering::Relaxed);
                if tail & !self.mark_bit == head {
                    return None;
                }
                backoff.spin();
                head = self.head.0.load(Ordering::Relaxed);
            } else {
                backoff.snooze();
                head = self.head.0.load(Ordering::Relaxed);
            }
        }
    }

    /// Refuses every later push. Returns `true` for the call that closed it.
    pub fn close(&self) -> bool {
        self.tail.0.fetch_or(self.mark_bit, Ordering::SeqCst) & self.mark_bit == 0
    }

    /// Whether [`Ring::close`] has been called.
    pub fn is_closed(&self) -> bool {
        self.tail.0.load(Ordering::SeqCst) & self.mark_bit != 0
    }

    /// Whether no value is waiting (a snapshot; it may change at once).
    pub fn is_empty(&self) -> bool {
        let head = self.head.0.load(Ordering::SeqCst);
        let tail = self.tail.0.load(Ordering::SeqCst);
        tail & !self.mark_bit == head
    }

    /// Number of values waiting (a consistent snapshot of head and tail).
    pub fn len(&self) -> usize {
        loop {
            let tail = self.tail.0.load(Ordering::SeqCst);
            let head = self.head.0.load(Ordering::SeqCst);
            if self.tail.0.load(Ordering::SeqCst) == tail {
                let hix = head & (self.mark_bit - 1);
                let tix = tail & (self.mark_bit - 1);
                return if hix < tix {
                    tix - hix
                } else if hix > tix {
                    self.cap - hix + tix
                } else if tail & !self.mark_bit == head {
                    0
                } else {
                    self.cap
                };
            }
        }
    }

    /// Number of slots.
    pub fn capacity(&self) -> usize {
        self.cap
    }
}

impl<T> Drop for Ring<T> {
    fn drop(&mut self) {
        while self.pop().is_some() {}
    }
}

impl<T> std::fmt::Debug for Ring<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ring")
            .field("capacity", &self.cap)
            .field("len", &self.len())
            .field("closed", &self.is_closed())
            .finish()
    }
}

#[cfg(all(test, not(loom), not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_capacity() {
        assert_eq!(Ring::<u8>::new(0).unwrap_err(), CapacityError(0));
        assert!(Ring::<u8>::new(Ring::<u8>::MAX_CAPACITY + 1).is_err());
    }

    #[test]
    fn fifo_full_and_wraparound() {
        let ring = Ring::new(3).unwrap();
        for lap in 0..5 {
            for i in 0..3 {
                ring.try_push(lap * 10 + i).unwrap();
            }
            assert_eq!(ring.len(), 3);
            assert_eq!(ring.try_push(99), Err(PushError::Full(99)));
            for i in 0..3 {
                assert_eq!(ring.pop(), Some(lap * 10 + i));
            }
            assert_eq!(ring.pop(), None);
            assert!(ring.is_empty());
        }
    }

    #[test]
    fn close_hands_value_back_and_keeps_queued_items() {
        let ring = Ring::new(2).unwrap();
        ring.try_push(String::from("a")).unwrap();
        assert!(ring.close());
        assert!(!ring.close());
        assert_eq!(ring.try_push(String::from("b")), Err(PushError::Closed(String::from("b"))));
        assert_eq!(ring.pop().as_deref(), Some("a"));
        assert_eq!(ring.pop(), None);
    }

    #[test]
    fn drop_releases_queued_values() {
        let marker = std::sync::Arc::new(());
        {
            let ring = Ring::new(4).unwrap();
            ring.try_push(marker.clone()).unwrap();
            ring.try_push(marker.clone()).unwrap();
            assert_eq!(std::sync::Arc::strong_count(&marker), 3);
        }
        assert_eq!(std::sync::Arc::strong_count(&marker), 1);
    }

    #[test]
    fn concurrent_producers_consumers_lose_nothing() {
        use std::sync::atomic::AtomicU64;
        let ring = std::sync::Arc::new(Ring::new(8).unwrap());
        let sum = std::sync::Arc::new(AtomicU64::new(0));
        let popped = std::sync::Arc::new(AtomicU64::new(0));
        let per = 20_000u64;
        std::thread::scope(|s| {
            for p in 0..3u64 {
                let ring = &ring;
                s.spawn(move || {
                    for i in 0..per {
                        let mut v = p * per + i + 1;
                        while let Err(e) = ring.try_push(v) {
                            v = e.into_inner();
                            std::thread::yield_now();
                        }
                    }
                });
            }
            for _ in 0..3 {
                let (ring, sum, popped) = (&ring, &sum, &popped);
                s.spawn(move || {
                    while popped.load(Ordering::SeqCst) < 3 * per {
                        if let Some(v) = ring.pop() {
                            sum.fetch_add(v, Ordering::SeqCst);
                            popped.fetch_add(1, Ordering::SeqCst);
                        } else {
                            std::thread::yield_now();
                        }
                    }
                });
            }
        });
        let n = 3 * per;
        assert_eq!(sum.load(Ordering::SeqCst), n * (n + 1) / 2);
    }
}
