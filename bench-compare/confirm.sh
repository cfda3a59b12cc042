#!/usr/bin/env bash
# What confirming a regression in fresh processes does to the verdict on this machine: the runs
# of bench-compare/verdict.sh, each made twice in a row against the same saved baseline, once by
# default (a regressed benchmark measured again in fresh processes of both builds, judged over
# all of them) and once with --no-confirm.
#
#   bash bench-compare/confirm.sh                      # RUNS=20, SLOWDOWNS="0 0.10"
#   RUNS=40 SLOWDOWNS=0 BASE_RUNS=3 bash bench-compare/confirm.sh
#
# One release build of verdict-suite/, a baseline of the unchanged code saved BASE_RUNS times
# (default 1), then for each slowdown RUNS pairs of runs, the order within a pair alternating,
# each run against the baseline as saved (a confirming run adds to it: restored before each).
# Counted per benchmark and variant: runs whose wall-time was judged regressed, runs with any
# counter flagged either way (at slowdown 0 every flag is a false alarm), and runs that measured
# the benchmark again. FLAGS go to every run. Results land in $CONFIRM_WORK (default
# /tmp/perfbench-confirm); the table is printed and kept in $CONFIRM_WORK/summary.md.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
runs=${RUNS:-20}
slowdowns=${SLOWDOWNS:-"0 0.10"}
flags=${FLAGS:-}
base_runs=${BASE_RUNS:-1}
work=${CONFIRM_WORK:-/tmp/perfbench-confirm}
rm -rf "$work/runs" "$work/target/perfbench" "$work/ref-saved"
mkdir -p "$work/runs"
export CARGO_TARGET_DIR="$work/target" CARGO_TERM_COLOR=never NO_COLOR=1

log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }

log "build (release)"
(cd "$here/verdict-suite" && cargo bench --no-run --quiet)
bin=$(ls -t "$CARGO_TARGET_DIR"/release/deps/verdict-* | grep -v '\.d$' | head -n 1)

for r in $(seq 1 "$base_runs"); do
    log "baseline: unchanged code, saved as \`ref\` (run $r of $base_runs)"
    # shellcheck disable=SC2086
    PERFBENCH_SLOWDOWN=0 "$bin" --bench $flags --save-baseline ref --discard-baseline --format terse >/dev/null
done

# A run that confirms a regression adds the baseline build's fresh processes to the baseline;
# each run starts from the baseline as saved, as a CI job restores it from its cache.
saved="$CARGO_TARGET_DIR/perfbench/baselines/ref"
cp -r "$saved" "$work/ref-saved"
one() {
    rm -rf "$saved" && cp -r "$work/ref-saved" "$saved"
    # shellcheck disable=SC2086
    PERFBENCH_SLOWDOWN=$1 "$bin" --bench $flags $3 --baseline ref --discard-baseline \
        --format json --json "$work/runs/$2.json" >/dev/null || true
}

for s in $slowdowns; do
    for r in $(seq 1 "$runs"); do
        log "slowdown $s, pair $r of $runs"
        if [ $((r % 2)) -eq 1 ]; then
            one "$s" "confirm-$s-$r" ""
            one "$s" "plain-$s-$r" "--no-confirm"
        else
            one "$s" "plain-$s-$r" "--no-confirm"
            one "$s" "confirm-$s-$r" ""
        fi
    done
done

python3 - "$work" "$runs" "$slowdowns" "$base_runs" <<'PY' | tee "$work/summary.md"
import json, sys
work, runs, slowdowns, base_runs = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4]
benches = ["verdict/compute", "verdict/memory", "verdict/sort"]
print(f"# Confirming changes: {runs} pairs of runs per slowdown against a baseline of {base_runs} run(s)\n")
print("Each cell: wall-time regressed / any counter flagged / measured again, of the runs read.\n")
print("| slowdown | variant | " + " | ".join(benches) + " |")
print("| ---: | --- | " + " | ".join("---:" for _ in benches) + " |")
for s in slowdowns:
    for variant, label in (("confirm", "default (confirmed)"), ("plain", "`--no-confirm`")):
        cells = []
        for b in benches:
            regressed = flagged = again = n = 0
            for r in range(1, runs + 1):
                try:
                    doc = json.load(open(f"{work}/runs/{variant}-{s}-{r}.json"))
                except (OSError, ValueError):
                    continue
                bench = next((x for x in doc["benchmarks"] if x["id"] == b), None)
                if bench is None:
                    continue
                n += 1
                verdicts = {k: (c.get("change") or {}).get("verdict") for k, c in bench["counters"].items()}
                regressed += verdicts.get("wall-time") == "regressed"
                flagged += any(v in ("regressed", "improved") for v in verdicts.values())
                again += any(b in e.get("benchmarks", {}) for e in doc.get("earlier_runs", []))
            cells.append(f"{regressed} / {flagged} / {again} of {n}")
        print(f"| {float(s) * 100:.0f}% | {label} | " + " | ".join(cells) + " |")
PY
