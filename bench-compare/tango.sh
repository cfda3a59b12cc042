#!/usr/bin/env bash
# How often tango-bench's paired comparison is right on this machine, on the workloads and
# slowdowns of bench-compare/paired.sh (so the two can be set side by side).
#
#   bench-compare/tango.sh                       # RUNS=20, SLOWDOWNS="0 0.01 0.02 0.05 0.25"
#   RUNS=5 SLOWDOWNS="0 0.02" FLAGS="-t 1" bench-compare/tango.sh
#
# Subcommands (the default, none, does build + runs + summarize in $TANGO_WORK):
#   tango.sh build WORKDIR "SLOWDOWNS"       base build and one build per slowdown, copied to
#                                            WORKDIR/bin/base/paired and WORKDIR/bin/new-$s/paired
#                                            (stdout: nothing; log lines on stderr)
#   tango.sh one BASE_EXE NEW_EXE OUT_FILE   one `NEW_EXE compare BASE_EXE` (FLAGS added): its stdout
#                                            in OUT_FILE, stderr in OUT_FILE.err, exit status in
#                                            OUT_FILE.rc, "start end" (epoch s) in OUT_FILE.time
#   tango.sh summarize WORKDIR RUNS "SLOWDOWNS"   the Markdown table from WORKDIR/runs/$s-$r.out
#
# tango-suite/ is paired-suite's three workloads (same names, `paired/...`, same build-time
# knob PAIRED_SLOWDOWN written with a fixed width, so slowdown 0 is the base build bit for bit)
# for tango-bench 0.9.0. For each slowdown, RUNS runs of `NEW compare BASE` one after another,
# with tango's defaults (100 ms of sampling per benchmark, noise threshold 1%) unless FLAGS
# says otherwise. Results land in $TANGO_WORK (default /tmp/tango-paired); the table is printed
# and kept in $TANGO_WORK/summary.md.
#
# How the decision is read (tango-bench 0.9.0, src/cli.rs and src/lib.rs of the crate):
#   * `NEW compare BASE`: the executable that runs is the *candidate* (env::current_exe(),
#     cli.rs:357), the path given is the *baseline* (cli.rs:359, spawned as "baseline",
#     cli.rs:379). Both run at once as two worker processes in lock step (one sample each, then
#     both wait for the other: worker.rs:151-173), on two cores.
#   * One line per benchmark on stdout (DefaultReporter, cli.rs:852-864):
#       format "{:50} [ {:>8} ... {:>8} ]    {:>7}{}{}" = name, baseline mean, candidate mean,
#       change as "{:+.2}", then "%", then "*" if and only if the change is significant.
#   * change = mean(candidate - baseline) / mean(baseline) * 100 (lib.rs:251, lib.rs:335):
#     positive = candidate (NEW) slower. Significant = |z| >= 2.6 (z = mean diff / std err of
#     the paired differences) and |change| > --noise-threshold (default 1.0 %, cli.rs:82;
#     the README says 0.5 %, the code says 1.0) (lib.rs:339).
#   * So a run flags a benchmark as slower (a significant regression) when its line ends in
#     "%*" and the change is > 0, which is also tango's own rule for exiting with a failure
#     (cli.rs:570); flagged either way = the line ends in "%*". ANSI colours are off
#     (--color never, NO_COLOR=1) and stripped anyway.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
export CARGO_TERM_COLOR=never NO_COLOR=1

log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }

# build_one WORK NAME SLOWDOWN: the suite's bench executable, copied to WORK/bin/NAME/paired.
build_one() {
    local work=$1 name=$2
    mkdir -p "$work/bin/$name"
    log "build $name (PAIRED_SLOWDOWN=$3)"
    local exe
    exe=$(
        cd "$here/tango-suite"
        PAIRED_SLOWDOWN=$3 CARGO_TARGET_DIR="$work/target" \
            cargo bench --no-run --quiet --locked --message-format=json |
            python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and "bench" in m["target"]["kind"]:
        print(m["executable"])' | tail -n 1
    )
    [ -n "$exe" ] || { log "no bench executable for $name"; return 1; }
    cp "$exe" "$work/bin/$name/paired"
}

# build WORK "SLOWDOWNS": the base build and one per slowdown. The knob with a fixed width, so
# the builds differ in those bytes only: slowdown 0 is the base build again, bit for bit.
build() {
    local work=$1 slowdowns=$2
    rm -rf "$work/bin"
    mkdir -p "$work/bin"
    build_one "$work" base "$(printf '%.6f' 0)"
    for s in $slowdowns; do
        build_one "$work" "new-$s" "$(printf '%.6f' "$s")"
    done
    if [ -e "$work/bin/new-0/paired" ]; then
        if cmp -s "$work/bin/base/paired" "$work/bin/new-0/paired"; then
            log "the slowdown-0 build is identical to the base build"
        else
            log "WARNING: the slowdown-0 build differs from the base build"
        fi
    fi
}

