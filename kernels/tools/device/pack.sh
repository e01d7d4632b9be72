#!/usr/bin/env bash
# Builds and packs what the device scripts carry, as target/gpu-carry/gpu.tar.xz: this
# tree's binaries (target/gpu-bin, kernels/tools/gpu-bins.sh) and, given a commit, that
# commit's as target/gpu-bin-old (built in a temporary worktree), for the scripts that
# time a change against the build before it (built in $CARGO_TARGET_DIR-old). About 90 s a
# build when cargo's cache is warm.
#   bash kernels/tools/device/pack.sh            # target/gpu-bin only
#   bash kernels/tools/device/pack.sh c3262b6    # and target/gpu-bin-old from c3262b6
set -euo pipefail
cd "$(dirname "$0")/../../.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/cacheon/target-kernels}"
parts=(target/gpu-bin)
if [ $# -ge 1 ]; then
  wt=$(mktemp -d)
  trap 'git worktree remove --force "$wt" 2>/dev/null; rm -rf "$wt"' EXIT
  git worktree add --quiet --detach "$wt" "$1"
  # Its own target folder: cargo's freshness check compares modification times, so a
  # worktree built into this tree's folder would leave it believing the older build fresh.
  (cd "$wt" && CARGO_TARGET_DIR="$CARGO_TARGET_DIR-old" bash kernels/tools/gpu-bins.sh > /dev/null)
  rm -rf target/gpu-bin-old
  mkdir -p target
  cp -r "$wt/target/gpu-bin" target/gpu-bin-old
  parts+=(target/gpu-bin-old)
fi
bash kernels/tools/gpu-bins.sh > /dev/null
mkdir -p target/gpu-carry
tar cf - "${parts[@]}" | xz -T2 -3 > target/gpu-carry/gpu.tar.xz
ls -la target/gpu-carry
