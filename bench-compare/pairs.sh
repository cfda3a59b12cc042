#!/usr/bin/env bash
# The change verdict over every pair of runs (issue 9): how often unchanged code is flagged and a
# slowdown caught, whichever run became the baseline.
#
#   bash bench-compare/pairs.sh                      # RUNS=21, SLOWDOWN=0.10
#   RUNS=11 SLOWDOWN=0.05 bash bench-compare/pairs.sh
#
# One release build of verdict-suite/ (three workloads whose work grows by PERFBENCH_SLOWDOWN)
# and of the perfbench tool; then RUNS rounds of two runs, one after another: the unchanged code
# and the code made SLOWDOWN slower. Finally `perfbench compare` judges, per benchmark, every
# ordered pair of unchanged runs (each flag a false alarm: RUNS x (RUNS - 1) pairs) and every
# unchanged run against every slowed run (RUNS x RUNS pairs). verdict.sh asks the same against
# one saved baseline, so its figures depend on where that one run landed; here every run takes
# its turn as the baseline. FLAGS go to every run. Reports land in $PAIRS_WORK (default
# /tmp/perfbench-pairs); the table is printed and kept in $PAIRS_WORK/summary.md.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
runs=${RUNS:-21}
slowdown=${SLOWDOWN:-0.10}
flags=${FLAGS:-}
work=${PAIRS_WORK:-/tmp/perfbench-pairs}
rm -rf "$work/runs" "$work/times.txt"
mkdir -p "$work/runs"
export CARGO_TARGET_DIR="$work/target" CARGO_TERM_COLOR=never NO_COLOR=1

log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }

log "build (release): verdict-suite and the perfbench tool"
(cd "$here/verdict-suite" && cargo bench --no-run --quiet)
(cd "$here/.." && cargo build --release --quiet -p perfbench-cli --bin perfbench)
bin=$(ls -t "$CARGO_TARGET_DIR"/release/deps/verdict-* | grep -v '\.d$' | head -n 1)
tool="$CARGO_TARGET_DIR/release/perfbench"

start=$(date +%s)
for r in $(seq 1 "$runs"); do
    log "round $r of $runs"
    for s in 0 "$slowdown"; do
        t0=$(date +%s.%N)
        # shellcheck disable=SC2086
        PERFBENCH_SLOWDOWN=$s "$bin" --bench $flags --discard-baseline --format terse \
            --json "$work/runs/$s-$r.json" >/dev/null 2>&1 || log "run $s $r failed"
        awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }' >>"$work/times.txt"
    done
done
log "runs done in $(( $(date +%s) - start )) s; comparing every pair"

python3 - "$work" "$runs" "$slowdown" "$tool" "$flags" <<'PY' | tee "$work/summary.md"
import json, statistics, subprocess, sys
work, runs, slowdown, tool, flags = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
benches = ["verdict/compute", "verdict/memory", "verdict/sort"]

def verdicts(base, new):
    out = subprocess.run([tool, "compare", base, new, "--format", "json"], capture_output=True, text=True)
    if out.returncode != 0:
        return None
    found = {}
    for suite in json.loads(out.stdout)["suites"]:
        for b in suite["benchmarks"]:
            for c in b["counters"]:
                if c["name"] == "wall-time" and c.get("change"):
                    found[b["id"]] = c["change"]["verdict"]
    return found

def path(s, r):
    return f"{work}/runs/{s}-{r}.json"

same = {b: [0, 0] for b in benches}
caught = {b: [0, 0] for b in benches}
for i in range(1, runs + 1):
    for j in range(1, runs + 1):
        pairs = [(path(0, i), path(slowdown, j), caught, "regressed")]
        if i != j:
            pairs.append((path(0, i), path(0, j), same, None))
        for base, new, tally, want in pairs:
            v = verdicts(base, new)
            for b in benches:
                if v is not None and b in v:
                    tally[b][1] += 1
                    tally[b][0] += v[b] != "unchanged" if want is None else v[b] == want
times = [float(t) for t in open(f"{work}/times.txt")]
print(f"# Every pair of runs ({runs} runs each; flags: `{flags or '(none)'}`; "
      f"median run time {statistics.median(times):.1f} s)\n")
print(f"| benchmark | false alarms (unchanged pairs flagged) | {float(slowdown) * 100:.0f}% slower caught (pairs) |")
print("| --- | ---: | ---: |")
for b in benches:
    f, n = same[b]
    c, m = caught[b]
    print(f"| {b} | {f}/{n} ({100 * f / max(n, 1):.1f}%) | {c}/{m} ({100 * c / max(m, 1):.1f}%) |")
PY
