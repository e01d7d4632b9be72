#!/usr/bin/env bash
# Session 28: a call for an H200 that costs little on an H100. Names the card and prints
# ptxas's registers, stack and spills for the stock prefill attention of the committed
# build (target/gpu-carry/attention_prefill_v9.cu) and of this tree (32 query rows a warp);
# then, on an H200 only, run63.sh (the issue-16 headline with PyTorch eager in the same
# call, and the two prefill attentions against each other). Carries target/gpu-carry.
set -u
name=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader); echo "$name"
for f in target/gpu-carry/attention_prefill_v9.cu kernels/stock/cuda/attention_prefill/kernels/attention_prefill.cu; do
  echo "== $f"
  timeout 60 nvcc -cubin -arch=sm_90a -std=c++17 -Xptxas -v -o /dev/null "$f" 2>&1 | grep -E "stack frame|registers" | sed 's/ptxas info *: //'
done
case "$name" in *H200*) bash "$(dirname "$0")/run63.sh" ;; *) echo "not an H200: nothing timed" ;; esac
