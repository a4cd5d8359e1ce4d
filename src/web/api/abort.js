// AbortSignal glue for src/web/api/abort.rs: one id per signal (the same on every call), and one
// `abort` listener per signal in use that calls back into Rust with that id.
const ids = new WeakMap();
let nextId = 1;
// -1: not an AbortSignal; 0: aborted already; else the signal's id, the same on every call.
export function signalId(s) {
  try {
    if (s === null || typeof s !== 'object' || typeof s.aborted !== 'boolean' || typeof s.addEventListener !== 'function') return -1;
    if (s.aborted) return 0;
  } catch { return -1; }
  let id = ids.get(s);
  if (id === undefined) { id = nextId++; ids.set(s, id); }
  return id;
}
export function abortReason(signal) {
  try { return signal.reason ?? new DOMException('This operation was aborted', 'AbortError'); } catch (e) { return e; }
}
// `onAbort(id)` (Rust's handler for this thread) runs when `s` aborts.
export function listen(s, id, onAbort) {
  const listener = () => onAbort(id);
  s.addEventListener('abort', listener, { once: true });
  return listener;
}
export function unlisten(s, listener) { try { s.removeEventListener('abort', listener); } catch {} }
