//! Turning a panic inside a task into [`TaskError::Panicked`] with its message and location.
//!
//! `catch_unwind` gives the payload but not the location, so a panic hook (installed once,
//! chained to the previous hook) records `file:line:col` for panics on a thread that is inside
//! [`catch`]. Panics elsewhere go to the previous hook untouched.

use crate::error::TaskError;
use std::cell::{Cell, RefCell};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

std::thread_local! {
    static IN_TASK: Cell<bool> = const { Cell::new(false) };
    static LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn install_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if IN_TASK.with(Cell::get) {
                let loc = info.location().map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
                LOCATION.with(|slot| *slot.borrow_mut() = loc);
            } else {
                previous(info);
            }
        }));
    });
}

/// Runs `f`, turning a panic into `TaskError::Panicked`.
pub(crate) fn catch<T>(f: impl FnOnce() -> T) -> Result<T, TaskError> {
    install_hook();
    let outer = IN_TASK.with(|t| t.replace(true));
    let result = catch_unwind(AssertUnwindSafe(f));
    IN_TASK.with(|t| t.set(outer));
    result.map_err(|payload| {
        let message = if let Some(s) = payload.downcast_ref::<&'static str>() {
            (*s).to_owned()
        } else if let Some(s) = payload.downcast_ref::<String>() {
            s.clone()
        } else {
            String::from("Box<dyn Any>")
        };
        let location = LOCATION.with(|slot| slot.borrow_mut().take());
        TaskError::Panicked { message, location }
    })
}
