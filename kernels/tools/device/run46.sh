#!/usr/bin/env bash
# Session 24, ninth call: the stock GEMV streaming every one-row product with k % 2048 == 0
# (the wide ones too: run43-run45 on H100s, 4-4.5 us better as bundles) against c0b668a's
# (narrow ones only), both as installed bundles; the stock set twice; the batch-1
# breakdown; the headline run with PyTorch eager. Batches 1 and 8 at context 2048
# (16-token prompt). Carries target/gpu-carry and target/attention-variants.
set -u
. "$(dirname "$0")/lib.sh" r46
b() { echo "--bundle $V/$1 --pdl-bundles"; }
for i in 1 2; do
  run stock-$i 16
  run gstock-$i 16 $(b gemv-stock)
  run gnarrow-$i 16 $(b gemv-narrow)
done
breakdown breakdown
headline
el done
