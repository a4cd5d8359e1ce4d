// The environment the repository's cargo runs need: empty with rustup's nightly, or what
// scripts/setup.sh wrote to target/toolchain.env when it fell back to Debian's rustc-web.
import { readFileSync } from 'node:fs';

export function toolchainEnv() {
  const env = {};
  try {
    const file = new URL('../target/toolchain.env', import.meta.url);
    for (const m of readFileSync(file, 'utf8').matchAll(/^export (\w+)=(.*)$/gm)) env[m[1]] = m[2];
  } catch { /* rustup's nightly */ }
  return env;
}
