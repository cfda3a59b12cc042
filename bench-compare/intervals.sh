#!/usr/bin/env bash
# Issue 17: does a run's interval claim more certainty than repeated runs show? RUNS plain runs
# (default 10) of one release build of verdict-suite/ (computation, memory scan, sort), one
# after another, each keeping its figures in the suite's run history as a user's runs do; then,
# per benchmark, the wall-time figure of every run, their median, and how many runs' intervals
# hold that median: of all runs, and of the runs from the third on (from which perfbench widens
# the interval by the spread of the build's earlier runs, `target/perfbench/history`).
#
#   bash bench-compare/intervals.sh          # RUNS=10
#   RUNS=6 bash bench-compare/intervals.sh
#   FLAGS="--precision 2" bash bench-compare/intervals.sh   # FLAGS go to every run
#
# Reports land in $INTERVALS_WORK (default /tmp/perfbench-intervals)/runs; the table is printed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
runs=${RUNS:-10}
flags=${FLAGS:-}
work=${INTERVALS_WORK:-/tmp/perfbench-intervals}
rm -rf "$work/runs"
mkdir -p "$work/runs"
export CARGO_TARGET_DIR="$work/target" CARGO_TERM_COLOR=never NO_COLOR=1

(cd "$here/verdict-suite" && cargo bench --no-run --quiet)
bin=$(ls -t "$CARGO_TARGET_DIR"/release/deps/verdict-* | grep -v '\.d$' | head -n 1)
# The history of an earlier invocation would count as earlier runs: start without it.
rm -rf "$CARGO_TARGET_DIR/perfbench/history"
for r in $(seq 1 "$runs"); do
    printf '[%s] run %s of %s\n' "$(date +%T)" "$r" "$runs" >&2
    # shellcheck disable=SC2086
    PERFBENCH_SLOWDOWN=0 "$bin" --bench $flags --format terse --json "$work/runs/$r.json" >/dev/null 2>&1
done

python3 - "$work/runs" "$runs" <<'PY'
import json, statistics as st, sys
d, runs = sys.argv[1], int(sys.argv[2])
rows = {}
for r in range(1, runs + 1):
    for b in json.load(open(f"{d}/{r}.json"))["benchmarks"]:
        e = b["counters"]["wall-time"]["estimate"]
        rows.setdefault(b["id"], []).append((e["point"], e["ci_low"], e["ci_high"]))
print("| benchmark | runs (wall time per iteration) | median | MAD / median | intervals holding the median | of runs 3 on | interval half-width from run 3 (median) |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for bid, iv in rows.items():
    xs = [p for p, _, _ in iv]
    m = st.median(xs)
    mad = st.median([abs(x - m) for x in xs])
    held = sum(lo <= m <= hi for _, lo, hi in iv)
    later = sum(lo <= m <= hi for _, lo, hi in iv[2:])
    width = st.median([(hi - lo) / 2 / p for p, lo, hi in iv[2:]]) if len(iv) > 2 else float("nan")
    print(f"| {bid} | {', '.join(f'{x:.4g}' for x in xs)} | {m:.4g} | {100 * mad / m:.1f}% | {held} of {len(iv)} | {later} of {len(iv[2:])} | +-{100 * width:.1f}% |")
PY
