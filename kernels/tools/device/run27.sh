#!/usr/bin/env bash
# Session 23, third call: the fused batch-1 kernels with one weight row a warp (pairs meet
# in shared memory; run26's warps streamed both rows of a pair) against --unfused, each
# three times, interleaved, at context 2048 (16-token prompt), the full run, PyTorch
# eager, and both breakdowns. Carries target/gpu-carry.
set -u
. "$(dirname "$0")/lib.sh" r27
run stock 2048
grep -E "^(copy bandwidth|batch-1 floor)" $R/stock.txt
timeout 120 python3 kernels/bench/torch_eager.py --batch 1 --batch 8 > $R/torch.txt 2>&1; el "torch rc $?"; grep -o '"kind": "[a-z]*", "shape": "[^"]*", "batch": [0-9]*.*"ms[_a-z]*": [0-9.]*' $R/torch.txt
for i in 1 2 3; do
  run stock-$i 16
  run unfused-$i 16 --unfused
done
for f in "" --unfused; do
  timeout 60 $B/cacheon-engine-bench --prompt 16 --context 2048 --batch 1 --breakdown --breakdown-reps 20 $f > $R/breakdown$f.txt 2>&1; el "breakdown $f rc $?"
  grep -E "^(embedding|rmsnorm|fused|qkv|rope|k_write|attention.decode|o_proj|gate_up|silu|down|lm_head|argmax|sum)" $R/breakdown$f.txt | cut -c1-150 | head -14
done
el done
