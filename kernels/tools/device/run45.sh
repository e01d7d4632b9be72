#!/usr/bin/env bash
# Session 24, eighth call: the fused q|k|v GEMV compiled for 6 or 7 blocks an SM (its 768
# blocks in one wave; ptxas's own choice, 48 registers, holds 5: 1.16 waves), registers
# and spills of each; the wide stock products pipelined (gemv-pipe-wide against
# gemv-stock, as bundles). Batches 1 and 8 at context 2048 (16-token prompt), twice; the
# batch-1 breakdown at 6. Carries target/gpu-carry and target/attention-variants.
set -u
. "$(dirname "$0")/lib.sh" r45
for n in 1 6 7; do
  echo "QKV_MIN_BLOCKS=$n: $(timeout 60 nvcc -cubin -arch=sm_90a -std=c++17 -DQKV_MIN_BLOCKS=$n -Xptxas -v -o /dev/null \
    kernels/src/cuda/engine/engine_kernels.cu 2>&1 | grep -A1 "eng_gemv_qkv_rope" | grep -oE "[0-9]+ bytes spill stores|Used [0-9]+ registers" | tr '\n' ' ')"
done
b() { echo "--bundle $V/$1 --pdl-bundles"; }
for i in 1 2; do
  run stock-$i 16
  run mb6-$i 16 --qkv-min-blocks 6
  run mb7-$i 16 --qkv-min-blocks 7
  run gstock-$i 16 $(b gemv-stock)
  run gwide-$i 16 $(b gemv-pipe-wide)
done
breakdown breakdown-mb6 --qkv-min-blocks 6
el done
