// Which buffers are the pool memory's (src/web/mod.rs `pool_view_offset`): every buffer the
// shared memory has had, so a view made before the memory grew is still recognised.
const seen = new WeakSet();
export function poolViewOffset(memory, v) {
  seen.add(memory.buffer);
  return seen.has(v.buffer) ? v.byteOffset : -1;
}
export function noteBuffer(memory) { seen.add(memory.buffer); return memory.buffer; }
