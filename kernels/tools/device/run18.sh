#!/usr/bin/env bash
# Session 22: the tensor-core attention.decode path and programmatic dependent launch (PDL).
# Correctness first (cuda_stock: every stock kernel against the reference on the GPU;
# cuda_engine: graph = eager bitwise, tokens = the CPU engine's), then the engine with PDL
# on and off, the decode variants of kernels/tools/attention-variants.sh (bundles launch
# without PDL, so they are timed against --no-pdl stock), and PyTorch eager, in one call.
# Carries target/gpu-carry and target/attention-variants.
set -u
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
tar xJf target/gpu-carry/gpu.tar.xz
R=$OUT/r18; mkdir -p $R; B=target/gpu-bin; V=target/attention-variants
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
timeout 90 $B/cuda_stock --test-threads=1 > $R/cuda_stock.txt 2>&1; el "cuda_stock rc $?"; grep -E "test result|FAIL|panic" $R/cuda_stock.txt | head -5
timeout 150 $B/cuda_engine --test-threads=1 > $R/cuda_engine.txt 2>&1; el "cuda_engine rc $?"; grep -E "test result|FAIL|panic" $R/cuda_engine.txt | head -5
summary() { # name, jsonl
  local p b1 b8
  p=$(grep -h '"kind":"prefill"' $2 | grep -o '"ms":[0-9.]*' | cut -d: -f2)
  b1=$(grep -h '"kind":"decode"' $2 | grep '"batch":1,' | grep -o '"ms_per_step":[0-9.]*' | cut -d: -f2)
  b8=$(grep -h '"kind":"decode"' $2 | grep '"batch":8,' | grep -o '"ms_per_step":[0-9.]*' | cut -d: -f2)
  echo "$1 prefill $p b1 $b1 b8 $b8"
}
for v in stock nopdl stock2 nopdl2; do
  case $v in nopdl*) f=(--no-pdl);; *) f=();; esac
  timeout 90 $B/cacheon-engine-bench --prompt 2048 --context 2048 --batch 1 --batch 8 --replays 100 "${f[@]}" --json-out $R/$v.jsonl > $R/$v.txt 2>&1
  echo "rc $? $(summary $v $R/$v.jsonl)"
done
el "engine"
for v in decode-simt mma1 mma4 mma-z1 mma-z4; do
  timeout 60 $B/cacheon-engine-bench --prompt 16 --context 2048 --batch 1 --batch 8 --replays 100 --no-pdl --bundle $V/$v --json-out $R/$v.jsonl > $R/$v.txt 2>&1
  echo "rc $? $(summary $v $R/$v.jsonl)"
done
el "variants"
timeout 60 $B/cacheon-engine-bench --prompt 2048 --context 2048 --batch 1 --batch 8 --breakdown --breakdown-reps 20 > $R/breakdown.txt 2>&1; el "breakdown rc $?"
grep -E "attention.decode|gate_up|lm_head|sum|graph" $R/breakdown.txt | head -20
timeout 120 python3 kernels/bench/torch_eager.py --batch 1 --batch 8 > $R/torch.txt 2>&1; el "torch rc $?"; tail -6 $R/torch.txt
