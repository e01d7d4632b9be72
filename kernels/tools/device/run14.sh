#!/usr/bin/env bash
# Session 19: where the time goes in the current tree (for the next session's plan): the
# per-operation breakdown of a batch-1 and a batch-8 decode step at context 2048 and of a
# 2048-token prefill (cacheon-engine-bench --breakdown), stock kernels.
set -u
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
tar xJf target/gpu-carry/gpu.tar.xz
R=/tmp/r14; mkdir -p $R; B=target/gpu-bin
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
timeout 200 $B/cacheon-engine-bench --prompt 2048 --context 2048 --batch 1 --batch 8 --replays 100 --breakdown --breakdown-reps 50 --json-out $R/prof.jsonl > $R/prof.txt 2>&1
el "breakdown rc $?"
grep -vE "^\s*$" $R/prof.txt | cut -c1-150 | tail -80
tar czf $OUT/r14.tgz -C /tmp r14
