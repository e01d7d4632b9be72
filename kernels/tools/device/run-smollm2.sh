#!/usr/bin/env bash
# Session 19: the real SmolLM2 GGUF on the GPU. The file travels in two halves (the carry
# cap is 64 MiB): target/model-a/part came with the previous call on this warm machine
# and was moved to target/model-keep; this call brings the second half and the cuda_engine
# test binary (kernels/tests/cuda_engine.rs at the session's worktree).
set -u
M=target/model-keep; mkdir -p $M
[ -f target/model-a/part ] && mv target/model-a/part $M/part-a
ls -la $M target/model-b
cat $M/part-a target/model-b/part > $M/SmolLM2-135M-Instruct.Q4_1.gguf
sha256sum $M/SmolLM2-135M-Instruct.Q4_1.gguf
export CACHEON_SMOLLM2_GGUF=$PWD/$M/SmolLM2-135M-Instruct.Q4_1.gguf
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 400 target/model-b/cuda_engine --nocapture --test-threads 1 2>&1 | grep -vE "^\s*$" | tail -40
