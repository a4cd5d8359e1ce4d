//! A global allocator for worker threads: it keeps freed worker stacks for the next worker,
//! and it finds the one heap block a worker's thread-locals keep, so that it can be freed
//! when the worker ends.
//!
//! ## Stacks
//!
//! wasm-bindgen gives every thread a 2 MiB stack from the general heap and frees it when the
//! thread ends (or when the owner frees a crashed worker's). Back in the heap, a freed stack is
//! soon split by small allocations made before the next worker asks for its stack (promises,
//! tasks, a pool's state kept alive until its JS wrapper is collected), so that worker's stack
//! comes from fresh memory and the shared memory grows by a stack per pool cycle or crash on a
//! busy machine. Here blocks of exactly that size and alignment skip the heap: a freed one
//! waits in a small array of slots and the next request takes it whole.
//!
//! ## The externref slab
//!
//! No thread on wasm runs its thread-local destructors, and wasm-bindgen keeps one heap block
//! in a thread-local for good: the slab of free externref table slots (`HEAP_SLAB` in
//! wasm-bindgen's `externref.rs`, a `Vec<usize>` of 128 words at first, grown when more values
//! are live). Every ended worker used to leave it behind (512 bytes or more). Its place in the
//! TLS block is private to wasm-bindgen but the same in every thread, so the first worker
//! learns it ([`learn_slab`]): while it makes its first externref it records the block it
//! allocates (by the address of a local, which lies on its own stack), then finds the words of
//! its TLS block that hold that address and its capacity. When a worker ends, its own exit
//! or the owner (for a worker that died in a trap) reads the slab's current address and
//! capacity from the thread's TLS block and frees it ([`free_slab`]). If the search is not
//! conclusive (another wasm-bindgen layout), nothing is learnt and the slab stays as before.
//!
//! ## The heap lock
//!
//! std's wasm allocator guards its one heap with a bare spin lock (a `swap` loop): it cannot
//! sleep, since the browser's main thread may not `Atomics.wait`. With more threads than cores
//! (the page's thread and the workers on two cores) a thread that holds it can be descheduled,
//! and everyone who wants memory spins through their time slices meanwhile: in a stream of
//! object results the owner's frees and the workers' allocations met there for 7–11 % of each
//! thread's CPU (Node profile). So the heap is entered through [`HeapLock`] first (std's lock
//! is then never contended): a short spin, after which a worker sleeps on the lock word and
//! leaves the core to the holder. An owner thread that may block (Node's, Deno's and Bun's
//! main threads; `threadMayWait` in worker.js) sleeps the same way: spinning there, Node's
//! main thread lost ~20 % of its CPU in a stream of 40 µs tasks (src/README.md,
//! "Workers"). Threads that may not sleep (a page's thread, any non-pool thread) keep spinning,
//! but only on a load. Measured (Node, interleaved A/B against std's lock, 10
//! rounds of 20,000 tasks, 64 in flight): throughput medians +5 % (no-op), +10 % (object
//! result), +10 % (Rust task), CPU per task −11 %, +1 %, −3 %; this VM's noise is about ±10 %,
//! so read it as no loss and some gain. The contention itself stays (the owner frees what
//! workers allocated); fewer allocations per result is what shrinks it.
//!
//! Enabled by the `worker-alloc` feature (the npm package's build). A Rust application that
//! picks its own global allocator leaves it off.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use wasm_bindgen::JsValue;

/// wasm-bindgen's default thread stack: its size and alignment.
const STACK_BYTES: usize = 2 << 20;
const STACK_ALIGN: usize = 16;
/// Zeroed blocks of at least this size are cleared outside the heap lock.
const ZERO_OUTSIDE_LOCK: usize = 4096;
/// Stacks kept at most (more workers than this across live pools free the rest normally).
const KEPT: usize = 32;

/// Each slot is 0 or the address of a kept stack block (allocated by `System` with the stack
/// layout). `swap` and `compare_exchange` hand a block to exactly one thread.
static SLOTS: [AtomicUsize; KEPT] = [const { AtomicUsize::new(0) }; KEPT];

pub struct WorkerAlloc;

/// The heap's lock word: 0 free, 1 held, 2 held and a worker may be asleep on it
/// (Drepper's "futexes are tricky", mutex 2).
static HEAP: AtomicI32 = AtomicI32::new(0);
/// Polls of the lock word before a worker sleeps (~20 µs): a heap operation takes well under
/// a microsecond, so a lock still held after this many is held by a thread that is not
/// running. 200 polls made workers sleep (and pay a ~50 µs wake-up) on ordinary contention.
const HEAP_SPINS: u32 = 20_000;

std::thread_local! {
    /// This thread may block in `memory.atomic.wait32` (a pool worker, or an owner thread
    /// that may; see [`may_wait`]).
    static MAY_WAIT: Cell<bool> = const { Cell::new(false) };
}

