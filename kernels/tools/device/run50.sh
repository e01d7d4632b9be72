#!/usr/bin/env bash
# Session 24, the closing measurement of the committed set (the GPU tests, batches 1 and 8
# at context 2048 with a 16-token prompt three times beside --unfused, then the headline
# run with PyTorch eager), for whichever card comes. Carries target/gpu-carry.
set -u
. "$(dirname "$0")/lib.sh" r50
for i in 1 2 3; do
  run stock-$i 16
  run unfused-$i 16 --unfused
done
headline
el done
