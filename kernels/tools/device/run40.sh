#!/usr/bin/env bash
# Session 24, third call: where the launch-time cluster's batch-8 loss comes from (the
# kernel code, c8-code, or the launch attribute, c8-launch, against session 23's decode-c8),
# and whether short kernels that let the next grid launch before they wait (early-*) give
# the next GEMV's prefetch more time. All without the o/down + norm and LM head + argmax
# fusions (run39: both slower). Batches 1 and 8 at context 2048, 16-token prompt, twice.
# Carries target/gpu-carry and target/attention-variants.
set -u
. "$(dirname "$0")/lib.sh" r40
off="--unfused-norm --unfused-argmax"
b() { echo "--bundle $V/$1 --pdl-bundles"; }
for i in 1 2; do
  run c8-$i 16 $off $(b decode-c8)
  run stock-$i 16 $off
  run c8code-$i 16 $off $(b c8-code)
  run c8launch-$i 16 $off $(b c8-launch)
  run early-$i 16 $off $(b decode-c8) $(b early-norm) $(b early-silu)
  run earlyattn-$i 16 $off $(b early-attn)
done
el done
