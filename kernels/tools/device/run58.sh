#!/usr/bin/env bash
# Session 26, closing call for issue 16's H200 goals: the headline runs (prefill 2048, then
# batches 1 and 8 at context 2048) of v8 (target/gpu-bin) and v7 (target/gpu-bin-old), a
# second batch-1/8 run of each, and PyTorch eager, in one call. Carries target/gpu-carry.
set -u
. "$(dirname "$0")/lib.sh" r58
B=target/gpu-bin-old run stock-old 2048
grep -E "^(copy bandwidth|batch-1 floor)" "$R/stock-old.txt"
run new-1 16
B=target/gpu-bin-old run old-1 16
headline
el done
