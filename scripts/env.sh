# Sourced by the other scripts: PATH and the toolchain chosen by setup.sh.
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$HOME/.cargo/bin:$PATH"
export CHROMEDRIVER=/usr/bin/chromedriver
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# setup.sh writes this only when it had to fall back to Debian's rustc-web toolchain.
if [ -f "$ROOT/target/toolchain.env" ]; then
  # shellcheck disable=SC1091
  . "$ROOT/target/toolchain.env"
fi
