#!/usr/bin/env python3
"""Statistics of a folder of qualification evidence reports (`cacheon qualify
--evidence-dir DIR`), grouped by candidate (content hash) and incumbent stack: attempts,
verdicts, the speedups' mean and spread, GPU (wall) seconds per attempt with the mean of
every stage (`stage_ms`), the largest judged-read KL, and the lane-order figures:

- `first-read effect`: pairs alternate B C, C B, ... (pair k, counted from 1, reads the
  baseline first when k is odd); half the difference between the mean ln(tB/tC) of odd and
  even pairs is how much faster a lane reads when it reads first in its pair (the lane
  that read last), averaged over the attempts;
- `by start order`: the mean speedup of the attempts whose baseline lane started first,
  and of the others;
- `first 6 pairs`: the mean of ln(tB/tC) over each attempt's first 6 pairs (every attempt
  reads at least that many), as a speedup: free of the stopping rule, which ends an attempt
  early where its reads happen to say NotFaster and so pulls the mean of the reported
  speedups down; with lanes restarted every few pairs, the same split by the start order
  of the lanes each pair was read on.

    python3 offchain/tools/qualify-stats.py gpu-qualify-out/evidence
"""
import json
import math
import os
import statistics
import sys
from collections import defaultdict


def load(folder):
    reports = []
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json"):
            with open(os.path.join(folder, name)) as f:
                reports.append(json.load(f))
    return reports


def mean_sd(xs):
    if not xs:
        return float("nan"), float("nan")
    return statistics.mean(xs), (statistics.stdev(xs) if len(xs) > 1 else 0.0)


def group_line(key, rs):
    speeds = [r for r in rs if (r.get("speed") or {}).get("interval")]
    sp = [r["speed"]["interval"]["speedup"] for r in speeds]
    m, sd = mean_sd(sp)
    verdicts = defaultdict(int)
    for r in rs:
        verdicts[f"{r['verdict']}{'/' + r['reason'] if r.get('reason') else ''}"] += 1
    walls = [r["wall_ms"] / 1e3 for r in rs]
    out = [f"{key}: {len(rs)} attempts, " + ", ".join(f"{v} {k}" for k, v in sorted(verdicts.items()))]
    if sp:
        se = sd / math.sqrt(len(sp))
        out.append(f"  speedup mean {m:.5f} (sd {sd:.5f}, standard error {se:.5f}), "
                   f"range {min(sp):.5f}..{max(sp):.5f}; pairs "
                   f"{min(r['speed']['interval']['pairs'] for r in speeds)}.."
                   f"{max(r['speed']['interval']['pairs'] for r in speeds)}")
    wm, wsd = mean_sd(walls)
    out.append(f"  GPU seconds per attempt: mean {wm:.1f} (sd {wsd:.1f}), {min(walls):.1f}..{max(walls):.1f}")
    stages = defaultdict(list)
    for r in rs:
        for e in r.get("stage_ms") or []:
            stages[e["stage"]].append(e["ms"] / 1e3)
    if stages:
        parts = [f"{k} {statistics.mean(v):.2f}" for k, v in stages.items()]
        out.append("  mean seconds by stage: " + ", ".join(parts))
    kls = [r["speed"].get("max_read_kl") for r in rs if r.get("speed") and r["speed"].get("max_read_kl") is not None]
    if kls:
        reads = [k for r in rs if r.get("speed") for k in r["speed"].get("read_kl") or []]
        out.append(f"  judged reads' largest KL: max {max(kls):.3e}, median of reads "
                   f"{statistics.median(reads) if reads else float('nan'):.3e} over {len(reads)} reads")
    effects, by_order = [], defaultdict(list)
    for r in speeds:
        s = r["speed"]
        logs = [math.log(b / c) for b, c in zip(s["baseline_ms"], s["candidate_ms"])]
        odd, even = logs[0::2], logs[1::2]
        if odd and even:
            # Odd pairs read B first: ln(tB/tC) there is the lane effect minus the first-read
            # effect; even pairs plus it.
            effects.append((statistics.mean(even) - statistics.mean(odd)) / 2)
        by_order[s.get("base_started_first")].append(r["speed"]["interval"]["speedup"])
    first, by_start = [], defaultdict(list)
    for r in speeds:
        s = r["speed"]
        logs = [math.log(b / c) for b, c in zip(s["baseline_ms"], s["candidate_ms"])][:6]
        if len(logs) == 6:
            first.append(statistics.mean(logs))
        # Pairs per lane start: the attempt restarted both lanes every `block` pairs.
        starts = s.get("lane_starts") or 1
        block = len(s["baseline_ms"]) // starts if starts > 1 else len(logs) or 1
        for i, x in enumerate(logs):
            base_first = s.get("base_started_first")
            if base_first is not None and (i // block) % 2 == 1:
                base_first = not base_first
            by_start[base_first].append(x)
    if first:
        fm, fsd = mean_sd(first)
        out.append(f"  first 6 pairs: speedup {math.exp(fm):.5f} (standard error "
                   f"{fsd / math.sqrt(len(first)):.5f}) over {len(first)} attempts; by the start "
                   "order of the pair's lanes: " + "; ".join(
                       f"baseline first={k}: {len(v)} pairs, {math.exp(statistics.mean(v)):.5f}"
                       for k, v in sorted(by_start.items(), key=lambda kv: str(kv[0]))))
    if effects:
        em, esd = mean_sd(effects)
        out.append(f"  first-read effect: mean {em * 100:+.3f} % (sd {esd * 100:.3f} %, "
                   f"standard error {esd / math.sqrt(len(effects)) * 100:.3f} %) over {len(effects)} attempts")
    if len(by_order) > 1 or None not in by_order:
        parts = [f"baseline first={k}: {len(v)} attempts, mean {statistics.mean(v):.5f}"
                 for k, v in sorted(by_order.items(), key=lambda kv: str(kv[0]))]
        out.append("  by start order: " + "; ".join(parts))
    return "\n".join(out)


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "gpu-qualify-out/evidence"
    groups = defaultdict(list)
    for r in load(folder):
        key = f"candidate {(r.get('content_hash') or '?')[:12]} on {r.get('arena')}"
        groups[key].append(r)
    for key, rs in groups.items():
        print(group_line(key, rs))


if __name__ == "__main__":
    main()
