#!/usr/bin/env bash
# Diagnostic variants of the stock CUDA attention.decode kernel, as bundles for
# `cacheon-engine-bench --bundle DIR`, written under target/attention-variants/ (ignored by
# git; copy it to the GPU machine with target/gpu-bin). Each changes one thing, to split the kernel's 13.5 µs
# per layer (batch 1, 2,049 cached positions, docs/kernels-bench-h200.md) into its parts:
# Decode (session 22: the tensor-core path for head_dim 64 and 128):
#   decode-simt  the stock kernel of commit aa76376 (CUDA-core dot products, four shuffle
#                levels a score; the path head dims other than 64 and 128 still take)
#   mma2         two 8-position steps in flight per warp on the tensor-core path (stock: 1;
#                session 22's first stock kernel)
#   mma-z1, mma-z4 (one z; session 19's z4) set a grid y of 8: they are in this file's
#                history (commit a11775b); the stock grid y now follows the cluster
#   mma-t512     16 warps a block (512 threads, one block an SM): half the positions a warp
#   mma-noloop   no cache reads (prologue, merges and launch only; wrong results)
#   mma-empty    writes the output and returns (the cluster grid's launch; wrong results)
# Session 23's mma-c16 (16-block clusters, z 1 at batch 1) is the stock kernel's batch-1
# launch since session 24; mma-c16z2 is in this file's history (commit a11775b).
# Session 24 (the stock kernel's cluster became the manifest's, 16 at batch 1):
#   decode-c8    the stock kernel of commit a11775b (compile-time 8-block clusters, z 2 at
#                batch 1): the A/B against the launch-time clusters
#   c8-code      today's kernel with compile-time __cluster_dims__(1, 8, 1) and a11775b's
#                grid (no launch-time cluster): the code's share of a difference
#   c8-launch    today's kernel with a11775b's grid and a launch-time cluster of 8: the
#                launch attribute's share
#   early-attn, early-norm, early-silu  the stock attention.decode, norm.fused_add_rmsnorm
#                and activation.silu_and_mul kernels letting the next grid launch before
#                they wait for theirs (griddepcontrol.launch_dependents first), so the next
#                GEMV's blocks start prefetching while the grid before drains
# linear.matmul (session 22):
#   gemv-row     the stock GEMV of commit 3e39b36: the warp's whole first weight row to L2
#                before the dependency wait (stock: its first 2 KiB)
#   gemv-pre     the stock GEMV of commit aa4749c: the first step loaded into registers
#                before the wait
#   gemv-4k, gemv-1k, gemv-0  the first 4 KiB, 1 KiB, nothing (time the GEMV variants with
#                --pdl-bundles: launched as stock is)
#   gemv-mb3, gemv-mb4  __launch_bounds__ asking for 3 or 4 blocks a SM (session 23: ptxas
#                gives the stock GEMV 96 registers, 2 blocks a SM)
# A bundle that is not stock launches without programmatic dependent launch: time these
# against stock with --no-pdl.
# Prefill (attention.prefill, session 20):
#   prefill-old  the stock flash kernel of commit 543dc00 (one shared-memory stage, scalar
#                V gathers, the mask on every tile)
#   prefill-mb2  the stock kernel at two blocks an SM (no register cap below 255)
#   prefill-br128 128 query rows a block (8 warps of 16 rows, one block an SM): each K/V
#                tile fetched once for twice the rows
# Timing only: the wrong-result variants must never be installed anywhere else.
# Session 19's SIMT diagnostics (u8, noloop, empty, z4, mb3, ...) are in this file's history
# (commit aa76376) and their results in docs/kernels-bench-h200.md.
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
mk mma2 's/#define MMA_STEPS 1 /#define MMA_STEPS 2 /' ''
mk mma-t512 's/^#define NTHREADS 256 /#define NTHREADS 512 /' 's/^block = .*/block = [512, 1, 1]/; s/^shared_mem_bytes = .*/shared_mem_bytes = "272 * (head_dim + 2)"/'
mk mma-noloop 's/const int64_t s1 = min(len, s0 + chunk);/const int64_t s1 = s0;/g' ''
mk mma-empty 's/if (D > 256) {/if (D > 0) {/' ''

mkdir -p "$out/decode-c8/kernels"
git show a11775b:kernels/stock/cuda/attention_decode/manifest.toml |
  sed 's/^name = .*/name = "variant-decode-c8"/' > "$out/decode-c8/manifest.toml"
git show a11775b:kernels/stock/cuda/attention_decode/kernels/attention_decode.cu \
  > "$out/decode-c8/kernels/attention_decode.cu"
