//! The values that cross between threads for JS-function tasks: arguments to the worker,
//! results back. A plain tree, built from a JS value on one thread and turned back into a JS
//! value on another (`web/codec.rs`), so no `JsValue` ever crosses threads.
//!
//! Limits keep hostile input from exhausting memory: [`MAX_DEPTH`] nesting levels and
//! [`MAX_PAYLOAD_BYTES`] bytes per submission (strings, buffers and 8 bytes per other node).

/// Deepest nesting accepted in arguments or results.
pub const MAX_DEPTH: usize = 128;
/// Most bytes one submission's arguments (or one result) may hold.
pub const MAX_PAYLOAD_BYTES: usize = 64 << 20;

/// Element type of a typed array (or `DataView`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypedKind {
    /// `Int8Array`.
    Int8,
    /// `Uint8Array`.
    Uint8,
    /// `Uint8ClampedArray`.
    Uint8Clamped,
    /// `Int16Array`.
    Int16,
    /// `Uint16Array`.
    Uint16,
    /// `Int32Array`.
    Int32,
    /// `Uint32Array`.
    Uint32,
    /// `Float32Array`.
    Float32,
    /// `Float64Array`.
    Float64,
    /// `BigInt64Array`.
    BigInt64,
    /// `BigUint64Array`.
    BigUint64,
    /// `DataView (bytes)`.
    DataView,
}

impl TypedKind {
    /// The kind for a constructor name (`"Float32Array"`), if it is one.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "Int8Array" => Self::Int8,
            "Uint8Array" => Self::Uint8,
            "Uint8ClampedArray" => Self::Uint8Clamped,
            "Int16Array" => Self::Int16,
            "Uint16Array" => Self::Uint16,
            "Int32Array" => Self::Int32,
            "Uint32Array" => Self::Uint32,
            "Float32Array" => Self::Float32,
            "Float64Array" => Self::Float64,
            "BigInt64Array" => Self::BigInt64,
            "BigUint64Array" => Self::BigUint64,
            "DataView" => Self::DataView,
            _ => return None,
        })
    }

    /// The constructor name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Int8 => "Int8Array",
            Self::Uint8 => "Uint8Array",
            Self::Uint8Clamped => "Uint8ClampedArray",
            Self::Int16 => "Int16Array",
            Self::Uint16 => "Uint16Array",
            Self::Int32 => "Int32Array",
            Self::Uint32 => "Uint32Array",
            Self::Float32 => "Float32Array",
            Self::Float64 => "Float64Array",
            Self::BigInt64 => "BigInt64Array",
            Self::BigUint64 => "BigUint64Array",
            Self::DataView => "DataView",
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Self::Int8 | Self::Uint8 | Self::Uint8Clamped | Self::DataView => 1,
            Self::Int16 | Self::Uint16 => 2,
            Self::Int32 | Self::Uint32 | Self::Float32 => 4,
            Self::Float64 | Self::BigInt64 | Self::BigUint64 => 8,
        }
    }
}

/// A value that can cross threads.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `undefined`.
    Undefined,
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// A number.
    Number(f64),
    /// Decimal digits, with a leading `-` for negatives.
    BigInt(String),
    /// A string.
    String(String),
    /// A dense array.
    Array(Vec<Value>),
    /// An array with holes: its `length` and its elements with their indices, ascending. It
    /// costs memory for its elements only; the holes stay holes.
    Sparse {
        /// The array's `length`.
        length: u32,
        /// The elements that are there, with their indices.
        items: Vec<(u32, Value)>,
    },
    /// Own enumerable string keys, in order. Keys like `__proto__` are plain data.
    Object(Vec<(String, Value)>),
    /// A `Map`'s entries, in order.
    Map(Vec<(Value, Value)>),
    /// A `Set`'s values, in order.
    Set(Vec<Value>),
    /// Milliseconds since the epoch (`NaN` for an invalid date).
    Date(f64),
    /// A copied `ArrayBuffer`'s bytes.
    ArrayBuffer(Vec<u8>),
    /// A copied typed array or `DataView`.
    Typed(TypedKind, Vec<u8>),
    /// A view of pool memory, passed by reference: byte offset and element count.
    Shared(TypedKind, u32, u32),
    /// A buffer listed in a JS submission's `options.transfer` (web only), large enough
    /// (`handoverSlot` in `src/web/transfer.js`): not copied through the shared memory but moved by `postMessage`
    /// to the worker that runs the task (the handover protocol in `src/README.md`).
    /// `handover` names the submission's list and `slot` the buffer in it; `view` is the
    /// view's kind (`None`: the `ArrayBuffer` itself), `offset` its byte offset and `len` its
    /// length in elements (bytes for an `ArrayBuffer`).
    Transferred {
        /// The submission's handover id.
        handover: u32,
        /// The buffer's index in `options.transfer`.
        slot: u32,
        /// The view's kind, or `None` for the buffer itself.
        view: Option<TypedKind>,
        /// The view's byte offset.
        offset: u32,
        /// The view's length in elements (bytes for a buffer or a `DataView`).
        len: u32,
    },
    /// A JSON-shaped array or plain object as JSON text (see `web/codec.rs`): rebuilt with
    /// one `JSON.parse` instead of a crossing per node.
    Json(String),
    /// A thrown `Error` (or an error value): its name, message and stack.
    Error {
        /// `error.name`.
        name: String,
        /// `error.message`.
        message: String,
        /// `error.stack`, or empty.
        stack: String,
    },
}

