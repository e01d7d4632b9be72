#!/usr/bin/env bash
# Session 24, seventh call: the stock GEMV's grid and wide products. As installed bundles
# (each also takes the q|k|v row): gemv-stock (committed), gemv-pipe-wide (the wide products
# pipelined too), gemv-wave (the narrow products in one wave of 264 blocks), gemv-wave-wide
# (every product in one wave, pipelined); then the stock set itself and the headline run
# with PyTorch eager. Batches 1 and 8 at context 2048 (16-token prompt), twice.
# Carries target/gpu-carry and target/attention-variants.
set -u
. "$(dirname "$0")/lib.sh" r44
b() { echo "--bundle $V/$1 --pdl-bundles"; }
for i in 1 2; do
  run gstock-$i 16 $(b gemv-stock)
  run gwide-$i 16 $(b gemv-pipe-wide)
  run gwave-$i 16 $(b gemv-wave)
  run gwavewide-$i 16 $(b gemv-wave-wide)
  run stock-$i 16
done
headline
el done
