#!/usr/bin/env bash
# Session 25, first call: the committed set on whichever card comes (the GPU tests, batches
# 1 and 8 at context 2048 with a 16-token prompt three times beside --qkv-stock: the batch-1
# q|k|v step as the stock streaming GEMV plus one RoPE + cache-row kernel), both batch-1
# breakdowns, then the headline run with PyTorch eager. Carries target/gpu-carry.
set -u
. "$(dirname "$0")/lib.sh" r51
for i in 1 2 3; do
  run stock-$i 16
  run qkvstock-$i 16 --qkv-stock
done
breakdown breakdown
breakdown breakdown-qkvstock --qkv-stock
headline
el done
