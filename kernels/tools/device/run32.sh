#!/usr/bin/env bash
# Session 23, eighth call: decode attention with 16-block clusters (non-portable; the
# loader now allows them): mma-c16 (z 1 at batch 1, 128 blocks) and mma-c16z2 (the stock
# z: 256 blocks at batch 1), launched as stock is (--pdl-bundles), against the stock
# set, each three times, interleaved, batches 1 and 8 at context 2048 (16-token prompt),
# and the residency the bench prints. Carries target/gpu-carry and
# target/attention-variants.
set -u
. "$(dirname "$0")/lib.sh" r32
for i in 1 2 3; do
  run stock-$i 16
  for v in mma-c16 mma-c16z2; do run $v-$i 16 --pdl-bundles --bundle $V/$v; done
done
grep -h "attention.decode (" $R/stock-1.txt $R/mma-c16-1.txt $R/mma-c16z2-1.txt | cut -c1-160
for v in mma-c16 mma-c16z2; do
  breakdown breakdown-$v --pdl-bundles --bundle $V/$v
done
el done
