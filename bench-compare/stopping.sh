#!/usr/bin/env bash
# The stopping rule's trade-off on the peer suite (issue 35): for several `--precision` targets,
# the suite's run time and the run-to-run spread of each benchmark's headline, side by side
# with divan 0.1 in one session.
#
#   bench-compare/stopping.sh                                  # RUNS=10
#   RUNS=10 VARIANTS="fixed:--precision 0;p1:--precision 1" bench-compare/stopping.sh
#
# One release build of perfbench-suite/ and divan-suite/ (the same five bodies: fib(20), sum of
# 4096 u64, sort of 1000, SipHash of 1 KiB, a copy of 64 KiB) and of the `perfbench` tool, then
# RUNS rounds, each running divan once and every perfbench variant once, alternating. Each
# variant is `name:flags` (`;`-separated). Per variant: the median suite run time (wall, s),
# its ratio to divan's in the same rounds, and per benchmark the run-to-run MAD (relative to
# the median) of the headline (perfbench: `estimate.point` of `wall-time`; divan: its median)
# and of perfbench's floor (the smallest sample, which the verdict compares). Then SUITE50_RUNS
# (default 3) default runs of suite50/ (fifty benchmarks from the examples' bodies): their run
# time. divan also runs a second time per round with `--sample-size $DIVAN_FINE` (default 100
# iterations per sample; DIVAN_FINE=0 skips it): its own default times a microsecond body one
# iteration per sample, on the clock's grid (10 ns steps on this VM), and the finer samples show
# how much its median moves from process to process below that grid. Each variant's MAD less
# divan's comes with a 90% bootstrap interval (a MAD of ten runs is itself noisy). Everything lands
# in $STOP_WORK (default /tmp/perfbench-stopping); the table is printed and kept in
# $STOP_WORK/summary.md.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
runs=${RUNS:-10}
variants=${VARIANTS:-"fixed:--precision 0;p0.5:--precision 0.5;p1:--precision 1;p2:--precision 2;p5:--precision 5;quick:--quick"}
work=${STOP_WORK:-/tmp/perfbench-stopping}
rm -rf "$work/runs"
mkdir -p "$work/runs"
unset CARGO_TARGET_DIR CARGO_BUILD_TARGET_DIR
export CARGO_TERM_COLOR=never NO_COLOR=1

log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }

# exe DIR TARGET: builds DIR's benches (release) and prints the path of bench TARGET.
exe() {
    (cd "$here/$1" && CARGO_TARGET_DIR="$work/target-$1" \
        cargo build --release --benches --quiet --message-format=json 2>/dev/null) |
        python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == sys.argv[1] \
            and "bench" in m["target"]["kind"] and m.get("executable"):
        print(m["executable"])' "$2"
}

log "build (release): perfbench-suite, divan-suite, suite50, the perfbench tool"
pb=$(exe perfbench-suite suite)
dv=$(exe divan-suite suite)
s50=$(exe suite50 suite50)
(cd "$here/.." && CARGO_TARGET_DIR="$work/tool-target" cargo build --release --quiet -p perfbench-cli --bin perfbench)
export PERFBENCH_TOOL="$work/tool-target/release/perfbench"

IFS=';' read -r -a vs <<<"$variants"
for i in $(seq 1 "$runs"); do
    log "round $i of $runs"
    (cd "$here/divan-suite" && /usr/bin/time -f '%e' -o "$work/runs/divan-$i.time" \
        "$dv" --bench >"$work/runs/divan-$i.out" 2>&1)
    if [ "${DIVAN_FINE:-100}" != 0 ]; then
        (cd "$here/divan-suite" && "$dv" --bench --sample-size "${DIVAN_FINE:-100}" \
            >"$work/runs/divanfine-$i.out" 2>&1)
    fi
    for v in "${vs[@]}"; do
        name=${v%%:*} flags=${v#*:} out="$work/out-$name"
        rm -rf "$out"
        # shellcheck disable=SC2086
        (cd "$here/perfbench-suite" && CARGO_TARGET_DIR="$out" /usr/bin/time -f '%e' \
            -o "$work/runs/$name-$i.time" "$pb" --bench $flags >"$work/runs/$name-$i.out" 2>&1)
        cp "$out/perfbench/suite.json" "$work/runs/$name-$i.json"
    done
done

for i in $(seq 1 "${SUITE50_RUNS:-3}"); do
    log "suite50, run $i"
    rm -rf "$work/out-suite50"
    (cd "$here/suite50" && CARGO_TARGET_DIR="$work/out-suite50" /usr/bin/time -f '%e' \
        -o "$work/runs/suite50-$i.time" "$s50" --bench >"$work/runs/suite50-$i.out" 2>&1)
done

python3 "$here/stopping.py" "$work/runs" "$variants" "${DIVAN_FINE:-100}" | tee "$work/summary.md"
