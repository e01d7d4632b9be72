#!/usr/bin/env bash
# Session 23, seventh call: the attention norm fused into the batch-1 q|k|v GEMV (default)
# against --unfused-norm and --unfused, and the fused GEMVs' grid at 2 or 4 blocks a SM
# (--pair-blocks-per-sm; the default is one block per 8 features, up to 8 a SM), with and
# without --fuse-swiglu; each three times, interleaved, at context 2048 (16-token prompt);
# the full run, PyTorch eager, the breakdown. Carries target/gpu-carry.
set -u
. "$(dirname "$0")/lib.sh" r31
headline
for i in 1 2 3; do
  run stock-$i 16
  run unfused-norm-$i 16 --unfused-norm
  run unfused-$i 16 --unfused
  run pb2-$i 16 --pair-blocks-per-sm 2
  run pb4-$i 16 --pair-blocks-per-sm 4
  run swiglu-pb2-$i 16 --fuse-swiglu --pair-blocks-per-sm 2
done
breakdown breakdown
regs kernels/src/cuda/engine/engine_kernels.cu
el done
