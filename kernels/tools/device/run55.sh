#!/usr/bin/env bash
# Session 26: decode attention streaming its cache rows through three shared-memory stages
# a warp (cp.async; the stock kernel in target/gpu-bin) against session 25's set (one step
# in flight in registers; target/gpu-bin-old, built from e8e6c4e), interleaved, batches 1
# and 8 at context 2048, then the headline run of the new set with PyTorch eager. The GPU
# tests (cuda_stock, cuda_engine) run the new kernel. Carries target/gpu-carry (both
# binary sets and target/attn-old.cu).
set -u
. "$(dirname "$0")/lib.sh" r55
regs kernels/stock/cuda/attention_decode/kernels/attention_decode.cu target/attn-old.cu
for i in 1 2; do
  run new-$i 16
  B=target/gpu-bin-old run old-$i 16
done
run new-3 16
breakdown breakdown-new
headline
B=target/gpu-bin-old breakdown breakdown-old
el done
