//! The JS face of the pool: what `pool.trySubmit` and the other calls of the `#[wasm_bindgen]`
//! `Pool` run on the thread that owns it. `pool.rs` is the `Pool` (admission, the submissions
//! that wait for queue space); `submission.rs` reads and checks one call; `abort.rs` links
//! `AbortSignal`s; `task.rs` is the Rust-made `Task` and `diagnostics.*`.

pub(crate) mod abort;
pub(crate) mod pool;
pub(crate) mod submission;
pub(crate) mod task;
