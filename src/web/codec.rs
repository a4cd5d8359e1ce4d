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

use crate::value::{child_path, Budget, CodecError, TypedKind, Value, MAX_DEPTH};
use js_sys::{Array, ArrayBuffer, Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(inline_js = "
// Everything here may meet hostile values (getters and proxies that throw, detached
// buffers): each import that touches a value is `catch`, so a throw becomes a `TypeError`
// naming the path instead of unwinding through Rust.
// What `v` is, as a number (the `Kind` enum in Rust). Never throws for a primitive; for an
// object it may (a revoked proxy), and the caller reads it inside a catch.
export function kindOf(v) {
  switch (typeof v) {
    case 'undefined': return v === undefined ? 0 : 19;
    case 'boolean': return 2;
    case 'number': return 3;
    case 'string': return 4;
    case 'bigint': return 5;
    case 'function': return 6;
    case 'symbol': return 7;
    case 'object': break;
    default: return 19;
  }
  if (v === null) return 1;
  if (Array.isArray(v)) return 8;
  if (v instanceof Map) return 9;
  if (v instanceof Set) return 10;
  if (v instanceof Date) return 11;
  if (v instanceof ArrayBuffer) return 12;
  if (typeof SharedArrayBuffer === 'function' && v instanceof SharedArrayBuffer) return 12;
  if (ArrayBuffer.isView(v)) return 13;
  if (v instanceof Error) return 14;
  const proto = Object.getPrototypeOf(v);
  if (proto === Object.prototype || proto === null) return 15;
  return 16;
}
export function instanceName(v) { return Object.getPrototypeOf(v)?.constructor?.name || 'unknown'; }
// The fast path for JSON-shaped payloads (arrays and plain objects of strings, finite
// numbers other than -0, booleans and null): their JSON text crosses in one call and is
// rebuilt with one JSON.parse, where the general reader below crosses into JS several times
// per node. `undefined` means not JSON-shaped (or over `budget`, deeper than `depth`): the
// general reader then runs and says exactly why, if anything is wrong. It never runs a getter:
// an accessor property sends the payload to the general reader, which runs each getter once
// (a proxy's traps may run twice). A data property is still read with `v[k]`, as the general
// reader does, so a proxy's `get` trap answers on both paths alike. The cost it
// returns is what the general reader charges for the same value (8 bytes per value plus the
// UTF-8 bytes of strings and keys), so the payload limit is the same either way.
export function jsonOf(v, budget, depth) {
  const st = { cost: 0, budget, depth };
  const text = jsonWalk(v, 0, st);
  return text === undefined ? undefined : [text, st.cost];
}
function jsonWalk(v, depth, st) {
  st.cost += 8;
  switch (typeof v) {
    case 'string': {
      const n = utf8Length(v);
      st.cost += n;
      return n < 0 || st.cost > st.budget ? undefined : JSON.stringify(v);
    }
    case 'number': return Number.isFinite(v) && !Object.is(v, -0) ? String(v) : undefined;
    case 'boolean': return v ? 'true' : 'false';
    case 'object': break;
    default: return undefined;
  }
  if (v === null) return 'null';
  if (depth >= st.depth || st.cost > st.budget) return undefined;
  const proto = Object.getPrototypeOf(v);
  if (proto === Array.prototype && Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) {
      const d = Object.getOwnPropertyDescriptor(v, i);
      if (d === undefined || !('value' in d)) return undefined;
      const item = jsonWalk(v[i], depth + 1, st);
      if (item === undefined || st.cost > st.budget) return undefined;
      out += i === 0 ? item : ',' + item;
    }
    return out + ']';
  }
  if (proto !== Object.prototype && proto !== null) return undefined;
  if (Array.isArray(v)) return undefined;
  let out = '{', first = true;
  for (const k of Object.keys(v)) {
    const d = Object.getOwnPropertyDescriptor(v, k);
    if (d === undefined || !('value' in d)) return undefined;
    const n = utf8Length(k);
    if (n < 0) return undefined;
    st.cost += n;
    const item = jsonWalk(v[k], depth + 1, st);
    if (item === undefined || st.cost > st.budget) return undefined;
    out += (first ? '' : ',') + JSON.stringify(k) + ':' + item;
    first = false;
  }
  return out + '}';
}
// The bytes of `s` in UTF-8, or -1 if it holds a lone surrogate: the general reader turns
// that into U+FFFD, and JSON would keep it, so such strings take the general path.
function utf8Length(s) {
  if (!/[^\\x00-\\x7f]/.test(s)) return s.length;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if ((c & 0xf800) !== 0xd800) n += 3;
    else if (c < 0xdc00 && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) { n += 4; i++; }
    else return -1;
  }
  return n;
}
export function jsonParse(text) { return JSON.parse(text); }
export function arrayItems(a) { return Array.prototype.slice.call(a); }
export function ownKeys(o) { return Object.keys(o); }
export function property(o, k) { return o[k]; }
export function viewName(v) { return Object.prototype.toString.call(v).slice(8, -1); }
export function mapEntries(m) { return Array.from(Map.prototype.entries.call(m)).flat(); }
export function setValues(s) { return Array.from(Set.prototype.values.call(s)); }
export function dateTime(d) { return Date.prototype.getTime.call(d); }
export function bufferBytes(b) { return new Uint8Array(b); }
export function viewBytes(v) { return new Uint8Array(v.buffer, v.byteOffset, v.byteLength); }
export function viewLength(v) { return v instanceof DataView ? v.byteLength : v.length; }
export function argsArray(v) { return Array.isArray(v) ? Array.prototype.slice.call(v) : null; }
export function newMap() { return new Map(); }
export function newSet() { return new Set(); }
export function mapSet(m, k, v) { m.set(k, v); }
export function setAdd(s, v) { s.add(v); }
// `o` is a fresh plain object: a key that Object.prototype does not have (no setter, no
// `__proto__`) becomes an own data property by plain assignment, the same as defineProperty
// and several times cheaper.
export function defineValue(o, k, v) {
  if (!(k in Object.prototype)) o[k] = v;
  else Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
}
export function bigintToString(b) { return b.toString(); }
export function bigintFrom(s) { return BigInt(s); }
export function makeView(kind, buffer, offset, length) {
  return kind === 'DataView' ? new DataView(buffer, offset, length) : new globalThis[kind](buffer, offset, length);
}
export function errorOf(name, message, stack) {
  const Ctor = { TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError }[name] ?? Error;
  const e = new Ctor(message);
  if (e.name !== name) Object.defineProperty(e, 'name', { value: name, writable: true, configurable: true });
  if (stack) Object.defineProperty(e, 'stack', { value: stack, writable: true, configurable: true });
  return e;
}
export function describeThrow(e) {
  try { return e instanceof Error ? `${e.name}: ${e.message}` : String(e); } catch { return 'an exception'; }
}
")]
extern "C" {
    #[wasm_bindgen(js_name = kindOf, catch)]
    fn kind_of(v: &JsValue) -> Result<u32, JsValue>;
    #[wasm_bindgen(js_name = instanceName, catch)]
    fn instance_name(v: &JsValue) -> Result<String, JsValue>;
    #[wasm_bindgen(js_name = jsonOf, catch)]
    fn json_of(v: &JsValue, budget: f64, depth: u32) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = jsonParse)]
    fn json_parse(text: &str) -> JsValue;
    #[wasm_bindgen(js_name = arrayItems, catch)]
    fn array_items(a: &JsValue) -> Result<Array, JsValue>;
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
    #[wasm_bindgen(js_name = bufferBytes, catch)]
    fn buffer_bytes(b: &JsValue) -> Result<Uint8Array, JsValue>;
    #[wasm_bindgen(js_name = viewBytes, catch)]
    fn view_bytes(v: &JsValue) -> Result<Uint8Array, JsValue>;
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
    fn bigint_to_string(b: &JsValue) -> String;
    #[wasm_bindgen(js_name = bigintFrom)]
    fn bigint_from(s: &str) -> JsValue;
    #[wasm_bindgen(js_name = makeView)]
    fn make_view(kind: &str, buffer: &JsValue, offset: u32, length: u32) -> JsValue;
    #[wasm_bindgen(js_name = errorOf)]
    pub(crate) fn error_of(name: &str, message: &str, stack: &str) -> JsValue;
    #[wasm_bindgen(js_name = describeThrow)]
    fn describe_throw(e: &JsValue) -> String;
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
pub(crate) fn from_js(
    v: &JsValue,
    path: &str,
    budget: &mut Budget,
    is_pool_view: &dyn Fn(&JsValue) -> Option<u32>,
) -> Result<Value, CodecError> {
    let mut stack = Vec::new();
    read(v, &Path::Root(path), 0, budget, &mut stack, is_pool_view)
}

