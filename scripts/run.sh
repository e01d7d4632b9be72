#!/usr/bin/env bash
# Builds the node and runs a one-node development chain with a temporary database.
# Extra arguments go to cacheon-node (try `scripts/run.sh --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/cacheon/target}"
scripts/setup.sh
cargo build --locked --release -p cacheon-node
if [ "$#" -eq 0 ]; then set -- --dev --tmp; fi
exec "$CARGO_TARGET_DIR/release/cacheon-node" "$@"
