#!/usr/bin/env bash
# Session 25, third call: the committed set (the q|k|v product in the streaming GEMV, then
# eng_rope_cache_row) three times beside --qkv-pair twice, batches 1 and 8 at context 2048
# with a 16-token prompt, then the headline run with PyTorch eager, for whichever card
# comes. Carries target/gpu-carry.
set -u
. "$(dirname "$0")/lib.sh" r53
for i in 1 2; do
  run stock-$i 16
  run pair-$i 16 --qkv-pair
done
run stock-3 16
headline
el done
