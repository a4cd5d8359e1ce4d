// What a page downloads for the package (bench/download.mjs) stays within its budget: a change
// that adds weight fails here and says where to look, instead of being found by the next
// size survey. Its last catch in kind: one `{}` of an f64 in a message links in Rust's float
// formatting, ~10 KB gzipped (bench/README.md, "What a page downloads"). Lower the budget as
// the download shrinks; raise it only with a line in bench/README.md saying what it bought.
// `node tests/package/download-budget.mjs [pkg]`; run by scripts/test.sh, section "package".
import { join, resolve } from 'node:path';
import { pageDownload } from '../../bench/download.mjs';

const BUDGET = 148_000; // bytes, gzip -9: 144,116 on 2026-12-07 (fat LTO, short import names, minified entry); 147,341 on 2026-12-08 with message mode's tasks handed ahead (+3.0 KB of wasm)

const root = resolve(new URL('../..', import.meta.url).pathname);
const dir = resolve(process.argv[2] ?? join(root, 'pkg'));
const { files, total } = pageDownload(dir);
const list = files.map((f) => `${f.file} ${f.gzip}`).join(', ');
if (total > BUDGET) {
  console.error(`a page downloads ${total} B (gzip -9) from ${dir}, over the budget of ${BUDGET} B (${list}): ` +
    '`node bench/size.mjs --wasm` shows where the wasm\'s bytes go');
  process.exit(1);
}
console.log(`a page downloads ${total} B (gzip -9), within the budget of ${BUDGET} B (${list})`);