# one BASE NEW OUT: a single paired comparison, NEW (candidate) against BASE (baseline).
one() {
    local base new out start end rc=0
    base=$(realpath "$1")
    new=$(realpath "$2")
    out=$3
    mkdir -p "$(dirname "$out")"
    start=$(date +%s.%N)
    # shellcheck disable=SC2086
    "$new" --color never compare ${FLAGS:-} "$base" >"$out" 2>"$out.err" || rc=$?
    end=$(date +%s.%N)
    echo "$start $end" >"$out.time"
    echo "$rc" >"$out.rc"
}

summarize() {
    local work=$1 runs=$2 slowdowns=$3
    local version
    version=$(awk '/^name = "tango-bench"/ { getline; gsub(/[^0-9.]/, ""); print }' \
        "$here/tango-suite/Cargo.lock")
    python3 - "$work" "$runs" "$slowdowns" "${FLAGS:-}" "$version" <<'PY'
import re, sys, statistics
work, runs, slowdowns, flags, version = (sys.argv[1], int(sys.argv[2]), sys.argv[3].split(),
                                         sys.argv[4], sys.argv[5])
benches = ["paired/compute", "paired/memory", "paired/sort"]
ansi = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# DefaultReporter (tango-bench 0.9.0 src/cli.rs:852): "{name:50} [ {base} ... {cand} ]    {pct:+.2}%{*?}"
line_re = re.compile(r"^(?P<name>\S+)\s+\[\s*(?P<base>.*?)\s*\.\.\.\s*(?P<cand>.*?)\s*\]\s+"
                     r"(?P<pct>\S+?)%(?P<sig>\*?)\s*$")
print(f"# Paired runs: `NEW compare BASE` (tango-bench {version}; {runs} runs per slowdown; "
      f"flags: `{flags or '(none)'}`)\n")
print("| slowdown | " + " | ".join(f"{b}: slower (significant) / flagged either way" for b in benches)
      + " | median reported change (all) | run time, median (s) |")
print("| ---: | " + " | ".join("---:" for _ in benches) + " | ---: | ---: |")
for s in slowdowns:
    slower = {b: 0 for b in benches}
    flagged = {b: 0 for b in benches}
    changes, times, missing = [], [], 0
    for r in range(1, runs + 1):
        base = f"{work}/runs/{s}-{r}.out"
        start, end = map(float, open(f"{base}.time").read().split())
        times.append(end - start)
        seen = set()
        try:
            text = open(base, errors="replace").read()
        except OSError:
            text = ""
        for raw in text.splitlines():
            m = line_re.match(ansi.sub("", raw).strip())
            if not m or m["name"] not in slower:
                continue
            try:
                pct = float(m["pct"])
            except ValueError:
                continue
            seen.add(m["name"])
            changes.append(pct)
            if m["sig"] == "*":
                flagged[m["name"]] += 1
                if pct > 0:
                    slower[m["name"]] += 1
        if seen != set(benches):
            missing += 1
    cells = [f"{slower[b]}/{flagged[b]}" for b in benches]
    med = f"{statistics.median(changes):+.2f}%" if changes else "n/a"
    extra = f" ({missing} runs without all three results)" if missing else ""
    print(f"| {float(s) * 100:g}% | " + " | ".join(cells)
          + f" | {med} | {statistics.median(times):.1f}{extra} |")
print()
print("Cells: runs (of the runs per slowdown) where tango marked the benchmark's change "
      "significant (`*`) and positive, i.e. NEW slower / runs where it marked it significant "
      "either way. At 0% every flag is a false alarm. Change = mean(NEW - BASE) / mean(BASE), "
      "in %, as tango prints it.")
PY
}

case "${1:-}" in
build)
    [ $# -eq 3 ] || { echo "usage: $0 build WORKDIR \"SLOWDOWNS\"" >&2; exit 2; }
    build "$2" "$3"
    ;;
one)
    [ $# -eq 4 ] || { echo "usage: $0 one BASE_EXE NEW_EXE OUT_FILE" >&2; exit 2; }
    one "$2" "$3" "$4"
    ;;
summarize)
    [ $# -eq 4 ] || { echo "usage: $0 summarize WORKDIR RUNS \"SLOWDOWNS\"" >&2; exit 2; }
    summarize "$2" "$3" "$4"
    ;;
"")
    runs=${RUNS:-20}
    slowdowns=${SLOWDOWNS:-"0 0.01 0.02 0.05 0.25"}
    work=${TANGO_WORK:-/tmp/tango-paired}
    rm -rf "$work/runs" "$work/bin"
    mkdir -p "$work/runs" "$work/bin"
    build "$work" "$slowdowns"
    for s in $slowdowns; do
        for r in $(seq 1 "$runs"); do
            log "slowdown $s, run $r of $runs"
            one "$work/bin/base/paired" "$work/bin/new-$s/paired" "$work/runs/$s-$r.out"
        done
    done
    summarize "$work" "$runs" "$slowdowns" | tee "$work/summary.md"
    ;;
*)
    echo "usage: $0 [build WORKDIR \"SLOWDOWNS\" | one BASE_EXE NEW_EXE OUT_FILE |" \
        "summarize WORKDIR RUNS \"SLOWDOWNS\"]" >&2
    exit 2
    ;;
esac
