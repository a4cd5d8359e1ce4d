//! Property test: the ring against a plain `VecDeque` model, over random sequences of
//! `try_push`, `pop` and `close` on rings of capacity 1..=8 (single-threaded; the
//! concurrent interleavings are loom's job, `tests/loom.rs`).

#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use ringpool::ring::{PushError, Ring};
use std::collections::VecDeque;

#[derive(Debug, Clone)]
enum Op {
    Push(u16),
    Pop,
    Close,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![6 => any::<u16>().prop_map(Op::Push), 5 => Just(Op::Pop), 1 => Just(Op::Close)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn ring_behaves_like_a_bounded_fifo(capacity in 1usize..=8, ops in proptest::collection::vec(op(), 0..200)) {
        let ring = Ring::new(capacity).unwrap();
        let mut model = VecDeque::new();
        let mut closed = false;
        for op in ops {
            match op {
                Op::Push(v) => {
                    let got = ring.try_push(v);
                    let want = if closed {
                        Err(PushError::Closed(v))
                    } else if model.len() == capacity {
                        Err(PushError::Full(v))
                    } else {
                        model.push_back(v);
                        Ok(())
                    };
                    prop_assert_eq!(got, want);
                }
                Op::Pop => prop_assert_eq!(ring.pop(), model.pop_front()),
                Op::Close => {
                    prop_assert_eq!(ring.close(), !closed);
                    closed = true;
                }
            }
            prop_assert_eq!(ring.is_closed(), closed);
            prop_assert_eq!(ring.len(), model.len());
        }
        // Whatever was accepted drains in order, even after close.
        while let Some(v) = model.pop_front() {
            prop_assert_eq!(ring.pop(), Some(v));
        }
        prop_assert_eq!(ring.pop(), None);
    }
}
