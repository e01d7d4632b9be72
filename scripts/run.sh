#!/usr/bin/env bash
# The main job on embedded defaults: builds cacheon-node and cacheon, then runs
# `cacheon demo` (a dev chain, validators Alice and Bob on the CPU arena, a miner's
# kernel from commit to crown to paid weights). Arguments go to `cacheon demo`
# (try `scripts/run.sh --help`; `--json` for one JSON object per line).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/cacheon/target}"
scripts/setup.sh >&2
# The debug profile is the one the tests build, so this reuses their build; its hot path
# (wasm execution, tries, hashing, the kernels' reference math) is optimized anyway.
cargo build --locked -p cacheon-node -p cacheon >&2
json=()
args=()
for a in "$@"; do
  if [ "$a" = "--json" ]; then json=(--json); else args+=("$a"); fi
done
exec "$CARGO_TARGET_DIR/debug/cacheon" "${json[@]}" demo --node "$CARGO_TARGET_DIR/debug/cacheon-node" "${args[@]}"
