#!/usr/bin/env bash
# Session 18, device call 1: the batched-decode linear.matmul kernel (examples/cuda/
# matmul-rows8-mma, mma.sync m16n8k16) against the stock engine's builtin (cuBLAS) at
# batch 8 (and batch 1, where stock keeps its GEMV), with its variants; then verify and
# one qualification attempt on h200-llama8b with the mixed workload (prefill 2048 + 128
# batch-1 steps + 8 prompts of 512 decoded together for 128 steps).
set -u
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
tar xJf target/gpu-carry/gpu.tar.xz
R=/tmp/r7; mkdir -p $R; B=target/gpu-bin; C=target/gpu-cli
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader | tee $R/gpu.txt
for v in stock ex mt1u4 mt2u2 mt4u2 mt1u8 stock2; do
  case $v in stock*) b=();; ex) b=(--bundle examples/cuda/matmul-rows8-mma);; *) b=(--bundle target/rows8-variants/$v);; esac
  timeout 90 $B/cacheon-engine-bench --prompt 16 --context 576 --batch 8 --batch 1 --replays 100 "${b[@]}" --json-out $R/dec-$v.jsonl > $R/dec-$v.txt 2>&1
  el "decode $v rc $?"; grep -h "^decode" $R/dec-$v.txt | cut -c1-200
done
timeout 120 $C/cacheon --json verify --device cuda --seed 7 examples/cuda/matmul-rows8-mma > $R/verify.json 2> $R/verify.err
el "verify rc $? $(head -c 300 $R/verify.json)"
timeout 330 $C/cacheon --json qualify --arena h200-llama8b --bundle examples/cuda/matmul-rows8-mma --seed 7 > $R/qualify.json 2> $R/qualify.err
el "qualify rc $? $(head -c 600 $R/qualify.json)"
cp ~/.local/share/cacheon/evidence/*.json $R/ 2>/dev/null
tar czf $OUT/r7.tgz -C /tmp r7
el done
