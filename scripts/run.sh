#!/usr/bin/env bash
# Builds the node and runs a one-node development chain with a temporary database.
# Extra arguments go to cacheon-node (try `scripts/run.sh --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/cacheon/target}"
scripts/setup.sh
# The debug profile is the one the tests build, so this reuses their build; its hot path
# (wasm execution, tries, hashing) is optimized anyway (see docs/build.md).
cargo build --locked -p cacheon-node
if [ "$#" -eq 0 ]; then set -- --dev --tmp; fi
exec "$CARGO_TARGET_DIR/debug/cacheon-node" "$@"
