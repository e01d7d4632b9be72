#!/usr/bin/env bash
# Builds the binaries the GPU machine runs (it has no cargo): the benchmark and the CUDA
# test executables, in release mode, copied under target/gpu-bin/ at the repository root
# (ignored by git; copy it to the GPU machine with the repository). See docs/gpu.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/cacheon/target-kernels}"
out=target/gpu-bin
rm -rf "$out"
mkdir -p "$out"

cargo build -p cacheon-kernels --release --bin cacheon-cuda-bench --bin cacheon-cuda-engine-bench
cp "$CARGO_TARGET_DIR/release/cacheon-cuda-bench" "$CARGO_TARGET_DIR/release/cacheon-cuda-engine-bench" "$out/"

# Test executables: one JSON message per built artifact; keep the integration tests'
# (target kind "test"; the bench binary, also built, has kind "bin").
cargo test -p cacheon-kernels --release --no-run --message-format=json \
    --test cuda_stock --test cuda_nvrtc --test cuda_engine \
  | grep '"reason":"compiler-artifact"' \
  | grep '"kind":\["test"\]' \
  | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' \
  | while read -r exe; do
      name=$(basename "$exe")
      cp "$exe" "$out/${name%-*}"   # cuda_stock-0123abcd -> cuda_stock
    done

chmod +x "$out"/*

# The CPU engine's reference run for the cuda_engine test, in case the GPU machine has no
# C compiler for the stock CPU kernels (the test reads it from beside its executable).
CACHEON_CPU_REF_OUT="$out/tiny_cpu_ref.json" "$out/cuda_engine" --ignored write_cpu_reference \
  > /dev/null
ls -la "$out"
du -sh "$out"
