#!/usr/bin/env bash
# The whole test suite, as CI runs it: one build of every test binary (one feature set),
# then the unit tests, the runtime's (wasm build, genesis presets, metadata drift) among
# them, then the node and end-to-end tests with real processes. Uses a target directory
# outside the clone so builds are reused between runs.
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
source scripts/test-lib.sh

started=$(date +%s)
step() { printf '\n==> %s  [%d s]\n' "$*" "$(( $(date +%s) - started ))"; }
status=0

step "build: every test binary, the node, the cacheon tool (one feature set), then cacheon-try-state"
build_all

step "unit tests: primitives, pallet (with its benchmarks as tests), kernels, the cacheon tool and its examples, the runtime (wasm, genesis presets, metadata drift)"
cargo nextest run "${TEST_FLAGS[@]}" --no-fail-fast -E "$UNIT_FILTER" || status=1

step "node and end to end (real processes): whole qualification attempts, then tests/ (cacheon-e2e): a dev chain, a four-authority network, the miner's chain commands, submit killed and resumed, validators to a crown, a validator refusing an arena whose engine differs, verdicts, supersession, the atomic target, a node restart, the copier, a stalling validator, a challenged crown revoked and its operators slashed, a reproduction-lease idler, the explorer in a headless browser, try-state of live chains"
run_e2e || status=1

step "done (exit $status)"
exit "$status"
