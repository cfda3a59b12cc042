#!/usr/bin/env bash
# The stopping rule's trade-off on the verdict suite (issue 35): for several `--precision`
# targets, what the verdict and the intervals give at each. `stopping.sh` gives the same curve's
# run time and headline spread on the peer suite, beside divan.
#
#   bench-compare/curve.sh                      # TARGETS="0 0.5 1 2 5", RUNS=20, INTERVAL_RUNS=10
#   TARGETS="1 2" SLOWDOWNS="0 0.10" bench-compare/curve.sh
#
# For each target in turn (`--precision 0` is the fixed plan), `verdict.sh` with that target
# given to the save and to every run (RUNS runs per slowdown in SLOWDOWNS, default "0 0.05 0.10",
# against one baseline saved at the same target), then `intervals.sh` (INTERVAL_RUNS plain runs,
# default 10, with that target). Per target: the median run time of the verdict suite (three
# benchmarks, unchanged code, compared with the baseline: confirmations included), the false
# alarms (runs of unchanged code with a benchmark's wall time judged regressed, and with any
# counter flagged either way), each slowdown's catches (wall time judged regressed, per
# benchmark), and how many intervals from the third run hold the median of the runs. The
# targets run one after another, not alternating: each needs its own saved baseline. Everything
# lands in $CURVE_WORK (default /tmp/perfbench-curve): verdict-<target>/ and intervals-<target>/
# keep the runs; the table is printed and kept in $CURVE_WORK/summary.md.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
targets=${TARGETS:-"0 0.5 1 2 5"}
runs=${RUNS:-20}
slowdowns=${SLOWDOWNS:-"0 0.05 0.10"}
interval_runs=${INTERVAL_RUNS:-10}
work=${CURVE_WORK:-/tmp/perfbench-curve}
mkdir -p "$work"

log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }

for p in $targets; do
    log "target $p: verdict"
    VERDICT_WORK="$work/verdict" RUNS=$runs SLOWDOWNS=$slowdowns FLAGS="--precision $p" \
        bash "$here/verdict.sh" >/dev/null
    rm -rf "$work/verdict-$p" && mkdir -p "$work/verdict-$p"
    cp -r "$work/verdict/runs" "$work/verdict/summary.md" "$work/verdict-$p/"
    log "target $p: intervals"
    INTERVALS_WORK="$work/intervals" RUNS=$interval_runs FLAGS="--precision $p" \
        bash "$here/intervals.sh" >"$work/intervals.md"
    rm -rf "$work/intervals-$p" && mkdir -p "$work/intervals-$p"
    cp -r "$work/intervals/runs" "$work/intervals.md" "$work/intervals-$p/"
done

python3 - "$work" "$runs" "$slowdowns" "$targets" "$interval_runs" <<'PY' | tee "$work/summary.md"
import json, statistics as st, sys
work, runs, slowdowns, targets, iruns = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split(), int(sys.argv[5])
benches = ["verdict/compute", "verdict/memory", "verdict/sort"]

def load(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None

def verdicts(doc, b):
    bench = next((x for x in (doc or {}).get("benchmarks", []) if x["id"] == b), None)
    if bench is None:
        return None
    return {k: (c.get("change") or {}).get("verdict") for k, c in bench["counters"].items()}

print(f"# The verdict and the intervals at each stopping target ({runs} runs per slowdown, {iruns} plain runs for the intervals)\n")
print("Cells per benchmark (computation / memory scan / sort). False alarms: runs of unchanged code whose wall time was judged regressed · with any counter flagged. Caught: runs whose wall time was judged regressed. Intervals: runs from the third whose interval holds the median of the runs.\n")
head = ["target", "run time, unchanged (median)"] + ["false alarms" if float(s) == 0 else f"{float(s) * 100:.0f}% caught" for s in slowdowns] + ["intervals holding the median"]
print("| " + " | ".join(head) + " |")
print("| " + " | ".join(["---"] * len(head)) + " |")
for p in targets:
    d = f"{work}/verdict-{p}/runs"
    row = ["fixed plan (`--precision 0`)" if float(p) == 0 else f"`--precision {p}`"]
    times = []
    for r in range(1, runs + 1):
        try:
            times.append(float(open(f"{d}/0-{r}.time").read()))
        except (OSError, ValueError):
            pass
    row.append(f"{st.median(times):.1f} s" if times else "-")
    for s in slowdowns:
        regressed, flagged = [], []
        for b in benches:
            vs = [verdicts(load(f"{d}/{s}-{r}.json"), b) for r in range(1, runs + 1)]
            vs = [v for v in vs if v is not None]
            regressed.append(sum(v.get("wall-time") == "regressed" for v in vs))
            flagged.append(sum(any(x in ("regressed", "improved") for x in v.values()) for v in vs))
        cell = " / ".join(map(str, regressed))
        if float(s) == 0:
            cell += " · " + " / ".join(map(str, flagged))
        row.append(cell + f" of {runs}")
    held = []
    for b in benches:
        iv = []
        for r in range(1, iruns + 1):
            doc = load(f"{work}/intervals-{p}/runs/{r}.json")
            bench = next((x for x in (doc or {}).get("benchmarks", []) if x["id"] == b), None)
            if bench is not None:
                e = bench["counters"]["wall-time"]["estimate"]
                iv.append((e["point"], e["ci_low"], e["ci_high"]))
        if iv:
            m = st.median([x for x, _, _ in iv])
            held.append(f"{sum(lo <= m <= hi for _, lo, hi in iv[2:])}")
    row.append(" / ".join(held) + f" of {max(iruns - 2, 0)}")
    print("| " + " | ".join(row) + " |")
PY
