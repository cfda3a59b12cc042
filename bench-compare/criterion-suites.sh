#!/usr/bin/env bash
# Published criterion suites, the same bench files, on real criterion 0.8 and on
# perfbench-criterion (criterion's API on perfbench's engine), side by side.
#
#   bench-compare/criterion-suites.sh                         # default suites, 2 runs of each
#   SUITES="fancy_regex halfbrown" RUNS=3 bench-compare/criterion-suites.sh
#   SUITES=fancy_regex RUNS=1 FILTER=parse_misc bench-compare/criterion-suites.sh   # a short check
#
# Environment:
#   SUITES   the suites, by the names of tests/fixtures/criterion/real_<name>.rs (default
#            "fancy_regex tracing_subscriber halfbrown"). "base64" (88 benchmarks) builds and
#            lists the same ids on both, and runs on both, but its criterion run alone takes
#            ~12 minutes (88 x (3 s warm-up + 5 s measurement) and analysis), so it is left out
#            of the default: add it with SUITES="... base64". Any other real_<name>.rs fixture
#            works the same way (tracing_empty_span, whose bench file declares `mod shared;`:
#            tests/fixtures/criterion/modules/ is copied beside the bench files).
#   RUNS     alternating runs of each harness per suite (default 2; 0: build and ids only).
#   FILTER   passed as it is, as the positional filter, to both bench binaries' measured runs
#            (`<binary> --bench FILTER`): a regular expression for both (perfbench-criterion
#            reads a criterion suite's filters as criterion does).
#   BC_WORK  the work directory (default /tmp/bench-compare-criterion).
#   PERFBENCH_TOOL  the `perfbench` tool to use; when unset, it is built once (untimed) into
#            $TOOL_TARGET (default $BC_WORK/tool-target) from this checkout.
#
# Two downstream crates are generated under $BC_WORK, each its own workspace:
#   on-criterion  dev-dependency `criterion = "0.8"` (default features: what `cargo bench` of a
#                 criterion suite runs);
#   on-perfbench  dev-dependency `criterion = { package = "perfbench-criterion", path = ... }`,
#                 the one line a user changes (perfbench's lean build: its runs stream their
#                 samples to the `perfbench` tool, whose work is part of the timed run).
# Both have the same `[[bench]]` targets (harness = false), real_<name> for each suite, whose
# files are copied at run time from tests/fixtures/criterion/real_<name>.rs (byte-for-byte
# copies of the published crates' criterion bench files: the fixtures are the one source), and
# the same dependencies the suites need, taken from REAL_DEPENDENCIES in
# tests/criterion_suites.rs (the same versions). on-perfbench starts from this workspace's
# Cargo.lock (as that test does).
#
# Every real_*.rs fixture compiles against criterion 0.8.2 unchanged (checked: fancy_regex,
# tracing_subscriber, halfbrown, base64, tracing_empty_span; criterion 0.8 only warns where
# the 0.3-0.5 API it still has is deprecated: `criterion::black_box` in base64's and
# tracing_empty_span's), and criterion 0.8 lists the same ids as the older criterion of each
# fixture's real_<name>.ids, so none is left out for not building. fancy_regex's first group
# asks for a 10 s warm-up per benchmark (criterion: 7 x (10 + 5) s and more).
#
# 1. cargo fetch up front (downloads are not timed), then an untimed release build of the bench
#    targets of each crate in $BC_WORK/target-criterion and $BC_WORK/target-perfbench. These
#    stay between invocations (only changed files are rewritten), so a re-run rebuilds nothing
#    it need not; the per-run output directories are fresh.
# 2. Ids: each bench binary's `--bench --list` on both harnesses, compared (and with the
#    fixture's real_<name>.ids, what criterion 0.3-0.5 listed): count and differences.
# 3. Runs: RUNS rounds of criterion, perfbench, criterion, perfbench, ... for each suite
#    (`<binary> --bench [FILTER]`, default settings), each with a fresh CARGO_TARGET_DIR output
#    directory ($BC_WORK/results/run-<harness>-<suite>-<i>: criterion writes criterion/<id>/new/
#    estimates.json there, perfbench perfbench/real_<suite>.json), timed with /usr/bin/time.
# 4. Summary (bench-compare/criterion_suites.py): printed and kept in
#    $BC_WORK/results/summary.md.
#
# A full default run takes ~30 minutes on the 2-core VM (per round: criterion ~12 minutes,
# perfbench ~3, from short runs of each suite); wall clock drifts ~20% there: read the ratios,
# and run it at a quiet time (nothing else compiling: the estimates move with the load).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
read -r -a suites <<<"${SUITES:-fancy_regex tracing_subscriber halfbrown}"
runs=${RUNS:-2}
filter=${FILTER:-}
work=${BC_WORK:-/tmp/bench-compare-criterion}
res=$work/results
harnesses=(criterion perfbench)
fixtures=$repo/tests/fixtures/criterion

