#!/usr/bin/env bash
# perfbench vs criterion 0.8 vs divan 0.1, side by side in one session (issue 4, "Accuracy and
# performance"; divan and the repeatability table: issue 9, evidence 5).
#
#   bench-compare/run.sh [ROUNDS]        # ROUNDS defaults to 3
#   BUILD_ROUNDS=1 RUN_ROUNDS=6 bench-compare/run.sh   # builds and runs counted separately
#   BUILD_ROUNDS=0 RUN_ROUNDS=10 bench-compare/run.sh  # runs only (one untimed build of each)
#
# Three downstream crates with the same five benchmarks (fib(20), sum of 4096 u64, sort of 1000
# shuffled u32, SipHash of 1 KiB, a copy of 64 KiB): criterion-suite (criterion = "0.8", default features), perfbench-suite
# (perfbench as a path dependency, `#[perfbench]` + `perfbench::main!()`) and divan-suite
# (divan = "0.1", `#[divan::bench]` + `divan::main()`). Each is its own workspace, so nothing
# here touches perfbench's workspace.
#
# 1. Clean release builds, alternating criterion, perfbench, divan, criterion, ... with a fresh
#    target directory each time (`cargo build --release --benches --timings`; crates.io
#    downloads are done up front by `cargo fetch`, so they are not timed). With BUILD_ROUNDS=0
#    there is no build table: each suite is built once, untimed, for the runs.
# 2. Default runs of each bench binary (`<binary> --bench`, what `cargo bench` runs), alternating,
#    each with a fresh output directory (so criterion has no saved baseline to compare against:
#    its cheapest case).
# 3./4. Interval widths and point estimates, read from the reports of those same runs (divan:
#    its text table, which has no interval; its headline is the median).
# 5. Repeatability: the spread of each harness's headline figure over the alternating runs.
#
# Everything lands in $BC_WORK (default /tmp/bench-compare); the summary is printed and kept in
# $BC_WORK/results/summary.md. Wall clock drifts ~20% on the shared VM: read the ratios.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
rounds=${1:-${ROUNDS:-3}}
build_rounds=${BUILD_ROUNDS:-$rounds}
run_rounds=${RUN_ROUNDS:-$rounds}
work=${BC_WORK:-/tmp/bench-compare}
res=$work/results
suites=(criterion perfbench divan)

rm -rf "$work"
mkdir -p "$res"
unset CARGO_TARGET_DIR CARGO_BUILD_TARGET_DIR
export CARGO_TERM_COLOR=never NO_COLOR=1

log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }

{
    echo "date: $(date -Is)"
    echo "rounds: $build_rounds builds and $run_rounds runs of each"
    echo "host: $(nproc) cpus, $(uname -r)"
    echo "rustc: $(rustc --version)"
    echo "cargo: $(cargo --version)"
    echo "perfbench git: $(git -C "$here/.." rev-parse --short HEAD 2>/dev/null)$(git -C "$here/.." diff --quiet HEAD -- perfbench perfbench-macros 2>/dev/null || echo ' + uncommitted changes')"
} >"$res/env.txt"

log "cargo fetch (downloads are not timed)"
for s in "${suites[@]}"; do
    (cd "$here/$s-suite" && cargo fetch --quiet)
done
(cd "$here/criterion-suite" && cargo tree -e normal,dev --depth 1 --prefix none 2>/dev/null | grep '^criterion ' >>"$res/env.txt") || true
(cd "$here/divan-suite" && cargo tree -e normal,dev --depth 1 --prefix none 2>/dev/null | grep '^divan ' >>"$res/env.txt") || true

# bench_exe JSONL: the path of the bench binary named in a `--message-format=json` build log.
bench_exe() {
    python3 - "$1" <<'EOF'
import json, sys
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "suite" \
            and "bench" in m["target"]["kind"] and m.get("executable"):
        print(m["executable"])
EOF
}

