//! A global allocator that keeps freed worker stacks for the next worker.
//!
//! wasm-bindgen gives every thread a 2 MiB stack from the general heap and frees it when the
//! thread ends (or when the owner frees a crashed worker's). Back in the heap, a freed stack is
//! soon split by small allocations made before the next worker asks for its stack (promises,
//! tasks, a pool's state kept alive until its JS wrapper is collected), so that worker's stack
//! comes from fresh memory and the shared memory grows by a stack per pool cycle or crash on a
//! busy machine. Here blocks of exactly that size and alignment skip the heap: a freed one
//! waits in a small array of slots and the next request takes it whole.
//!
//! Enabled by the `stack-cache` feature (the npm package's build). A Rust application that
//! picks its own global allocator leaves it off.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// wasm-bindgen's default thread stack: its size and alignment.
const STACK_BYTES: usize = 2 << 20;
const STACK_ALIGN: usize = 16;
/// Stacks kept at most (more workers than this across live pools free the rest normally).
const KEPT: usize = 32;

/// Each slot is 0 or the address of a kept stack block (allocated by `System` with the stack
/// layout). `swap` and `compare_exchange` hand a block to exactly one thread.
static SLOTS: [AtomicUsize; KEPT] = [const { AtomicUsize::new(0) }; KEPT];

pub struct StackCache;

fn is_stack(layout: Layout) -> bool {
    layout.size() == STACK_BYTES && layout.align() == STACK_ALIGN
}

// SAFETY: every block handed out was allocated by `System` with the same layout the caller
// asked for (kept blocks all have the stack layout and are only given for that layout); a
// block is in at most one slot or owned by one caller at a time.
unsafe impl GlobalAlloc for StackCache {
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
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if is_stack(layout) {
            // SAFETY: as `alloc`; the block is then fully zeroed.
            let p = unsafe { self.alloc(layout) };
            if !p.is_null() {
                unsafe { p.write_bytes(0, STACK_BYTES) };
            }
            return p;
        }
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if is_stack(layout) {
            for slot in &SLOTS {
                if slot.compare_exchange(0, ptr as usize, Ordering::AcqRel, Ordering::Relaxed).is_ok() {
                    return;
                }
            }
        }
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
        // SAFETY: neither side is a stack block: plain `System` memory.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}
