#!/usr/bin/env bash
# Session 23, second and third calls, the same commands on two builds: the fused batch-1
# kernels against --unfused, each three times, interleaved, at context 2048 (16-token
# prompt), the full run, PyTorch eager, and both breakdowns. `run26.sh` (results r26) ran
# commit b0e04c8 (each warp streams both rows of a pair, 4 loads a row in flight);
# `run26.sh r27` ran commit a4b5f9e (one weight row a warp, the block's 8 warps in lockstep).
# Carries target/gpu-carry.
set -u
. "$(dirname "$0")/lib.sh" "${1:-r26}"
headline
for i in 1 2 3; do
  run stock-$i 16
  run unfused-$i 16 --unfused
done
for f in "" --unfused; do
  breakdown breakdown$f $f
done
el done
