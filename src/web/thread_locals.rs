//! What a worker thread's thread-locals keep on the heap, freed for that thread: no thread on
//! wasm runs its thread-local destructors (`src/README.md`, "Workers").

/// Frees the heap that the thread-locals of the thread whose TLS block is at `tls` keep
/// (wasm-bindgen's externref slab), which no thread on wasm frees by itself. Only the npm
/// build's allocator knows where it is; without it this does nothing.
///
/// # Safety
/// That thread makes no more externrefs, and its TLS block is not yet freed.
pub(crate) unsafe fn free_thread_locals(tls: usize) {
    #[cfg(feature = "worker-alloc")]
    // SAFETY: the caller's contract is `free_slab`'s.
    unsafe {
        crate::web::worker_alloc::free_slab(tls)
    };
    #[cfg(not(feature = "worker-alloc"))]
    let _ = tls;
}