[ "${#suites[@]}" -gt 0 ] || { echo "SUITES is empty" >&2; exit 2; }
for s in "${suites[@]}"; do
    [ -f "$fixtures/real_$s.rs" ] || { echo "no fixture $fixtures/real_$s.rs (SUITES=${suites[*]})" >&2; exit 2; }
done

unset CARGO_TARGET_DIR CARGO_BUILD_TARGET_DIR
export CARGO_TERM_COLOR=never NO_COLOR=1

log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }

# The results of this invocation only; the crates and their build directories stay.
rm -rf "$res"
mkdir -p "$res"

# put SRC DEST / write DEST (stdin): only when the content changed, so that cargo's fingerprints
# (file mtimes) see nothing new on a re-run.
put() { cmp -s "$1" "$2" 2>/dev/null || cp "$1" "$2"; }
write() {
    local tmp
    tmp=$(mktemp)
    cat >"$tmp"
    if cmp -s "$tmp" "$1" 2>/dev/null; then rm -f "$tmp"; else chmod 644 "$tmp" && mv "$tmp" "$1"; fi
}

# The dependencies the published suites need, as tests/criterion_suites.rs gives them.
deps=$(python3 - "$repo/tests/criterion_suites.rs" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r'const REAL_DEPENDENCIES: &str = "\\\n(.*?)";', text, re.S)
if not m:
    sys.exit("REAL_DEPENDENCIES not found in " + sys.argv[1])
print(m.group(1).replace('\\"', '"').rstrip("\n"))
EOF
)

