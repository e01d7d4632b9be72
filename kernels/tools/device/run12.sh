#!/usr/bin/env bash
# Session 19, device call 1: the MLP's fused seam (mlp.gate_up_silu) on the GPU. NVRTC
# compiles examples/cuda/gate-up-silu-mma; `cacheon verify --device cuda` runs it at every
# verification and engine shape in its domain; the batch-8 step at context 576 (the batched
# part's) with stock, the seam, the rows8 matmul example and both; the step's breakdown with
# the seam; then `qualify --arena h200-llama8b` of the seam with the time left.
set -u
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
tar xJf target/gpu-carry/gpu.tar.xz
R=/tmp/r12; mkdir -p $R; B=target/gpu-bin; C=target/gpu-cli
S=examples/cuda/gate-up-silu-mma; M=examples/cuda/matmul-rows8-mma
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader | tee $R/gpu.txt
$B/cuda_nvrtc example_cuda_bundles_compile --nocapture > $R/nvrtc.txt 2>&1; el "nvrtc rc $?"; grep -E "bytes of PTX|test result" $R/nvrtc.txt | cut -c1-120
timeout 150 $C/cacheon --json verify --device cuda --seed 7 $S > $R/verify.json 2> $R/verify.err; el "verify rc $?"
python3 - $R/verify.json <<'PY'
import json,sys
try:
    d=json.load(open(sys.argv[1]))
    print({k:d.get(k) for k in ('verdict','stage','reason','detail','cases','passed_cases')})
except Exception as e: print('verify json:', e, open(sys.argv[1]).read()[:600])
PY
for v in stock seam rows8 both stock2; do
  case $v in stock*) b=();; seam) b=(--bundle $S);; rows8) b=(--bundle $M);; both) b=(--bundle $M --bundle $S);; esac
  timeout 60 $B/cacheon-engine-bench --prompt 16 --context 576 --batch 8 --replays 100 "${b[@]}" --json-out $R/dec-$v.jsonl > $R/dec-$v.txt 2>&1
  echo "$v $(grep -h -o '"ms_per_step":[0-9.]*' $R/dec-$v.jsonl | head -1 | cut -d: -f2)" | tee -a $R/b8.txt
done
el "b8 steps"
timeout 90 $B/cacheon-engine-bench --prompt 16 --context 576 --batch 8 --replays 20 --breakdown --breakdown-reps 20 --bundle $S > $R/prof-seam.txt 2>&1
timeout 90 $B/cacheon-engine-bench --prompt 16 --context 576 --batch 8 --replays 20 --breakdown --breakdown-reps 20 > $R/prof-stock.txt 2>&1
el "breakdowns"; grep -hE "gate_up|silu" $R/prof-stock.txt $R/prof-seam.txt | cut -c1-150
left=$(( 585 - $(date +%s) + T0 ))
if [ $left -gt 120 ]; then
  timeout $(( left - 10 )) $C/cacheon --json qualify --arena h200-llama8b --bundle $S --seed 7 --evidence-dir $R/ev > $R/qualify.json 2> $R/qualify.err
  el "qualify rc $?"
  python3 - $R/qualify.json <<'PY'
import json,sys
try:
    d=json.load(open(sys.argv[1]))
    s=json.dumps(d); print(s[:1500])
except Exception as e: print('qualify json:', e)
PY
  tail -5 $R/qualify.err | cut -c1-200
fi
tar czf $OUT/r12.tgz -C /tmp r12
el done
