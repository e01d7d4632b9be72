#!/usr/bin/env bash
# Issue 16's measurement, on an H200 only: the committed build's full run (prefill 2048,
# batches 1 and 8 at context 2048) with the copy bandwidth and the batch-1 floor, PyTorch
# eager in the same call, three more runs for the spread, and the batch-1 breakdown. On any
# other card it names the card and stops (exit 3) before anything costs time, so a call
# that lands on an H100 costs only the machine's start. Carries target/gpu-carry
# (kernels/tools/device/pack.sh).
#   run: bash kernels/tools/device/h200-headline.sh   kind nvidia-h200, carry target/gpu-carry
set -u
name=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader); echo "$name"
case "$name" in *H200*) ;; *) echo "not an H200: nothing timed"; exit 3 ;; esac
OUT_FINAL=$OUT; OUT=/tmp/out-h200; mkdir -p $OUT
. "$(dirname "$0")/lib.sh" headline
{
headline
run again-1 2048
run again-2 16
run again-3 2048
breakdown b1-breakdown
el done
} 2>&1 | tee "$R/summary.txt"
cp "$R"/*.txt "$OUT_FINAL/"
