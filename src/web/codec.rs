//! `JsValue` ⇄ [`Value`] on the thread that owns the JS value. Arguments are read on the
//! submitting thread and rebuilt on the worker; results the other way round.
//!
//! Objects are rebuilt as own data properties (`Object.defineProperty` for any key that
//! `Object.prototype` has), so a key such as `__proto__` stays a plain own property and never
//! reaches a prototype or a setter on it. Only plain objects (prototype
//! `Object.prototype` or `null`) are accepted: DOM nodes and class instances are refused
//! with a `TypeError` rather than silently losing their behaviour.
//!
//! Two readers, one result. A payload that is JSON-shaped all through (arrays and plain
//! objects of strings, finite numbers other than -0, booleans and null: most results) crosses
//! as JSON text made in JS (`jsonOf`) and is rebuilt with one `JSON.parse`; anything else goes
//! through the general reader, which asks JS about each node. The fast path charges the same
//! budget, stops at the same depth, never runs a getter and leaves strings with lone
//! surrogates to the general reader, so which path a payload took cannot be seen from JS
//! (`tests/node/json-path.test.mjs`). It exists because a crossing costs ~0.3–0.5 µs and the
//! general reader needs two or three per node: a six-key record took ~25.

use crate::memory::try_vec;
use crate::value::{child_path, Budget, CodecError, TypedKind, Value, MAX_DEPTH};
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(module = "/src/web/codec.js")]
extern "C" {
    #[wasm_bindgen(js_name = kindOf, catch)]
    fn kind_of(v: &JsValue) -> Result<f64, JsValue>;
    #[wasm_bindgen(js_name = instanceName, catch)]
    fn instance_name(v: &JsValue) -> Result<String, JsValue>;
    #[wasm_bindgen(js_name = jsonOf, catch)]
    fn json_of(v: &JsValue, budget: f64, depth: u32) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = jsonParse)]
    fn json_parse(text: &str) -> JsValue;
    #[wasm_bindgen(js_name = utf8Bytes)]
    fn utf8_bytes(s: &JsValue) -> f64;
    #[wasm_bindgen(js_name = writeUtf8, catch)]
    fn write_utf8(s: &JsValue, memory: &JsValue, ptr: u32, n: u32) -> Result<f64, JsValue>;
    #[wasm_bindgen(js_name = writeBytes, catch)]
    fn write_bytes(v: &JsValue, memory: &JsValue, ptr: u32, n: u32) -> Result<(), JsValue>;
    #[wasm_bindgen(js_name = arrayItems, catch)]
    fn array_items(a: &JsValue, budget: f64) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = sparseArray)]
    fn sparse_array(length: u32, entries: &Array) -> JsValue;
    #[wasm_bindgen(js_name = ownKeys, catch)]
    fn own_keys(o: &JsValue) -> Result<Array, JsValue>;
    #[wasm_bindgen(js_name = property, catch)]
    fn property(o: &JsValue, k: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = viewName, catch)]
    fn view_name(v: &JsValue) -> Result<String, JsValue>;
    #[wasm_bindgen(js_name = mapEntries, catch)]
    fn map_entries(m: &JsValue) -> Result<Array, JsValue>;
    #[wasm_bindgen(js_name = setValues, catch)]
    fn set_values(s: &JsValue) -> Result<Array, JsValue>;
    #[wasm_bindgen(js_name = dateTime, catch)]
    fn date_time(d: &JsValue) -> Result<f64, JsValue>;
    #[wasm_bindgen(js_name = byteLength, catch)]
    fn byte_length(v: &JsValue) -> Result<f64, JsValue>;
    #[wasm_bindgen(js_name = viewLength, catch)]
    fn view_length(v: &JsValue) -> Result<f64, JsValue>;
    #[wasm_bindgen(js_name = argsArray, catch)]
    fn args_array(v: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = newMap)]
    fn new_map() -> JsValue;
    #[wasm_bindgen(js_name = newSet)]
    fn new_set() -> JsValue;
    #[wasm_bindgen(js_name = mapSet)]
    fn map_set(m: &JsValue, k: &JsValue, v: &JsValue);
    #[wasm_bindgen(js_name = setAdd)]
    fn set_add(s: &JsValue, v: &JsValue);
    #[wasm_bindgen(js_name = defineValue)]
    fn define_value(o: &JsValue, k: &JsValue, v: &JsValue);
    #[wasm_bindgen(js_name = bigintToString)]
    fn bigint_to_string(b: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = bigintFrom)]
    fn bigint_from(s: &str) -> JsValue;
    #[wasm_bindgen(js_name = bufferFrom)]
    fn buffer_from(memory: &JsValue, ptr: u32, n: u32) -> JsValue;
    #[wasm_bindgen(js_name = makeView)]
    fn make_view(kind: &str, buffer: &JsValue, offset: u32, length: u32) -> JsValue;
    #[wasm_bindgen(js_name = errorOf)]
    pub(crate) fn error_of(name: &str, message: &str, stack: &str) -> JsValue;
    /// `name: message` of an error, else `String(e)`, cut at 300 characters.
    #[wasm_bindgen(js_name = describeThrow)]
    pub(crate) fn describe_throw(e: &JsValue) -> String;
    #[wasm_bindgen(js_name = viewOffset)]
    fn view_offset(v: &JsValue) -> f64;
}

