//! One place that picks the synchronisation primitives, so the core (`ring`, `pool`, `task`)
//! is written once and runs on three back ends:
//!
//! * native: `std` atomics, and a futex-like [`Futex`] built on `Mutex` + `Condvar`;
//! * `--cfg loom`: loom's model-checked atomics, cells, mutexes and condvars;
//! * wasm32 with atomics: `std` atomics and `memory.atomic.wait32` / `memory.atomic.notify`.
//!
//! On wasm only worker threads may block: `memory.atomic.wait32` traps on a browser main thread.
//! The main thread only ever calls [`Futex::wake`], which is a plain `notify`.

// Under loom only the modelled modules are built; the facade still offers the whole set.
#[cfg(loom)]
#[allow(unused_imports)]
pub(crate) use loom::sync::atomic::{fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize};
#[cfg(loom)]
#[allow(unused_imports)]
pub(crate) use loom::sync::{Arc, Mutex};
#[cfg(loom)]
pub(crate) use loom::thread::yield_now as spin_hint;

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{fence, AtomicBool, AtomicU32, AtomicU64, AtomicUsize};
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::AtomicPtr;
#[cfg(not(loom))]
pub(crate) use std::sync::{Arc, Mutex};
#[cfg(not(loom))]
pub(crate) use std::hint::spin_loop as spin_hint;

pub(crate) use std::sync::atomic::Ordering;

/// The count that wakes every waiter of a futex word. `memory.atomic.notify` takes an unsigned
/// count, but SpiderMonkey (Firefox ESR 153) woke nobody for `u32::MAX`: `tests/web.rs` hung
/// there, and a closing pool's sleeping workers relied on other wake-ups. `i32::MAX` is "all"
/// in every engine.
pub(crate) const WAKE_ALL: u32 = i32::MAX as u32;

/// `UnsafeCell` with loom's closure API, so the ring's unsafe accesses are tracked under loom.
#[derive(Debug)]
pub(crate) struct UnsafeCell<T>(
    #[cfg(loom)] loom::cell::UnsafeCell<T>,
    #[cfg(not(loom))] std::cell::UnsafeCell<T>,
);

impl<T> UnsafeCell<T> {
    pub(crate) fn new(value: T) -> Self {
        #[cfg(loom)]
        return Self(loom::cell::UnsafeCell::new(value));
        #[cfg(not(loom))]
        return Self(std::cell::UnsafeCell::new(value));
    }

    #[inline]
    pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        #[cfg(loom)]
        return self.0.with_mut(f);
        #[cfg(not(loom))]
        return f(self.0.get());
    }
}

/// Wakes every thread that waits on `word` itself (wasm: `Atomics.wait`/`waitAsync` on its
/// address, as a JS task's context watches its task's state). Natively no thread waits on a
/// plain word, so this does nothing.
#[inline]
#[cfg_attr(loom, allow(dead_code))]
pub(crate) fn notify_word(word: &AtomicU32) {
    #[cfg(all(target_arch = "wasm32", target_feature = "atomics", not(loom)))]
    // SAFETY: `word` is a live, aligned 32-bit word in shared memory; notify never blocks.
    unsafe {
        core::arch::wasm32::memory_atomic_notify(word.as_ptr() as *mut i32, WAKE_ALL);
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "atomics", not(loom))))]
    let _ = word;
}

/// A 32-bit word that threads can sleep on until it changes, like a Linux futex.
///
/// Invariant: a waker changes `word` *before* calling [`Futex::wake`]; a sleeper passes the
/// value it last saw to [`Futex::wait`], which returns at once if the word differs. Together
/// these rule out lost wake-ups without any lock on the waking side on wasm.
#[derive(Debug)]
pub struct Futex {
    word: AtomicU32,
    #[cfg(not(all(target_arch = "wasm32", not(loom))))]
    sleepers: Mutex<()>,
    #[cfg(not(all(target_arch = "wasm32", not(loom))))]
    condvar: Condvar,
}

#[cfg(loom)]
use loom::sync::Condvar;
#[cfg(all(not(loom), not(target_arch = "wasm32")))]
use std::sync::Condvar;

impl Futex {
    pub fn new(value: u32) -> Self {
        Self {
            word: AtomicU32::new(value),
            #[cfg(not(all(target_arch = "wasm32", not(loom))))]
            sleepers: Mutex::new(()),
            #[cfg(not(all(target_arch = "wasm32", not(loom))))]
            condvar: Condvar::new(),
        }
    }

    #[inline]
    pub fn load(&self) -> u32 {
        self.word.load(Ordering::SeqCst)
    }

    /// Changes the word (so that sleepers holding the old value will not sleep) and wakes up
    /// to `count` sleepers.
    pub fn bump_and_wake(&self, count: u32) {
        self.word.fetch_add(1, Ordering::SeqCst);
        self.wake(count);
    }

    /// Address of the word, for a JS-side `Atomics.waitAsync` (wasm main thread).
    #[cfg(all(target_arch = "wasm32", not(loom)))]
    pub(crate) fn as_ptr(&self) -> *mut u32 {
        self.word.as_ptr()
    }

    /// Sleeps while the word equals `expected`. May return spuriously.
    /// Must not be called on a browser main thread.
    pub fn wait(&self, expected: u32) {
        #[cfg(all(target_arch = "wasm32", not(loom)))]
        // SAFETY: the pointer is to a live, aligned atomic word of shared memory; wait32 only
        // reads it atomically. A negative timeout means "no timeout".
        unsafe {
            core::arch::wasm32::memory_atomic_wait32(self.word.as_ptr() as *mut i32, expected as i32, -1);
        }
        #[cfg(not(all(target_arch = "wasm32", not(loom))))]
        {
            let guard = self.sleepers.lock().unwrap_or_else(|e| e.into_inner());
            if self.word.load(Ordering::SeqCst) == expected {
                drop(self.condvar.wait(guard).unwrap_or_else(|e| e.into_inner()));
            }
        }
    }

    /// `wait` for at most `timeout_us` µs (wasm only: the owner's catch).
    #[cfg(all(target_arch = "wasm32", not(loom)))]
    pub fn wait_timeout(&self, expected: u32, timeout_us: f64) {
        let ns = (timeout_us * 1000.0) as i64;
        // SAFETY: as in `wait`.
        unsafe {
            core::arch::wasm32::memory_atomic_wait32(self.word.as_ptr() as *mut i32, expected as i32, ns.max(0));
        }
    }

    fn wake(&self, count: u32) {
        #[cfg(all(target_arch = "wasm32", not(loom)))]
        // SAFETY: as in `wait`; notify never blocks and is allowed on the main thread.
        unsafe {
            core::arch::wasm32::memory_atomic_notify(self.word.as_ptr() as *mut i32, count);
        }
        #[cfg(not(all(target_arch = "wasm32", not(loom))))]
        {
            // Taking the lock orders this wake after a sleeper's check-then-wait.
            drop(self.sleepers.lock().unwrap_or_else(|e| e.into_inner()));
            if count == 1 {
                self.condvar.notify_one();
            } else {
                self.condvar.notify_all();
            }
        }
    }
}
