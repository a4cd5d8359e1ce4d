#!/usr/bin/env bash
# Installs what building and testing ringpool needs, skipping whatever is already there.
# Run by `npm test`, `npm run demo` and `npm run build`; safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

log() { printf '[setup] %s\n' "$*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then as_root apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# 1. The browser engines, all Debian's (the test tools must not download a browser): Chromium
#    and its driver, Firefox ESR, WebKitGTK's WebDriver (with its MiniBrowser), and a virtual
#    display for WebKitGTK (scripts/browsers.mjs), and curl and patch (step 3 fetches a crate and
#    patches it).
missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
command -v firefox-esr >/dev/null || missing+=(firefox-esr)
command -v WebKitWebDriver >/dev/null || missing+=(webkit2gtk-driver)
command -v xvfb-run >/dev/null || missing+=(xvfb)
command -v xauth >/dev/null || missing+=(xauth)
command -v curl >/dev/null || missing+=(curl)
command -v patch >/dev/null || missing+=(patch)
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  apt_install "${missing[@]}"
fi

# 2. Rust: nightly with rust-src (for -Z build-std) and the wasm32 target, as pinned by
#    rust-toolchain.toml. If rustup cannot fetch them, fall back to Debian's rustc-web.
rm -f target/toolchain.env
channel=$(sed -n 's/^channel = "\(.*\)"/\1/p' rust-toolchain.toml)
if [ "${RINGPOOL_FORCE_DEBIAN_RUST:-0}" != 1 ] \
   && rustup toolchain install "$channel" --profile minimal --component rust-src --target wasm32-unknown-unknown >/tmp/ringpool-rustup.log 2>&1 \
   && [ -d "$(rustc "+$channel" --print sysroot)/lib/rustlib/src/rust/library" ]; then
  log "rust: $(rustc "+$channel" --version)"
else
  log "rustup could not provide nightly + rust-src; using Debian's rustc-web (the fallback scripts/toolchain.mjs describes)"
  dpkg -s rustc-web cargo-web rust-web-src lld-22 >/dev/null 2>&1 || apt_install rustc-web cargo-web rust-web-src lld-22
  mkdir -p target
  cat > target/toolchain.env <<'ENV'
export RUSTC_BOOTSTRAP=1
export RUSTUP_TOOLCHAIN=ringpool-debian-web
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=/usr/lib/llvm-22/bin/wasm-ld
ENV
  # Debian's rustc-web installs /usr/bin/{rustc,cargo} with its sysroot (and rust-src) under
  # /usr; a rustup "linked" toolchain makes the rustup proxies on PATH use it.
  rustup toolchain link ringpool-debian-web /usr >/dev/null
  . target/toolchain.env
  log "rust: $(rustc --version)"
fi

# Tools are built outside the repo with the machine's default toolchain: inside it the pinned
# nightly's cargo honours the tools' packaged lock files, which can name versions the
# registry does not serve.
cargo_install() { (cd / && cargo install --quiet "$@"); }

# 3. Cargo-installed tools, built side by side: wasm-bindgen-cli at exactly the version
#    Cargo.lock pins (wasm-pack would download it), wasm-pack, and geckodriver (the
#    wasm-bindgen tests in Firefox).
#    wasm-bindgen-cli is built with tiny_http's thread pool fixed (scripts/tiny_http-task-pool.patch):
#    its wasm-bindgen-test-runner, which `wasm-pack test` uses, serves the test page with
#    tiny_http 0.12.0, and about one Chromium start in two never finished loading the page.
#    The stamp file says the installed one is that build.
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
runner_stamp="${CARGO_HOME:-$HOME/.cargo}/ringpool-wasm-bindgen-cli"
runner_build="wasm-bindgen-cli $want with $(sha256sum scripts/tiny_http-task-pool.patch | cut -c1-16)"
pids=()
if [ "$have" != "$want" ] || [ "$(cat "$runner_stamp" 2>/dev/null)" != "$runner_build" ]; then
  log "installing wasm-bindgen-cli $want with tiny_http's thread pool fixed (had: ${have:-none})"
  tiny_http="$PWD/target/tools/tiny_http-0.12.0"
  rm -rf "$tiny_http" && mkdir -p target/tools
  curl -sSfL https://static.crates.io/crates/tiny_http/tiny_http-0.12.0.crate -o target/tools/tiny_http.crate
  echo "389915df6413a2e74fb181895f933386023c71110878cd0825588928e64cdc82  target/tools/tiny_http.crate" | sha256sum -c --quiet -
  tar xzf target/tools/tiny_http.crate -C target/tools
  patch --quiet -d "$tiny_http" -p1 < scripts/tiny_http-task-pool.patch
  (RUSTFLAGS=--cap-lints=allow cargo_install wasm-bindgen-cli --version "$want" --force --config "patch.crates-io.tiny_http.path=\"$tiny_http\"" \
    && echo "$runner_build" > "$runner_stamp") & pids+=($!)
fi
if ! command -v wasm-pack >/dev/null; then
  log "installing wasm-pack"
  cargo_install wasm-pack --version 0.15.1 & pids+=($!)
fi
if ! command -v geckodriver >/dev/null; then
  log "installing geckodriver"
  cargo_install geckodriver --version 0.37.1 & pids+=($!)
fi
for pid in "${pids[@]}"; do wait "$pid"; done

# 5. npm dev dependencies (binaryen's wasm-opt, test tools), when the lock file changed.
stamp=node_modules/.ringpool-lock
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  log "installing npm dev dependencies"
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
fi

log "ready"
