#!/usr/bin/env bash
# Session 23, for an H200: the stock set with the engine's fused batch-1 kernels (q|k|v +
# RoPE + cache writes, gate|up + SwiGLU) against the same build with --unfused and with
# --prefetch-o (o weights to L2 after q|k|v), each twice, interleaved, at context 2048 (a
# 16-token prompt keeps these runs short), beside the full run (prefill 2048), PyTorch
# eager in the same call, and the batch-1 breakdown. Carries target/gpu-carry.
set -u
. "$(dirname "$0")/lib.sh" r25
run stock 2048
grep -E "^(copy bandwidth|batch-1 floor)" $R/stock.txt
timeout 120 python3 kernels/bench/torch_eager.py --batch 1 --batch 8 > $R/torch.txt 2>&1; el "torch rc $?"; grep -o '"kind": "[a-z]*", "shape": "[^"]*", "batch": [0-9]*.*"ms[_a-z]*": [0-9.]*' $R/torch.txt
for i in 1 2; do
  run stock-$i 16
  run unfused-$i 16 --unfused
  run prefetch-o-$i 16 --prefetch-o
done
timeout 60 $B/cacheon-engine-bench --prompt 16 --context 2048 --batch 1 --breakdown --breakdown-reps 20 > $R/breakdown.txt 2>&1; el "breakdown rc $?"
grep -E "^(embedding|rmsnorm|fused|qkv|rope|k_write|attention|o_proj|gate_up|silu|down|lm_head|argmax|sum|batch-1 floor)" $R/breakdown.txt | cut -c1-150 | head -24
timeout 60 $B/cacheon-engine-bench --prompt 16 --context 2048 --batch 1 --breakdown --breakdown-reps 20 --prefetch-o > $R/breakdown-pf.txt 2>&1; el "breakdown pf rc $?"
grep -E "^(qkv|attention|o_proj|sum)" $R/breakdown-pf.txt | cut -c1-150 | head -8
el done
