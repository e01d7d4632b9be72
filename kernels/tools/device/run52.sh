#!/usr/bin/env bash
# Session 25, second call: the batch-1 q|k|v step as the stock GEMV plus the RoPE +
# cache-row kernel, now the default, beside --qkv-pair (the one-launch pair GEMV, the old
# default) three times each and --unfused once; attn-pf against the stock attention as a
# bundle again (the grid before it is now the stock GEMV); --fuse-swiglu (gate|up + SwiGLU
# as one engine GEMV, now streaming a warp's pairs); the batch-1 breakdowns; the headline
# run with PyTorch eager; the engine kernels' registers. Carries target/gpu-carry and target/attention-variants.
set -u
. "$(dirname "$0")/lib.sh" r52
b() { echo "--bundle $V/$1 --pdl-bundles"; }
for i in 1 2 3; do
  run stock-$i 16
  run pair-$i 16 --qkv-pair
  run swiglu-$i 16 --fuse-swiglu
done
run unfused 16 --unfused
for i in 1 2; do
  run astock-$i 16 $(b attn-stock)
  run apf-$i 16 $(b attn-pf)
done
headline
breakdown breakdown
breakdown breakdown-swiglu --fuse-swiglu
regs kernels/src/cuda/engine/engine_kernels.cu
el done
