#!/usr/bin/env bash
# Session 23, fourth and fifth calls, the same commands on two builds: the fused batch-1
# kernels with one weight row a warp and a barrier per pair of warps (the third call's
# block was in lockstep), rope's angle before the dependency wait; stock (both fusions)
# against --unfused and --unfused-swiglu, each three times, interleaved, at context 2048
# (16-token prompt), the full run, PyTorch eager, the breakdown, and the registers ptxas
# gives the engine kernels and the stock GEMV. `run28.sh` (results r28) ran commit bfb5401
# (the pair loop written plainly: 40 registers); `run28.sh r29` ran commit 9758852 (x
# staged beside w, read-only pointers). Carries target/gpu-carry.
set -u
. "$(dirname "$0")/lib.sh" "${1:-r28}"
headline
for i in 1 2 3; do
  run stock-$i 16
  run unfused-$i 16 --unfused
  run unfused-swiglu-$i 16 --unfused-swiglu
done
breakdown breakdown
regs kernels/src/cuda/engine/engine_kernels.cu kernels/stock/cuda/linear_matmul/kernels/linear_matmul.cu
el done
