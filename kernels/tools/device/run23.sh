#!/usr/bin/env bash
# Session 22, a later call: how much of its first weight row the stock GEMV should send to
# L2 before the dependency wait (measured as stock 4 KiB against gemv-2k, gemv-1k, gemv-0;
# with stock at 2 KiB since, the variants are gemv-4k, gemv-1k, gemv-0), each twice,
# interleaved, all launched with programmatic dependent launch (--pdl-bundles), beside the
# stock set's prefill and decode and PyTorch eager. Carries target/gpu-carry and
# target/attention-variants.
set -u
. "$(dirname "$0")/lib.sh" r23
run stock 2048
timeout 120 python3 kernels/bench/torch_eager.py --batch 1 --batch 8 > $R/torch.txt 2>&1; el "torch rc $?"; grep -o '"kind": "[a-z]*", "shape": "[^"]*", "batch": [0-9]*.*"ms[_a-z]*": [0-9.]*' $R/torch.txt
for i in 1 2; do
  run stock-$i 16
  for v in gemv-4k gemv-1k gemv-0; do run $v-$i 16 --pdl-bundles --bundle $V/$v; done
done
run stock2 2048
grep -E "^(copy bandwidth|batch-1 floor)" $R/stock2.txt
el done
