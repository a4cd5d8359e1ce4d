// What a worker incarnation may leave behind in the shared memory, for the memory checks of
// the crash, lifecycle and soak tests. wasm-bindgen keeps each thread's externref slab (a
// `Vec` of 128 table slots, 512 bytes) in a `#[thread_local]` without a destructor, so it is
// never freed when a thread ends — ours or anyone's (measured: 491 bytes per crashed worker
// that had run a JS task, 0 for one that had not). Everything else a worker holds is freed
// (its stack, TLS block, task and pool count). Memory grows in 64 KiB pages: the allowance
// is the slabs rounded up to pages, plus one page for crossing a boundary. A leaked stack
// (2 MiB) is far outside it.
const PAGE = 65536;
export const SLAB_BYTES = 512;

export function incarnationAllowance(incarnations) {
  return Math.ceil((incarnations * SLAB_BYTES) / PAGE) * PAGE + PAGE;
}