# gen HARNESS CRITERION_LINE: the crate on-HARNESS with every suite's bench target.
gen() {
    local h=$1 line=$2 dir="$work/on-$1" s
    mkdir -p "$dir/src" "$dir/benches"
    : | write "$dir/src/lib.rs"
    {
        # autobenches off: the modules the bench files share (`mod shared;`) are no targets.
        printf '[package]\nname = "on-%s"\nversion = "0.0.0"\nedition = "2021"\npublish = false\nautobenches = false\n\n' "$h"
        printf '[dev-dependencies]\n%s\n%s\n' "$line" "$deps"
        # Every fixture's target, whatever SUITES is: the manifest (and so the lock file and the
        # build) stays the same from one invocation to the next.
        for f in "$fixtures"/real_*.rs; do
            s=$(basename "$f" .rs)
            printf '\n[[bench]]\nname = "%s"\nharness = false\n' "$s"
            put "$f" "$dir/benches/$s.rs"
        done
        printf '\n# Its own workspace.\n[workspace]\n'
    } | write "$dir/Cargo.toml"
    # The modules the bench files declare, beside them (as tests/criterion_suites.rs does).
    for f in "$fixtures"/modules/*.rs; do
        [ -f "$f" ] && put "$f" "$dir/benches/$(basename "$f")"
    done
    return 0
}
gen criterion 'criterion = "0.8"'
gen perfbench "criterion = { package = \"perfbench-criterion\", path = \"$repo/perfbench-criterion\" }"
[ -f "$work/on-perfbench/Cargo.lock" ] || cp "$repo/Cargo.lock" "$work/on-perfbench/Cargo.lock"

log "cargo fetch (downloads are not timed)"
for h in "${harnesses[@]}"; do
    (cd "$work/on-$h" && cargo fetch --quiet)
done

{
    echo "date: $(date -Is)"
    echo "suites: ${suites[*]}; $runs alternating runs of each harness${filter:+; filter: $filter}"
    echo "host: $(nproc) cpus, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "rustc: $(rustc --version)"
    echo "cargo: $(cargo --version)"
    echo "perfbench git: $(git -C "$repo" rev-parse --short HEAD 2>/dev/null)$(git -C "$repo" diff --quiet HEAD -- perfbench perfbench-criterion perfbench-cli perfbench-analysis 2>/dev/null || echo ' + uncommitted changes')"
    (cd "$work/on-criterion" && cargo tree -e dev --depth 1 --prefix none 2>/dev/null | grep '^criterion ') || true
    (cd "$work/on-perfbench" && cargo tree -e dev --depth 1 --prefix none 2>/dev/null | grep '^perfbench-criterion ') || true
    echo "gnuplot: $(command -v gnuplot || echo 'none (criterion plots with plotters)')"
} >"$res/env.txt"
echo "${suites[*]}" >"$res/suites.txt"
echo "$runs" >"$res/runs.txt"
printf '%s' "$filter" >"$res/filter.txt"

# Build: untimed, kept in $BC_WORK/target-HARNESS; the bench binaries' paths from cargo's JSON.
for h in "${harnesses[@]}"; do
    log "build on-$h (untimed; incremental between invocations)"
    args=()
    for s in "${suites[@]}"; do args+=(--bench "real_$s"); done
    if ! (cd "$work/on-$h" && CARGO_TARGET_DIR="$work/target-$h" \
        cargo build --release "${args[@]}" --message-format=json-render-diagnostics \
        >"$res/build-$h.jsonl" 2>"$res/build-$h.log"); then
        tail -n 40 "$res/build-$h.log" >&2
        echo "building on-$h failed: $res/build-$h.log" >&2
        exit 1
    fi
    python3 - "$res/build-$h.jsonl" "$res" "$h" <<'EOF'
import json, os, sys
jsonl, res, h = sys.argv[1:]
for line in open(jsonl):
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and "bench" in m["target"]["kind"] \
            and m.get("executable"):
        with open(os.path.join(res, f"exe-{h}-{m['target']['name']}"), "w") as f:
            f.write(m["executable"] + "\n")
EOF
done

if [ -n "${PERFBENCH_TOOL:-}" ]; then
    [ -x "$PERFBENCH_TOOL" ] || { echo "PERFBENCH_TOOL=$PERFBENCH_TOOL is not an executable" >&2; exit 2; }
else
    tool_target=${TOOL_TARGET:-$work/tool-target}
    log "build the perfbench tool (untimed) into $tool_target"
    (cd "$repo" && CARGO_TARGET_DIR="$tool_target" cargo build --release --quiet -p perfbench-cli --bin perfbench)
    export PERFBENCH_TOOL="$tool_target/release/perfbench"
fi
echo "perfbench tool: $("$PERFBENCH_TOOL" --version 2>/dev/null | head -n 1)" >>"$res/env.txt"

exe() { cat "$res/exe-$1-real_$2"; }

# 2. Ids, unfiltered.
for s in "${suites[@]}"; do
    for h in "${harnesses[@]}"; do
        (cd "$work/on-$h" && CARGO_TARGET_DIR="$work/list-$h" "$(exe "$h" "$s")" --bench --list \
            >"$res/list-$h-$s.out" 2>&1) || { cat "$res/list-$h-$s.out" >&2; exit 1; }
        sed -n 's/: benchmark$//p' "$res/list-$h-$s.out" >"$res/ids-$h-$s.txt"
    done
    rm -rf "$work/list-criterion" "$work/list-perfbench"
    n_cr=$(wc -l <"$res/ids-criterion-$s.txt")
    n_pb=$(wc -l <"$res/ids-perfbench-$s.txt")
    if diff -u --label "criterion 0.8" --label "perfbench-criterion" \
        "$res/ids-criterion-$s.txt" "$res/ids-perfbench-$s.txt" >"$res/ids-$s.diff"; then
        log "ids $s: identical, $n_cr on both"
    else
        log "ids $s: DIFFERENT, criterion $n_cr, perfbench $n_pb:"
        cat "$res/ids-$s.diff" >&2
    fi
    diff -u --label "real_$s.ids (criterion 0.3-0.5)" --label "criterion 0.8" \
        "$fixtures/real_$s.ids" "$res/ids-criterion-$s.txt" >"$res/ids-$s-fixture.diff" ||
        log "ids $s: criterion 0.8 lists other ids than real_$s.ids (see $res/ids-$s-fixture.diff)"
done

# 3. Runs: run HARNESS SUITE ROUND, timed; the output directory is kept in $res.
run() {
    local h=$1 s=$2 i=$3 out="$res/run-$1-$2-$3"
    local cmd=("$(exe "$h" "$s")" --bench)
    [ -n "$filter" ] && cmd+=("$filter")
    mkdir -p "$out"
    cut -d' ' -f1 /proc/loadavg >"$out.load"
    log "run $s on $h (round $i)"
    # CARGO_TARGET_DIR tells each harness where to write its reports.
    if ! (cd "$work/on-$h" && CARGO_TARGET_DIR="$out" /usr/bin/time -f '%e %U %S %M' -o "$out.time" \
        "${cmd[@]}" >"$out.out" 2>&1); then
        tail -n 20 "$out.out" >&2
        log "  run $s on $h (round $i) FAILED (exit status in $out.time); going on"
    fi
    log "  $(head -c 40 "$out.time") (wall user sys s, max RSS KiB)"
}
for i in $(seq 1 "$runs"); do
    for s in "${suites[@]}"; do
        for h in "${harnesses[@]}"; do run "$h" "$s" "$i"; done
    done
done

python3 "$here/criterion_suites.py" "$res" | tee "$res/summary.md"
