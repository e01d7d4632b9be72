#!/usr/bin/env bash
# Session 24, twelfth call (an uncommitted build: the engine bench's --define passes NVRTC
# defines to the engine kernels): the fused q|k|v GEMV with 8 loads of w a step
# (QKV_UNR=8) and/or x read inline in the dot product instead of into registers
# (DOT_X_INLINE=1), registers of each; batches 1 and 8 at context 2048 (16-token prompt),
# twice; the headline with PyTorch eager. Carries target/gpu-carry.
set -u
. "$(dirname "$0")/lib.sh" r49
for d in "" "-DDOT_X_INLINE=1" "-DQKV_UNR=8 -DDOT_X_INLINE=1" "-DQKV_UNR=8"; do
  echo "[$d] $(timeout 60 nvcc -cubin -arch=sm_90a -std=c++17 $d -Xptxas -v -o /dev/null \
    kernels/src/cuda/engine/engine_kernels.cu 2>&1 | grep -A1 "eng_gemv_qkv_rope" | grep -oE "[0-9]+ bytes spill stores|Used [0-9]+ registers" | tr '\n' ' ')"
done
for i in 1 2; do
  run stock-$i 16
  run xin-$i 16 --define DOT_X_INLINE=1
  run u8xin-$i 16 --define QKV_UNR=8 --define DOT_X_INLINE=1
  run u8-$i 16 --define QKV_UNR=8
done
headline
el done
