#!/usr/bin/env bash
# Session 18, device call 4: the table in one call, beside PyTorch eager: prefill
# 1 x 2048, decode batch 1 and batch 8 at context 2048, stock and with the crowned
# examples/cuda/matmul-rows8-mma installed.
set -u
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
tar xJf target/gpu-carry/gpu.tar.xz
R=/tmp/r11; mkdir -p $R; B=target/gpu-bin
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader | tee $R/gpu.txt
timeout 90 $B/cacheon-engine-bench --batch 1 --batch 8 --replays 100 --json-out $R/stock.jsonl > $R/stock.txt 2>&1
el "stock rc $?"; grep -E "^(prefill|decode|floor)|copy bandwidth" $R/stock.txt | cut -c1-170
timeout 90 $B/cacheon-engine-bench --batch 1 --batch 8 --replays 100 --bundle examples/cuda/matmul-rows8-mma --json-out $R/ex.jsonl > $R/ex.txt 2>&1
el "with the example rc $?"; grep -E "^(prefill|decode)" $R/ex.txt | cut -c1-170
timeout 150 python3 kernels/bench/torch_eager.py --batch 1 --batch 8 --json-out $R/torch.jsonl > $R/torch.txt 2>&1
el "torch rc $?"; tail -6 $R/torch.txt | cut -c1-170
tar czf $OUT/r11.tgz -C /tmp r11
el done
