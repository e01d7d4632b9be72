#!/usr/bin/env bash
# Session 23, sixth call: the committed default (the fused q|k|v + RoPE + cache-write GEMV;
# gate|up + SwiGLU unfused) against --unfused and --fuse-swiglu (the pair loop now with
# ld.global.nc loads), each three times, interleaved, at context 2048 (16-token prompt),
# the full run, PyTorch eager, the breakdown, and ptxas's registers. Carries
# target/gpu-carry.
set -u
. "$(dirname "$0")/lib.sh" r30
headline
for i in 1 2 3; do
  run stock-$i 16
  run unfused-$i 16 --unfused
  run fuse-swiglu-$i 16 --fuse-swiglu
done
breakdown breakdown
breakdown breakdown-swiglu --fuse-swiglu
regs kernels/src/cuda/engine/engine_kernels.cu kernels/stock/cuda/linear_matmul/kernels/linear_matmul.cu
el done
