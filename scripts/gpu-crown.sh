#!/usr/bin/env bash
# The GPU crown, on a machine with an NVIDIA GPU (an H200 or H100): a dev chain, two
# validators (Alice and Bob) serving the `h200-llama8b` arena on GPU 0, and a miner
# (Charlie) whose CUDA bundle goes through commit, reveal, the first validator's attempt,
# the second's reproduction, the crown, the next epoch's weights and the payout. It is
# `cacheon demo --arena h200-llama8b --bundle BUNDLE`.
#
#   scripts/gpu-crown.sh BUNDLE [OUT_DIR] [cacheon demo options...]
#
# Binaries: `cacheon` and `cacheon-node` from $CACHEON_BIN_DIR when it is set (built on
# another machine and copied here: docs/gpu.md, "The GPU crown"), else built here with
# cargo (scripts/setup.sh installs what the build needs).
# Output in OUT_DIR (default results/gpu-crown): transcript.txt (what the demo printed),
# logs/ (node and validator logs, the validators' attempt stores and evidence) and
# attempts.txt (each validator's attempts: verdict, seconds on the GPU).
# Exit status: the demo's (0 when the proposal was crowned and the miner paid).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: scripts/gpu-crown.sh BUNDLE [OUT_DIR] [cacheon demo options...]" >&2; exit 2; }
bundle=$(cd "$1" && pwd) || { echo "gpu-crown: no bundle folder $1" >&2; exit 2; }
shift
cd "$(dirname "$0")/.."
out=${1:-results/gpu-crown}
[ $# -gt 0 ] && shift
mkdir -p "$out"
out=$(cd "$out" && pwd)

bin=${CACHEON_BIN_DIR:-}
if [ -z "$bin" ]; then
  if ! command -v cargo > /dev/null; then
    echo "gpu-crown: no cargo here: build cacheon and cacheon-node on another machine and set CACHEON_BIN_DIR (docs/gpu.md)" >&2
    exit 2
  fi
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/cacheon/target}"
  scripts/setup.sh >&2
  cargo build --locked -p cacheon-node -p cacheon >&2
  bin="$CARGO_TARGET_DIR/debug"
fi
for b in cacheon cacheon-node; do
  [ -x "$bin/$b" ] || { echo "gpu-crown: $bin/$b is missing or not executable" >&2; exit 2; }
done

nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader \
  | tee "$out/gpu.txt" || { echo "gpu-crown: nvidia-smi failed: no GPU?" >&2; exit 2; }

rm -rf "$out/logs"
set +e
"$bin/cacheon" demo --arena h200-llama8b --bundle "$bundle" --node "$bin/cacheon-node" \
  --keep-logs "$out/logs" "$@" \
  2>&1 | tee "$out/transcript.txt"
rc=${PIPESTATUS[0]}
set -e

# Each validator's attempts, from its log: proposal, outcome, seconds (all on the GPU).
for v in alice bob; do
  [ -f "$out/logs/$v.log" ] || continue
  grep -a 'attempt finished' "$out/logs/$v.log" | sed "s/^/$v: /" || true
done | tee "$out/attempts.txt"
echo "gpu-crown: exit $rc; transcript and logs in $out"
exit "$rc"