#[wasm_bindgen(module = "/src/web/transfer.js")]
extern "C" {
    #[wasm_bindgen(js_name = handoverSlot, catch)]
    fn handover_slot(items: &JsValue, v: &JsValue, n: f64, any_size: bool) -> Result<f64, JsValue>;
    #[wasm_bindgen(js_name = handedPlaceholder)]
    fn handed_placeholder(slot: u32, kind: &str, offset: u32, len: u32) -> JsValue;
}

/// A submission's `options.transfer` as the reader sees it: a listed buffer large enough to
/// hand over (`handoverSlot`, transfer.js) becomes [`Value::Transferred`] under handover `id`,
/// and `used` says that one did.
pub(crate) struct Handover<'a> {
    pub(crate) items: &'a JsValue,
    pub(crate) id: u32,
    pub(crate) used: &'a std::cell::Cell<bool>,
    /// Every listed buffer is handed over, however small: in message mode the task's message
    /// moves it, where a copy would cross twice (into the owner's memory and out by value).
    pub(crate) any_size: bool,
}

/// Most distinct object keys [`key`] keeps per thread, and the longest it keeps.
const MAX_KEYS: usize = 512;
const MAX_KEY_LEN: usize = 64;

/// The JS string for object key `k`. Result objects of one kind of task repeat the same few
/// keys, and a string made from shared memory costs a copy and a `TextDecoder` call each
/// time; so short keys are made once per thread and reused (measured: ~1 µs per key).
fn key(k: &str) -> JsValue {
    use std::cell::RefCell;
    use std::collections::HashMap;
    std::thread_local!(static KEYS: RefCell<HashMap<Box<str>, JsValue>> = RefCell::new(HashMap::new()));
    KEYS.with(|keys| {
        let mut keys = keys.borrow_mut();
        if let Some(js) = keys.get(k) {
            return js.clone();
        }
        let js = JsValue::from_str(k);
        if keys.len() < MAX_KEYS && k.len() <= MAX_KEY_LEN {
            keys.insert(k.into(), js.clone());
        }
        js
    })
}

/// Where a value sits in its payload (`args[0].tiles[3]`). Built on the stack as the reader
/// descends and rendered only for an error message: a payload that reads cleanly makes no
/// path strings (they were an allocation per property and per array item).
#[derive(Clone, Copy)]
enum Path<'a> {
    Root(&'a str),
    Index(&'a Path<'a>, usize),
    Key(&'a Path<'a>, &'a str),
}

impl Path<'_> {
    fn render(&self) -> String {
        match self {
            Path::Root(p) => (*p).to_owned(),
            Path::Index(parent, i) => format!("{}[{i}]", parent.render()),
            Path::Key(parent, k) => child_path(&parent.render(), k),
        }
    }
}

/// `kindOf`'s answers.
mod kind {
    pub const UNDEFINED: u32 = 0;
    pub const NULL: u32 = 1;
    pub const BOOLEAN: u32 = 2;
    pub const NUMBER: u32 = 3;
    pub const STRING: u32 = 4;
    pub const BIGINT: u32 = 5;
    pub const FUNCTION: u32 = 6;
    pub const SYMBOL: u32 = 7;
    pub const ARRAY: u32 = 8;
    pub const MAP: u32 = 9;
    pub const SET: u32 = 10;
    pub const DATE: u32 = 11;
    pub const ARRAY_BUFFER: u32 = 12;
    pub const VIEW: u32 = 13;
    pub const ERROR: u32 = 14;
    pub const PLAIN_OBJECT: u32 = 15;
    pub const INSTANCE: u32 = 16;
}

