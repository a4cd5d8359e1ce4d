// Task functions sent as source, compiled once per worker: the per-worker cache, by submission
// source id and by source text. Both modes' workers use it (jsfn.js, posted.js).

export function compileTask(source) {
  let f;
  try {
    f = new Function('return (' + source + '\n)')();
  } catch (e) {
    // A method of an object literal (`{ resize(img) { … } }.resize`) has method source.
    if (!(e instanceof SyntaxError)) throw e;
    const method = (prefix) => Object.values(new Function('return ({' + prefix + source + '\n})')())[0];
    // JavaScriptCore prints an async method named `async` without its `async` modifier
    // (`async(x) { await … }`), which then parses as a plain method and fails on `await`.
    try { f = method(''); } catch { try { f = method('async '); } catch { throw e; } }
  }
  if (typeof f !== 'function') throw new TypeError('the task source is not a function');
  return f;
}
// They live in the worker's JS heap, so a worker that dies in a trap takes them along (a Rust
// thread-local cache would leak its heap memory with the dead thread).
const byId = new Map(), bySource = new Map();
export function compileCached(id, source) {
  let f = bySource.get(source);
  if (f === undefined) {
    f = compileTask(source);
    if (bySource.size >= 256) bySource.clear();
    bySource.set(source, f);
  }
  if (byId.size >= 1024) byId.clear();
  byId.set(id, f);
  return f;
}
// The function compiled for source `id`, if this worker has it.
export function cached(id) {
  return byId.get(id);
}
