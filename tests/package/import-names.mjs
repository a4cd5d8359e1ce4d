// The build's short import names (pkg-template/import-names.mjs): a module with one import of
// every kind keeps all of them but the glue's hashed functions, which are renamed in the wasm
// and in the glue alike; a glue that names an import other than once as a key stops the build;
// and the built package (argument: its folder) imports no hashed name.
// `node tests/package/import-names.mjs pkg`
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { shortenImportNames } from '../../pkg-template/import-names.mjs';

const str = (s) => [s.length, ...Buffer.from(s)];
const leb = (n) => (n < 128 ? [n] : [(n % 128) | 0x80, ...leb(Math.floor(n / 128))]);
const section = (id, bytes) => [id, ...leb(bytes.length), ...bytes];

// type 0: () -> (); imports: a hashed glue function, an unhashed one, a shared memory, an
// externref table, a mutable i32 global, a tag, and a hashed name from another module.
const HASHED = '__wbg_queueMicrotask_1e8503a8a690f0a3';
const imports = [
  7,
  ...str('./x_bg.js'), ...str(HASHED), 0, 0,
  ...str('./x_bg.js'), ...str('__wbindgen_helper'), 0, 0,
  ...str('./x_bg.js'), ...str('memory'), 2, 3, 1, 4,
  ...str('./x_bg.js'), ...str('table'), 1, 0x6f, 0, 2,
  ...str('./x_bg.js'), ...str('global'), 3, 0x7f, 1,
  ...str('./x_bg.js'), ...str('tag'), 4, 0, 0,
  ...str('other'), ...str('__wbg_other_0123456789abcdef'), 0, 0,
];
const wasm = Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, ...section(1, [1, 0x60, 0, 0]), ...section(2, imports)]);
const before = WebAssembly.Module.imports(new WebAssembly.Module(wasm));
const glue = `const import0 = { ${HASHED}: function () {}, __wbindgen_helper: __wbindgen_helper };`;

const { wasm: short, glue: shortGlue, renamed } = shortenImportNames(wasm, glue, './x_bg.js');
assert.equal(renamed, 1);
const after = WebAssembly.Module.imports(new WebAssembly.Module(short));
assert.deepEqual(after.map((i) => [i.module, i.kind]), before.map((i) => [i.module, i.kind]));
assert.deepEqual(after.map((i) => i.name), ['a0', '__wbindgen_helper', 'memory', 'table', 'global', 'tag', '__wbg_other_0123456789abcdef']);
assert.equal(shortGlue, 'const import0 = { a0: function () {}, __wbindgen_helper: __wbindgen_helper };');

assert.throws(() => shortenImportNames(wasm, `${glue} import0.${HASHED}();`, './x_bg.js'), /names the import __wbg_queueMicrotask_1e8503a8a690f0a3 2 times/);
assert.throws(() => shortenImportNames(wasm, 'const import0 = {};', './x_bg.js'), /0 times/);

// The built package.
const pkg = process.argv[2] ?? 'pkg';
const built = WebAssembly.Module.imports(new WebAssembly.Module(readFileSync(join(pkg, 'ringpool_bg.wasm'))));
const hashed = built.filter((i) => /_[0-9a-f]{16}$/.test(i.name));
assert.deepEqual(hashed, [], `${pkg}/ringpool_bg.wasm still imports hashed names: run node scripts/build.mjs`);
const shortCount = built.filter((i) => /^a[0-9a-z]+$/.test(i.name)).length;
assert.ok(shortCount > 100, `${pkg}/ringpool_bg.wasm imports only ${shortCount} short names`);
console.log(`import names: the rewrite keeps every import kind; ${pkg}/ringpool_bg.wasm imports ${shortCount} functions from the glue by short names`);
