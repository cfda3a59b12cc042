#!/usr/bin/env bash
# Issue 17, item 6: a routine shorter than the bracket, measured with iter_batched by criterion
# 0.8 (BatchSize::SmallInput) and by perfbench (BatchSize::Auto, and PerIteration beside it),
# RUNS alternating runs of each in one session (default 10). Prints each run's figure and, per
# harness, the median and the median absolute deviation (MAD) of the figures across runs, and
# how many runs' intervals hold the median of all (all runs, and from the third run on, when
# perfbench's intervals include the spread of the build's earlier runs).
#
#   bench-compare/batched.sh            # RUNS=10
#   RUNS=4 bench-compare/batched.sh
#
# criterion's figure is its headline estimate (the slope of its linear sampling, the mean where
# there is none) from $CARGO_TARGET_DIR/criterion/push_one/new/estimates.json; perfbench's is wall-time's
# estimate.point from its JSON report. Wall clock drifts on the shared VM: compare the spreads,
# which were taken side by side.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
runs=${RUNS:-10}
base=${BC_WORK:-/tmp/bench-compare-batched}
export CARGO_TARGET_DIR=$base/target   # kept between runs of the script: builds are incremental
work=$base/results
rm -rf "$work"
mkdir -p "$work"
(cd "$here/batched-suite" && cargo bench --no-run -q 2>/dev/null)
crit=$(find "$CARGO_TARGET_DIR/release/deps" -maxdepth 1 -type f -executable -name 'criterion_tiny-*' | head -1)
pb=$(find "$CARGO_TARGET_DIR/release/deps" -maxdepth 1 -type f -executable -name 'perfbench_tiny-*' | head -1)
# perfbench widens a build's intervals by the spread of its earlier runs from the third run on
# (target/perfbench/history): start without the runs of an earlier invocation of this script.
rm -rf "$CARGO_TARGET_DIR/perfbench/history"
for i in $(seq 1 "$runs"); do
  (cd "$work" && "$crit" --bench push_one >/dev/null 2>&1)
  python3 - "$CARGO_TARGET_DIR/criterion/push_one/new/estimates.json" >>"$work/criterion.txt" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
h = e.get("slope") or e["mean"]
print(h["point_estimate"], h["confidence_interval"]["lower_bound"], h["confidence_interval"]["upper_bound"])
PY
  (cd "$work" && "$pb" --bench --format terse --json "$work/pb$i.json" >/dev/null 2>&1)
  python3 - "$work/pb$i.json" >>"$work/perfbench.txt" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for b in r["benchmarks"]:
    e = b["counters"]["wall-time"]["estimate"]
    print(b["name"], e["point"], e["ci_low"], e["ci_high"])
PY
done
python3 - "$work" <<'PY'
import statistics as st, sys
w = sys.argv[1]
crit_iv = [tuple(map(float, l.split())) for l in open(f"{w}/criterion.txt")]
crit = [p for p, _, _ in crit_iv]
pb = {}
for l in open(f"{w}/perfbench.txt"):
    name, p, lo, hi = l.split()
    pb.setdefault(name, []).append((float(p), float(lo), float(hi)))
def mad(xs):
    m = st.median(xs)
    return st.median([abs(x - m) for x in xs])
rows = [("criterion 0.8, BatchSize::SmallInput", crit, crit_iv)]
for name, label in [("push_one", "perfbench, BatchSize::Auto"), ("push_one_per_iteration", "perfbench, BatchSize::PerIteration")]:
    v = pb.get(name, [])
    rows.append((label, [p for p, _, _ in v], v))
print(f"| harness | runs (ns) | median | MAD | MAD / median | runs whose interval holds the median of all | of runs 3 on |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for label, xs, iv in rows:
    m = st.median(xs)
    held = f"{sum(lo <= m <= hi for _, lo, hi in iv)} of {len(iv)}"
    later = f"{sum(lo <= m <= hi for _, lo, hi in iv[2:])} of {len(iv[2:])}"
    print(f"| {label} | {', '.join(f'{x:.2f}' for x in xs)} | {m:.2f} | {mad(xs):.3f} | {100 * mad(xs) / m:.1f}% | {held} | {later} |")
PY
