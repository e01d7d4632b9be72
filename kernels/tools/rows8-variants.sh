#!/usr/bin/env bash
# Variants of examples/cuda/matmul-rows8-mma (linear.matmul for 2-8 token rows) for
# `cacheon-cuda-engine-bench --batch 8 --bundle DIR`, written under target/rows8-variants/
# (ignored by git; carry it to the GPU machine beside target/gpu-bin). Each sets the
# kernel's compile-time knobs: WARPS a block (the block is 32 * WARPS threads), MINB
# blocks an SM (the register budget: 65536 / (32 * WARPS * MINB) a thread), UNR 32-input
# steps in flight per warp, and W_STREAM (weights loaded with the evict-first hint).
#   name  WARPS MINB UNR STREAM
set -euo pipefail
cd "$(dirname "$0")/../.."
src=examples/cuda/matmul-rows8-mma
out=target/rows8-variants
rm -rf "$out"
mkdir -p "$out"
while read -r name warps minb unr stream; do
  d="$out/$name"
  cp -r "$src" "$d"
  k="$d/kernels/matmul_rows8.cu"
  sed -i "s/^#define WARPS .*/#define WARPS $warps/; s/^#define MINB .*/#define MINB $minb/; s/^#define UNR .*/#define UNR $unr/" "$k"
  if [ "$stream" = 1 ]; then sed -i '0,/^#define DEVI/s//#define W_STREAM 1\n&/' "$k"; fi
  sed -i "s/^block = .*/block = [$((32 * warps)), 1, 1]/; s/^name = .*/name = \"rows8-$name\"/" "$d/manifest.toml"
done <<'LIST'
w8b2u4 8 2 4 0
w8b3u4 8 3 4 0
w16b2u3 16 2 3 0
w16b2u4 16 2 4 0
w32b1u3 32 1 3 0
w8b4u2 8 4 2 0
w16b2u3s 16 2 3 1
w8b3u4s 8 3 4 1
LIST
ls "$out"
