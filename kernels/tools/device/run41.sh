#!/usr/bin/env bash
# Session 24, fourth call: decode attention with the cluster size a template parameter of
# two paths (16 at batch 1, 8 beyond; run40: the runtime-size code lost 9-20 us) against
# session 23's kernel (decode-c8), without the last-block fusions (run39: slower).
# Registers and spills of both. Batches 1 and 8 at context 2048, 16-token prompt, 3 times.
# Carries target/gpu-carry and target/attention-variants.
set -u
. "$(dirname "$0")/lib.sh" r41
regs kernels/stock/cuda/attention_decode/kernels/attention_decode.cu $V/decode-c8/kernels/attention_decode.cu
off="--unfused-norm --unfused-argmax"
for i in 1 2 3; do
  run c8-$i 16 $off --bundle $V/decode-c8 --pdl-bundles
  run stock-$i 16 $off
done
breakdown breakdown $off
el done
