#!/usr/bin/env bash
# Session 23, sixth call: the committed default (the fused q|k|v + RoPE + cache-write GEMV;
# gate|up + SwiGLU unfused) against --unfused and --fuse-swiglu (the pair loop now with
# ld.global.nc loads), each three times, interleaved, at context 2048 (16-token prompt),
# the full run, PyTorch eager, the breakdown, and ptxas's registers. Carries
# target/gpu-carry.
set -u
. "$(dirname "$0")/lib.sh" r30
run stock 2048
grep -E "^(copy bandwidth|batch-1 floor)" $R/stock.txt
timeout 120 python3 kernels/bench/torch_eager.py --batch 1 --batch 8 > $R/torch.txt 2>&1; el "torch rc $?"; grep -o '"kind": "[a-z]*", "shape": "[^"]*", "batch": [0-9]*.*"ms[_a-z]*": [0-9.]*' $R/torch.txt
for i in 1 2 3; do
  run stock-$i 16
  run unfused-$i 16 --unfused
  run fuse-swiglu-$i 16 --fuse-swiglu
done
timeout 60 $B/cacheon-engine-bench --prompt 16 --context 2048 --batch 1 --breakdown --breakdown-reps 20 > $R/breakdown.txt 2>&1; el "breakdown rc $?"
grep -E "^(embedding|rmsnorm|fused|qkv|rope|k_write|attention.decode|o_proj|gate_up|silu|down|lm_head|argmax|sum)" $R/breakdown.txt | cut -c1-150 | head -12
timeout 60 $B/cacheon-engine-bench --prompt 16 --context 2048 --batch 1 --breakdown --breakdown-reps 20 --fuse-swiglu > $R/breakdown-swiglu.txt 2>&1; el "breakdown swiglu rc $?"
grep -E "^(qkv|gate_up|silu|sum)" $R/breakdown-swiglu.txt | cut -c1-150 | head -4
for f in kernels/src/cuda/engine/engine_kernels.cu kernels/stock/cuda/linear_matmul/kernels/linear_matmul.cu; do
  timeout 60 nvcc -cubin -arch=sm_90a -std=c++17 -Xptxas -v -o /dev/null "$f" 2>&1 | grep -E "Compiling entry|registers" | paste - - | sed -E 's/.*entry function .([a-z_]+). for .sm_90a.*Used ([0-9]+) registers.*/\1 \2 regs/' | grep -E "gemv|linear"
done
el done
