#!/usr/bin/env bash
# Session 22, the closing call: the stock set as committed (tensor-core decode attention
# with one step in flight, programmatic dependent launch, the GEMVs' first 4 KiB of weights
# to L2 before the wait) twice with PyTorch eager in the same call; the GEMV prefetch
# variants gemv-o and gemv-2k and the staged decode attention mma-stage (--pdl-bundles:
# launched as stock is); PDL off; the former CUDA-core attention (decode-simt) against
# stock, both --no-pdl; the breakdowns. Carries target/gpu-carry and
# target/attention-variants (the variants as of commit 857c150).
set -u
. "$(dirname "$0")/lib.sh" r22
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
