#!/usr/bin/env bash
# Session 24, second call: after the fused o/down + norm and LM head + argmax GEMVs took the
# stock GEMV's own loop (plain loads, x through L1) and a two-pass norm: registers, the
# GPU tests, the batch-1 breakdown fused and --unfused, then batches 1 and 8 (context 2048,
# 16-token prompt) twice: the committed set, --unfused-norm, --unfused, and the session-23
# decode attention (decode-c8) with and without the norm fusion.
# Carries target/gpu-carry and target/attention-variants.
set -u
. "$(dirname "$0")/lib.sh" r39
grep -E "batch-1 fused|greedy agreement" "$R/cuda_engine.txt"
regs kernels/src/cuda/engine/engine_kernels.cu kernels/stock/cuda/linear_matmul/kernels/linear_matmul.cu | grep -E "gemv|linear"
breakdown breakdown
breakdown breakdown-unfused --unfused
for i in 1 2; do
  run stock-$i 16
  run nonorm-$i 16 --unfused-norm
  run unfused-$i 16 --unfused
  run c8-$i 16 --bundle $V/decode-c8 --pdl-bundles
  run c8nonorm-$i 16 --bundle $V/decode-c8 --pdl-bundles --unfused-norm
done
el done
