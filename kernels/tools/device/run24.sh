#!/usr/bin/env bash
# Session 22, for an H200: the committed stock set (d7c3e25) twice, PyTorch eager in the
# same call, PDL off once, and the breakdown. Carries target/gpu-carry.
set -u
. "$(dirname "$0")/lib.sh" r24
run stock 2048
grep -E "^(copy bandwidth|batch-1 floor)" $R/stock.txt
timeout 120 python3 kernels/bench/torch_eager.py --batch 1 --batch 8 > $R/torch.txt 2>&1; el "torch rc $?"; grep -o '"kind": "[a-z]*", "shape": "[^"]*", "batch": [0-9]*.*"ms[_a-z]*": [0-9.]*' $R/torch.txt
run nopdl 2048 --no-pdl
run stock2 2048
timeout 60 $B/cacheon-engine-bench --prompt 2048 --context 2048 --batch 1 --batch 8 --breakdown --breakdown-reps 20 > $R/breakdown.txt 2>&1; el "breakdown rc $?"
grep -E "^(embedding|rmsnorm|fused|qkv|rope|k_write|attention|o_proj|gate_up|silu|down|lm_head|argmax|sum|batch-1 floor)" $R/breakdown.txt | cut -c1-150 | head -40
