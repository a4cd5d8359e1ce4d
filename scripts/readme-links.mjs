// The npm package README's links as the registry shows them, where only the package's files
// exist: scripts/build.mjs points each link to a file the package does not ship into the
// repository (package.json's `repository`, from Cargo.toml; GitHub's layout: `blob/main/` for
// a link, `raw/main/` for an image), and tests/package/readme-links.mjs checks the result.

/** `[label](target)` and `![alt](target)`: [whole, '!' or '', label, target]. */
export const LINK = /(!?)\[([^\]]*)\]\(([^)\s]+)\)/g;

/** The https URL of package.json's `repository`, or null. */
export function repositoryOf(pkg) {
  const url = String(pkg.repository?.url ?? pkg.repository ?? '').replace(/^git\+/, '').replace(/\.git$/, '');
  return /^https:\/\//.test(url) ? url : null;
}

/** A web address or an anchor: it works wherever the README is shown. */
export const isAbsolute = (target) => /^([a-z]+:|#)/i.test(target);

/** The shipped file a relative target names, without `./` and the anchor. */
export const fileOf = (target) => target.replace(/^\.\//, '').split('#')[0];
