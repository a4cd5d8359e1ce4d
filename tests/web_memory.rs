//! The Rust API under memory pressure, in headless Chromium (a test binary of its own, so its
//! page's memory, which these tests fill to its maximum, is not the one `tests/web.rs`
//! measures). See `src/memory.rs`.
#![cfg(target_arch = "wasm32")]

use ringpool::{SubmitError, TaskError, WorkerPool};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const GIB: usize = 1 << 30;

async fn new_pool(workers: usize, cap: usize) -> WorkerPool {
    let pool = WorkerPool::new(workers, cap).unwrap();
    JsFuture::from(pool.ready()).await.unwrap();
    pool
}

async fn shutdown(pool: &WorkerPool) {
    let done = pool.shutdown();
    let p = wasm_bindgen_futures::future_to_promise(async move {
        done.await.map_err(|e| JsValue::from_str(&e.to_string()))?;
        Ok(JsValue::UNDEFINED)
    });
    JsFuture::from(p).await.unwrap();
}

#[wasm_bindgen_test]
async fn a_task_that_allocates_too_much_is_out_of_memory_and_its_worker_lives() {
    let pool = new_pool(1, 4).await;
    let first = pool.try_submit(ringpool::worker_id).unwrap().await.unwrap();
    let before = ringpool::memory::in_use();
    let err = pool.try_submit(|| vec![1u8; GIB + GIB / 2].len()).unwrap().await.unwrap_err();
    let TaskError::OutOfMemory(oom) = err else { panic!("expected OutOfMemory, got {err:?}") };
    assert_eq!(oom.needed, GIB + GIB / 2);
    assert_eq!(oom.maximum, GIB, "the maximum comes from the build's --max-memory");
    assert!(oom.in_use >= before && oom.in_use <= GIB, "{oom:?}");
    assert!(err.to_string().starts_with("out of memory: needed 1610612736 bytes"), "{err}");
    assert_eq!(ringpool::memory::in_use(), before, "a refused allocation did not grow the memory");

    // As a JS promise: the package's OutOfMemoryError.
    let p = pool.try_submit(|| vec![1u8; 2 * GIB - 1].len()).unwrap().into_promise_with(|n| (n as f64).into());
    let js = JsFuture::from(p).await.unwrap_err();
    assert_eq!(js_sys::Reflect::get(&js, &"code".into()).unwrap().as_string().as_deref(), Some("OUT_OF_MEMORY"));
    assert!(js.is_instance_of::<js_sys::RangeError>());

    let again = pool.try_submit(ringpool::worker_id).unwrap().await.unwrap();
    assert_eq!(again, first, "the same worker ran the next task");
    let s = pool.stats();
    assert_eq!((s.crashed, s.panicked, s.failed, s.completed), (0, 0, 2, 2), "{s:?}");
    shutdown(&pool).await;
}

/// Fills the memory with blocks, halving their size down to 1 byte (so that no hole of the
/// allocator's smallest chunk is left), with fallible allocations only.
fn fill() -> Vec<Vec<u8>> {
    let mut blocks = Vec::with_capacity(8192);
    let mut size = 64 << 20;
    while size >= 1 {
        let mut b = Vec::new();
        if b.try_reserve_exact(size).is_ok() && blocks.len() < blocks.capacity() {
            blocks.push(b);
        } else {
            size /= 2;
        }
    }
    blocks
}

#[wasm_bindgen_test]
async fn a_task_the_memory_cannot_hold_is_handed_back() {
    let pool = new_pool(1, 4).await;
    // 4 KiB: a debug build copies the closure through several frames of the page's stack.
    let payload = [7u8; 4 << 10];
    let blocks = fill();
    let refused = pool.try_submit(move || payload.iter().map(|&b| b as usize).sum::<usize>());
    drop(blocks);
    let f = match refused {
        Err(SubmitError::OutOfMemory(f, oom)) => {
            assert!(oom.needed >= 4 << 10, "{oom:?}");
            assert_eq!(oom.maximum, GIB);
            f
        }
        Err(e) => panic!("expected OutOfMemory, got {e:?}"),
        Ok(_) => panic!("the full memory took a 4 KiB task"),
    };
    assert_eq!(f(), 7 * (4 << 10), "the closure came back whole");
    let handle = pool.try_submit(f).unwrap();
    assert_eq!(handle.await.unwrap(), 7 * (4 << 10), "with room again it runs");
    assert_eq!(pool.stats().rejected, 1);
    shutdown(&pool).await;
}


