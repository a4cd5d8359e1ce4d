// How much the shared memory may grow in the memory checks of the crash, lifecycle and soak
// tests once warmed up: one 64 KiB page, because memory grows in pages and the heap's top
// may sit just below a page boundary when the measurement starts. Nothing per ended worker:
// its stack, TLS block, task and pool count are freed, and so is the one heap block its
// thread-locals keep (wasm-bindgen's externref slab, src/web/worker_alloc.rs), which used to
// leave 0.5–1 KB per crash. A leaked stack (2 MiB) or slab per worker would show at once.
export const MEMORY_SLACK = 65536;
