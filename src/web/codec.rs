//! `JsValue` ⇄ [`Value`] on the thread that owns the JS value. Arguments are read on the
//! submitting thread and rebuilt on the worker; results the other way round.
//!
//! Objects are rebuilt with `Object.defineProperty`, so a key such as `__proto__` stays a
//! plain own property and never reaches a prototype. Only plain objects (prototype
//! `Object.prototype` or `null`) are accepted: DOM nodes and class instances are refused
//! with a `TypeError` rather than silently losing their behaviour.

use crate::value::{child_path, Budget, CodecError, TypedKind, Value, MAX_DEPTH};
use js_sys::{Array, ArrayBuffer, Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(inline_js = "
export function kindOf(v) {
  if (Array.isArray(v)) return 'array';
  if (v instanceof Map) return 'map';
  if (v instanceof Set) return 'set';
  if (v instanceof Date) return 'date';
  if (v instanceof ArrayBuffer) return 'arraybuffer';
  if (typeof SharedArrayBuffer === 'function' && v instanceof SharedArrayBuffer) return 'arraybuffer';
  if (ArrayBuffer.isView(v)) return 'view';
  if (v instanceof Error) return 'error';
  const proto = Object.getPrototypeOf(v);
  if (proto === Object.prototype || proto === null) return 'object';
  return 'instance:' + (proto?.constructor?.name || 'unknown');
}
export function viewName(v) { return v instanceof DataView ? 'DataView' : v.constructor.name; }
export function mapEntries(m) { return Array.from(m.entries()); }
export function setValues(s) { return Array.from(s.values()); }
export function newMap() { return new Map(); }
export function newSet() { return new Set(); }
export function mapSet(m, k, v) { m.set(k, v); }
export function setAdd(s, v) { s.add(v); }
export function defineValue(o, k, v) {
  Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
}
export function bigintToString(b) { return b.toString(); }
export function bigintFrom(s) { return BigInt(s); }
export function makeView(kind, buffer, offset, length) {
  return kind === 'DataView' ? new DataView(buffer, offset, length) : new globalThis[kind](buffer, offset, length);
}
export function viewBytes(v) { return new Uint8Array(v.buffer, v.byteOffset, v.byteLength); }
export function errorOf(name, message, stack) {
  const Ctor = { TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError }[name] ?? Error;
  const e = new Ctor(message);
  if (e.name !== name) Object.defineProperty(e, 'name', { value: name, writable: true, configurable: true });
  if (stack) Object.defineProperty(e, 'stack', { value: stack, writable: true, configurable: true });
  return e;
}
")]
extern "C" {
    #[wasm_bindgen(js_name = kindOf)]
    fn kind_of(v: &JsValue) -> String;
    #[wasm_bindgen(js_name = viewName)]
    fn view_name(v: &JsValue) -> String;
    #[wasm_bindgen(js_name = mapEntries)]
    fn map_entries(m: &JsValue) -> Array;
    #[wasm_bindgen(js_name = setValues)]
    fn set_values(s: &JsValue) -> Array;
    #[wasm_bindgen(js_name = newMap)]
    fn new_map() -> JsValue;
    #[wasm_bindgen(js_name = newSet)]
    fn new_set() -> JsValue;
    #[wasm_bindgen(js_name = mapSet)]
    fn map_set(m: &JsValue, k: &JsValue, v: &JsValue);
    #[wasm_bindgen(js_name = setAdd)]
    fn set_add(s: &JsValue, v: &JsValue);
    #[wasm_bindgen(js_name = defineValue)]
    fn define_value(o: &JsValue, k: &str, v: &JsValue);
    #[wasm_bindgen(js_name = bigintToString)]
    fn bigint_to_string(b: &JsValue) -> String;
    #[wasm_bindgen(js_name = bigintFrom)]
    fn bigint_from(s: &str) -> JsValue;
    #[wasm_bindgen(js_name = makeView)]
    fn make_view(kind: &str, buffer: &JsValue, offset: u32, length: u32) -> JsValue;
    #[wasm_bindgen(js_name = viewBytes)]
    fn view_bytes(v: &JsValue) -> Uint8Array;
    #[wasm_bindgen(js_name = errorOf)]
    pub(crate) fn error_of(name: &str, message: &str, stack: &str) -> JsValue;
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
    read(v, path, 0, budget, &mut stack, is_pool_view)
}

fn read(
    v: &JsValue,
    path: &str,
    depth: usize,
    budget: &mut Budget,
    stack: &mut Vec<JsValue>,
    is_pool_view: &dyn Fn(&JsValue) -> Option<u32>,
) -> Result<Value, CodecError> {
    let p = || path.to_owned();
    budget.charge(8, &p)?;
    if v.is_undefined() {
        return Ok(Value::Undefined);
    }
    if v.is_null() {
        return Ok(Value::Null);
    }
    if let Some(b) = v.as_bool() {
        return Ok(Value::Bool(b));
    }
    if let Some(n) = v.as_f64() {
        return Ok(Value::Number(n));
    }
    if let Some(s) = v.as_string() {
        budget.charge(s.len(), &p)?;
        return Ok(Value::String(s));
    }
    if v.is_bigint() {
        return Ok(Value::BigInt(bigint_to_string(v)));
    }
    if v.is_function() {
        return Err(CodecError::Unsupported { path: p(), what: "a function".into() });
    }
    if v.is_symbol() {
        return Err(CodecError::Unsupported { path: p(), what: "a symbol".into() });
    }
    if !v.is_object() {
        return Err(CodecError::Unsupported { path: p(), what: format!("a {}", v.js_typeof().as_string().unwrap_or_default()) });
    }
    if stack.iter().any(|s| Object::is(s, v)) {
        return Err(CodecError::TooDeep { path: p(), cyclic: true });
    }
    if depth >= MAX_DEPTH {
        return Err(CodecError::TooDeep { path: p(), cyclic: false });
    }
    let kind = kind_of(v);
    let children = |items: &Array, stack: &mut Vec<JsValue>, budget: &mut Budget| -> Result<Vec<Value>, CodecError> {
        stack.push(v.clone());
        let out = items
            .iter()
            .enumerate()
            .map(|(i, item)| read(&item, &format!("{path}[{i}]"), depth + 1, budget, stack, is_pool_view))
            .collect();
        stack.pop();
        out
    };
    Ok(match kind.as_str() {
        "array" => Value::Array(children(v.unchecked_ref::<Array>(), stack, budget)?),
        "set" => Value::Set(children(&set_values(v), stack, budget)?),
        "map" => {
            let flat = Array::new();
            for e in map_entries(v).iter() {
                let e: Array = e.unchecked_into();
                flat.push(&e.get(0));
                flat.push(&e.get(1));
            }
            let items = children(&flat, stack, budget)?;
            let mut it = items.into_iter();
            let mut pairs = Vec::new();
            while let (Some(k), Some(val)) = (it.next(), it.next()) {
                pairs.push((k, val));
            }
            Value::Map(pairs)
        }
        "date" => Value::Date(v.unchecked_ref::<js_sys::Date>().get_time()),
        "arraybuffer" => {
            let bytes = Uint8Array::new(v);
            budget.charge(bytes.length() as usize, &p)?;
            Value::ArrayBuffer(bytes.to_vec())
        }
        "view" => {
            let name = view_name(v);
            let Some(tk) = TypedKind::from_name(&name) else {
                return Err(CodecError::Unsupported { path: p(), what: format!("a {name}") });
            };
            if let Some(offset) = is_pool_view(v) {
                let len = Reflect::get(v, &"length".into()).ok().and_then(|l| l.as_f64()).unwrap_or(0.0) as u32;
                Value::Shared(tk, offset, len)
            } else {
                let bytes = view_bytes(v);
                budget.charge(bytes.length() as usize, &p)?;
                Value::Typed(tk, bytes.to_vec())
            }
        }
        "error" => {
            let get = |k: &str| Reflect::get(v, &k.into()).ok().and_then(|s| s.as_string()).unwrap_or_default();
            Value::Error { name: get("name"), message: get("message"), stack: get("stack") }
        }
        "object" => {
            stack.push(v.clone());
            let keys = Object::keys(v.unchecked_ref::<Object>());
            let mut fields = Vec::with_capacity(keys.length() as usize);
            for k in keys.iter() {
                let key = k.as_string().unwrap_or_default();
                budget.charge(key.len(), &p)?;
                let child = Reflect::get(v, &k).unwrap_or(JsValue::UNDEFINED);
                let value = read(&child, &child_path(path, &key), depth + 1, budget, stack, is_pool_view)?;
                fields.push((key, value));
            }
            stack.pop();
            Value::Object(fields)
        }
        other => {
            let name = other.strip_prefix("instance:").unwrap_or(other);
            return Err(CodecError::Unsupported {
                path: p(),
                what: format!("an instance of {name} (only plain objects cross; DOM objects and class instances do not)"),
            });
        }
    })
}

/// Builds the JS value for `v`. `memory` is this thread's view of the shared wasm memory,
/// used for pool-memory views.
pub(crate) fn to_js(v: &Value, memory: &JsValue) -> JsValue {
    match v {
        Value::Undefined => JsValue::UNDEFINED,
        Value::Null => JsValue::NULL,
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => (*n).into(),
        Value::BigInt(s) => bigint_from(s),
        Value::String(s) => s.into(),
        Value::Array(items) => items.iter().map(|i| to_js(i, memory)).collect::<Array>().into(),
        Value::Object(fields) => {
            let o: JsValue = Object::new().into();
            for (k, val) in fields {
                define_value(&o, k, &to_js(val, memory));
            }
            o
        }
        Value::Map(pairs) => {
            let m = new_map();
            for (k, val) in pairs {
                map_set(&m, &to_js(k, memory), &to_js(val, memory));
            }
            m
        }
        Value::Set(items) => {
            let s = new_set();
            for i in items {
                set_add(&s, &to_js(i, memory));
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
            let buffer = Reflect::get(memory, &"buffer".into()).unwrap_or(JsValue::UNDEFINED);
            make_view(kind.name(), &buffer, *offset, *len)
        }
        Value::Error { name, message, stack } => error_of(name, message, stack),
    }
}
