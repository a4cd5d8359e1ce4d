//! Memory limits. A wasm memory only grows, and only up to its maximum (the `--max-memory`
//! link argument, 1 GiB in the npm package): a byte it takes is kept for the life of the page
//! or process. So nothing whose size a user chooses may be allocated infallibly:
//!
//! - **Measured first.** A value's size is known before anything is allocated for it (the
//!   codec charges the payload budget from JS-side lengths), so a refused value never grows
//!   the memory.
//! - **Allocated fallibly.** `try_vec` / `try_reserve` (crate-internal) turn an allocation the memory cannot
//!   hold into [`OutOfMemory`] (a `RangeError` with code `OUT_OF_MEMORY` in JS), never a trap.
//! - **A backstop for the rest** (wasm): an allocation that still fails (a user's own Rust task
//!   that allocates too much, or a small fixed-size one once the heap is full to the byte)
//!   calls the alloc-error hook installed when a pool is built. It frees a small reserve,
//!   so that unwinding and error reporting have room, and panics with an [`OutOfMemory`]
//!   payload. A task body's panic becomes [`TaskError::OutOfMemory`](crate::error::TaskError), an
//!   admission's becomes a rejected submission (`panic::catch_oom`); without the hook
//!   std would abort, which on wasm is a trap that ends the module.
//!
//! Tested by `tests/node/memory-pressure.test.mjs` (every case, in Node and Chromium) and the
//! pressure soak (`tests/soak/pressure.mjs`).

use std::fmt;

/// The wasm-ld arguments (each passed as `-Clink-arg=…`) without which the wasm32 module's
/// memory is not shared between workers; `N` is the maximum in bytes. ringpool's
/// `cargo-config.toml` (shipped in the npm package, used by `examples/app`) sets them.
pub const REQUIRED_LINK_ARGS: &[&str] = &[
    "--shared-memory",
    "--import-memory",
    "--max-memory=N",
    "--export=__heap_base",
    "--export=__wasm_init_tls",
    "--export=__tls_size",
    "--export=__tls_align",
    "--export=__tls_base",
];

/// The memory's maximum in bytes: wasm32's 4 GiB unless the build set `--max-memory`.
pub fn maximum() -> usize {
    #[cfg(target_arch = "wasm32")]
    {
        const MAX: Option<&str> = option_env!("RINGPOOL_MAX_MEMORY");
        match MAX.and_then(|m| m.parse::<u64>().ok()) {
            Some(m) => m.min(usize::MAX as u64) as usize,
            None => usize::MAX,
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        usize::MAX
    }
}

/// The memory's current size in bytes (wasm; 0 natively, where it is not known).
pub fn in_use() -> usize {
    #[cfg(target_arch = "wasm32")]
    {
        core::arch::wasm32::memory_size::<0>() * 65536
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        0
    }
}

/// The error for an allocation of `needed` bytes that did not fit.
pub(crate) fn out_of_memory(needed: usize) -> OutOfMemory {
    OutOfMemory { needed, in_use: in_use(), maximum: maximum() }
}

/// An empty `Vec` with room for exactly `n` items, or [`OutOfMemory`].
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn try_vec<T>(n: usize) -> Result<Vec<T>, OutOfMemory> {
    let mut v = Vec::new();
    try_reserve(&mut v, n)?;
    Ok(v)
}

/// Room for `additional` more items in `v`, or [`OutOfMemory`] (and `v` unchanged).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn try_reserve<T>(v: &mut Vec<T>, additional: usize) -> Result<(), OutOfMemory> {
    v.try_reserve_exact(additional)
        .map_err(|_| out_of_memory(additional.saturating_mul(std::mem::size_of::<T>())))
}

#[cfg(target_arch = "wasm32")]
mod backstop {
    use std::alloc::Layout;
    use std::sync::atomic::{AtomicPtr, Ordering};

    /// Freed by the hook so that the panic it raises, the unwinding and the error path can
    /// allocate even when the heap is full to the byte.
    const RESERVE: Layout = match Layout::from_size_align(256 << 10, 16) {
        Ok(l) => l,
        Err(_) => panic!("reserve layout"),
    };
    /// The reserve block, or null while it is spent.
    static RESERVE_PTR: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());

    pub(crate) fn install() {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| std::alloc::set_alloc_error_hook(on_alloc_error));
        rearm();
    }

    /// Takes the reserve again if it was spent and the memory has room (cheap when it is held).
    pub(crate) fn rearm() {
        if !RESERVE_PTR.load(Ordering::Relaxed).is_null() {
            return;
        }
        // SAFETY: RESERVE has a non-zero size.
        let p = unsafe { std::alloc::alloc(RESERVE) };
        if p.is_null() {
            return;
        }
        if RESERVE_PTR.compare_exchange(std::ptr::null_mut(), p, Ordering::AcqRel, Ordering::Relaxed).is_err() {
            // SAFETY: `p` was just allocated with RESERVE and nobody else has it.
            unsafe { std::alloc::dealloc(p, RESERVE) };
        }
    }

    fn on_alloc_error(layout: Layout) {
        let p = RESERVE_PTR.swap(std::ptr::null_mut(), Ordering::AcqRel);
        if !p.is_null() {
            // SAFETY: the swap made this thread the only owner of the block allocated in `rearm`.
            unsafe { std::alloc::dealloc(p, RESERVE) };
        }
        std::panic::panic_any(super::out_of_memory(layout.size()));
    }
}

/// Installs the alloc-error backstop (once per module) and takes the reserve it frees. The
/// hook is process-wide: an application that sets its own with `set_alloc_error_hook`
/// after creating a pool replaces it, and its out-of-memory errors become traps again.
#[cfg(target_arch = "wasm32")]
pub(crate) use backstop::{install as install_backstop, rearm};

#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn install_backstop() {}
#[cfg(not(target_arch = "wasm32"))]
#[allow(dead_code)]
pub(crate) fn rearm() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_impossible_vec_is_an_error_not_an_abort() {
        let e = try_vec::<u64>(usize::MAX / 4).unwrap_err();
        assert_eq!(e.needed, (usize::MAX / 4).saturating_mul(8));
        assert!(e.to_string().starts_with("out of memory: needed"), "{e}");
        let mut v = vec![1u8];
        assert!(try_reserve(&mut v, usize::MAX / 2).is_err());
        assert_eq!(v, [1], "a refused reserve leaves the vector as it was");
        assert_eq!(try_vec::<u8>(10).unwrap().capacity(), 10);
    }
}

/// An allocation the shared memory could not hold: a wasm memory only grows, and only up to
/// its maximum (the `--max-memory` link argument). Nothing was allocated for the refused value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfMemory {
    /// Bytes the refused allocation asked for.
    pub needed: usize,
    /// Bytes the memory had when it was refused (on wasm: the memory's size, which never
    /// shrinks; natively 0, unknown).
    pub in_use: usize,
    /// The memory's maximum in bytes (natively `usize::MAX`).
    pub maximum: usize,
}

impl fmt::Display for OutOfMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "out of memory: needed {} bytes, the memory holds {} bytes of its maximum {} (free pool.alloc views, \
             wait for queued tasks, or build with a larger --max-memory)",
            self.needed, self.in_use, self.maximum
        )
    }
}

impl std::error::Error for OutOfMemory {}
