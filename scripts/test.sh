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

# The end-to-end tests that time nothing mostly wait for blocks: they run beside the unit
# tests (which keep both cores busy) rather than after them; their output follows.
untimed_log="$CARGO_TARGET_DIR/untimed-e2e.log"
step "unit tests: primitives, pallet (with its benchmarks as tests), kernels, the cacheon tool and its examples, the runtime (wasm, genesis presets, metadata drift); beside them the end-to-end tests that time nothing (output in $untimed_log until they end)"
run_untimed > "$untimed_log" 2>&1 &
untimed=$!
cargo nextest run "${TEST_FLAGS[@]}" --no-fail-fast -E "$UNIT_FILTER" || status=1
wait "$untimed" || status=1

step "end to end, timing nothing (ran beside the unit tests): a dev chain, a four-authority network, the miner's chain commands, submit killed and resumed, a challenged crown revoked and its operators slashed, a reproduction-lease idler, a crown integrated into a signed release, try-state of live chains"
cat "$untimed_log"

step "node and end to end, timed, one at a time (real processes): whole qualification attempts, then tests/ (cacheon-e2e): validators to a crown, a validator refusing an arena whose engine differs, verdicts, supersession, the atomic target, a node restart, the copier, a stalling validator, the explorer in a headless browser, the demo"
run_timed || status=1

step "done (exit $status)"
exit "$status"
