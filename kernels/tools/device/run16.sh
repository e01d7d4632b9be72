#!/usr/bin/env bash
# Session 20: the double-buffered ldmatrix flash prefill (stock attention.prefill) on the
# GPU against the reference (cuda_stock), timed in a 2048-token prefill against the
# previous stock kernel (prefill-old), a two-blocks-an-SM build (prefill-mb2) and 128-row
# blocks (prefill-br128); run15's batch-8 decode attention variants; then the CUDA engine
# against the CPU engine (cuda_engine) and the prefill's breakdown.
# Carries target/gpu-carry (gpu.tar.xz) and target/attention-variants.
set -u
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
tar xJf target/gpu-carry/gpu.tar.xz
R=$OUT/r16; mkdir -p $R; B=target/gpu-bin; V=target/attention-variants
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
timeout 90 $B/cuda_stock --test-threads=1 > $R/cuda_stock.txt 2>&1; el "cuda_stock rc $?"; grep -E "test result|FAIL|panic" $R/cuda_stock.txt | head -5
for v in stock prefill-old prefill-br128 prefill-mb2 stock2; do
  case $v in stock*) b=();; *) b=(--bundle $V/${v%2});; esac
  timeout 40 $B/cacheon-engine-bench --prompt 2048 --batch 1 --replays 20 "${b[@]}" > $R/p-$v.txt 2>&1
  echo "$v rc $? $(grep -E '^prefill' $R/p-$v.txt | tr -s ' ' | cut -c1-120 | tr '\n' '|')"
done
el prefill
for v in stock mb3 mb4 z2; do
  case $v in stock*) b=();; *) b=(--bundle $V/$v);; esac
  timeout 40 $B/cacheon-engine-bench --prompt 16 --context 2048 --batch 1 --batch 8 --replays 100 "${b[@]}" --json-out $R/d-$v.jsonl > $R/d-$v.txt 2>&1
  echo "$v rc $? b1 $(grep -h -o '"ms_per_step":[0-9.]*' $R/d-$v.jsonl | sed -n 1p | cut -d: -f2) b8 $(grep -h -o '"ms_per_step":[0-9.]*' $R/d-$v.jsonl | sed -n 2p | cut -d: -f2)"
done
el decode
timeout 100 $B/cuda_engine --test-threads=1 > $R/cuda_engine.txt 2>&1; el "cuda_engine rc $?"; grep -E "test result|FAIL|panic" $R/cuda_engine.txt | head -5
timeout 100 $B/cacheon-engine-bench --prompt 2048 --batch 1 --replays 20 --breakdown --breakdown-reps 20 > $R/prof.txt 2>&1
el "breakdown rc $?"; grep -iE "attention|^prefill" $R/prof.txt | cut -c1-150 | tail -8
