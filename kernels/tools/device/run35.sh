#!/usr/bin/env bash
# Session 23, eleventh call: the GPU tests after the engine's q|k|v GEMV started stepping
# aside for a linear.matmul proposal (cuda_engine's batch-1 test installs one), and the
# committed set's batch 1 and 8 at context 2048 (16-token prompt) twice beside --unfused.
# Carries target/gpu-carry.
set -u
. "$(dirname "$0")/lib.sh" r35
grep -E "batch-1 fused|greedy agreement" "$R/cuda_engine.txt"
for i in 1 2; do
  run stock-$i 16
  run unfused-$i 16 --unfused
done
el done
