//! Turning a panic inside a task into [`TaskError::Panicked`] with its message and location,
//! and an out-of-memory panic (raised by the backstop in `memory.rs`) into
//! [`TaskError::OutOfMemory`] or, around an admission, into an [`OutOfMemory`] error.
//!
//! `catch_unwind` gives the payload but not the location, so a panic hook (installed once,
//! chained to the previous hook) records `file:line:col` for panics on a thread that is inside
//! [`catch`]. Out-of-memory panics inside [`catch`] or [`catch_oom`] are expected and print
//! nothing. Panics elsewhere go to the previous hook untouched.

use crate::error::TaskError;
use crate::memory::OutOfMemory;
use std::cell::{Cell, RefCell};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::Once;

/// What the current thread is inside of.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scope {
    None,
    Task,
    Admission,
}

std::thread_local! {
    static SCOPE: Cell<Scope> = const { Cell::new(Scope::None) };
    static LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs the hook (once per module). Called when a pool is built, since it allocates and so
/// must not first run from an admission on a full memory (that poisoned the `Once`: found by
/// `tests/web_memory.rs`); [`scoped`] calls it too, for code that catches without a pool.
pub(crate) fn install_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let scope = SCOPE.with(Cell::get);
            if scope != Scope::None && info.payload().is::<OutOfMemory>() {
                return;
            }
            if scope == Scope::Task {
                let loc = info.location().map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
                LOCATION.with(|slot| *slot.borrow_mut() = loc);
            } else {
                previous(info);
            }
        }));
    });
}

fn scoped<T>(scope: Scope, f: impl FnOnce() -> T) -> std::thread::Result<T> {
    install_hook();
    let outer = SCOPE.with(|s| s.replace(scope));
    let result = catch_unwind(AssertUnwindSafe(f));
    SCOPE.with(|s| s.set(outer));
    result
}

/// Runs `f`, turning a panic into `TaskError::Panicked` (or `OutOfMemory`).
pub(crate) fn catch<T>(f: impl FnOnce() -> T) -> Result<T, TaskError> {
    scoped(Scope::Task, f).map_err(|payload| {
        let location = LOCATION.with(|slot| slot.borrow_mut().take());
        if let Some(oom) = payload.downcast_ref::<OutOfMemory>() {
            return TaskError::OutOfMemory(*oom);
        }
        let message = if let Some(s) = payload.downcast_ref::<&'static str>() {
            (*s).to_owned()
        } else if let Some(s) = payload.downcast_ref::<String>() {
            s.clone()
        } else {
            String::from("Box<dyn Any>")
        };
        TaskError::Panicked { message, location }
    })
}

/// Runs `f` (an admission on the submitting thread), turning an allocation that failed inside
/// it into `Err(OutOfMemory)`. Any other panic goes on unwinding.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn catch_oom<T>(f: impl FnOnce() -> T) -> Result<T, OutOfMemory> {
    scoped(Scope::Admission, f).map_err(|payload| match payload.downcast::<OutOfMemory>() {
        Ok(oom) => *oom,
        Err(other) => resume_unwind(other),
    })
}
