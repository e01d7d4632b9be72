#!/usr/bin/env bash
# Session 26, first call: the committed set (cuda-bf16-hopper/v7) three times beside
# --qkv-pair once, batches 1 and 8 at context 2048 with a 16-token prompt, then the
# headline run with PyTorch eager, on the card issue 16's goal names (an H200) if it comes.
# Carries target/gpu-carry.
set -u
. "$(dirname "$0")/lib.sh" r54
run stock-1 16
run pair-1 16 --qkv-pair
run stock-2 16
run stock-3 16
headline
el done
