#!/usr/bin/env bash
# Session 20, the short form of run16.sh for a nearly spent device budget: the new stock
# attention.prefill against the reference on the GPU (cuda_stock) and a 2048-token
# prefill timed with it, with the previous stock kernel (prefill-old) and with 128-row
# blocks (prefill-br128), in one call. Carries target/gpu-carry and target/attention-variants.
set -u
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
tar xJf target/gpu-carry/gpu.tar.xz
R=$OUT/r17; mkdir -p $R; B=target/gpu-bin; V=target/attention-variants
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
for v in stock prefill-old prefill-br128 stock2; do
  case $v in stock*) b=();; *) b=(--bundle $V/$v);; esac
  timeout 30 $B/cacheon-engine-bench --prompt 2048 --batch 1 --replays 10 "${b[@]}" > $R/p-$v.txt 2>&1
  echo "$v rc $? $(grep -E '^prefill' $R/p-$v.txt | tr -s ' ' | cut -c1-120 | tr '\n' '|')"
done
el prefill
timeout 60 $B/cuda_stock --test-threads=1 > $R/cuda_stock.txt 2>&1; el "cuda_stock rc $?"; grep -E "test result|FAIL|panic" $R/cuda_stock.txt | head -5
