#!/usr/bin/env bash
# Session 28: the issue-16 headline of the committed build (target/gpu-bin-old, stock set
# cuda-bf16-hopper/v9) on whichever card comes, against the stock prefill attention with 32
# query rows a warp (target/gpu-bin: BR 128, the Q tile in shared memory). First the GPU
# tests of the new build (lib.sh), then the committed build's full run (prefill 2048,
# batches 1 and 8 at context 2048) with its copy bandwidth and batch-1 floor and PyTorch
# eager in the same call, the new build's, interleaved repeats of both, the committed
# build's batch-1 breakdown, and each build's prefill breakdown (attention.prefill a layer).
# Carries target/gpu-carry.
set -u
OUT_FINAL=$OUT; OUT=/tmp/out63; mkdir -p $OUT
. "$(dirname "$0")/lib.sh" r63
prefill_breakdown() { # name: a 2048-token prefill's operations in isolation
  timeout 90 $B/cacheon-engine-bench --prompt 2048 --context 2048 --batch 1 --replays 20 --breakdown --breakdown-reps 10 > "$R/$1.txt" 2>&1; el "$1 rc $?"
  grep -E "^(attention.prefill|gate_up|down_proj|qkv|o_proj|sum)" "$R/$1.txt" | cut -c1-150 | tail -8
}
{
B=target/gpu-bin-old run main-1 2048
grep -E "^(copy bandwidth|batch-1 floor)" "$R/main-1.txt"
torch
run m32-1 2048
B=target/gpu-bin-old run main-2 2048
run m32-2 2048
B=target/gpu-bin-old run main-3 16
run m32-3 16
B=target/gpu-bin-old breakdown main-b1
B=target/gpu-bin-old prefill_breakdown main-prefill
prefill_breakdown m32-prefill
regs kernels/stock/cuda/attention_prefill/kernels/attention_prefill.cu
el done
} 2>&1 | tee "$R/summary.txt"
cp "$R"/*.txt "$OUT_FINAL/"