/// A value whose inspection threw (a getter, a proxy trap, a detached buffer).
fn threw(path: &Path<'_>, e: JsValue) -> CodecError {
    CodecError::Unsupported { path: path.render(), what: format!("reading it threw ({})", describe_throw(&e)) }
}

/// A copy of `args` if it is an array (`None` if not), made in one call on the admission
/// path: getters run once, inside a catch.
pub(crate) fn array_copy(args: &JsValue) -> Result<Option<Array>, CodecError> {
    let copy = args_array(args).map_err(|e| threw(&Path::Root("args"), e))?;
    Ok(if copy.is_null() { None } else { Some(copy.unchecked_into()) })
}

/// Reads `v` into a [`Value`]. `is_pool_view` says whether a typed array is a view of pool
/// memory (then it crosses by reference) and returns its byte offset.
///
/// Nothing is allocated for a value before it is measured and charged to `budget`, and every
/// allocation whose size the value decides is fallible (`src/memory.rs`): a payload that does
/// not fit is a [`CodecError`], never a trap, and a refused one leaves the memory as it was.
pub(crate) fn from_js(
    v: &JsValue,
    path: &str,
    budget: &mut Budget,
    is_pool_view: &dyn Fn(&JsValue) -> Option<u32>,
) -> Result<Value, CodecError> {
    from_js_handing(v, path, budget, is_pool_view, None)
}

/// [`from_js`] for a submission's arguments, with the call's transfer list if it has one.
pub(crate) fn from_js_handing(
    v: &JsValue,
    path: &str,
    budget: &mut Budget,
    is_pool_view: &dyn Fn(&JsValue) -> Option<u32>,
    handover: Option<&Handover<'_>>,
) -> Result<Value, CodecError> {
    let mut reader = Reader { budget, stack: Vec::new(), is_pool_view, memory: None, handover };
    reader.read(v, &Path::Root(path), 0)
}

/// `s` (a JS string) in a fallibly allocated `String`, refused past `limit` bytes before
/// anything is allocated.
pub(crate) fn string_within(s: &JsValue, limit: usize, path: &dyn Fn() -> String) -> Result<String, CodecError> {
    let n = utf8_bytes(s) as usize;
    Budget::with_remaining(limit).charge(n, path)?;
    copy_string(s, n, &wasm_bindgen::memory(), path)
}

/// A JS string of `n` UTF-8 bytes (as `utf8Bytes` measured it), copied into a `String` that is
/// allocated fallibly. The caller charged the budget for it.
fn copy_string(s: &JsValue, n: usize, memory: &JsValue, path: &dyn Fn() -> String) -> Result<String, CodecError> {
    let mut bytes = bytes_for(n, path)?;
    if n > 0 {
        let written = write_utf8(s, memory, bytes.as_mut_ptr() as u32, n as u32).unwrap_or(-1.0);
        // (`assert!`, not `assert_eq!`: printing the two f64s would link in float formatting.)
        assert!(written == n as f64, "writeUtf8 wrote other than the {n} bytes utf8Bytes measured");
        // SAFETY: `writeUtf8` initialised exactly the first `n` bytes (checked just above).
        unsafe { bytes.set_len(n) };
    }
    String::from_utf8(bytes).map_err(|_| CodecError::Unsupported { path: path(), what: "a string that is not valid UTF-8".into() })
}

/// An empty buffer with room for `n` bytes, or the out-of-memory error for `path`.
fn bytes_for(n: usize, path: &dyn Fn() -> String) -> Result<Vec<u8>, CodecError> {
    try_vec(n).map_err(|oom| CodecError::OutOfMemory { path: path(), oom })
}

struct Reader<'a> {
    budget: &'a mut Budget,
    /// The arrays and objects being read, outermost first (a cycle check).
    stack: Vec<JsValue>,
    is_pool_view: &'a dyn Fn(&JsValue) -> Option<u32>,
    /// `wasm_bindgen::memory()`, fetched once per payload when a string or buffer is copied.
    memory: Option<JsValue>,
    handover: Option<&'a Handover<'a>>,
}

