// What a worker incarnation may leave behind in the shared memory, for the memory checks of
// the crash, lifecycle and soak tests. A thread that ends on wasm never runs its
// thread-local destructors (a crashed one cannot; a clean exit has no hook for it either), so
// heap memory owned by thread-locals stays: wasm-bindgen's externref slab (a `Vec` of 128
// table slots, 512 bytes) and std's thread handle and panic state. Measured per crashed
// worker: 491 bytes when it had run JS tasks, 0 when it had not, 1,019 in the soak's mix
// (async tasks, panics). Everything else a worker holds is freed (its stack, TLS block, task
// and pool count). Memory grows in 64 KiB pages: the allowance is 2 KiB per incarnation
// rounded up to pages, plus one page for crossing a boundary. A leaked stack (2 MiB) is far
// outside it.
const PAGE = 65536;
export const THREAD_LOCAL_BYTES = 2048;

export function incarnationAllowance(incarnations) {
  return Math.ceil((incarnations * THREAD_LOCAL_BYTES) / PAGE) * PAGE + PAGE;
}
