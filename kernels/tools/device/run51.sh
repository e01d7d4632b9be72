#!/usr/bin/env bash
# Session 25, first call: the committed set on whichever card comes (the GPU tests; batches
# 1 and 8 at context 2048 with a 16-token prompt, twice each) beside --qkv-stock (the
# batch-1 q|k|v step as the stock streaming GEMV plus one RoPE + cache-row kernel), and the
# stock decode attention as a bundle beside attn-pf (its K/V share sent to L2 before the
# dependency wait; both with --pdl-bundles); three batch-1 breakdowns; the headline run
# with PyTorch eager. Carries target/gpu-carry and target/attention-variants.
set -u
. "$(dirname "$0")/lib.sh" r51
b() { echo "--bundle $V/$1 --pdl-bundles"; }
for i in 1 2; do
  run stock-$i 16
  run qkvstock-$i 16 --qkv-stock
  run astock-$i 16 $(b attn-stock)
  run apf-$i 16 $(b attn-pf)
done
breakdown breakdown
breakdown breakdown-qkvstock --qkv-stock
breakdown breakdown-apf $(b attn-pf)
headline
el done
