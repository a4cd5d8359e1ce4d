//! A wasm app built on ringpool. Each `#[wasm_bindgen]` export below becomes an export of
//! `pkg/index.js`, next to ringpool's `Pool`, error classes, `diagnostics` and `memoryBytes`:
//!
//! ```js
//! import { Pool, PanicError, total, scale, divide } from './pkg/index.js';
//! await total(10);                                          // Rust awaits its own tasks
//! const pool = await Pool.create({ workers: 2 });
//! await pool.trySubmit(scale({ values: [1, 2], scale: 2 })); // { values: [2, 4], sum: 6, worker }
//! await pool.trySubmit(divide(1, 0));                         // rejects with PanicError
//! ```

use ringpool::web::Task;
use ringpool::WorkerPool;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

/// Steps of the Collatz sequence from `n` down to 1: a little CPU work per task.
pub fn collatz_steps(mut n: u64) -> u32 {
    let mut steps = 0;
    while n > 1 {
        n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
        steps += 1;
    }
    steps
}

/// Sums `collatz_steps(i)` for `i` in `1..=n` on a pool of its own: one task per `i`, each
/// awaited with `?`. Every ringpool error converts into the package's JS error class, so
/// `total(100)` rejects with `QueueFullError` (16 queue slots) and a panicking task would
/// reject with `PanicError`.
#[wasm_bindgen]
pub async fn total(n: u32) -> Result<f64, JsValue> {
    let pool = WorkerPool::new(3, 16)?;
    let mut handles = Vec::new();
    for i in 1..=u64::from(n) {
        handles.push(pool.try_submit(move || collatz_steps(i))?);
    }
    let mut sum = 0.0;
    for handle in handles {
        sum += f64::from(handle.await?);
    }
    pool.shutdown().await?;
    Ok(sum)
}

/// What JS passes to [`scale`].
#[derive(Deserialize)]
pub struct ScaleArgs {
    values: Vec<f64>,
    scale: f64,
}

/// What a [`scale`] task resolves with in JS (a plain object).
#[derive(Serialize)]
pub struct Scaled {
    values: Vec<f64>,
    sum: f64,
    /// Which worker ran it.
    worker: Option<usize>,
}

/// A typed task for JS: `pool.trySubmit(scale({ values, scale }))`. The arguments are checked
/// here, on the caller's thread (a bad one throws at once); a worker computes; the result
/// becomes a JS object when the promise settles.
#[wasm_bindgen]
pub fn scale(input: JsValue) -> Result<Task, JsValue> {
    let args: ScaleArgs = serde_wasm_bindgen::from_value(input)?;
    Ok(Task::serde(move || {
        let values: Vec<f64> = args.values.iter().map(|v| v * args.scale).collect();
        Scaled { sum: values.iter().sum(), values, worker: ringpool::worker_index() }
    }))
}

/// `a / divisor`, which panics when `divisor` is 0: the promise rejects with `PanicError`
/// (message and `src/lib.rs` location) and the worker goes on with the next task.
#[wasm_bindgen]
pub fn divide(a: f64, divisor: f64) -> Task {
    Task::serde(move || {
        if divisor == 0.0 {
            panic!("division by zero: {a} / 0");
        }
        a / divisor
    })
}