old_grid=$(git show a11775b:kernels/stock/cuda/attention_decode/manifest.toml | grep '^grid = ')
mk c8-code 's/^extern "C" __global__ void __launch_bounds__/extern "C" __global__ void __cluster_dims__(1, 8, 1) __launch_bounds__/' \
  "s|^grid = .*|$old_grid|; /^cluster = /d"
mk c8-launch '' "s|^grid = .*|$old_grid|; s|^cluster = .*|cluster = [1, 8, 1]|"
early() { # name, stock folder, source file: the launch_dependents before the wait
  cp -r "kernels/stock/cuda/$2" "$out/$1"
  perl -0pi -e 's/GRID_DEPENDENCY_WAIT\(\);\n(\s*)GRID_LAUNCH_DEPENDENTS\(\);/GRID_LAUNCH_DEPENDENTS();\n$1GRID_DEPENDENCY_WAIT();/' "$out/$1/kernels/$3"
  sed -i "s/^name = .*/name = \"variant-$1\"/" "$out/$1/manifest.toml"
  if diff -q "kernels/stock/cuda/$2/kernels/$3" "$out/$1/kernels/$3" >/dev/null; then
    echo "variant $1 is the stock kernel" >&2
    exit 1
  fi
}
early early-attn attention_decode attention_decode.cu
early early-norm fused_add_rmsnorm fused_add_rmsnorm.cu
early early-silu silu_and_mul silu_and_mul.cu
mkdir -p "$out/decode-simt/kernels"
git show aa76376:kernels/stock/cuda/attention_decode/manifest.toml |
  sed 's/^name = .*/name = "variant-decode-simt"/' > "$out/decode-simt/manifest.toml"
git show aa76376:kernels/stock/cuda/attention_decode/kernels/attention_decode.cu \
  > "$out/decode-simt/kernels/attention_decode.cu"
mkdir -p "$out/gemv-row/kernels"
git show 3e39b36:kernels/stock/cuda/linear_matmul/manifest.toml |
  sed 's/^name = .*/name = "variant-gemv-row"/' > "$out/gemv-row/manifest.toml"
git show 3e39b36:kernels/stock/cuda/linear_matmul/kernels/linear_matmul.cu \
  > "$out/gemv-row/kernels/linear_matmul.cu"
lsrc=kernels/stock/cuda/linear_matmul
for v in gemv-4k gemv-1k gemv-0 gemv-mb3 gemv-mb4; do
  cp -r "$lsrc" "$out/$v"
  sed -i "s/^name = .*/name = \"variant-$v\"/" "$out/$v/manifest.toml"
done
sed -i 's/^#define MIN_BLOCKS 1$/#define MIN_BLOCKS 3/' "$out/gemv-mb3/kernels/linear_matmul.cu"
sed -i 's/^#define MIN_BLOCKS 1$/#define MIN_BLOCKS 4/' "$out/gemv-mb4/kernels/linear_matmul.cu"
sed -i 's/^#define PREFETCH_ROW_BYTES 2048$/#define PREFETCH_ROW_BYTES 4096/' "$out/gemv-4k/kernels/linear_matmul.cu"
sed -i 's/^#define PREFETCH_ROW_BYTES 2048$/#define PREFETCH_ROW_BYTES 1024/' "$out/gemv-1k/kernels/linear_matmul.cu"
sed -i 's/^#define PREFETCH_ROW_BYTES 2048$/#define PREFETCH_ROW_BYTES 0/' "$out/gemv-0/kernels/linear_matmul.cu"
for v in gemv-4k gemv-1k gemv-0 gemv-mb3 gemv-mb4; do
  if diff -q "$lsrc/kernels/linear_matmul.cu" "$out/$v/kernels/linear_matmul.cu" >/dev/null; then
    echo "variant $v is the stock kernel" >&2
    exit 1
  fi
done
mkdir -p "$out/gemv-pre/kernels"
git show aa4749c:kernels/stock/cuda/linear_matmul/manifest.toml |
  sed 's/^name = .*/name = "variant-gemv-pre"/' > "$out/gemv-pre/manifest.toml"
git show aa4749c:kernels/stock/cuda/linear_matmul/kernels/linear_matmul.cu \
  > "$out/gemv-pre/kernels/linear_matmul.cu"
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
# Every decode variant must differ from the stock bundle (early-* check themselves).
for v in "$out"/[!pge]*; do
  if diff -q "$src/kernels/attention_decode.cu" "$v/kernels/attention_decode.cu" >/dev/null &&
     [ "$(grep '^grid' "$src/manifest.toml")" = "$(grep '^grid' "$v/manifest.toml")" ]; then
    echo "variant $(basename "$v") is the stock kernel: its sed script no longer matches" >&2
    exit 1
  fi
done
ls "$out"
