#!/usr/bin/env bash
# Runs `cacheon verify --device cuda` on every CUDA example and stock CUDA bundle on a GPU
# machine that has no cargo. Build the binary here first:
#   mkdir -p target/gpu-cli && objcopy --strip-debug "$CARGO_TARGET_DIR/debug/cacheon" target/gpu-cli/cacheon
#   then copy the repository with target/gpu-cli to the GPU machine and run bash offchain/tools/gpu-verify.sh there.
# Writes one JSON report per bundle and summary.txt under $OUT (default: ./gpu-verify-out).
set -u
cd "$(dirname "$0")/../.."
B=${CACHEON_BIN:-target/gpu-cli/cacheon}
OUT=${OUT:-gpu-verify-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee "$OUT/gpu.txt"
for d in examples/cuda/*/ kernels/stock/cuda/*/; do
  n=$(echo "$d" | tr '/' '_')
  start=$(date +%s.%N)
  "$B" --json verify --device cuda --seed 11 "$d" > "$OUT/$n.json" 2> "$OUT/$n.err"
  rc=$?
  end=$(date +%s.%N)
  python3 - "$OUT/$n.json" "$d" "$rc" "$start" "$end" <<'PY'
import json, sys
path, d, rc, start, end = sys.argv[1:]
try:
    v = json.load(open(path))
except Exception as e:
    v = {"verdict": f"unreadable ({e})"}
detail = (v.get("detail") or "").replace("\n", " ")[:150]
print(f"{d} rc={rc} {v.get('verdict')} {v.get('stage') or ''} {v.get('reason') or ''} "
      f"cases={len(v.get('cases', []))} {float(end) - float(start):.1f}s seccomp={v.get('lane_seccomp')} "
      f"netns={v.get('lane_network_namespace')} {detail}")
PY
done | tee "$OUT/summary.txt"
