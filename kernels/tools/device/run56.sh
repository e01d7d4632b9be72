#!/usr/bin/env bash
# Session 26, second call: decode attention through three shared-memory stages a warp,
# now copied by whole rows (each sector fetched once; the first try, run55, copied a lane's
# own 16-byte slots and fetched each sector twice: 17.6 against 12.3 µs) and read back
# through an XOR swizzle, against session 25's set (target/gpu-bin-old), interleaved; then
# the same kernel as bundles with 2 and 4 stages and as itself (launched alike, with
# --pdl-bundles), the batch-1 breakdown, and the headline run with PyTorch eager.
set -u
. "$(dirname "$0")/lib.sh" r56
src=kernels/stock/cuda/attention_decode
variant() { # name, stages, shared-memory bytes per head_dim
  rm -rf "$V/$1"; mkdir -p "$V"; cp -r "$src" "$V/$1"
  sed -i "s/^#define STAGES [0-9]* /#define STAGES $2 /" "$V/$1/kernels/attention_decode.cu"
  sed -i "s/[0-9]* \* min(head_dim, 128)/$3 * min(head_dim, 128)/; s/^name = .*/name = \"variant-$1\"/" "$V/$1/manifest.toml"
  # A variant the seds missed would run the stock ring (or, short of shared memory, the
  # CUDA-core path) under the variant's name: stop instead.
  grep -q "^#define STAGES $2 " "$V/$1/kernels/attention_decode.cu" && grep -q "\"max(144 \* (head_dim + 2), $3 \* min" "$V/$1/manifest.toml" \
    || { echo "variant $1: substitution failed" >&2; exit 1; }
}
variant stg2 2 512; variant stg4 4 1024; variant stg3 3 768
regs $src/kernels/attention_decode.cu target/attn-old.cu $V/stg2/kernels/attention_decode.cu $V/stg4/kernels/attention_decode.cu
for i in 1 2; do
  run new-$i 16
  B=target/gpu-bin-old run old-$i 16
done
for v in stg2 stg4 stg3; do run b-$v 16 --bundle $V/$v --pdl-bundles; done
run new-3 16
breakdown breakdown-new
headline
el done
