#!/usr/bin/env bash
# Session 19: batch-8 decode attention variants (kernels/tools/attention-variants.sh: mb3,
# mb4, z2, z2mb3) against stock, batch 8 and batch 1 at context 2048.
set -u
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
tar xJf target/gpu-carry/gpu.tar.xz
R=/tmp/r15; mkdir -p $R; B=target/gpu-bin; V=target/attention-variants
nvidia-smi --query-gpu=name --format=csv,noheader
for v in stock mb3 mb4 z2 z2mb3 stock2; do
  case $v in stock*) b=();; *) b=(--bundle $V/$v);; esac
  timeout 60 $B/cacheon-engine-bench --prompt 16 --context 2048 --batch 1 --batch 8 --replays 100 "${b[@]}" --json-out $R/$v.jsonl > $R/$v.txt 2>&1
  echo "$v rc $? b1 $(grep -h -o '"ms_per_step":[0-9.]*' $R/$v.jsonl | sed -n 1p | cut -d: -f2) b8 $(grep -h -o '"ms_per_step":[0-9.]*' $R/$v.jsonl | sed -n 2p | cut -d: -f2)"
  grep -h "attention.decode (" $R/$v.txt | cut -c1-160
done
el done
tar czf $OUT/r15.tgz -C /tmp r15
