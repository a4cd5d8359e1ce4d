//! The heap behind [`WorkerAlloc`](super::worker_alloc::WorkerAlloc): one dlmalloc under one
//! lock, with a small cache of free blocks per thread in front of it.
//!
//! std's wasm allocator is the same dlmalloc behind a spin lock that loops on a bare `swap`.
//! A pool moves memory between threads on every task (the page allocates a task's arguments,
//! a worker frees them; a worker allocates the result, the page frees it), so that lock was
//! taken several times per task by three threads, and with more threads than cores a holder
//! that is preempted makes the others spin away their time slice: in a Node no-op stream a
//! worker spent ~1.5 µs per task spinning in `dealloc` (perf).
//!
//! Here small blocks (≤ 256 bytes, alignment ≤ 16) come in six size classes. Each known thread
//! keeps up to [`DEPTH`] free blocks per class and goes to dlmalloc only to refill or flush
//! [`BATCH`] blocks at once, under one lock acquisition. A block is always allocated from
//! dlmalloc with its class's layout, whichever thread or path asks, so any thread may free
//! any block into its own cache.
//!
//! Threads are told apart without thread-locals (this code also runs before a new thread's
//! TLS exists): by the address of a local, which lies on the caller's stack. The page's thread
//! runs on the module's own stack, below `__heap_base`; each pool worker registers its stack
//! block ([`register`]) once it runs Rust and has its cache flushed when it ends
//! ([`unregister`]: by itself on a clean exit, by the owner for a dead one). Other threads
//! (a user's, wasm-bindgen-rayon's) go to dlmalloc directly.
//!
//! The lock: waiters spin on a read (not a write), workers sleep on the lock word after a
//! short spin (a futex mutex), the page's thread only spins (it may not wait).

use std::alloc::Layout;
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

/// Block sizes of the classes; blocks are allocated with [`ALIGN`].
const CLASSES: [usize; 6] = [16, 32, 48, 64, 128, 256];
const ALIGN: usize = 16;
/// Free blocks kept per thread and class, and how many move to or from dlmalloc at once.
const DEPTH: usize = 32;
const BATCH: usize = 16;
/// Cache slots: 0 is the page's thread, the rest are handed to registering workers.
const SLOTS: usize = 64;
/// Size of a worker's stack block (wasm-bindgen's default), to tell whose stack a local is on.
const STACK_BYTES: usize = 2 << 20;

struct Dl(UnsafeCell<dlmalloc::Dlmalloc>);
// SAFETY: only used with `HEAP_LOCK` held.
unsafe impl Sync for Dl {}
static DL: Dl = Dl(UnsafeCell::new(dlmalloc::Dlmalloc::new()));

/// 0 free, 1 held, 2 held and a worker may be asleep on it.
static HEAP_LOCK: AtomicU32 = AtomicU32::new(0);

extern "C" {
    /// First address past the static data (linker-defined). The page's thread's stack lies
    /// below it, worker stacks (heap blocks) above.
    static __heap_base: u8;
}

fn on_module_stack(sp: usize) -> bool {
    sp < std::ptr::addr_of!(__heap_base) as usize
}

/// The free blocks of one thread. Touched only by that thread, or by the thread that
/// flushes it after it ended ([`unregister`]).
struct Cache {
    count: [usize; CLASSES.len()],
    blocks: [[usize; DEPTH]; CLASSES.len()],
}

struct Slot {
    /// `__stack_alloc` of the worker owning the slot, 0 when free (slot 0: unused).
    stack: AtomicUsize,
    cache: UnsafeCell<Cache>,
}
// SAFETY: a slot's cache is used by one thread at a time (see `Cache`).
unsafe impl Sync for Slot {}

static CACHES: [Slot; SLOTS] = [const {
    Slot { stack: AtomicUsize::new(0), cache: UnsafeCell::new(Cache { count: [0; CLASSES.len()], blocks: [[0; DEPTH]; CLASSES.len()] }) }
}; SLOTS];

