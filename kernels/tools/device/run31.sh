#!/usr/bin/env bash
# Session 23, seventh call: the attention norm fused into the batch-1 q|k|v GEMV (default)
# against --unfused-norm and --unfused, and the fused GEMVs' grid at 2 or 4 blocks a SM
# (--pair-blocks-per-sm; the default is one block per 8 features, up to 8 a SM), with and
# without --fuse-swiglu; each three times, interleaved, at context 2048 (16-token prompt);
# the full run, PyTorch eager, the breakdown. Carries target/gpu-carry.
set -u
. "$(dirname "$0")/lib.sh" r31
run stock 2048
grep -E "^(copy bandwidth|batch-1 floor)" $R/stock.txt
timeout 120 python3 kernels/bench/torch_eager.py --batch 1 --batch 8 > $R/torch.txt 2>&1; el "torch rc $?"; grep -o '"kind": "[a-z]*", "shape": "[^"]*", "batch": [0-9]*.*"ms[_a-z]*": [0-9.]*' $R/torch.txt
for i in 1 2 3; do
  run stock-$i 16
  run unfused-norm-$i 16 --unfused-norm
  run unfused-$i 16 --unfused
  run pb2-$i 16 --pair-blocks-per-sm 2
  run pb4-$i 16 --pair-blocks-per-sm 4
  run swiglu-pb2-$i 16 --fuse-swiglu --pair-blocks-per-sm 2
done
timeout 60 $B/cacheon-engine-bench --prompt 16 --context 2048 --batch 1 --breakdown --breakdown-reps 20 > $R/breakdown.txt 2>&1; el "breakdown rc $?"
grep -E "^(embedding|rmsnorm|fused|qkv|rope|k_write|attention.decode|o_proj|gate_up|silu|down|lm_head|argmax|sum)" $R/breakdown.txt | cut -c1-150 | head -12
timeout 60 nvcc -cubin -arch=sm_90a -std=c++17 -Xptxas -v -o /dev/null kernels/src/cuda/engine/engine_kernels.cu 2>&1 | grep -E "Compiling entry|registers" | paste - - | sed -E 's/.*entry function .([a-z_]+). for .sm_90a.*Used ([0-9]+) registers.*/\1 \2 regs/' | grep -E "gemv"
el done
