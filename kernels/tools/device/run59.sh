#!/usr/bin/env bash
# Session 27, the H200 call for issue 16's goals: the headline run (prefill 2048, then
# batches 1 and 8 at context 2048) of v8 (target/gpu-bin) with PyTorch eager in the same
# call, v7 (target/gpu-bin-old) beside it, a second batch-1/8 run of each, then the GPU
# arena's profile (offchain/src/arena/profile.rs) re-measured: a 2048-token prefill with
# batch-1 steps at context 2048, and 512-token prefills with batch-8 steps at context 576,
# each with --breakdown. Only the summary, the breakdowns and PyTorch's output come back.
# Carries target/gpu-carry.
set -u
OUT_FINAL=$OUT; OUT=/tmp/out59; mkdir -p $OUT
. "$(dirname "$0")/lib.sh" r59
{
headline
B=target/gpu-bin-old run stock-old 2048
run new-1 16
B=target/gpu-bin-old run old-1 16
arena_profile
el done
} 2>&1 | tee "$R/summary.txt"
cp "$R/profile-2048.txt" "$R/profile-512.txt" "$R/summary.txt" "$R/torch.txt" "$R/gpu.txt" "$R/stock.txt" "$OUT_FINAL/"
