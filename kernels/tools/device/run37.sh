#!/usr/bin/env bash
# Session 23, thirteenth call (the same warm H200, inline as run36): the batch-1 breakdown
# of the committed set, and batches 1 and 8 at context 2048 (16-token prompt) twice beside
# --unfused. Carries target/gpu-carry (unpacked by run35 on that machine).
set -u
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
R=$OUT/r37; mkdir -p "$R"; B=target/gpu-bin
source <(sed -n '/^summary()/,$p' "$(dirname "$0")/lib.sh")
breakdown breakdown
for i in 1 2; do
  run stock-$i 16
  run unfused-$i 16 --unfused
done
el done
