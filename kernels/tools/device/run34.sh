#!/usr/bin/env bash
# Session 23, tenth call: the fused batch-1 q|k|v GEMV with 8 loads of w (and 8 of x) a
# lane in flight instead of 4 (built from the tree with gemv_pair_body<8> in
# eng_gemv_qkv_rope), against --unfused in the same call (run30 measured the 4-load kernel
# 30.8 us a step under --unfused), each three times, interleaved, batches 1 and 8 at
# context 2048 (16-token prompt); the breakdown and ptxas's registers. Carries
# target/gpu-carry.
set -u
. "$(dirname "$0")/lib.sh" r34
for i in 1 2 3; do
  run stock-$i 16
  run unfused-$i 16 --unfused
done
breakdown breakdown
regs kernels/src/cuda/engine/engine_kernels.cu
el done
