// The JS examples of README.md and docs/*.md, run as a user pastes them: every ```js block is
// written to a file of its own in DIR (where `ringpool` is installed) and run with Node.
// A block must exit 0 on its own (imports, data, handled rejections), and what it prints must
// be what its `// prints: …` comments say, line by line (`…` stands for any text).
// Markers on the line before a block: `<!-- file: NAME -->` writes it as NAME (a module
// another block imports), `<!-- not run: why -->` leaves it out (listed).
//   node tests/readme/run.mjs DIR
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const dir = resolve(process.argv[2] ?? '.', 'readme-examples');
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const docs = ['README.md', ...readdirSync(new URL('../../docs/', import.meta.url)).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
let failed = 0, ran = 0;

for (const doc of docs) {
const lines = readFileSync(new URL(`../../${doc}`, import.meta.url), 'utf8').split('\n');
for (let i = 0; i < lines.length; i++) {
  if (lines[i] !== '```js') continue;
  const start = i + 1;
  let end = start;
  while (lines[end] !== '```') end++;
  const code = lines.slice(start, end).join('\n') + '\n';
  const marker = /^<!-- (file|not run): (.*) -->$/.exec(lines[start - 2] ?? '');
  const where = `${doc}:${start}`;
  i = end;
  if (marker?.[1] === 'not run') { console.log(`skip - ${where} (${marker[2]})`); continue; }
  if (marker?.[1] === 'file') { writeFileSync(join(dir, marker[2]), code); continue; }
  const expected = [...code.matchAll(/\/\/.*?prints: (.*)$/gm)].map((m) => m[1].trim());
  const file = join(dir, `${doc.replace(/[/.]/g, '-')}-${start}.mjs`);
  writeFileSync(file, code);
  writeFileSync(join(dir, '.examples'), `${file}\n`, { flag: 'a' });
  const r = spawnSync(process.execPath, [file], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  const got = r.stdout.split('\n').filter(Boolean);
  const matches = (line, pattern) =>
    new RegExp(`^${pattern.split('…').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`).test(line);
  const problems = [];
  if (r.status !== 0) problems.push(`exit ${r.status ?? r.signal}${r.error ? ` (${r.error.message})` : ''}\n${r.stderr}`);
  if (got.length !== expected.length || got.some((line, k) => !matches(line, expected[k]))) {
    problems.push(`printed:\n  ${got.join('\n  ')}\n${doc} says:\n  ${expected.join('\n  ')}`);
  }
  ran++;
  const first = code.split('\n').find((l) => !l.startsWith('import') && l.trim()) ?? '';
  if (problems.length) { failed++; console.log(`not ok - ${where}: ${first}\n  ${problems.join('\n').replaceAll('\n', '\n  ')}`); }
  else console.log(`ok - ${where}: ${first.slice(0, 80)}`);
}
}
console.log(`examples in ${docs.join(', ')}: ${ran - failed} of ${ran} ran as written`);

// And they type-check against the package's index.d.ts, as a TypeScript user's editor sees
// them (checkJs; not --strict, under which a JS `catch (e)` is `unknown`).
const tsc = spawnSync(new URL('../../node_modules/.bin/tsc', import.meta.url).pathname,
  ['--noEmit', '--allowJs', '--checkJs', '--target', 'es2022', '--lib', 'esnext,dom', '--module', 'nodenext', '--moduleResolution', 'nodenext',
    ...readFileSync(join(dir, '.examples'), 'utf8').split('\n').filter(Boolean)], { cwd: dir, encoding: 'utf8' });
if (tsc.status === 0) console.log('ok - the examples type-check against index.d.ts');
else { failed++; console.log(`not ok - the examples type-check against index.d.ts\n  ${(tsc.stdout + tsc.stderr).replaceAll('\n', '\n  ')}`); }
process.exit(failed || !ran ? 1 : 0);
