//! Keeps each thread's view of the shared memory as large as the memory it is handed.
//!
//! When one thread grows a shared `WebAssembly.Memory`, V8 updates the other threads' idea of
//! its size lazily. Until a thread catches up, its wasm atomics on the new pages trap ("memory
//! access out of bounds") and its `memory.buffer` is the old, shorter `SharedArrayBuffer`.
//! Seen in Node 20: a worker woken for a task that the main thread had just allocated in pages
//! it had added read a `memory.size` one page short and trapped on the task's reference count,
//! before the task was recorded as running, so the task was lost (the image test hung in about
//! one run in five; `tests/node/memory-growth.test.mjs` reproduces it).
//!
//! So every hand-over between threads goes through here: the sender [`publish`]es the size it
//! sees before it pushes a task or a completion, and the receiver [`catch_up`]s after it takes
//! one: if its own `memory.size` is smaller, a `memory.grow(0)` makes the engine refresh this
//! thread's view at once. The ring's and the completion stack's release/acquire order the
//! published size before the hand-over. The common path is a load and a compare on each side.

use std::arch::wasm32::{memory_grow, memory_size};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The largest memory size, in pages, that a thread handing memory to another has seen.
static SEEN_PAGES: AtomicUsize = AtomicUsize::new(0);

/// Before handing memory to another thread: records the size this thread sees.
#[inline]
pub(crate) fn publish() {
    let pages = memory_size::<0>();
    if pages > SEEN_PAGES.load(Ordering::Relaxed) {
        SEEN_PAGES.fetch_max(pages, Ordering::Relaxed);
    }
}

/// After taking memory from another thread: makes this thread see at least what it saw.
#[inline]
pub(crate) fn catch_up() {
    if memory_size::<0>() < SEEN_PAGES.load(Ordering::Relaxed) {
        refresh();
    }
}

#[cold]
#[inline(never)]
fn refresh() {
    // Growing by nothing cannot fail and changes nothing but this thread's view of the size.
    memory_grow::<0>(0);
}