/// Marks the calling thread (a pool worker, or an owner thread where `Atomics.wait` is
/// allowed) as one that may sleep while the heap is busy.
pub(crate) fn may_wait() {
    MAY_WAIT.with(|w| w.set(true));
}

/// Held while this module calls into `System`; see the module notes.
struct HeapLock;

impl HeapLock {
    #[inline]
    fn lock() -> HeapLock {
        if !Self::try_take() {
            Self::lock_contended();
        }
        HeapLock
    }

    /// Takes a free lock as 1; reads before it writes, so spinners share the line.
    #[inline]
    fn try_take() -> bool {
        HEAP.load(Ordering::Relaxed) == 0 && HEAP.compare_exchange(0, 1, Ordering::Acquire, Ordering::Relaxed).is_ok()
    }

    #[cold]
    fn lock_contended() {
        let may_wait = MAY_WAIT.with(Cell::get);
        let mut polls = 0;
        while !Self::try_take() {
            std::hint::spin_loop();
            polls += 1;
            if may_wait && polls >= HEAP_SPINS {
                // Taken as 2 from here on: whoever holds it then must wake a sleeper on release.
                while HEAP.swap(2, Ordering::Acquire) != 0 {
                    // SAFETY: a wait on a live static's word; only pool workers get here, and
                    // they may block.
                    unsafe { core::arch::wasm32::memory_atomic_wait32(HEAP.as_ptr(), 2, -1) };
                }
                return;
            }
        }
    }
}

impl Drop for HeapLock {
    #[inline]
    fn drop(&mut self) {
        if HEAP.swap(0, Ordering::Release) == 2 {
            // SAFETY: notify on a live static's word; allowed on every thread.
            unsafe { core::arch::wasm32::memory_atomic_notify(HEAP.as_ptr(), 1) };
        }
    }
}

fn is_stack(layout: Layout) -> bool {
    layout.size() == STACK_BYTES && layout.align() == STACK_ALIGN
}

// SAFETY: every block handed out was allocated by `System` with the same layout the caller
// asked for (kept blocks all have the stack layout and are only given for that layout); a
// block is in at most one slot or owned by one caller at a time.
unsafe impl GlobalAlloc for WorkerAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if is_stack(layout) {
            for slot in &SLOTS {
                let p = slot.swap(0, Ordering::AcqRel);
                if p != 0 {
                    return p as *mut u8;
                }
            }
        }
        // SAFETY: forwarded with the caller's layout.
        let p = unsafe {
            let _heap = HeapLock::lock();
            System.alloc(layout)
        };
        record(p, layout);
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if is_stack(layout) || layout.size() >= ZERO_OUTSIDE_LOCK {
            // std's `alloc_zeroed` clears the block while it holds the heap's one spin lock,
            // which every thread (the owner's included, which cannot sleep) then spins on:
            // large blocks are cleared here, after the lock is released.
            // SAFETY: as `alloc`; the block is then fully zeroed.
            let p = unsafe { self.alloc(layout) };
            if !p.is_null() {
                unsafe { p.write_bytes(0, layout.size()) };
            }
            return p;
        }
        // SAFETY: forwarded with the caller's layout.
        let p = unsafe {
            let _heap = HeapLock::lock();
            System.alloc_zeroed(layout)
        };
        record(p, layout);
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if is_stack(layout) {
            for slot in &SLOTS {
                if slot.compare_exchange(0, ptr as usize, Ordering::AcqRel, Ordering::Relaxed).is_ok() {
                    return;
                }
            }
        }
        let _heap = HeapLock::lock();
        // SAFETY: `ptr` came from `System` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if is_stack(layout) || (new_size == STACK_BYTES && layout.align() == STACK_ALIGN) {
            // Through alloc/dealloc so kept blocks stay exactly stack-sized.
            // SAFETY: the new layout is valid (same alignment, size checked by the caller).
            let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
            let new = unsafe { self.alloc(new_layout) };
            if !new.is_null() {
                unsafe {
                    std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                    self.dealloc(ptr, layout);
                }
            }
            return new;
        }
        let _heap = HeapLock::lock();
        // SAFETY: neither side is a stack block: plain `System` memory.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

// ---- the externref slab --------------------------------------------------------------------

/// `__stack_alloc` of the thread in [`learn_slab`]'s window, or 0. One thread at a time.
static RECORDER: AtomicUsize = AtomicUsize::new(0);
/// The first block that thread allocated in the window: address and size (0 = none yet).
static RECORDED: [AtomicUsize; 2] = [const { AtomicUsize::new(0) }; 2];
/// Offsets in the TLS block of the slab's pointer and capacity words, plus one (0 = unknown).
static SLAB_PTR: AtomicUsize = AtomicUsize::new(0);
static SLAB_CAP: AtomicUsize = AtomicUsize::new(0);
const WORD: usize = std::mem::size_of::<usize>();
/// How far past a TLS block's base the slab is looked for (blocks are a few hundred bytes).
const SEARCH: usize = 16 << 10;

