#!/usr/bin/env bash
# Every test suite; run by `npm test` after setup and build.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

section() { printf '\n=== %s ===\n' "$*"; }
# `scripts/test.sh node browser` runs only those suites; no argument runs all.
want() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }
ONLY="$*"

if want native; then
section "native: unit, behaviour and doc tests on std::thread"
cargo test --quiet
fi

if want loom; then
section "loom: ring, admission vs close, sleep/wake"
RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test --quiet --release --test loom
fi

if want browser; then
section "browser: wasm-bindgen tests in headless Chromium"
if [ -f target/toolchain.env ]; then
  # Debian rustc-web fallback: wasm-pack refuses a sysroot without a prebuilt wasm32 std, so
  # run what `wasm-pack test --headless --chrome` runs, directly.
  CARGO_UNSTABLE_BUILD_STD=panic_unwind,std WASM_BINDGEN_TEST_ONLY_WEB=1 \
    cargo test --target wasm32-unknown-unknown --test web
else
  CARGO_UNSTABLE_BUILD_STD=panic_unwind,std \
    wasm-pack test --headless --chrome --chromedriver /usr/bin/chromedriver . --test web
fi
fi

if want node; then
section "node: the built npm package, installed into a scratch project"
scratch=target/npm-scratch
rm -rf "$scratch" && mkdir -p "$scratch/test"
(cd pkg && npm pack --silent --pack-destination "../$scratch" >/dev/null)
cp tests/node/*.mjs "$scratch/test/"
(
  cd "$scratch"
  echo '{ "name": "ringpool-scratch", "private": true, "type": "module" }' > package.json
  npm install --silent --no-audit --no-fund ./ringpool-*.tgz
  cp ../../tests/types/sample.ts ../../tests/types/tsconfig.json test/
  echo "type-checking tests/types/sample.ts against the installed package"
  ../../node_modules/.bin/tsc -p test/tsconfig.json
  echo "types: ok"
  node --test test/*.test.mjs
)
fi

if want browser-js; then
section "browser: the same behaviour files in headless Chromium (cross-origin isolated, no bundler)"
node tests/browser/run.mjs
fi
