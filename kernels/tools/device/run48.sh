#!/usr/bin/env bash
# Session 24, eleventh call: the GPU arena's profile (offchain/src/arena/profile.rs)
# re-measured on the committed set: a 2048-token prefill and batch-1 steps at context 2048,
# 512-token prefills and batch-8 steps at context 576, each with --breakdown; then the
# committed set's batches 1 and 8 at context 2048 (16-token prompt) three times beside
# --unfused and the headline run with PyTorch eager. Only the breakdowns, the run lines and
# PyTorch's come back (the tool returns 8 files). Carries target/gpu-carry.
set -u
OUT_FINAL=$OUT; OUT=/tmp/out48; mkdir -p $OUT
. "$(dirname "$0")/lib.sh" r48
{
timeout 120 $B/cacheon-engine-bench --prompt 2048 --context 2048 --batch 1 --replays 100 --breakdown > "$R/profile-2048.txt" 2>&1; el "profile 2048 rc $?"
timeout 120 $B/cacheon-engine-bench --prompt 512 --context 576 --batch 8 --replays 100 --breakdown > "$R/profile-512.txt" 2>&1; el "profile 512 rc $?"
for i in 1 2 3; do
  run stock-$i 16
  run unfused-$i 16 --unfused
done
headline
el done
} 2>&1 | tee "$R/summary.txt"
cp "$R/profile-2048.txt" "$R/profile-512.txt" "$R/summary.txt" "$R/torch.txt" "$R/gpu.txt" "$R/cuda_engine.txt" "$OUT_FINAL/"