fn class_of(size: usize, align: usize) -> Option<usize> {
    if align > ALIGN {
        return None;
    }
    CLASSES.iter().position(|&c| size <= c)
}

fn class_layout(c: usize) -> (usize, usize) {
    (CLASSES[c], ALIGN)
}

/// The calling thread's cache, if it has one.
#[inline]
fn my_cache() -> Option<&'static Slot> {
    let here = 0u8;
    let sp = std::hint::black_box(std::ptr::addr_of!(here)) as usize;
    if on_module_stack(sp) {
        return Some(&CACHES[0]);
    }
    CACHES[1..].iter().find(|s| {
        let lo = s.stack.load(Ordering::Relaxed);
        lo != 0 && sp.wrapping_sub(lo) < STACK_BYTES
    })
}

/// Runs `f` on dlmalloc, holding the lock.
#[inline]
fn locked<R>(f: impl FnOnce(&mut dlmalloc::Dlmalloc) -> R) -> R {
    if HEAP_LOCK.compare_exchange(0, 1, Ordering::Acquire, Ordering::Relaxed).is_err() {
        lock_slow();
    }
    // SAFETY: the lock is held: no other thread uses `DL`.
    let r = f(unsafe { &mut *DL.0.get() });
    if HEAP_LOCK.swap(0, Ordering::Release) == 2 {
        // SAFETY: an aligned atomic word of shared memory; notify never blocks.
        unsafe { core::arch::wasm32::memory_atomic_notify(HEAP_LOCK.as_ptr() as *mut i32, 1) };
    }
    r
}

#[cold]
fn lock_slow() {
    let here = 0u8;
    let may_sleep = !on_module_stack(std::hint::black_box(std::ptr::addr_of!(here)) as usize);
    let mut spins = 0u32;
    while !may_sleep || spins < 200 {
        if HEAP_LOCK.load(Ordering::Relaxed) == 0
            && HEAP_LOCK.compare_exchange(0, 1, Ordering::Acquire, Ordering::Relaxed).is_ok()
        {
            return;
        }
        spins += 1;
        std::hint::spin_loop();
    }
    // From here the lock is taken only as "contended", so that its release wakes the next
    // sleeper (taking it as 1 after a wake-up would strand the others).
    while HEAP_LOCK.swap(2, Ordering::Acquire) != 0 {
        // SAFETY: as above; this is a worker thread, which may wait.
        unsafe { core::arch::wasm32::memory_atomic_wait32(HEAP_LOCK.as_ptr() as *mut i32, 2, -1) };
    }
}

/// Allocates `layout` (not a worker stack: the caller handles those).
///
/// # Safety
/// As [`std::alloc::GlobalAlloc::alloc`].
#[inline]
pub(crate) unsafe fn alloc(layout: Layout) -> *mut u8 {
    let Some(c) = class_of(layout.size(), layout.align()) else {
        // SAFETY: the lock is held; the caller's layout is valid.
        return locked(|dl| unsafe { dl.malloc(layout.size(), layout.align()) });
    };
    let (size, align) = class_layout(c);
    let Some(slot) = my_cache() else {
        // SAFETY: as above, with the class's layout.
        return locked(|dl| unsafe { dl.malloc(size, align) });
    };
    // SAFETY: the calling thread owns its slot's cache.
    let cache = unsafe { &mut *slot.cache.get() };
    if cache.count[c] == 0 {
        let n = locked(|dl| {
            let mut n = 0;
            while n < BATCH {
                // SAFETY: the lock is held; a valid class layout.
                let p = unsafe { dl.malloc(size, align) };
                if p.is_null() {
                    break;
                }
                cache.blocks[c][n] = p as usize;
                n += 1;
            }
            n
        });
        if n == 0 {
            return std::ptr::null_mut();
        }
        cache.count[c] = n;
    }
    cache.count[c] -= 1;
    cache.blocks[c][cache.count[c]] as *mut u8
}

