// `options.transfer`: the ArrayBuffers a call hands over, as with `postMessage`'s transfer
// list (piscina's `transferList`, workerpool's `transfer`). The arguments are copied into the
// pool's shared memory when the call is read, so the caller's buffers are not needed after
// that: once the task is admitted, each listed buffer is detached (its memory freed at once
// where the engine has `ArrayBuffer.prototype.transfer`).

// A copy of `list` if every entry can be transferred, else a string saying which cannot and
// why (Rust makes it a TypeError). Never throws: a getter that throws is reported too.
export function checkTransfer(list) {
  if (!Array.isArray(list)) {
    return `options.transfer must be an array of ArrayBuffers, got ${list === null ? 'null' : typeof list}`;
  }
  let items;
  try { items = Array.from(list); } catch (e) { return `options.transfer could not be read: ${e}`; }
  const seen = new Set();
  for (let i = 0; i < items.length; i++) {
    const b = items[i];
    const at = `options.transfer[${i}]`;
    if (typeof SharedArrayBuffer === 'function' && b instanceof SharedArrayBuffer) {
      return `${at} is a SharedArrayBuffer, which cannot be transferred (shared memory is already shared)`;
    }
    if (ArrayBuffer.isView(b)) {
      return `${at} is a ${b.constructor?.name ?? 'view'}; list its buffer (${at.replace('options.transfer', 'view')}.buffer) instead`;
    }
    if (!(b instanceof ArrayBuffer)) {
      return `${at} must be an ArrayBuffer, got ${b === null ? 'null' : typeof b === 'object' ? (b.constructor?.name ?? 'object') : typeof b}`;
    }
    if (isDetached(b)) return `${at} is a detached ArrayBuffer`;
    if (seen.has(b)) return `${at} is listed twice`;
    seen.add(b);
  }
  return items;
}

function isDetached(b) {
  if (typeof b.detached === 'boolean') return b.detached;
  if (b.byteLength > 0) return false;
  try { new Uint8Array(b); return false; } catch { return true; }
}

// Detaches every buffer of a list `checkTransfer` accepted (skipping one detached meanwhile).
export function detachAll(items) {
  for (const b of items) {
    if (isDetached(b)) continue;
    if (typeof b.transfer === 'function') b.transfer(0);
    else structuredClone(b, { transfer: [b] });
  }
}
