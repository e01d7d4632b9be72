#!/usr/bin/env bash
# Runs the end-to-end suite (or the tests a nextest filter picks) N times, the way
# scripts/test.sh runs it, and prints each test's pass rate and the spread of its times.
#
#   scripts/flake-finder.sh [N] [NEXTEST_FILTER]
#   scripts/flake-finder.sh 5                                   # the whole e2e step, five times
#   scripts/flake-finder.sh 10 'test(/atomic|supersede/)'       # two tests, ten times
#
# Builds first (the binaries the tests run), then runs the rounds one after another; each
# round's nextest output is kept in $FLAKE_DIR (default target/flake-finder/<time>) so a
# failure can be read afterwards. Exit status: 0 when every test passed every round, 1 when
# any failed, 2 on a usage or build error.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds="${1:-5}"
case "$rounds" in ''|*[!0-9]*|0) echo "usage: $0 [N>0] [NEXTEST_FILTER]" >&2; exit 2 ;; esac
source scripts/test-lib.sh
filter="${2:-$E2E_FILTER}"

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/cacheon/target}"
export CARGO_TERM_COLOR=never
out="${FLAKE_DIR:-$CARGO_TARGET_DIR/flake-finder/$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$out"

build_all || exit 2
# Keep every test's output (its events) so the PASSes' speedups can be read below.
export NEXTEST_SUCCESS_OUTPUT=final
for r in $(seq 1 "$rounds"); do
  echo "==> round $r of $rounds ($(date -u +%H:%M:%S))"
  # `|| true`: a failing round is what this script is here to count.
  run_e2e "$filter" > "$out/round-$r.log" 2>&1 || true
  grep -E '^\s+(PASS|FAIL|SIGSEGV|SIGABRT|TIMEOUT|SIGKILL)\b' "$out/round-$r.log" | sed 's/^ *//' || true
done

# Lines like `PASS [  99.123s] (12/31) cacheon-e2e::atomic_target an_atomic_crown_…`
# (the counter only in newer nextest versions).
# nextest lists a failed test again in its summary: each test counts once a round.
awk '
  {
    line = $0; sub(/^ +/, "", line)
    if (line !~ /^(PASS|FAIL|SIGSEGV|SIGABRT|SIGKILL|TIMEOUT) \[ *[0-9.]+s\] /) next
    status = line; sub(/ .*/, "", status)
    t = line; sub(/^[A-Z]+ \[ */, "", t); sub(/s\].*/, "", t)
    name = line; sub(/^[^]]*\] +/, "", name); sub(/^\( *[0-9]+\/ *[0-9]+\) +/, "", name)
    if ((FILENAME, name) in seen) next
    seen[FILENAME, name] = 1
    runs[name]++; if (status == "PASS") ok[name]++
    t += 0
    if (!(name in lo) || t < lo[name]) lo[name] = t
    if (!(name in hi) || t > hi[name]) hi[name] = t
    sum[name] += t
  }
  END {
    for (k in runs)
      printf "%-90s %3d/%-3d %8.1f %8.1f %8.1f\n", k, ok[k], runs[k], lo[k], sum[k] / runs[k], hi[k]
  }' "$out"/round-*.log | sort > "$out/rows.txt"
{
  printf "%-90s %7s %8s %8s %8s\n" "test" "passed" "min s" "mean s" "max s"
  cat "$out/rows.txt"
} | tee "$out/table.txt"
# Flaky or failing: any row whose passes are not every round.
status=0
awk -v want="$rounds/$rounds" '$(NF-3) != want { bad = 1 } END { exit bad }' "$out/rows.txt" || status=1
[ -s "$out/rows.txt" ] || status=1

# The lowest speedup each test's validators attested (`speedup_ppm` of a primary PASS, and
# of a crown: the lower of its two PASSes; each the low end of a 95 % interval): how far
# the measured wins stay above the arena's margin.
awk '
  /^ +(PASS|FAIL|SIGSEGV|SIGABRT|SIGKILL|TIMEOUT|SLOW) \[/ {
    # A status line; with NEXTEST_SUCCESS_OUTPUT=final the test'"'"'s output follows it.
    test = $0; sub(/^[^]]*\] +/, "", test); sub(/^\( *[0-9]+\/ *[0-9]+\) +/, "", test); next
  }
  # Attestations the test sent itself (`crown_unmeasured`: digests of 17s and 34s) measured nothing.
  /\[17, 17, 17, 17, 17|\[34, 34, 34, 34, 34/ { next }
  /(PassRecorded|Crowned) \{/ && match($0, /speedup_ppm: [0-9]+/) {
    v = substr($0, RSTART + 13, RLENGTH - 13) + 0
    key = FILENAME SUBSEP test SUBSEP $0
    if (key in seen) next
    seen[key] = 1
    n[test]++; if (!(test in lo) || v < lo[test]) lo[test] = v
  }
  END { for (t in n) printf "%-90s %4d PASSes and crowns, lowest speedup_ppm %d\n", t, n[t], lo[t] }' "$out"/round-*.log \
  | sort | tee "$out/speedups.txt"
echo "logs and table: $out"
exit "$status"
