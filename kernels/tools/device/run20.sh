#!/usr/bin/env bash
# Session 22, third call: stock (one 8-position step in flight in decode attention, the
# GEMVs prefetching their whole first weight row into L2 before the dependency wait)
# against gemv-l2 (the first 4 KiB) and gemv-pre (registers), both with --pdl-bundles, and
# the decode attention variants mma-pipe, mma-t512, mma2 with --no-pdl against stock
# --no-pdl; the breakdown; PyTorch eager in the same call. Carries target/gpu-carry and
# target/attention-variants.
set -u
. "$(dirname "$0")/lib.sh" r20
run stock 2048
for v in gemv-l2 gemv-pre; do run $v 16 --pdl-bundles --bundle $V/$v; done
run stock-b 16
run gemv-l2-b 16 --pdl-bundles --bundle $V/gemv-l2
run nopdl 16 --no-pdl
for v in mma-pipe mma-t512 mma2; do run $v 16 --no-pdl --bundle $V/$v; done
run nopdl2 16 --no-pdl
run stock2 2048
el "engine"
timeout 60 $B/cacheon-engine-bench --prompt 2048 --context 2048 --batch 1 --batch 8 --breakdown --breakdown-reps 20 > $R/breakdown.txt 2>&1; el "breakdown rc $?"
grep -E "^(attention|qkv|o_proj|gate_up|down|lm_head|sum|batch-1 floor)" $R/breakdown.txt | cut -c1-150 | head -30
for v in mma-pipe mma-t512; do
  timeout 60 $B/cacheon-engine-bench --prompt 16 --context 2048 --batch 1 --batch 8 --breakdown --breakdown-reps 20 --no-pdl --bundle $V/$v > $R/bd-$v.txt 2>&1
  echo "$v: $(grep -E '^attention.decode' $R/bd-$v.txt | tr -s ' ' | cut -d' ' -f1,7,8 | tr '\n' '|')"
done
timeout 120 python3 kernels/bench/torch_eager.py --batch 1 --batch 8 > $R/torch.txt 2>&1; el "torch rc $?"; grep -o '"kind": "[a-z]*", "shape": "[^"]*", "batch": [0-9]*.*"ms[_a-z]*": [0-9.]*' $R/torch.txt
