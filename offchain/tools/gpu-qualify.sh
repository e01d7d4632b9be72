#!/usr/bin/env bash
# Whole qualification attempts on the h200-llama8b arena, on a GPU machine that has no
# cargo. Build the binary here and copy it (as for gpu-verify.sh):
#   mkdir -p target/gpu-cli && objcopy --strip-debug "$CARGO_TARGET_DIR/release/cacheon" target/gpu-cli/cacheon
#   then copy the repository with target/gpu-cli to the GPU machine and run bash offchain/tools/gpu-qualify.sh there.
# Each attempt's JSON line, evidence report and wall time land under $OUT (default
# ./gpu-qualify-out); summary.txt has one line per attempt (its stage times included),
# stats.txt the runs' statistics (offchain/tools/qualify-stats.py).
set -u
cd "$(dirname "$0")/../.."
B=${CACHEON_BIN:-target/gpu-cli/cacheon}
OUT=${OUT:-gpu-qualify-out}
mkdir -p "$OUT/evidence"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit --format=csv | tee "$OUT/gpu.txt"
# bundle:seed pairs; default: the correct example twice, the stock attention kernel as its
# own candidate, the shape-gaming example.
ATTEMPTS=${ATTEMPTS:-"examples/cuda/silu-and-mul:1 examples/cuda/silu-and-mul:2 kernels/stock/cuda/attention_decode:3 examples/cuda/fail-window-gaming:4"}
# STACK: incumbent bundle folders installed over the stock kernels (space-separated), e.g.
# the referee's power check: STACK=examples/cuda/slow-rmsnorm with the stock rmsnorm as
# the candidate.
STACK_ARGS=()
for s in ${STACK:-}; do STACK_ARGS+=(--stack "$s"); done
# DEADLINE: seconds after which no further attempt starts (the runs fit a time limit).
DEADLINE=${DEADLINE:-}
T0=$(date +%s)
for a in $ATTEMPTS; do
  if [ -n "$DEADLINE" ] && [ $(( $(date +%s) - T0 )) -ge "$DEADLINE" ]; then
    echo "deadline: $a and the attempts after it not started" >&2
    break
  fi
  d=${a%%:*}; seed=${a##*:}
  n=$(echo "$d" | tr '/' '_')-$seed
  start=$(date +%s.%N)
  timeout 300 "$B" --json qualify --arena h200-llama8b --bundle "$d" --seed "$seed" "${STACK_ARGS[@]}" \
    --evidence-dir "$OUT/evidence" > "$OUT/$n.json" 2> "$OUT/$n.err"
  rc=$?
  end=$(date +%s.%N)
  python3 - "$OUT/$n.json" "$d" "$seed" "$rc" "$start" "$end" "$OUT/evidence" <<'PY'
import json, sys, os
path, d, seed, rc, start, end, evdir = sys.argv[1:]
try:
    v = json.loads([l for l in open(path) if l.startswith("{")][-1])
except Exception as e:
    v = {"verdict": f"unreadable ({e})"}
wall = float(end) - float(start)
line = (f"{d} seed={seed} rc={rc} {v.get('verdict')} {v.get('reason') or ''} "
        f"speedup_ppm={v.get('speedup_ppm')} pairs={v.get('pairs')} wall={wall:.1f}s "
        f"gpu_minutes={wall / 60:.2f}")
ev = os.path.join(evdir, f"{v.get('evidence_digest')}.json")
if os.path.exists(ev):
    r = json.load(open(ev))
    s = r.get("speed") or {}
    b, c = s.get("baseline_ms") or [], s.get("candidate_ms") or []
    iv = s.get("interval") or {}
    if iv:
        line += f" speedup={iv.get('speedup', 0):.5f} ({iv.get('low', 0):.5f}..{iv.get('high', 0):.5f})"
    if b:
        line += f" read_ms B={min(b):.2f}..{max(b):.2f} C={min(c):.2f}..{max(c):.2f} floor={s.get('floor_ms', 0):.2f} copy={s.get('copy_gb_per_s', 0):.0f}GB/s"
        line += f" base_first={s.get('base_started_first')} builds={s.get('lane_builds')}"
    if s.get("max_read_kl") is not None:
        line += f" max_read_kl={s['max_read_kl']:.3e}"
    if r.get("audit"):
        line += f" audit={r['audit']['calls']}/{r['audit']['failed_calls']}"
    if r.get("pristine"):
        p = r["pristine"]
        line += f" kl_b={p['kl_baseline']:.2e} kl_c={p['kl_candidate']:.2e}"
    # The stages (s): the screens (static steps, build, verify, graph, the screening
    # lane's exit) together, then each later stage.
    t = {e["stage"]: e["ms"] / 1e3 for e in r.get("stage_ms") or []}
    screens = sum(t.get(k, 0) for k in ("static_screens", "build", "verify", "graph", "screen_lane_exit"))
    parts = [f"screens={screens:.1f}"] + [f"{k}={t[k]:.1f}" for k in (
        "lane_start", "copy_bandwidth", "warm", "speed_reads", "read_judging", "audit", "pristine", "other") if k in t]
    line += " stages_s[" + " ".join(parts) + "]"
    line += f" machine={r.get('machine')!r}"
line += " " + (v.get("detail") or "").replace("\n", " ")[:200]
print(line)
PY
done | tee "$OUT/summary.txt"
python3 offchain/tools/qualify-stats.py "$OUT/evidence" | tee "$OUT/stats.txt"
