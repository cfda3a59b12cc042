#!/usr/bin/env bash
# How often a paired run's verdict is right on this machine (issue 10, evidence 1).
#
#   bench-compare/paired.sh                      # RUNS=20, SLOWDOWNS="0 0.01 0.02 0.05 0.25"
#   RUNS=5 SLOWDOWNS="0 0.02" FLAGS="--null-control" bench-compare/paired.sh
#
# paired-suite/ (three workloads whose work grows by PAIRED_SLOWDOWN, read at *build* time) is
# built at slowdown 0 (the base build) and once per slowdown; slowdown 0 is the same code built
# again (bit for bit the base build), and the others differ from it only in the knob's bytes.
# Every copy is named `paired`, so the ids are `paired/...`. For each slowdown, RUNS paired
# runs `perfbench ab BASE NEW` one after another, as CI would run them. Counted per benchmark:
# runs whose wall-time was judged regressed, and runs with any counter flagged either way (at
# slowdown 0 every flag is a false alarm); and the wall time of each run. FLAGS go to every run.
# Results land in $PAIRED_WORK (default /tmp/perfbench-paired); the table is printed and kept in
# $PAIRED_WORK/summary.md.
#
# tango-bench beside it (issue 10, evidence 2): with TANGO_VARIANTS set (items NAME:FLAGS
# separated by `;`, e.g. "default:;1s:-t 1"), bench-compare/tango.sh builds the same workloads
# and slowdowns for tango-bench 0.9 (tango-suite/), and each perfbench run is followed by one
# tango run per variant on the same pair of builds (`NEW compare BASE`), so both harnesses see
# the same minutes of the machine. Their tables follow perfbench's in summary.md.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
runs=${RUNS:-20}
slowdowns=${SLOWDOWNS:-"0 0.01 0.02 0.05 0.25"}
flags=${FLAGS:-}
work=${PAIRED_WORK:-/tmp/perfbench-paired}
rm -rf "$work/runs" "$work/bin"
mkdir -p "$work/runs" "$work/bin"
export CARGO_TERM_COLOR=never NO_COLOR=1

log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }

log "build the perfbench tool (release)"
(cd "$here/.." && CARGO_TARGET_DIR="$work/tool-target" cargo build --release --quiet -p perfbench-cli --bin perfbench)
tool="$work/tool-target/release/perfbench"

# build NAME [SLOWDOWN]: the suite's bench executable, copied to $work/bin/NAME/paired.
build() {
    local name=$1
    mkdir -p "$work/bin/$name"
    log "build $name${2:+ (PAIRED_SLOWDOWN=$2)}"
    (
        cd "$here/paired-suite"
        if [ $# -ge 2 ]; then export PAIRED_SLOWDOWN=$2; else unset PAIRED_SLOWDOWN; fi
        CARGO_TARGET_DIR="$work/target" cargo bench --no-run --quiet --message-format=json
    ) | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and "bench" in m["target"]["kind"]:
        print(m["executable"])' | tail -n 1 | xargs -I{} cp {} "$work/bin/$name/paired"
}

# The knob with a fixed width, so the builds differ in those bytes only: slowdown 0 is the base
# build again, bit for bit.
tango_variants=${TANGO_VARIANTS:-}
if [ -n "$tango_variants" ]; then
    bash "$here/tango.sh" build "$work/tango" "$slowdowns"
    IFS=';' read -ra variants <<<"$tango_variants"
    for v in "${variants[@]}"; do
        [ -n "$v" ] && rm -rf "${work:?}/tango/${v%%:*}"
    done
fi

build base "$(printf '%.6f' 0)"
for s in $slowdowns; do
    build "new-$s" "$(printf '%.6f' "$s")"
done
if cmp -s "$work/bin/base/paired" "$work/bin/new-0/paired" 2>/dev/null; then
    log "the slowdown-0 build is identical to the base build"
fi

for s in $slowdowns; do
    for r in $(seq 1 "$runs"); do
        log "slowdown $s, run $r of $runs"
        start=$(date +%s.%N)
        # shellcheck disable=SC2086
        "$tool" ab "$work/bin/base/paired" "$work/bin/new-$s/paired" $flags --format json \
            --json "$work/runs/$s-$r.json" >/dev/null 2>"$work/runs/$s-$r.err" || true
        end=$(date +%s.%N)
        echo "$start $end" >"$work/runs/$s-$r.time"
        IFS=';' read -ra variants <<<"$tango_variants"
        for v in "${variants[@]}"; do
            [ -n "$v" ] || continue
            mkdir -p "$work/tango/${v%%:*}/runs"
            FLAGS="${v#*:}" bash "$here/tango.sh" one "$work/tango/bin/base/paired" \
                "$work/tango/bin/new-$s/paired" "$work/tango/${v%%:*}/runs/$s-$r.out" || true
        done
    done
done

python3 - "$work" "$runs" "$slowdowns" "$flags" <<'PY' | tee "$work/summary.md"
import json, sys, statistics
work, runs, slowdowns, flags = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4]
benches = ["paired/compute", "paired/memory", "paired/sort"]
print(f"# Paired runs: `perfbench ab BASE NEW` ({runs} runs per slowdown; flags: `{flags or '(none)'}`)\n")
print("| slowdown | " + " | ".join(f"{b}: wall-time regressed / any flag" for b in benches)
      + " | median wall-time ratio (all) | run time, median (s) |")
print("| ---: | " + " | ".join("---:" for _ in benches) + " | ---: | ---: |")
for s in slowdowns:
    reg = {b: 0 for b in benches}
    flag = {b: 0 for b in benches}
    ratios, times, missing = [], [], 0
    for r in range(1, runs + 1):
        start, end = map(float, open(f"{work}/runs/{s}-{r}.time").read().split())
        times.append(end - start)
        try:
            report = json.load(open(f"{work}/runs/{s}-{r}.json"))
        except (OSError, ValueError):
            missing += 1
            continue
        for b in report["benchmarks"]:
            if b["id"] not in reg:
                continue
            counters = b.get("counters", {})
            wall = (counters.get("wall-time") or {}).get("change") or {}
            if wall.get("verdict") == "regressed":
                reg[b["id"]] += 1
            if wall.get("ratio"):
                ratios.append(wall["ratio"])
            if any(((c.get("change") or {}).get("verdict") or "unchanged") != "unchanged"
                   for c in counters.values()):
                flag[b["id"]] += 1
    cells = [f"{reg[b]}/{flag[b]}" for b in benches]
    med = f"{statistics.median(ratios):.4f}" if ratios else "n/a"
    extra = f" ({missing} runs without a report)" if missing else ""
    print(f"| {float(s) * 100:g}% | " + " | ".join(cells)
          + f" | {med} | {statistics.median(times):.1f}{extra} |")
print()
print("Cells: runs (of the runs per slowdown) whose wall-time was judged regressed / runs with any "
      "counter flagged either way. At 0% every flag is a false alarm.")
PY

IFS=';' read -ra variants <<<"$tango_variants"
for v in "${variants[@]}"; do
    [ -n "$v" ] || continue
    {
        echo
        echo "## tango-bench, variant \`${v%%:*}\` (flags: \`${v#*:}\`)"
        echo
        FLAGS="${v#*:}" bash "$here/tango.sh" summarize "$work/tango/${v%%:*}" "$runs" "$slowdowns"
    } | tee -a "$work/summary.md"
done
