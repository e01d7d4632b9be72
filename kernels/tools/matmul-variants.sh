#!/usr/bin/env bash
# Variants of the stock CUDA linear.matmul kernel (the decode-row GEMV), as bundles for
# `cacheon-cuda-engine-bench --bundle DIR`, written under target/matmul-variants/ (ignored by
# git; copy it to the GPU machine with target/gpu-bin). Each sets the kernel's tuning
# macros before its defaults:
#   wide4     4 loads in flight per lane on the wide products (stock: 8)
#   narrow8   8 loads in flight on the narrow products, o and down (stock: 4)
#   narrow16  16 on the narrow products (a 4096-wide row in one go)
#   n8w16     8 on the narrow, 16 on the wide
#   minb4     __launch_bounds__(256, 4): at most 64 registers a thread
#   minb5     __launch_bounds__(256, 5)
# Measured 2026-12-05 on an H100 (batch-1 decode step, stock 1.7395-1.7402 ms in the same
# calls; docs/performance.md): narrow8 1.7269/1.7288, n8w16 1.7290, narrow16 1.7336,
# minb4 1.7374, wide4 1.7525, minb5 1.7924. All are correct (the macros change only how
# many loads are in flight), so any can also go to `cacheon qualify` as a proposal.
#
# Then, on the GPU machine, each against the stock kernel in the same call:
#   for v in stock wide4 narrow8 narrow16 n8w16 minb4 minb5 stock; do
#     b=(); [ "$v" = stock ] || b=(--bundle target/matmul-variants/$v)
#     target/gpu-bin/cacheon-cuda-engine-bench --batch 1 --replays 200 --prompt 16 "${b[@]}" | grep '^decode'
#   done
set -euo pipefail
cd "$(dirname "$0")/../.."
src=kernels/stock/cuda/linear_matmul
out=target/matmul-variants
rm -rf "$out"
mkdir -p "$out"
mk() { # name, macro lines
  cp -r "$src" "$out/$1"
  local f="$out/$1/kernels/linear_matmul.cu"
  # The narrow products' loads in flight become a macro too (stock: the literal 4).
  sed -i 's/gemv_row<4>(yr, xr, w,/gemv_row<NARROW_UNR>(yr, xr, w,/' "$f"
  grep -q 'gemv_row<NARROW_UNR>' "$f" || { echo "matmul-variants: the stock kernel changed; update this script" >&2; exit 1; }
  # The macros go first, then NARROW_UNR's default, before the kernel's own defaults.
  awk -v defs="$2" '!done && /^#define DEVI/ { printf "%s#ifndef NARROW_UNR\n#define NARROW_UNR 4\n#endif\n", defs; done = 1 } { print }' "$f" > "$f.new"
  mv "$f.new" "$f"
  sed -i "s/^name = .*/name = \"variant-$1\"/" "$out/$1/manifest.toml"
}
mk wide4 $'#define WIDE_UNR 4\n'
mk narrow8 $'#define NARROW_UNR 8\n'
mk narrow16 $'#define NARROW_UNR 16\n'
mk n8w16 $'#define NARROW_UNR 8\n#define WIDE_UNR 16\n'
mk minb4 $'#define MIN_BLOCKS 4\n'
mk minb5 $'#define MIN_BLOCKS 5\n'
ls "$out"
