#!/usr/bin/env bash
# Diagnostic variants of the stock CUDA attention.decode kernel, as bundles for
# `cacheon-cuda-engine-bench --bundle DIR`, written under target/attention-variants/ (ignored by
# git; copy it to the GPU machine with target/gpu-bin). Each changes one thing, to split the kernel's 13.5 µs
# per layer (batch 1, 2,049 cached positions, docs/performance.md) into its parts:
# Decode, the tensor-core path for head_dim 64 and 128:
#   decode-simt  the stock kernel of commit aa76376 (CUDA-core dot products, four shuffle
#                levels a score; the path head dims other than 64 and 128 still take)
#   mma2         two 8-position steps in flight per warp on the tensor-core path (stock: 1;
#                the first tensor-core stock kernel)
#   mma-z1       one z (all of a KV head's query heads in one block: each K/V row read once)
#   mma-z4       z of 4 (more blocks at batch 1, K/V rows re-read from L2)
#   mma-t512     16 warps a block (512 threads, one block an SM): half the positions a warp
#   mma-noloop   no cache reads (prologue, merges and launch only; wrong results)
#   mma-empty    writes the output and returns (the cluster grid's launch; wrong results)
# Clusters of 16 (non-portable: half the positions a block and a warp):
#   mma-c16      16-block clusters, z 1 at batch 1 (128 blocks, 4 heads a block)
#   mma-c16z2    16-block clusters, the stock z (2 at batch 1: 256 blocks)
# Early launch of the next grid (the launch-time cluster variants are in this file's
# history, commit 70c2387; docs/performance.md has their rows):
#   early-attn, early-norm, early-silu  the stock attention.decode, norm.fused_add_rmsnorm
#                and activation.silu_and_mul kernels letting the next grid launch before
#                they wait for theirs (griddepcontrol.launch_dependents first), so the next
#                GEMV's blocks start prefetching while the grid before drains
# linear.matmul, what the GEMV does before its dependency wait:
#   gemv-row     the stock GEMV of commit 3e39b36: the warp's whole first weight row to L2
#                before the dependency wait (stock: its first 2 KiB)
#   gemv-pre     the stock GEMV of commit aa4749c: the first step loaded into registers
#                before the wait
#   gemv-4k, gemv-1k, gemv-0  the first 4 KiB, 1 KiB, nothing (time the GEMV variants with
#                --pdl-bundles: launched as stock is)
#   gemv-mb3, gemv-mb4  __launch_bounds__ asking for 3 or 4 blocks a SM (ptxas gave
#                the GEMV of that time 96 registers, 2 blocks a SM)
# linear.matmul, a warp's rows as one pipelined stream of 8-load steps:
#   gemv-prev    the stock GEMV of commit 8f0a810 (a round trip per row end)
#   gemv-narrow  the stock GEMV of commit c0b668a (only the narrow products streamed)
#   gemv-stock   the stock GEMV itself as a bundle: installed like the others, so the
#                q|k|v row also goes to it (the engine's fused q|k|v GEMV steps aside for
#                any installed linear.matmul kernel) and the A/B changes only the GEMV
#   gemv-pipe4   streamed with 4 loads a step (8 in flight; stock: 8 and 16)
#   gemv-wave    the narrow products in one wave (264 blocks: 2 an SM of 132, 124
#                registers), so each warp streams about two rows instead of a second wave
# A bundle that is not stock launches without programmatic dependent launch: time these
# against stock with --no-pdl.
# Prefill (attention.prefill):
#   prefill-old  the stock flash kernel of commit 543dc00 (one shared-memory stage, scalar
#                V gathers, the mask on every tile)
#   prefill-mb2  the stock kernel at two blocks an SM (no register cap below 255)
#   prefill-br128 128 query rows a block (8 warps of 16 rows, one block an SM): each K/V
#                tile fetched once for twice the rows
# Timing only: the wrong-result variants must never be installed anywhere else.
# The SIMT diagnostics (u8, noloop, empty, z4, mb3, ...) are in this file's history (commit
# aa76376) and their results in docs/performance.md.
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
mk mma2 's/#define MMA_STEPS 1 /#define MMA_STEPS 2 /' ''
mk mma-z1 '' "$z1"
mk mma-t512 's/^#define NTHREADS 256 /#define NTHREADS 512 /' 's/^block = .*/block = [512, 1, 1]/; s/^shared_mem_bytes = .*/shared_mem_bytes = "272 * (head_dim + 2)"/'
mk mma-noloop 's/const int64_t s1 = min(len, s0 + chunk);/const int64_t s1 = s0;/g' ''
mk mma-empty 's/if (D > 256) {/if (D > 0) {/' ''

