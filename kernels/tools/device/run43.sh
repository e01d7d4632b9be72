#!/usr/bin/env bash
# Session 24, sixth call: the stock GEMV's narrow products pipelined with 8 loads a step
# (run42: 8.9 us better than 4 as bundles) and the fused pair GEMVs (q|k|v + RoPE) streaming
# each warp's rows in one wave, against --rowwise-pairs; the wide products pipelined too
# (gemv-pipe-wide against gemv-stock, both as bundles). GPU tests, the batch-1 breakdown,
# batches 1 and 8 at context 2048 (16-token prompt) twice, then the headline run with
# PyTorch eager. Carries target/gpu-carry and target/attention-variants.
set -u
. "$(dirname "$0")/lib.sh" r43
grep -E "batch-1 fused|greedy agreement" "$R/cuda_engine.txt" | head -3
regs kernels/src/cuda/engine/engine_kernels.cu kernels/stock/cuda/linear_matmul/kernels/linear_matmul.cu | grep -E "qkv_rope|gate_up|linear"
b() { echo "--bundle $V/$1 --pdl-bundles"; }
for i in 1 2; do
  run stock-$i 16
  run rowwise-$i 16 --rowwise-pairs
  run gstock-$i 16 $(b gemv-stock)
  run gwide-$i 16 $(b gemv-pipe-wide)
done
breakdown breakdown
headline
el done