/// Frees a block from [`alloc`] with the same layout.
///
/// # Safety
/// As [`std::alloc::GlobalAlloc::dealloc`].
#[inline]
pub(crate) unsafe fn dealloc(ptr: *mut u8, layout: Layout) {
    let Some(c) = class_of(layout.size(), layout.align()) else {
        // SAFETY: the lock is held; `ptr` came from `dl.malloc` with this layout.
        return locked(|dl| unsafe { dl.free(ptr, layout.size(), layout.align()) });
    };
    let (size, align) = class_layout(c);
    let Some(slot) = my_cache() else {
        // SAFETY: as above; class blocks were allocated with the class layout.
        return locked(|dl| unsafe { dl.free(ptr, size, align) });
    };
    // SAFETY: the calling thread owns its slot's cache.
    let cache = unsafe { &mut *slot.cache.get() };
    if cache.count[c] == DEPTH {
        flush(cache, c, BATCH);
    }
    cache.blocks[c][cache.count[c]] = ptr as usize;
    cache.count[c] += 1;
}

/// Returns the newest `n` blocks of class `c` to dlmalloc.
fn flush(cache: &mut Cache, c: usize, n: usize) {
    let (size, align) = class_layout(c);
    let keep = cache.count[c] - n.min(cache.count[c]);
    locked(|dl| {
        for &p in &cache.blocks[c][keep..cache.count[c]] {
            // SAFETY: the lock is held; cached blocks are free class blocks.
            unsafe { dl.free(p as *mut u8, size, align) };
        }
    });
    cache.count[c] = keep;
}

/// Resizes a block from [`alloc`].
///
/// # Safety
/// As [`std::alloc::GlobalAlloc::realloc`].
pub(crate) unsafe fn realloc(ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
    let (old, new) = (class_of(layout.size(), layout.align()), class_of(new_size, layout.align()));
    match (old, new) {
        // SAFETY: neither side is a class block: plain dlmalloc memory, lock held.
        (None, None) => locked(|dl| unsafe { dl.realloc(ptr, layout.size(), layout.align(), new_size) }),
        (Some(a), Some(b)) if a == b => ptr,
        _ => {
            // SAFETY: the new layout has the caller's alignment and a valid size.
            let p = unsafe { alloc(Layout::from_size_align_unchecked(new_size, layout.align())) };
            if !p.is_null() {
                // SAFETY: both blocks are live and at least the copied length long.
                unsafe {
                    std::ptr::copy_nonoverlapping(ptr, p, layout.size().min(new_size));
                    dealloc(ptr, layout);
                }
            }
            p
        }
    }
}

/// Gives the worker whose stack block starts at `stack_alloc` a cache (if a slot is free).
pub(crate) fn register(stack_alloc: usize) {
    if stack_alloc == 0 {
        return;
    }
    for s in &CACHES[1..] {
        if s.stack.compare_exchange(0, stack_alloc, Ordering::AcqRel, Ordering::Relaxed).is_ok() {
            return;
        }
    }
}

/// Flushes and frees the cache of the worker whose stack block starts at `stack_alloc`.
///
/// # Safety
/// That worker runs no more allocator code (it has ended, or this is its last Rust call).
pub(crate) unsafe fn unregister(stack_alloc: usize) {
    if stack_alloc == 0 {
        return;
    }
    for s in &CACHES[1..] {
        if s.stack.load(Ordering::Acquire) == stack_alloc {
            // SAFETY: its thread no longer touches the cache (the caller's contract); `flush`
            // frees straight into dlmalloc, not through this cache.
            let cache = unsafe { &mut *s.cache.get() };
            for c in 0..CLASSES.len() {
                flush(cache, c, DEPTH);
            }
            // Only now may another worker take the slot.
            s.stack.store(0, Ordering::Release);
            return;
        }
    }
}
