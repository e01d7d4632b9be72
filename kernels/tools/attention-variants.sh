#!/usr/bin/env bash
# Diagnostic variants of the stock CUDA attention.decode kernel, as bundles for
# `cacheon-engine-bench --bundle DIR`, written under target/attention-variants/ (ignored by
# git; copy it to the GPU machine with target/gpu-bin). Each changes one thing, to split the kernel's 13.5 µs
# per layer (batch 1, 2,049 cached positions, docs/kernels-bench-h200.md) into its parts:
#   u8, u16  positions in flight per lane group in 1-2-head passes (stock: 4)
#   noloop   no cache reads at all (prologue, merges and launch only; wrong results)
#   empty    writes the output and returns (launch of the cluster grid only; wrong results)
#   z4       4 z at batch 1 (one query head per block, 256 blocks; stock: 2)
#   z4u16    z4 with 16 positions in flight
#   z1       1 z (all four heads of a KV head per block, 64 blocks)
#   tg8      8 lanes per cache row in 1-2-head passes (two 16-byte slots per lane, 2
#            positions in flight: 3 shuffle levels per score instead of 4; matches the
#            reference under the CPU emulation (cuda_emulated); measured 2026-12-03: step 1.360 ms
#            against the stock kernel's 1.355 ms in the same call)
# Batch 8 (2.13 waves of clusters at 2 blocks an SM, 59 µs a layer on an H100, 2026-12-05):
#   mb3, mb4 at least 3 or 4 blocks an SM (__launch_bounds__: fewer registers)
#   z2       2 z at every batch (two query heads per block pass: twice the blocks)
#   z2mb3    both
# Prefill (attention.prefill, session 20):
#   prefill-old  the stock flash kernel of commit 543dc00 (one shared-memory stage, scalar
#                V gathers, the mask on every tile)
#   prefill-mb2  the stock kernel at two blocks an SM (no register cap below 255)
#   prefill-br128 128 query rows a block (8 warps of 16 rows, one block an SM): each K/V
#                tile fetched once for twice the rows
# Timing only: the wrong-result variants must never be installed anywhere else.
# Measured 2026-12-03 (docs/kernels-bench-h200.md, "Tried and dropped"): empty 1.5 us, noloop 5.4 us, stock
# 12.9-13.4 us; none of the others is faster than the stock kernel.
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
z4='s|^grid = .*|grid = ["batch * kv_heads", 8, "max(ceil_div(q_heads / max(kv_heads, 1), 4), min(q_heads / max(kv_heads, 1), ceil_div(32, max(batch * kv_heads, 1))))"]|'
z1='s|^grid = .*|grid = ["batch * kv_heads", 8, "ceil_div(q_heads / max(kv_heads, 1), 4)"]|'
mk u8 's/#define UNROLL_SMALL 4/#define UNROLL_SMALL 8/' ''
mk u16 's/#define UNROLL_SMALL 4/#define UNROLL_SMALL 16/' ''
mk noloop 's/const int64_t s1 = min(len, s0 + chunk);/const int64_t s1 = s0;/' ''
mk empty 's/if (D > 256) {/if (D > 0) {/' ''
mk z4 '' "$z4"
mk z4u16 's/#define UNROLL_SMALL 4/#define UNROLL_SMALL 16/' "$z4"
mk z1 '' "$z1"
z2='s|^grid = .*|grid = ["batch * kv_heads", 8, "max(ceil_div(q_heads / max(kv_heads, 1), 2), min(q_heads / max(kv_heads, 1), ceil_div(16, max(batch * kv_heads, 1))))"]|'
mk mb3 's|__launch_bounds__(NTHREADS, 512 / NTHREADS)|__launch_bounds__(NTHREADS, 3)|' ''
mk mb4 's|__launch_bounds__(NTHREADS, 512 / NTHREADS)|__launch_bounds__(NTHREADS, 4)|' ''
mk z2 '' "$z2"
mk z2mb3 's|__launch_bounds__(NTHREADS, 512 / NTHREADS)|__launch_bounds__(NTHREADS, 3)|' "$z2"
mk tg8 's/while (tg < slots \&\& tg < 32)/while (tg * NV < slots \&\& tg < 32)/; s/attend_block<8, 1, UNROLL_SMALL, 1>/attend_block<8, 2, 2, 1>/; s/attend_block<8, 1, UNROLL_SMALL, 2>/attend_block<8, 2, 2, 2>/' ''
psrc=kernels/stock/cuda/attention_prefill
cp -r "$psrc" "$out/prefill-mb2"
sed -i 's/__launch_bounds__(NTHREADS, 3)/__launch_bounds__(NTHREADS, 2)/' "$out/prefill-mb2/kernels/attention_prefill.cu"
sed -i 's/^name = .*/name = "variant-prefill-mb2"/' "$out/prefill-mb2/manifest.toml"
cp -r "$psrc" "$out/prefill-br128"
sed -i 's/^#define NTHREADS 128 .*/#define NTHREADS 256/; s/^#define BR 64 .*/#define BR 128/; s/__launch_bounds__(NTHREADS, 3)/__launch_bounds__(NTHREADS, 1)/' \
  "$out/prefill-br128/kernels/attention_prefill.cu"
sed -i 's/^name = .*/name = "variant-prefill-br128"/; s/^block = .*/block = [256, 1, 1]/; s/ceil_div(tokens, 64)/ceil_div(tokens, 128)/' \
  "$out/prefill-br128/manifest.toml"
mkdir -p "$out/prefill-old/kernels"
git show 543dc00:kernels/stock/cuda/attention_prefill/manifest.toml |
  sed 's/^name = .*/name = "variant-prefill-old"/' > "$out/prefill-old/manifest.toml"
git show 543dc00:kernels/stock/cuda/attention_prefill/kernels/attention_prefill.cu \
  > "$out/prefill-old/kernels/attention_prefill.cu"
for v in prefill-mb2 prefill-br128 prefill-old; do
  if diff -q "$psrc/kernels/attention_prefill.cu" "$out/$v/kernels/attention_prefill.cu" >/dev/null; then
    echo "variant $v is the stock kernel" >&2
    exit 1
  fi
done
# Every variant must differ from the stock bundle.
for v in "$out"/[!p]*; do
  if diff -q "$src/kernels/attention_decode.cu" "$v/kernels/attention_decode.cu" >/dev/null &&
     [ "$(grep '^grid' "$src/manifest.toml")" = "$(grep '^grid' "$v/manifest.toml")" ]; then
    echo "variant $(basename "$v") is the stock kernel: its sed script no longer matches" >&2
    exit 1
  fi
done
ls "$out"