fn read(
    v: &JsValue,
    path: &Path<'_>,
    depth: usize,
    budget: &mut Budget,
    stack: &mut Vec<JsValue>,
    is_pool_view: &dyn Fn(&JsValue) -> Option<u32>,
) -> Result<Value, CodecError> {
    let p = || path.render();
    budget.charge(8, &p)?;
    // One crossing says what `v` is; a primitive then needs at most one more for its value.
    let k = kind_of(v).map_err(|e| threw(path, e))?;
    match k {
        kind::UNDEFINED => return Ok(Value::Undefined),
        kind::NULL => return Ok(Value::Null),
        kind::BOOLEAN => return Ok(Value::Bool(v.is_truthy())),
        kind::NUMBER => return Ok(Value::Number(v.unchecked_into_f64())),
        kind::STRING => {
            let s = v.as_string().unwrap_or_default();
            budget.charge(s.len(), &p)?;
            return Ok(Value::String(s));
        }
        kind::BIGINT => return Ok(Value::BigInt(bigint_to_string(v))),
        kind::FUNCTION => return Err(CodecError::Unsupported { path: p(), what: "a function".into() }),
        kind::SYMBOL => return Err(CodecError::Unsupported { path: p(), what: "a symbol".into() }),
        kind::ARRAY..=kind::INSTANCE => {}
        _ => return Err(CodecError::Unsupported { path: p(), what: format!("a {}", v.js_typeof().as_string().unwrap_or_default()) }),
    }
    if depth == 0 && (k == kind::ARRAY || k == kind::PLAIN_OBJECT) {
        if let Some(json) = read_json(v, budget) {
            return Ok(json);
        }
    }
    if stack.iter().any(|s| Object::is(s, v)) {
        return Err(CodecError::TooDeep { path: p(), cyclic: true });
    }
    if depth >= MAX_DEPTH {
        return Err(CodecError::TooDeep { path: p(), cyclic: false });
    }
    let children = |items: &Array, stack: &mut Vec<JsValue>, budget: &mut Budget| -> Result<Vec<Value>, CodecError> {
        stack.push(v.clone());
        let out = items
            .iter()
            .enumerate()
            .map(|(i, item)| read(&item, &Path::Index(path, i), depth + 1, budget, stack, is_pool_view))
            .collect();
        stack.pop();
        out
    };
    Ok(match k {
        // Copies first (`slice`, `Array.from`): getters run once, in our catch, and the copy is
        // a plain array that iterating cannot throw on.
        kind::ARRAY => Value::Array(children(&array_items(v).map_err(|e| threw(path, e))?, stack, budget)?),
        kind::SET => Value::Set(children(&set_values(v).map_err(|e| threw(path, e))?, stack, budget)?),
        kind::MAP => {
            let flat = map_entries(v).map_err(|e| threw(path, e))?;
            let items = children(&flat, stack, budget)?;
            let mut it = items.into_iter();
            let mut pairs = Vec::new();
            while let (Some(k), Some(val)) = (it.next(), it.next()) {
                pairs.push((k, val));
            }
            Value::Map(pairs)
        }
        kind::DATE => Value::Date(date_time(v).map_err(|e| threw(path, e))?),
        kind::ARRAY_BUFFER => {
            let bytes = buffer_bytes(v).map_err(|e| threw(path, e))?;
            budget.charge(bytes.length() as usize, &p)?;
            Value::ArrayBuffer(bytes.to_vec())
        }
        kind::VIEW => {
            let name = view_name(v).map_err(|e| threw(path, e))?;
            let Some(tk) = TypedKind::from_name(&name) else {
                return Err(CodecError::Unsupported { path: p(), what: format!("a {name}") });
            };
            if let Some(offset) = is_pool_view(v) {
                Value::Shared(tk, offset, view_length(v).map_err(|e| threw(path, e))? as u32)
            } else {
                let bytes = view_bytes(v).map_err(|e| threw(path, e))?;
                budget.charge(bytes.length() as usize, &p)?;
                Value::Typed(tk, bytes.to_vec())
            }
        }
        kind::ERROR => {
            let get = |k: &str| property(v, &k.into()).ok().and_then(|s| s.as_string()).unwrap_or_default();
            Value::Error { name: get("name"), message: get("message"), stack: get("stack") }
        }
        kind::PLAIN_OBJECT => {
            let keys = own_keys(v).map_err(|e| threw(path, e))?;
            stack.push(v.clone());
            let mut fields = Vec::with_capacity(keys.length() as usize);
            for k in keys.iter() {
                let key = k.as_string().unwrap_or_default();
                budget.charge(key.len(), &p)?;
                let child_path = Path::Key(path, &key);
                let child = property(v, &k).map_err(|e| threw(&child_path, e))?;
                let value = read(&child, &child_path, depth + 1, budget, stack, is_pool_view)?;
                fields.push((key, value));
            }
            stack.pop();
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

/// The JSON fast path (`jsonOf` above) for a whole payload: `None` if it is not JSON-shaped,
/// or if reading it threw (the general reader then reports where).
fn read_json(v: &JsValue, budget: &mut Budget) -> Option<Value> {
    // The 8 bytes `read` charged for `v` go back: `jsonOf`'s cost counts `v` too.
    let left = budget.remaining() + 8;
    let found = json_of(v, left as f64, MAX_DEPTH as u32).ok()?;
    if found.is_undefined() {
        return None;
    }
    let pair: Array = found.unchecked_into();
    let text = pair.get(0).as_string()?;
    let cost = pair.get(1).as_f64()? as usize;
    *budget = Budget::with_remaining(left.checked_sub(cost)?);
    Some(Value::Json(text))
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
        Value::ArrayBuffer(bytes) => {
            let buf = ArrayBuffer::new(bytes.len() as u32);
            Uint8Array::new(&buf).copy_from(bytes);
            buf.into()
        }
        Value::Typed(kind, bytes) => {
            let buf = ArrayBuffer::new(bytes.len() as u32);
            Uint8Array::new(&buf).copy_from(bytes);
            let len = if *kind == TypedKind::DataView { bytes.len() } else { bytes.len() / kind.size() };
            make_view(kind.name(), &buf, 0, len as u32)
        }
        Value::Shared(kind, offset, len) => {
            let buffer = Reflect::get(&wasm_bindgen::memory(), &"buffer".into()).unwrap_or(JsValue::UNDEFINED);
            make_view(kind.name(), &buffer, *offset, *len)
        }
        Value::Error { name, message, stack } => error_of(name, message, stack),
        Value::Json(text) => json_parse(text),
    }
}
