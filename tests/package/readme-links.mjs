// The npm package's README as the registry shows it (issue 40: links must work there): every
// relative link names a file the package ships, and every link into the repository (as
// scripts/build.mjs writes them, scripts/readme-links.mjs) names a file that exists here.
// `node tests/package/readme-links.mjs [pkg]`; run by scripts/test.sh, section "package".
import { readFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LINK, repositoryOf, isAbsolute, fileOf } from '../../scripts/readme-links.mjs';

const root = resolve(new URL('../..', import.meta.url).pathname);
const dir = resolve(process.argv[2] ?? join(root, 'pkg'));
const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
const repo = repositoryOf(pkg);
const shipped = new Set(pkg.files);
const bad = [];
let checked = 0;
for (const [, , , target] of readFileSync(join(dir, 'README.md'), 'utf8').matchAll(LINK)) {
  checked++;
  const inRepo = repo && target.startsWith(`${repo}/`) ? target.slice(repo.length + 1).match(/^(?:blob|raw)\/main\/([^#]+)/) : null;
  if (inRepo) {
    if (!existsSync(join(root, inRepo[1]))) bad.push(`${target}: no ${inRepo[1]} in the repository`);
  } else if (!isAbsolute(target) && !shipped.has(fileOf(target))) {
    bad.push(`${target}: relative, but the package does not ship it`);
  }
}
if (bad.length) {
  console.error(`README.md of ${dir}: ${bad.length} link(s) that do not work on the registry's page:\n  ${bad.join('\n  ')}`);
  process.exit(1);
}
console.log(`README.md of the package: ${checked} links, each a shipped file, the repository's or a web page`);
