#!/usr/bin/env bash
# Session 22, the closing call: the stock set as committed (tensor-core decode attention
# with one step in flight, programmatic dependent launch, the GEMVs' first 4 KiB of weights
# to L2 before the wait) twice with PyTorch eager in the same call; the GEMV prefetch
# variants gemv-o and gemv-2k and the staged decode attention mma-stage (--pdl-bundles:
# launched as stock is); PDL off; the former CUDA-core attention (decode-simt) against
# stock, both --no-pdl; the breakdowns. Carries target/gpu-carry and
# target/attention-variants.
set -u
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
tar xJf target/gpu-carry/gpu.tar.xz
R=$OUT/r22; mkdir -p $R; B=target/gpu-bin; V=target/attention-variants
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
run() { # name, prompt, flags...
  local n=$1 p=$2; shift 2
  timeout 90 $B/cacheon-engine-bench --prompt $p --context 2048 --batch 1 --batch 8 --replays 100 "$@" --json-out $R/$n.jsonl > $R/$n.txt 2>&1
  echo "rc $? $(summary $n $R/$n.jsonl)"
}
run stock 2048
grep -E "^(copy bandwidth|batch-1 floor)" $R/stock.txt
timeout 120 python3 kernels/bench/torch_eager.py --batch 1 --batch 8 > $R/torch.txt 2>&1; el "torch rc $?"; grep -o '"kind": "[a-z]*", "shape": "[^"]*", "batch": [0-9]*.*"ms[_a-z]*": [0-9.]*' $R/torch.txt
for v in mma-stage gemv-o gemv-2k; do run $v 16 --pdl-bundles --bundle $V/$v; done
run mma-stage-b 16 --pdl-bundles --bundle $V/mma-stage
run stock-b 16
run nopdl 16 --no-pdl
run decode-simt 16 --no-pdl --bundle $V/decode-simt
run stock2 2048
el "engine"
timeout 60 $B/cacheon-engine-bench --prompt 2048 --context 2048 --batch 1 --batch 8 --breakdown --breakdown-reps 20 > $R/breakdown.txt 2>&1; el "breakdown rc $?"
grep -E "^(attention|qkv|o_proj|gate_up|down|lm_head|sum|batch-1 floor)" $R/breakdown.txt | cut -c1-150 | head -30
timeout 60 $B/cacheon-engine-bench --prompt 16 --context 2048 --batch 1 --batch 8 --breakdown --breakdown-reps 20 --pdl-bundles --bundle $V/mma-stage > $R/bd-mma-stage.txt 2>&1
echo "mma-stage: $(grep -E '^attention.decode' $R/bd-mma-stage.txt | tr -s ' ' | cut -d' ' -f1,7,8 | tr '\n' '|')"
grep -E "^attention.decode \(" $R/bd-mma-stage.txt