# build SUITE ROUND: a clean release build of the benches, timed (wall, user, sys).
build() {
    local s=$1 i=$2 t="$work/target-$1-build$2"
    rm -rf "$t"
    cat /proc/loadavg >"$res/build-$s-$i.load"
    log "build $s (round $i)"
    (cd "$here/$s-suite" && CARGO_TARGET_DIR="$t" /usr/bin/time -f '%e %U %S' -o "$res/build-$s-$i.time" \
        cargo build --release --benches --timings --message-format=json-render-diagnostics \
        >"$res/build-$s-$i.jsonl" 2>"$res/build-$s-$i.log")
    cp "$t"/cargo-timings/cargo-timing.html "$res/build-$s-$i.timing.html"
    # The bench binary of this build (kept for the runs).
    bench_exe "$res/build-$s-$i.jsonl" >"$res/exe-$s"
    log "  $(cat "$res/build-$s-$i.time") (wall user sys, s)"
    # Only the last round's binaries are run: drop the previous round's target directory.
    [ "$i" -gt 1 ] && rm -rf "$work/target-$s-build$((i - 1))"
    return 0
}

# prepare SUITE: with BUILD_ROUNDS=0, one release build for the runs; not timed, not summarized.
prepare() {
    local s=$1 t="$work/target-$1-prep"
    log "build $s (untimed, for the runs)"
    (cd "$here/$s-suite" && CARGO_TARGET_DIR="$t" \
        cargo build --release --benches --message-format=json-render-diagnostics \
        >"$res/prep-$s.jsonl" 2>"$res/prep-$s.log")
    bench_exe "$res/prep-$s.jsonl" >"$res/exe-$s"
}

# runbench SUITE ROUND: the default run of the bench binary, timed; keeps its reports.
runbench() {
    local s=$1 i=$2 out="$work/out-$1-run$2" exe
    exe=$(cat "$res/exe-$s")
    rm -rf "$out"
    mkdir -p "$out"
    cat /proc/loadavg >"$res/run-$s-$i.load"
    log "run $s (round $i)"
    # CARGO_TARGET_DIR only tells each harness where to write its reports
    # (criterion: $CARGO_TARGET_DIR/criterion, perfbench: $CARGO_TARGET_DIR/perfbench; divan
    # writes none: its table on stdout, kept in run-divan-i.out, is what summarize.py reads).
    (cd "$here/$s-suite" && CARGO_TARGET_DIR="$out" /usr/bin/time -f '%e %U %S' -o "$res/run-$s-$i.time" \
        "$exe" --bench >"$res/run-$s-$i.out" 2>&1)
    if [ "$s" = perfbench ]; then
        cp "$out/perfbench/suite.json" "$res/run-perfbench-$i.json"
    elif [ "$s" = criterion ]; then
        for b in fib_20 sum_4096 sort_1000 hash_1k copy_64k; do
            cp "$out/criterion/$b/new/estimates.json" "$res/run-criterion-$i-$b.estimates.json"
            cp "$out/criterion/$b/new/sample.json" "$res/run-criterion-$i-$b.sample.json"
        done
    fi
    log "  $(cat "$res/run-$s-$i.time") (wall user sys, s)"
}

for i in $(seq 1 "$build_rounds"); do
    for s in "${suites[@]}"; do build "$s" "$i"; done
done
# perfbench-suite is a lean build (perfbench's default features): its runs are analysed by the
# `perfbench` tool, built here once (not timed: it is installed once per machine) and named by
# PERFBENCH_TOOL; the timed runs include the tool's work.
log "build the perfbench tool (untimed)"
(cd "$here/.." && CARGO_TARGET_DIR="$work/tool-target" cargo build --release --quiet -p perfbench-cli --bin perfbench)
export PERFBENCH_TOOL="$work/tool-target/release/perfbench"
if [ "$build_rounds" -eq 0 ]; then
    for s in "${suites[@]}"; do prepare "$s"; done
fi
for i in $(seq 1 "$run_rounds"); do
    for s in "${suites[@]}"; do runbench "$s" "$i"; done
done

python3 "$here/summarize.py" "$res" | tee "$res/summary.md"