/// Why a value could not cross; `path` names where, e.g. `args[1].pixels`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CodecError {
    /// A function, symbol, DOM object or class instance (→ `TypeError`).
    Unsupported {
        /// Where in the value, e.g. `args[1].pixels`.
        path: String,
        /// What was found there.
        what: String,
    },
    /// A cycle, or deeper than [`MAX_DEPTH`] (→ `RangeError`).
    TooDeep {
        /// Where in the value, e.g. `args[1].pixels`.
        path: String,
        /// A cycle rather than mere depth.
        cyclic: bool,
    },
    /// More than [`MAX_PAYLOAD_BYTES`] (→ `RangeError`).
    TooLarge {
        /// Where in the value, e.g. `args[1].pixels`.
        path: String,
    },
    /// The shared memory cannot hold it now (→ `RangeError` with code `OUT_OF_MEMORY`).
    OutOfMemory {
        /// Where in the value, e.g. `args[1].pixels`.
        path: String,
        /// The refused allocation.
        oom: crate::memory::OutOfMemory,
    },
}

impl CodecError {
    /// `true` for the ones that map to `TypeError`.
    pub fn is_type_error(&self) -> bool {
        matches!(self, CodecError::Unsupported { .. })
    }
}

impl std::fmt::Display for CodecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CodecError::Unsupported { path, what } => write!(
                f,
                "{path} cannot be sent to a worker: {what} (JSON-like values, undefined, typed arrays, \
                 ArrayBuffer, Map, Set, Date, BigInt and errors can)"
            ),
            CodecError::TooDeep { path, cyclic: true } => write!(f, "{path} is cyclic; cyclic values cannot be sent"),
            CodecError::TooDeep { path, cyclic: false } => {
                write!(f, "{path} is nested deeper than {MAX_DEPTH} levels")
            }
            CodecError::TooLarge { path } => write!(f, "{path} makes the payload larger than {MAX_PAYLOAD_BYTES} bytes"),
            CodecError::OutOfMemory { path, oom } => write!(f, "{path} does not fit in memory: {oom}"),
        }
    }
}

impl std::error::Error for CodecError {}

/// Tracks the byte budget of one payload.
#[derive(Debug)]
pub struct Budget(usize);

impl Default for Budget {
    fn default() -> Self {
        Budget(MAX_PAYLOAD_BYTES)
    }
}

impl Budget {
    /// Bytes still allowed.
    pub fn remaining(&self) -> usize {
        self.0
    }

    /// A budget with `bytes` left (what a payload read another way leaves over).
    pub fn with_remaining(bytes: usize) -> Self {
        Budget(bytes)
    }

    /// Charges `bytes`, failing once the payload would exceed the limit.
    pub fn charge(&mut self, bytes: usize, path: &dyn Fn() -> String) -> Result<(), CodecError> {
        match self.0.checked_sub(bytes) {
            Some(left) => {
                self.0 = left;
                Ok(())
            }
            None => Err(CodecError::TooLarge { path: path() }),
        }
    }
}

/// Appends a property or index to a path, quoting keys that are not identifiers.
pub fn child_path(path: &str, key: &str) -> String {
    let ident = !key.is_empty()
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        && !key.starts_with(|c: char| c.is_ascii_digit());
    if ident {
        format!("{path}.{key}")
    } else {
        format!("{path}[{key:?}]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_refuses_past_the_limit() {
        let mut b = Budget::default();
        b.charge(MAX_PAYLOAD_BYTES - 1, &|| "args[0]".into()).unwrap();
        b.charge(1, &|| "args[0]".into()).unwrap();
        let e = b.charge(1, &|| "args[1]".into()).unwrap_err();
        assert_eq!(e, CodecError::TooLarge { path: "args[1]".into() });
        assert!(e.to_string().contains("args[1]"));
    }

    #[test]
    fn paths_quote_odd_keys() {
        assert_eq!(child_path("args[0]", "pixels"), "args[0].pixels");
        assert_eq!(child_path("args[0]", "a b"), "args[0][\"a b\"]");
        assert_eq!(child_path("args[0]", "1x"), "args[0][\"1x\"]");
    }

    #[test]
    fn typed_kinds_round_trip_names() {
        for k in [TypedKind::Int8, TypedKind::Uint8Clamped, TypedKind::Float64, TypedKind::BigUint64, TypedKind::DataView] {
            assert_eq!(TypedKind::from_name(k.name()), Some(k));
        }
        assert_eq!(TypedKind::from_name("Float16Array"), None);
    }
}
