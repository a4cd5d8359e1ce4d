//! The wasm of the `ringpool` npm package: the pool's JS API (`Pool`, `Task`, the error classes,
//! `diagnostics.*`) and the image kernels (`image.*`), with the allocator that keeps worker
//! stacks whole (`worker-alloc`). It holds no code of its own; naming both crates links their
//! `#[wasm_bindgen]` exports into this module.

pub use ringpool;
pub use ringpool_image;
