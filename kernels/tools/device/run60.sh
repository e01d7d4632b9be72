#!/usr/bin/env bash
# Session 27, second call: every pass's RoPE and both cache writes in one engine kernel
# after the q|k|v product (target/gpu-bin; eng_rope_cache_rows for prefill and batched
# decode) against the build before it (target/gpu-bin-old: rope slot, split and k-write
# launches there). First the GPU tests of the new build (lib.sh), then its headline run
# (prefill 2048, batches 1 and 8 at context 2048) with PyTorch eager in the same call, the
# old build's, a second batch-1/8 run of each, and the new build's profile breakdowns
# (a 2048-token prefill with batch-1 steps at context 2048; 512-token prefills with batch-8
# steps at context 576). Carries target/gpu-carry.
set -u
OUT_FINAL=$OUT; OUT=/tmp/out60; mkdir -p $OUT
. "$(dirname "$0")/lib.sh" r60
{
headline
B=target/gpu-bin-old run stock-old 2048
run new-1 16
B=target/gpu-bin-old run old-1 16
run new-2 2048
arena_profile
el done
} 2>&1 | tee "$R/summary.txt"
cp "$R/profile-2048.txt" "$R/profile-512.txt" "$R/summary.txt" "$R/torch.txt" "$R/gpu.txt" "$R/stock.txt" "$R/cuda_engine.txt" "$OUT_FINAL/"
