#!/usr/bin/env bash
# Session 24, first call: the GPU tests (cuda_engine's batch-1 test now covers the o/down +
# norm and LM head + argmax fusions, bit-equal to the unfused step), the batch-1 breakdown,
# then batches 1 and 8 at context 2048 (16-token prompt) twice: the committed set, each
# new fusion off (--unfused-norm, --unfused-argmax), every fusion off (--unfused), and the
# session-23 decode attention (compile-time 8-block clusters, target/attention-variants).
# Carries target/gpu-carry and target/attention-variants.
set -u
. "$(dirname "$0")/lib.sh" r38
grep -E "batch-1 fused|greedy agreement" "$R/cuda_engine.txt"
breakdown breakdown
for i in 1 2; do
  run stock-$i 16
  run c8-$i 16 --bundle $V/decode-c8 --pdl-bundles
  run nonorm-$i 16 --unfused-norm
  run noargmax-$i 16 --unfused-argmax
  run unfused-$i 16 --unfused
done
grep -E "^attention.decode \(" "$R/stock-1.txt" "$R/c8-1.txt"
el done
