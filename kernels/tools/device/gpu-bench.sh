#!/usr/bin/env bash
# The benches on whatever card comes, every figure as JSON under $OUT/bench/: the card and
# its driver (gpu.txt), the GPU tests, the stock kernels (kernels.jsonl, cacheon-cuda-bench),
# the engine's full run twice (prefill 2048, batches 1 and 8 at context 2048, copy
# bandwidth and floor: engine-1.jsonl, engine-2.jsonl) and PyTorch eager in the same call
# (torch.jsonl). With target/gpu-bin-old carried too (pack.sh COMMIT), that build runs
# interleaved with this one (old-N.jsonl, new-N.jsonl) and compare-N.txt puts each pair
# side by side (cacheon-cuda-engine-bench --compare). BREAKDOWN=1 adds the batch-1 breakdown and
# the arena profile's breakdowns. Carries target/gpu-carry (pack.sh).
#   run: bash kernels/tools/device/gpu-bench.sh          carry target/gpu-carry
set -u
. "$(dirname "$0")/lib.sh" bench
{
timeout 300 $B/cacheon-cuda-bench --json-out "$R/kernels.jsonl" > "$R/kernels.txt" 2>&1; el "cacheon-cuda-bench rc $?"
if [ -d target/gpu-bin-old ]; then
  for i in 1 2; do
    B=target/gpu-bin-old run old-$i 2048
    run new-$i 2048
    $B/cacheon-cuda-engine-bench --compare "$R/old-$i.jsonl" "$R/new-$i.jsonl" > "$R/compare-$i.txt"
  done
  grep -E "^(copy|decode|prefill |floor)" "$R/compare-1.txt"
else
  run engine-1 2048
  run engine-2 2048
fi
grep -h -E "^(copy bandwidth|batch-1 floor)" "$R"/*-1.txt | head -4
torch
if [ "${BREAKDOWN:-0}" = 1 ]; then
  breakdown b1-breakdown
  arena_profile
fi
el done
} 2>&1 | tee "$R/summary.txt"
