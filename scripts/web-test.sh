#!/usr/bin/env bash
# The wasm-bindgen tests, run the way a Rust developer types them at the repository root:
# `wasm-pack test --headless --chrome` and `wasm-pack test --headless --firefox` (tests/web.rs,
# tests/web_memory.rs, each on a page of its own, and the doc tests compiled for wasm32), then
# the image kernels' reference tests (`wasm-pack test --headless --chrome crates/ringpool-image`).
# What makes the commands work as typed: .cargo/config.toml (build-std, and the doc tests'
# panic strategy) and scripts/setup.sh (wasm-bindgen-test-runner built with tiny_http's thread
# pool fixed; the stock one leaves about one Chromium page load in two hanging for minutes).
# Run by scripts/test.sh, section "browser".
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

# web_test DIR chrome|firefox
if [ -f target/toolchain.env ]; then
  # Debian rustc-web fallback: wasm-pack refuses a sysroot without a prebuilt wasm32 std, so
  # run what `wasm-pack test --headless --chrome` runs, directly (the runner picks the
  # browser by which driver variable is set).
  web_test() {
    if [ "$2" = firefox ]; then set -- "$1" env -u CHROMEDRIVER GECKODRIVER="$(command -v geckodriver)"; else set -- "$1" env; fi
    (cd "$1" && "${@:2}" WASM_BINDGEN_TEST_ONLY_WEB=1 cargo test --target wasm32-unknown-unknown)
  }
else
  # At the root exactly as typed; for the image crate with its folder as the argument.
  web_test() { if [ "$1" = . ]; then wasm-pack test --headless "--$2"; else wasm-pack test --headless "--$2" "$1"; fi; }
fi

for run in ". chrome" ". firefox" "crates/ringpool-image chrome"; do
  # shellcheck disable=SC2086
  set -- $run
  echo "--- wasm-pack test --headless --$2 (in $1)"
  # A page that never loads would hang until chromedriver gives up after 300 s; 15 minutes
  # bounds a run that also builds.
  if ! timeout 900 bash -c "$(declare -f web_test); web_test $1 $2" > target/web-test.log 2>&1; then
    grep -vE '^\s+Compiling ' target/web-test.log
    echo "wasm-pack test --headless --$2 failed in $1 (its output is above)"
    exit 1
  fi
  # Firefox's own chatter (remote settings, telemetry) is left out; test lines stay.
  grep -vE '^\s+(Compiling|Running) |^\s+(console\.(error|warn)|JavaScript (error|warning)|Message:|RemoteSettings|Failed to retrieve|Stack:)|^no tests to run!$' target/web-test.log
done
