//! Reads the wasm memory's maximum from the link arguments this build passes
//! (`-Clink-arg=--max-memory=N` in `CARGO_ENCODED_RUSTFLAGS`), so that an out-of-memory error
//! can say what the maximum is (`src/memory.rs`). Nothing else: no code is generated.
fn main() {
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let max = flags
        .split('\x1f')
        .filter_map(|f| f.split("--max-memory=").nth(1))
        .filter_map(|n| n.trim().parse::<u64>().ok())
        .last();
    if let Some(max) = max {
        println!("cargo:rustc-env=RINGPOOL_MAX_MEMORY={max}");
    }
}
