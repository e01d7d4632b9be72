#!/usr/bin/env bash
# Diagnostic variants of the stock CUDA attention.decode kernel, as bundles for
# `cacheon-engine-bench --bundle DIR`, written under target/attention-variants/ (ignored by
# git; carry it with target/gpu-bin). Each changes one thing:
#   ring8, ring16   positions a lane has in flight through shared memory (stock: 12;
#                   RING x 8 KiB of shared memory a block: 64 KiB / 128 KiB)
#   ring16u8        16 in flight, taken 8 at a time (2 chunks instead of 4)
#   ring12u2        12 in flight, taken 2 at a time (6 chunks)
#   noloop          no cache reads at all (prologue, merges and launch only; wrong results)
#   empty           writes the output and returns (launch of the cluster grid only; wrong results)
# Timing only: the wrong-result variants must never be installed anywhere else.
# Earlier variants of the register-loading kernel (positions in flight, z, lanes per row)
# and what they measured: docs/kernels-bench-h200.md, sessions 5-6.
set -euo pipefail
cd "$(dirname "$0")/../.."
src=kernels/stock/cuda/attention_decode
out=target/attention-variants
rm -rf "$out"
mkdir -p "$out"
mk() { # name, sed script for the source, sed script for the manifest
  cp -r "$src" "$out/$1"
  sed -i "$2" "$out/$1/kernels/attention_decode.cu"
  sed -i "$3" "$out/$1/manifest.toml"
  sed -i "s/^name = .*/name = \"variant-$1\"/" "$out/$1/manifest.toml"
}
ring() { echo "s|^shared_mem_bytes = .*|shared_mem_bytes = \"max($1 * 8192, 144 * (head_dim + 2))\"|"; }
mk ring8 's/#define RING 12 /#define RING 8 /' "$(ring 8)"
mk ring16 's/#define RING 12 /#define RING 16 /' "$(ring 16)"
mk ring16u8 's/#define RING 12 /#define RING 16 /; s/#define UNROLL_SMALL 4 /#define UNROLL_SMALL 8 /' "$(ring 16)"
mk ring12u2 's/#define UNROLL_SMALL 4 /#define UNROLL_SMALL 2 /' ''
mk noloop 's/const int64_t s1 = min(len, s0 + chunk);/const int64_t s1 = s0;/' ''
mk empty 's/if (D > 256) {/if (D > 0) {/' ''
# Every variant must differ from the stock bundle.
for v in "$out"/*; do
  if diff -q "$src/kernels/attention_decode.cu" "$v/kernels/attention_decode.cu" >/dev/null; then
    echo "variant $(basename "$v") is the stock kernel: its sed script no longer matches" >&2
    exit 1
  fi
done
ls "$out"
