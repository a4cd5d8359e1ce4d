#!/usr/bin/env bash
# The wasm-bindgen tests (tests/web.rs, tests/web_memory.rs, crates/ringpool-image/tests/reference.rs)
# in headless Chromium and Firefox ESR, each binary on a page of its own, with a watchdog for
# the test runner's page-load stall (below). Run by scripts/test.sh, section "browser".
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

# web_test BINARY CRATE_DIR chrome|firefox
if [ -f target/toolchain.env ]; then
  # Debian rustc-web fallback: wasm-pack refuses a sysroot without a prebuilt wasm32 std, so
  # run what `wasm-pack test --headless --chrome` runs, directly (the runner picks the
  # browser by which driver variable is set).
  web_test() {
    local test=$1 dir=$2
    if [ "$3" = firefox ]; then set -- env -u CHROMEDRIVER GECKODRIVER="$(command -v geckodriver)"; else set -- env; fi
    "$@" WASM_BINDGEN_TEST_ONLY_WEB=1 cargo test --target wasm32-unknown-unknown --manifest-path "$dir/Cargo.toml" --test "$test"
  }
else
  web_test() {
    if [ "$3" = firefox ]; then wasm-pack test --headless --firefox --geckodriver "$(command -v geckodriver)" "$2" --test "$1"
    else wasm-pack test --headless --chrome --chromedriver /usr/bin/chromedriver "$2" --test "$1"; fi
  }
fi
export -f web_test
# About one start in four, the test page never loads, before any test runs. Chromium and
# chromedriver are fine: the runner's own HTTP server (tiny_http 0.12 under rouille) leaves one
# of Chromium's six parallel connections unserved, its request unread in the socket (seen with
# `ss`: Recv-Q 587 bytes), because tiny_http's task pool can queue a new connection's task
# behind threads that then block on keep-alive connections for good. So a watchdog kills an
# attempt that has not reached "running N tests" 30 s after "Running headless tests" (a good
# start takes ~2 s), and the run is retried, up to 8 times (0.3^8: a red run in ~1 of 15,000);
# once tests have started a failure is final. Tests get 120 s each for a slow first load.
# Each test binary (tests/web.rs; tests/web_memory.rs, which fills its page's memory) gets a
# page, and so a start, of its own, in each browser. Firefox stalled the same way in about one
# start in two until webdriver.json limited it to one connection per server (8 of 8 starts
# then loaded); Chromium has no such switch.
web_attempt() {
  : > target/web-test.log
  CARGO_UNSTABLE_BUILD_STD=panic_unwind,std WASM_BINDGEN_TEST_TIMEOUT=120 \
    setsid timeout 900 bash -c "web_test $1 $2 $3" > target/web-test.log 2>&1 &
  local pid=$! waited=0 building=0
  while kill -0 "$pid" 2>/dev/null; do
    if grep -qE '^running [0-9]+ tests?' target/web-test.log; then break; fi
    if grep -q 'Running headless tests' target/web-test.log; then
      waited=$((waited + 1))
      # setsid made the attempt a process group: stop all of it, chromedriver included.
      if [ "$waited" -gt 30 ]; then kill -TERM -- "-$pid" 2>/dev/null; break; fi
    else
      building=$((building + 1))
      if [ "$building" -gt 600 ]; then
        echo "the wasm-bindgen test build did not reach 'Running headless tests' in 600 s" >> target/web-test.log
        kill -TERM -- "-$pid" 2>/dev/null; break
      fi
    fi
    sleep 1
  done
  wait "$pid"
}
for run in "web . chrome" "web_memory . chrome" "reference crates/ringpool-image chrome" "web . firefox" "web_memory . firefox"; do
  web_ok=0
  for attempt in 1 2 3 4 5 6 7 8; do
    # shellcheck disable=SC2086
    if web_attempt $run; then web_ok=1; fi
    echo "--- wasm-bindgen tests: $run"
    # Firefox's own chatter (remote settings, telemetry) is left out; test lines stay.
    grep -vE '^\s+Compiling |^\s+(console\.(error|warn)|JavaScript (error|warning)|Message:|RemoteSettings|Failed to retrieve|Stack:)' target/web-test.log
    [ "$web_ok" = 1 ] && break
    if grep -qE '^running [0-9]+ tests?' target/web-test.log; then break; fi
    # Only a page that never loaded is retried: a failure before it (a compile error, a
    # missing driver, a build that hung) is deterministic and final.
    if ! grep -q 'Running headless tests' target/web-test.log; then echo "wasm-bindgen tests: $run failed before the page load; not retried"; break; fi
    echo "the test page did not load in 30 s (attempt $attempt; the runner's HTTP server stalls now and then, see scripts/web-test.sh); retrying"
  done
  [ "$web_ok" = 1 ]
done
