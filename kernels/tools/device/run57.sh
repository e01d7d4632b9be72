#!/usr/bin/env bash
# Session 26, third call: the stock set v8 (decode attention through two shared-memory
# stages a warp; target/gpu-bin) against session 25's v7 (target/gpu-bin-old), three runs
# each, interleaved, batches 1 and 8 at context 2048; the batch-1 breakdown of v8; then the
# headline run of each (prefill 2048, batches 1 and 8) and PyTorch eager in the same call.
set -u
. "$(dirname "$0")/lib.sh" r57
for i in 1 2 3; do
  run new-$i 16
  B=target/gpu-bin-old run old-$i 16
done
breakdown breakdown-new
B=target/gpu-bin-old run stock-old 2048
grep -E "^(copy bandwidth|batch-1 floor)" "$R/stock-old.txt"
headline
el done