impl Reader<'_> {
    fn memory(&mut self) -> &JsValue {
        self.memory.get_or_insert_with(wasm_bindgen::memory)
    }

    /// A string whose `n` bytes were measured, charged and copied.
    fn string(&mut self, s: &JsValue, n: usize, path: &Path<'_>) -> Result<String, CodecError> {
        let p = || path.render();
        self.budget.charge(n, &p)?;
        let memory = self.memory().clone();
        copy_string(s, n, &memory, &p)
    }

    /// The bytes of a buffer or view of `n` bytes, charged and copied (one bulk copy).
    fn bytes(&mut self, v: &JsValue, n: usize, path: &Path<'_>) -> Result<Vec<u8>, CodecError> {
        let p = || path.render();
        self.budget.charge(n, &p)?;
        let mut bytes = bytes_for(n, &p)?;
        if n > 0 {
            let memory = self.memory().clone();
            write_bytes(v, &memory, bytes.as_mut_ptr() as u32, n as u32).map_err(|e| threw(path, e))?;
            // SAFETY: `writeBytes` initialised the first `n` bytes (it throws, and we return
            // above, if the source is shorter).
            unsafe { bytes.set_len(n) };
        }
        Ok(bytes)
    }

    /// A buffer (`view: None`) or view `v` of `n` bytes whose buffer the call's transfer list
    /// names, as a handover instead of a copy; `None` if it is not listed or is too small. It
    /// is charged as a copy would be, so the limits are the same either way.
    fn handed(&mut self, v: &JsValue, view: Option<TypedKind>, n: usize, path: &Path<'_>) -> Result<Option<Value>, CodecError> {
        let Some(h) = self.handover else {
            return Ok(None);
        };
        let slot = handover_slot(h.items, v, n as f64, h.any_size).map_err(|e| threw(path, e))?;
        if slot < 0.0 {
            return Ok(None);
        }
        self.budget.charge(n, &|| path.render())?;
        h.used.set(true);
        let (offset, len) = match view {
            None => (0, n as u32),
            Some(_) => (view_offset(v) as u32, view_length(v).map_err(|e| threw(path, e))? as u32),
        };
        Ok(Some(Value::Transferred { handover: h.id, slot: slot as u32, view, offset, len }))
    }

    /// Room for `n` items, refused past the budget (8 bytes each) before anything is allocated.
    fn items<T>(&mut self, n: usize, path: &Path<'_>) -> Result<Vec<T>, CodecError> {
        let p = || path.render();
        if n.saturating_mul(8) > self.budget.remaining() {
            return Err(CodecError::TooLarge { path: p() });
        }
        try_vec(n).map_err(|oom| CodecError::OutOfMemory { path: p(), oom })
    }

    fn children(&mut self, v: &JsValue, items: &Array, path: &Path<'_>, depth: usize) -> Result<Vec<Value>, CodecError> {
        let mut out = self.items(items.length() as usize, path)?;
        self.stack.push(v.clone());
        for (i, item) in items.iter().enumerate() {
            out.push(self.read(&item, &Path::Index(path, i), depth + 1)?);
        }
        self.stack.pop();
        Ok(out)
    }

    fn read(&mut self, v: &JsValue, path: &Path<'_>, depth: usize) -> Result<Value, CodecError> {
        let p = || path.render();
        self.budget.charge(8, &p)?;
        // One crossing says what `v` is (and a string's length); a primitive then needs at
        // most one more for its value.
        let code = kind_of(v).map_err(|e| threw(path, e))?;
        let k = (code % 32.0) as u32;
        match k {
            kind::UNDEFINED => return Ok(Value::Undefined),
            kind::NULL => return Ok(Value::Null),
            kind::BOOLEAN => return Ok(Value::Bool(v.is_truthy())),
            kind::NUMBER => return Ok(Value::Number(v.unchecked_into_f64())),
            kind::STRING => return Ok(Value::String(self.string(v, (code / 32.0) as usize, path)?)),
            kind::BIGINT => {
                let digits = bigint_to_string(v);
                let n = utf8_bytes(&digits) as usize;
                return Ok(Value::BigInt(self.string(&digits, n, path)?));
            }
            kind::FUNCTION => return Err(CodecError::Unsupported { path: p(), what: "a function".into() }),
            kind::SYMBOL => return Err(CodecError::Unsupported { path: p(), what: "a symbol".into() }),
            kind::ARRAY..=kind::INSTANCE => {}
            _ => return Err(CodecError::Unsupported { path: p(), what: format!("a {}", v.js_typeof().as_string().unwrap_or_default()) }),
        }
        if depth == 0 && (k == kind::ARRAY || k == kind::PLAIN_OBJECT) {
            if let Some(json) = self.read_json(v, path)? {
                return Ok(json);
            }
        }
        if self.stack.iter().any(|s| Object::is(s, v)) {
            return Err(CodecError::TooDeep { path: p(), cyclic: true });
        }
        if depth >= MAX_DEPTH {
            return Err(CodecError::TooDeep { path: p(), cyclic: false });
        }
        Ok(match k {
            // Copies first (`slice`, `Array.from`): getters run once, in our catch, and the copy is
            // a plain array that iterating cannot throw on.
            kind::ARRAY => {
                let items = array_items(v, self.budget.remaining() as f64).map_err(|e| threw(path, e))?;
                if items.is_null() {
                    return Err(CodecError::TooLarge { path: p() });
                }
                if Array::is_array(&items) {
                    Value::Array(self.children(v, items.unchecked_ref(), path, depth)?)
                } else {
                    self.sparse(v, &items, path, depth)?
                }
            }
            kind::SET => Value::Set(self.children(v, &set_values(v).map_err(|e| threw(path, e))?, path, depth)?),
            kind::MAP => {
                let flat = map_entries(v).map_err(|e| threw(path, e))?;
                let items = self.children(v, &flat, path, depth)?;
                let mut pairs = self.items(items.len() / 2, path)?;
                let mut it = items.into_iter();
                while let (Some(k), Some(val)) = (it.next(), it.next()) {
                    pairs.push((k, val));
                }
                Value::Map(pairs)
            }
            kind::DATE => Value::Date(date_time(v).map_err(|e| threw(path, e))?),
            kind::ARRAY_BUFFER => {
                let n = byte_length(v).map_err(|e| threw(path, e))? as usize;
                match self.handed(v, None, n, path)? {
                    Some(handed) => handed,
                    None => Value::ArrayBuffer(self.bytes(v, n, path)?),
                }
            }
            kind::VIEW => {
                let name = view_name(v).map_err(|e| threw(path, e))?;
                let Some(tk) = TypedKind::from_name(&name) else {
                    return Err(CodecError::Unsupported { path: p(), what: format!("a {name}") });
                };
                if let Some(offset) = (self.is_pool_view)(v) {
                    Value::Shared(tk, offset, view_length(v).map_err(|e| threw(path, e))? as u32)
                } else {
                    let n = byte_length(v).map_err(|e| threw(path, e))? as usize;
                    match self.handed(v, Some(tk), n, path)? {
                        Some(handed) => handed,
                        None => Value::Typed(tk, self.bytes(v, n, path)?),
                    }
                }
            }
            kind::ERROR => {
                let mut text = |k: &str| -> Result<String, CodecError> {
                    match property(v, &k.into()) {
                        Ok(s) if s.is_string() => {
                            let n = utf8_bytes(&s) as usize;
                            self.string(&s, n, &Path::Key(path, k))
                        }
                        _ => Ok(String::new()),
                    }
                };
                Value::Error { name: text("name")?, message: text("message")?, stack: text("stack")? }
            }
            kind::PLAIN_OBJECT => {
                let keys = own_keys(v).map_err(|e| threw(path, e))?;
                let mut fields = self.items(keys.length() as usize / 2, path)?;
                self.stack.push(v.clone());
                for i in (0..keys.length()).step_by(2) {
                    let k = keys.get(i);
                    let key = self.string(&k, keys.get(i + 1).as_f64().unwrap_or(0.0) as usize, path)?;
                    let child_path = Path::Key(path, &key);
                    let child = property(v, &k).map_err(|e| threw(&child_path, e))?;
                    let value = self.read(&child, &child_path, depth + 1)?;
                    fields.push((key, value));
                }
                self.stack.pop();
                Value::Object(fields)
            }
            _ => {
                let name = instance_name(v).map_err(|e| threw(path, e))?;
                return Err(CodecError::Unsupported {
                    path: p(),
                    what: format!("an instance of {name} (only plain objects cross; DOM objects and class instances do not)"),
                });
            }
        })
    }

    /// An array with holes (`arrayItems`' `{length, entries}`): its elements and where they sit.
    fn sparse(&mut self, v: &JsValue, found: &JsValue, path: &Path<'_>, depth: usize) -> Result<Value, CodecError> {
        let length = property(found, &"length".into()).ok().and_then(|l| l.as_f64()).unwrap_or(0.0) as u32;
        let entries: Array = property(found, &"entries".into()).map_err(|e| threw(path, e))?.unchecked_into();
        let mut items = self.items(entries.length() as usize / 2, path)?;
        self.stack.push(v.clone());
        for i in (0..entries.length()).step_by(2) {
            let index = entries.get(i).as_f64().unwrap_or(0.0) as u32;
            self.budget.charge(8, &|| path.render())?;
            items.push((index, self.read(&entries.get(i + 1), &Path::Index(path, index as usize), depth + 1)?));
        }
        self.stack.pop();
        Ok(Value::Sparse { length, items })
    }

    /// The JSON fast path (`jsonOf` above) for a whole payload: `None` if it is not JSON-shaped,
    /// or if reading it threw (the general reader then reports where).
    fn read_json(&mut self, v: &JsValue, path: &Path<'_>) -> Result<Option<Value>, CodecError> {
        // The 8 bytes `read` charged for `v` go back: `jsonOf`'s cost counts `v` too.
        let left = self.budget.remaining() + 8;
        let Ok(found) = json_of(v, left as f64, MAX_DEPTH as u32) else {
            return Ok(None);
        };
        if found.is_undefined() {
            return Ok(None);
        }
        let triple: Array = found.unchecked_into();
        let cost = triple.get(1).as_f64().unwrap_or(f64::INFINITY) as usize;
        let Some(left) = left.checked_sub(cost) else {
            return Ok(None);
        };
        *self.budget = Budget::with_remaining(left);
        let bytes = triple.get(2).as_f64().unwrap_or(0.0) as usize;
        let memory = self.memory().clone();
        Ok(Some(Value::Json(copy_string(&triple.get(0), bytes, &memory, &|| path.render())?)))
    }
}

