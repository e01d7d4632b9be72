#!/usr/bin/env bash
# The whole test suite, as CI runs it: fast unit tests first (no wasm build), then the
# runtime with its wasm blob, then the node. Uses a target directory outside the clone so
# builds are reused between runs.
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/cacheon/target}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
scripts/setup.sh
# The explorer's end-to-end test looks at its pages in a headless browser: Debian's Chromium.
if [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
  if command -v apt-get >/dev/null 2>&1; then
    echo "setup: apt-get install chromium (the explorer's browser test)"
    sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq chromium >/dev/null
  else
    echo "setup: no Chromium and no apt-get: the explorer's browser test will fail (set CHROMIUM)" >&2
  fi
fi

step() { printf '\n==> %s\n' "$*"; }
started=$(date +%s)

step "unit tests: primitives, pallet (with benchmarks as tests), kernels, cacheon CLI and its examples  [SKIP_WASM_BUILD=1]"
SKIP_WASM_BUILD=1 cargo nextest run --locked --no-fail-fast \
  -p cacheon-primitives -p pallet-cacheon -p cacheon-kernels -p cacheon \
  --features pallet-cacheon/runtime-benchmarks \
  -E 'not (package(cacheon) & binary(qualify))'

step "runtime: wasm build, genesis presets, metadata drift"
cargo nextest run --locked --no-fail-fast -p cacheon-runtime

step "node and end to end, one test at a time (real processes; qualification timings): whole attempts, then tests/ (cacheon-e2e): a dev chain, a four-authority network, the miner's chain commands, submit killed and resumed, validators to a crown, a validator refusing an arena whose engine differs, verdicts, supersession, the atomic target, a node restart, the copier, a stalling validator, the explorer in a headless browser, try-state of live chains"
# The end-to-end tests run the binaries of this target directory.
cargo build --locked -p cacheon -p cacheon-node --bins
# The try-state check of live chains (tests/ runs it against their dev nodes). Built on its own:
# it is the runtime built with `try-runtime` (native and wasm), which must not reach the node.
cargo build --locked -p cacheon-try-state
cargo nextest run --locked --no-fail-fast -p cacheon -p cacheon-e2e --test-threads 1 \
  -E '(package(cacheon) & binary(qualify)) | package(cacheon-e2e)'

step "done in $(( $(date +%s) - started )) s"
