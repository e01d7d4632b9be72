#!/usr/bin/env bash
# Session 22: the tensor-core attention.decode path and programmatic dependent launch (PDL).
# Correctness first (cuda_stock: every stock kernel against the reference on the GPU;
# cuda_engine: graph = eager bitwise, tokens = the CPU engine's), then the engine with PDL
# on and off, the decode variants of kernels/tools/attention-variants.sh (bundles launch
# without PDL, so they are timed against --no-pdl stock), and PyTorch eager, in one call.
# Carries target/gpu-carry and target/attention-variants (the variants as of commit e7be10d).
set -u
. "$(dirname "$0")/lib.sh" r18
run stock 2048
run nopdl 2048 --no-pdl
run stock2 2048
run nopdl2 2048 --no-pdl
el "engine"
for v in decode-simt mma1 mma4 mma-z1 mma-z4; do run $v 16 --no-pdl --bundle $V/$v; done
el "variants"
timeout 60 $B/cacheon-engine-bench --prompt 2048 --context 2048 --batch 1 --batch 8 --breakdown --breakdown-reps 20 > $R/breakdown.txt 2>&1; el "breakdown rc $?"
grep -E "attention.decode|gate_up|lm_head|sum|graph" $R/breakdown.txt | head -20
timeout 120 python3 kernels/bench/torch_eager.py --batch 1 --batch 8 > $R/torch.txt 2>&1; el "torch rc $?"; tail -6 $R/torch.txt