/// A new `ArrayBuffer` with a copy of `bytes` (one bulk copy, `bufferFrom` in codec.js).
fn copy_out(bytes: &[u8]) -> JsValue {
    buffer_from(&wasm_bindgen::memory(), bytes.as_ptr() as u32, bytes.len() as u32)
}

/// Builds the JS value for `v`.
pub(crate) fn to_js(v: &Value) -> JsValue {
    match v {
        Value::Undefined => JsValue::UNDEFINED,
        Value::Null => JsValue::NULL,
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => (*n).into(),
        Value::BigInt(s) => bigint_from(s),
        Value::String(s) => s.into(),
        Value::Array(items) => items.iter().map(|i| to_js(i)).collect::<Array>().into(),
        Value::Sparse { length, items } => {
            let entries = Array::new();
            for (index, item) in items {
                entries.push(&(*index).into());
                entries.push(&to_js(item));
            }
            sparse_array(*length, &entries)
        }
        Value::Object(fields) => {
            let o: JsValue = Object::new().into();
            for (k, val) in fields {
                define_value(&o, &key(k), &to_js(val));
            }
            o
        }
        Value::Map(pairs) => {
            let m = new_map();
            for (k, val) in pairs {
                map_set(&m, &to_js(k), &to_js(val));
            }
            m
        }
        Value::Set(items) => {
            let s = new_set();
            for i in items {
                set_add(&s, &to_js(i));
            }
            s
        }
        Value::Date(ms) => js_sys::Date::new(&(*ms).into()).into(),
        Value::ArrayBuffer(bytes) => copy_out(bytes),
        Value::Typed(kind, bytes) => {
            let buf = copy_out(bytes);
            let len = if *kind == TypedKind::DataView { bytes.len() } else { bytes.len() / kind.size() };
            make_view(kind.name(), &buf, 0, len as u32)
        }
        Value::Shared(kind, offset, len) => {
            let buffer = Reflect::get(&wasm_bindgen::memory(), &"buffer".into()).unwrap_or(JsValue::UNDEFINED);
            make_view(kind.name(), &buffer, *offset, *len)
        }
        Value::Error { name, message, stack } => error_of(name, message, stack),
        Value::Json(text) => json_parse(text),
        // Filled in with the buffer once the worker has claimed it (`runTask`, jsfn.js).
        Value::Transferred { handover: _, slot, view, offset, len } => {
            handed_placeholder(*slot, view.map_or("", TypedKind::name), *offset, *len)
        }
    }
}
