#!/usr/bin/env bash
# Session 24, fifth call: the stock GEMV's narrow products (o, down) as one pipelined stream
# of steps across rows (the next step's loads before this step's math). A/B as installed
# bundles (gemv-stock, gemv-prev, gemv-pipe8, gemv-pipe-wide: each also takes the q|k|v
# row), then the stock set itself (fused q|k|v) and session 23's 16-block-cluster decode
# attention (mma-c16); batch-1 breakdown. Batches 1 and 8 at context 2048, 16-token
# prompt, twice. Carries target/gpu-carry and target/attention-variants.
set -u
. "$(dirname "$0")/lib.sh" r42
b() { echo "--bundle $V/$1 --pdl-bundles"; }
for i in 1 2; do
  run gstock-$i 16 $(b gemv-stock)
  run gprev-$i 16 $(b gemv-prev)
  run gpipe8-$i 16 $(b gemv-pipe8)
  run gwide-$i 16 $(b gemv-pipe-wide)
  run stock-$i 16
  run c16-$i 16 $(b mma-c16)
done
breakdown breakdown
el done
