#!/usr/bin/env bash
# Session 24, tenth call: the committed set (stock GEMV streaming every one-row product):
# GPU tests, batches 1 and 8 at context 2048 (16-token prompt) three times beside
# --unfused, the GEMV streamed with 8 or 4 loads a step (gemv-stock, gemv-pipe4, as
# bundles), the batch-1 breakdown, and the headline run with PyTorch eager.
# Carries target/gpu-carry and target/attention-variants.
set -u
. "$(dirname "$0")/lib.sh" r47
b() { echo "--bundle $V/$1 --pdl-bundles"; }
for i in 1 2 3; do
  run stock-$i 16
  run unfused-$i 16 --unfused
done
for i in 1 2; do
  run gstock-$i 16 $(b gemv-stock)
  run gpipe4-$i 16 $(b gemv-pipe4)
done
breakdown breakdown
headline
el done
