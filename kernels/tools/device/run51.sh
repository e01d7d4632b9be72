#!/usr/bin/env bash
# Session 25, first call: the committed set on whichever card comes (the GPU tests; batches
# 1 and 8 at context 2048 with a 16-token prompt) beside the batch-1 q|k|v experiments:
# --qkv-stock (the stock streaming GEMV plus one RoPE + cache-row kernel) and --qkv-split 2
# or 4 (the fused GEMV with rows in slices of k; a resident grid, or one block a step), and
# the stock decode attention as a bundle beside attn-pf (its K/V share sent to L2 before
# the dependency wait; both with --pdl-bundles); the headline run with PyTorch eager; three
# batch-1 breakdowns. Carries target/gpu-carry and target/attention-variants. Ran with the
# binaries of commit a7b4069 (the flags --qkv-stock and --qkv-split were removed after it:
# the first became the default, the second was dropped).
set -u
. "$(dirname "$0")/lib.sh" r51
b() { echo "--bundle $V/$1 --pdl-bundles"; }
for i in 1 2; do
  run stock-$i 16
  run qkvstock-$i 16 --qkv-stock
  run s4-$i 16 --qkv-split 4
  run apf-$i 16 $(b attn-pf)
done
run astock 16 $(b attn-stock)
run s2 16 --qkv-split 2
run s4dyn 16 --qkv-split 4 --qkv-split-grid 3072
headline
breakdown breakdown
breakdown breakdown-s4 --qkv-split 4
breakdown breakdown-apf $(b attn-pf)
el done