fn record(p: *mut u8, layout: Layout) {
    let recorder = RECORDER.load(Ordering::Relaxed);
    if recorder == 0 || p.is_null() {
        return;
    }
    // A local's address lies on the calling thread's stack: only the recorder's allocations
    // fall in its stack block.
    let here = std::ptr::addr_of!(recorder) as usize;
    if (recorder..recorder + STACK_BYTES).contains(&here) && RECORDED[0].load(Ordering::Relaxed) == 0 {
        RECORDED[1].store(layout.size(), Ordering::Relaxed);
        RECORDED[0].store(p as usize, Ordering::Relaxed);
    }
}

/// Learns where the slab lives in a TLS block, once per module, on a worker thread that has
/// not made an externref yet (`worker.js` calls it right after `initSync`).
pub(crate) fn learn_slab(tls_base: usize, stack_alloc: usize) {
    if SLAB_PTR.load(Ordering::Acquire) != 0 || stack_alloc == 0 {
        return;
    }
    // One learner at a time, and nobody waits for it: a worker that finds another one in its
    // window skips learning (the other, or a later worker, learns). Were a learner terminated
    // inside its window, learning would stop for good (the slab leaks as before); no worker
    // ever spins on it.
    if RECORDER.compare_exchange(0, stack_alloc, Ordering::Acquire, Ordering::Relaxed).is_err() {
        return;
    }
    if SLAB_PTR.load(Ordering::Acquire) == 0 {
        RECORDED[0].store(0, Ordering::Relaxed);
        // The thread's first externref: the slab takes its first block.
        drop(std::hint::black_box(JsValue::from_f64(0.5)));
        let (addr, size) = (RECORDED[0].load(Ordering::Relaxed), RECORDED[1].load(Ordering::Relaxed));
        if addr != 0 && size % WORD == 0 {
            // The TLS block's size is not exported (wasm-bindgen deletes `__tls_size`), so
            // the search runs upward from its base and takes the first word holding `addr`:
            // the block was just initialised and holds no other copy of a fresh address, and
            // the slab's own word comes before anything past the block's end.
            // SAFETY: reads of linear memory from this thread's live TLS block upward, within
            // `SEARCH` bytes and below the end of memory.
            let word = |i: usize| unsafe { *((tls_base + i * WORD) as *const usize) };
            // Never past the end of memory (a block near the top would otherwise trap).
            let end = core::arch::wasm32::memory_size(0) * 65536;
            let words = SEARCH.min(end.saturating_sub(tls_base)) / WORD;
            if let Some(p) = (0..words.saturating_sub(2)).find(|&i| word(i) == addr) {
                let near = p.saturating_sub(2)..p + 3;
                if let Some(c) = only(near, |i| i != p && word(i) == size / WORD) {
                    SLAB_CAP.store(c * WORD + 1, Ordering::Relaxed);
                    SLAB_PTR.store(p * WORD + 1, Ordering::Release);
                }
            }
        }
    }
    RECORDER.store(0, Ordering::Release);
}

/// The one index in `range` that satisfies `f`, if exactly one does.
fn only(range: std::ops::Range<usize>, f: impl Fn(usize) -> bool) -> Option<usize> {
    let mut found = range.filter(|&i| f(i));
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

/// Frees the slab of the thread whose TLS block is at `tls_base`, if it has one. The thread
/// must be gone or about to end without running Rust again (the caller then frees its TLS).
///
/// # Safety
/// `tls_base` is the TLS block of a thread that will make no more externrefs, not yet freed.
pub(crate) unsafe fn free_slab(tls_base: usize) {
    let (p, c) = (SLAB_PTR.load(Ordering::Acquire), SLAB_CAP.load(Ordering::Relaxed));
    if p == 0 || tls_base == 0 {
        return;
    }
    // SAFETY: learnt offsets inside a live TLS block of this module.
    let (ptr, cap) = unsafe { (*((tls_base + p - 1) as *const usize), *((tls_base + c - 1) as *const usize)) };
    if cap == 0 || cap > (1 << 24) || ptr == 0 || ptr % WORD != 0 {
        return; // this thread never made an externref
    }
    // SAFETY: the slab's `Vec<usize>` owns `cap` words at `ptr` from the global allocator; its
    // thread will not touch it again. Zeroing the capacity makes a second call a no-op.
    unsafe {
        std::alloc::dealloc(ptr as *mut u8, Layout::from_size_align_unchecked(cap * WORD, WORD));
        *((tls_base + c - 1) as *mut usize) = 0;
    }
}
