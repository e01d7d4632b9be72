#!/usr/bin/env bash
# Session 23, ninth call: the stock linear.matmul GEMV asking for 3 or 4 blocks a SM
# (gemv-mb3, gemv-mb4: __launch_bounds__ minimum blocks; stock gets 96 registers, 2 a SM),
# launched as stock is (--pdl-bundles), against the stock set, each three times,
# interleaved, batches 1 and 8 at context 2048 (16-token prompt); each one's breakdown and
# ptxas's registers and spills. Carries target/gpu-carry and target/attention-variants.
set -u
. "$(dirname "$0")/lib.sh" r33
for i in 1 2 3; do
  run stock-$i 16
  for v in gemv-mb3 gemv-mb4; do run $v-$i 16 --pdl-bundles --bundle $V/$v; done
done
for v in gemv-mb3 gemv-mb4; do
  breakdown breakdown-$v --pdl-bundles --bundle $V/$v
  regs $V/$v/kernels/linear_matmul.cu
done
el done
