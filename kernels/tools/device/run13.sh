#!/usr/bin/env bash
# Session 19, device call 2: examples/cuda/gate-up-silu-mma with its one-row GEMV path:
# batch-1 steps at context 2048 and batch-8 steps at context 576, stock and seam; then the
# GPU crown on chain with it (scripts/gpu-crown.sh: dev node, Alice and Bob on GPU 0,
# Charlie's proposal for mlp.gate_up_silu).
set -u
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
tar xJf target/gpu-carry/gpu.tar.xz
R=/tmp/r13; mkdir -p $R; B=target/gpu-bin
S=examples/cuda/gate-up-silu-mma
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee $R/gpu.txt
for v in b1-stock b1-seam b8-stock b8-seam b1-stock2; do
  case $v in b1*) a=(--prompt 16 --context 2048 --batch 1);; b8*) a=(--prompt 16 --context 576 --batch 8);; esac
  case $v in *seam) b=(--bundle $S);; *) b=();; esac
  timeout 60 $B/cacheon-engine-bench "${a[@]}" --replays 100 "${b[@]}" --json-out $R/dec-$v.jsonl > $R/dec-$v.txt 2>&1
  echo "$v $(grep -h -o '"ms_per_step":[0-9.]*' $R/dec-$v.jsonl | head -1 | cut -d: -f2)" | tee -a $R/steps.txt
done
el "steps"
left=$(( 590 - $(date +%s) + T0 ))
CACHEON_BIN_DIR=target/gpu-cli timeout $(( left - 15 )) scripts/gpu-crown.sh $S $R/crown > $R/crown.out 2>&1
el "crown rc $?"; grep -aE "crown|PASS|FAIL|NoDecision|lease|weights|payout|done|committed|revealed" $R/crown.out | tail -24 | cut -c1-220
cat $R/crown/attempts.txt 2>/dev/null | cut -c1-300
pkill -f target/gpu-cli/ ; sleep 1
tar czf $OUT/r13.tgz -C /tmp r13
el done
