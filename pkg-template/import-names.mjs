// Short names for the wasm's imports from wasm-bindgen's glue (`ringpool-build`, build.mjs).
//
// wasm-bindgen names every import from its glue `__wbg_<name>_<16 hex digits>` (or `__wbindgen_…`): ~170 names of
// ~30 bytes that appear twice in what a page downloads, once in the wasm's import section and
// once as a key of the glue's import object, and whose hashes gzip cannot shrink. This renames
// each hashed import to `a0`, `a1`, … in both: 16.8 -> 14.2 KB gzip of glue, and ~2 KB of wasm.
//
// The wasm: only the import section is rewritten (the module's other sections, and so its code
// and its function indices, are copied byte for byte). The glue: each hashed name must occur
// exactly once, as the key `name:` of the import object, or the build stops; names without a
// hash (`memory`, `__wbindgen_…` helpers the glue also names elsewhere) are left alone.

/** Reads an unsigned LEB128 at `at`: [value, next offset]. */
function leb(bytes, at) {
  let value = 0, shift = 0, b;
  do {
    b = bytes[at++];
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
  } while (b & 0x80);
  return [value, at];
}

function encodeLeb(n) {
  const out = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return out;
}

const text = new TextDecoder(), utf8 = new TextEncoder();

function name(bytes, at) {
  const [n, start] = leb(bytes, at);
  return [text.decode(bytes.subarray(start, start + n)), start + n];
}

/** The end of an import's descriptor of kind `kind` starting at `at`. */
function skipDescriptor(bytes, kind, at) {
  const limits = (p) => {
    const flags = bytes[p++];
    [, p] = leb(bytes, p);
    if (flags & 1) [, p] = leb(bytes, p);
    return p;
  };
  // A value or reference type: one byte, or (ref null? <heap type>) with a signed LEB.
  const valtype = (p) => (bytes[p] === 0x63 || bytes[p] === 0x64 ? leb(bytes, p + 1)[1] : p + 1);
  switch (kind) {
    case 0: return leb(bytes, at)[1]; // function: type index
    case 1: return limits(valtype(at)); // table: reference type, limits
    case 2: return limits(at); // memory: limits (shared, memory64 in the flags)
    case 3: return valtype(at) + 1; // global: type, mutability
    case 4: return leb(bytes, at + 1)[1]; // tag: attribute, type index
    default: throw new Error(`build: the wasm imports something of unknown kind ${kind}; update pkg-template/import-names.mjs`);
  }
}

const HASHED = /^__wb(g|indgen)_.*_[0-9a-f]{16}$/;

/**
 * Renames the hashed function imports of module `from` (the glue, `./<name>_bg.js`) in `wasm`
 * (a Uint8Array) and in `glue` (its JS text). Returns `{ wasm, glue, renamed }`; throws when
 * the glue does not name an import exactly once as a key.
 */
export function shortenImportNames(wasm, glue, from) {
  const out = [wasm.subarray(0, 8)];
  const renames = new Map();
  let at = 8;
  while (at < wasm.length) {
    const id = wasm[at];
    const [size, start] = leb(wasm, at + 1);
    const end = start + size;
    if (id !== 2) {
      out.push(wasm.subarray(at, end));
      at = end;
      continue;
    }
    let [count, p] = leb(wasm, start);
    const entries = [encodeLeb(count)];
    while (count-- > 0) {
      const [module, afterModule] = name(wasm, p);
      const [field, afterField] = name(wasm, afterModule);
      const kind = wasm[afterField];
      const descEnd = skipDescriptor(wasm, kind, afterField + 1);
      let field2 = field;
      if (module === from && kind === 0 && HASHED.test(field)) {
        field2 = `a${renames.size.toString(36)}`;
        renames.set(field, field2);
      }
      const m = utf8.encode(module), f = utf8.encode(field2);
      entries.push(encodeLeb(m.length), m, encodeLeb(f.length), f, wasm.subarray(afterField, descEnd));
      p = descEnd;
    }
    if (p !== end) throw new Error(`build: the wasm's import section ends at ${p}, not at ${end}; update pkg-template/import-names.mjs`);
    const content = Uint8Array.from(entries.flatMap((e) => [...e]));
    out.push(Uint8Array.of(2, ...encodeLeb(content.length)), content);
    at = end;
  }
  let js = glue;
  for (const [long, short] of renames) {
    const uses = js.split(long).length - 1;
    const key = js.split(`${long}:`).length - 1;
    if (uses !== 1 || key !== 1) throw new Error(`build: the glue names the import ${long} ${uses} times (${key} as a key), not once as a key of its import object; wasm-bindgen's glue changed shape: update pkg-template/import-names.mjs`);
    js = js.replace(`${long}:`, `${short}:`);
  }
  const bytes = new Uint8Array(out.reduce((n, part) => n + part.length, 0));
  let o = 0;
  for (const part of out) {
    bytes.set(part, o);
    o += part.length;
  }
  return { wasm: bytes, glue: js, renamed: renames.size };
}
