// The npm package's README as the registry shows it (issue 40: links must work there): every
// relative link names a file the package ships, and every link into the repository
// (`repository` in package.json, as scripts/build.mjs writes them) names a file that exists
// here. `node tests/package/readme-links.mjs [pkg]`; run by scripts/test.sh, section "package".
import { readFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(new URL('../..', import.meta.url).pathname);
const dir = resolve(process.argv[2] ?? join(root, 'pkg'));
const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
const repo = String(pkg.repository?.url ?? pkg.repository ?? '').replace(/^git\+/, '').replace(/\.git$/, '');
const shipped = new Set(pkg.files);
const bad = [];
let checked = 0;
for (const [, target] of readFileSync(join(dir, 'README.md'), 'utf8').matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)) {
  checked++;
  const inRepo = target.match(new RegExp(`^${repo.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/(?:blob|raw)/main/([^#]+)`));
  if (inRepo) {
    if (!existsSync(join(root, inRepo[1]))) bad.push(`${target}: no ${inRepo[1]} in the repository`);
  } else if (!/^([a-z]+:|#)/i.test(target) && !shipped.has(target.replace(/^\.\//, '').split('#')[0])) {
    bad.push(`${target}: relative, but the package does not ship it`);
  }
}
if (bad.length) {
  console.error(`README.md of ${dir}: ${bad.length} link(s) that do not work on the registry's page:\n  ${bad.join('\n  ')}`);
  process.exit(1);
}
console.log(`README.md of the package: ${checked} links, each a shipped file, the repository's or a web page`);