mk mma-z4 '' "$z4"
c16='s/^#define NSPLIT 8$/#define NSPLIT 16/'
mk mma-c16 "$c16" 's|^grid = \["batch \* kv_heads", 8, \(.*\)ceil_div(16, |grid = ["batch * kv_heads", 16, \1ceil_div(8, |'
mk mma-c16z2 "$c16" 's|^grid = \["batch \* kv_heads", 8, |grid = ["batch * kv_heads", 16, |'
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
# The stock decode attention as a bundle (the baseline of the next one) and
#   attn-pf      before its dependency wait, a block sends its share of the cached K and V
#                rows (all but the newest) to L2 (kernels/tools/variants/attn-prefetch.cu)
cp -r "$src" "$out/attn-stock"
sed -i 's/^name = .*/name = "variant-attn-stock"/' "$out/attn-stock/manifest.toml"
cp -r "$src" "$out/attn-pf"
sed -i 's/^name = .*/name = "variant-attn-pf"/' "$out/attn-pf/manifest.toml"
perl -0pi -e 'BEGIN { local $/; open my $f, "<", "kernels/tools/variants/attn-prefetch.cu" or die; $pf = <$f>; }
  s/(\n)(    GRID_DEPENDENCY_WAIT\(\);\n    GRID_LAUNCH_DEPENDENTS\(\);\n    extern __shared__)/$1$pf$2/' \
  "$out/attn-pf/kernels/attention_decode.cu"
grep -q "variant attn-pf" "$out/attn-pf/kernels/attention_decode.cu" || { echo "attn-pf: insertion failed" >&2; exit 1; }
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
for c in gemv-prev:8f0a810 gemv-narrow:c0b668a; do
  v=${c%%:*}
  mkdir -p "$out/$v/kernels"
  git show "${c#*:}:kernels/stock/cuda/linear_matmul/manifest.toml" |
    sed "s/^name = .*/name = \"variant-$v\"/" > "$out/$v/manifest.toml"
  git show "${c#*:}:kernels/stock/cuda/linear_matmul/kernels/linear_matmul.cu" \
    > "$out/$v/kernels/linear_matmul.cu"
done
for v in gemv-stock gemv-pipe4 gemv-wave; do
  cp -r "$lsrc" "$out/$v"
  sed -i "s/^name = .*/name = \"variant-$v\"/" "$out/$v/manifest.toml"
done
sed -i 's/^#define STREAM_UNR 8$/#define STREAM_UNR 4/' "$out/gemv-pipe4/kernels/linear_matmul.cu"
sed -i 's|^grid = .*|grid = ["min(ceil_div(out_features, 8), 264 + 792 * min(1, out_features / 16384))", 1, 1]|' \
  "$out/gemv-wave/manifest.toml"
if diff -q "$lsrc/kernels/linear_matmul.cu" "$out/gemv-pipe4/kernels/linear_matmul.cu" >/dev/null; then
  echo "variant gemv-pipe4 is the stock kernel" >&2
  exit 1
fi
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
  [ "$(basename "$v")" = attn-stock ] && continue
  if diff -q "$src/kernels/attention_decode.cu" "$v/kernels/attention_decode.cu" >/dev/null &&
     [ "$(grep '^grid' "$src/manifest.toml")" = "$(grep '^grid' "$v/manifest.toml")" ]; then
    echo "variant $(basename "$v") is the stock kernel: its sed script no longer matches" >&2
    exit 1
  fi
done
ls "$out"
