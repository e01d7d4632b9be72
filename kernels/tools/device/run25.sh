#!/usr/bin/env bash
# Session 23, for an H200: the stock set with the engine's fused batch-1 kernels (q|k|v +
# RoPE + cache writes, gate|up + SwiGLU) against the same build with --unfused and with
# --prefetch-o (o weights to L2 after q|k|v), each twice, interleaved, at context 2048 (a
# 16-token prompt keeps these runs short), beside the full run (prefill 2048), PyTorch
# eager in the same call, and the batch-1 breakdown. Carries target/gpu-carry.
set -u
. "$(dirname "$0")/lib.sh" r25
headline
for i in 1 2; do
  run stock-$i 16
  run unfused-$i 16 --unfused
  run prefetch-o-$i 16 --prefetch-o
done
breakdown breakdown
breakdown breakdown-pf --prefetch-o
el done
