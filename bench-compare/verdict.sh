#!/usr/bin/env bash
# How often the bench binary's verdict is right on this machine (issue 9, evidence 3).
#
#   bench-compare/verdict.sh                       # RUNS=20, SLOWDOWNS="0 0.05 0.10 0.15 0.25"
#   RUNS=20 SLOWDOWNS="0 0.25" FLAGS="--quick" bench-compare/verdict.sh
#   BASE_RUNS=5 bench-compare/verdict.sh          # a baseline saved from 5 runs of the build
#   PAIR_FLAGS=--no-confirm SLOWDOWNS="0 0.05 0.10" bench-compare/verdict.sh
#                                                  # each run also made with PAIR_FLAGS
#   SAVE_LOAD=1 SLOWDOWNS="0 0.10" bench-compare/verdict.sh
#                                                  # the baseline saved beside SAVE_LOAD busy
#                                                  # loops: a baseline that sat slow, on purpose
#   SAVE_SLOWDOWN=0.07 SLOWDOWNS="0 0.10" bench-compare/verdict.sh
#                                                  # the baseline saved from code 7% slower (the
#                                                  # copy it keeps does the unchanged work): a
#                                                  # machine that has turned 7% faster since
#                                                  # the save
#
# With BASE_RUNS > 1 the runs are also re-judged by `perfbench compare` against each run of the
# baseline alone (bench-compare/base_runs.py; kept in $VERDICT_WORK/base_runs.md).
#
# The noise of this machine, fitted to simulation.rs's model (perfbench/src/stats/simulation.rs):
#
#   VERDICT_WORK=/tmp/perfbench-noise RUNS=21 SLOWDOWNS=0 bash bench-compare/verdict.sh \
#       && python3 bench-compare/noise_fit.py /tmp/perfbench-noise/runs
#
# One release build of verdict-suite/ (three workloads whose work grows by PERFBENCH_SLOWDOWN,
# except in the copy the baseline keeps, which a confirmation measures as the baseline's build),
# one saved baseline of the unchanged code (`--save-baseline ref`, BASE_RUNS times: the first
# save adds a second, fresh process, and a baseline saved again from the same build keeps its
# earlier runs, so BASE_RUNS processes and one more), then for each slowdown RUNS
# runs of the same binary compared with that baseline (`--baseline ref`), one after another as
# in CI, each against the baseline as saved (a run that confirms a regression adds the
# baseline build's fresh processes to it: restored before each run, as a CI job restores it
# from its cache). With PAIR_FLAGS each run is made twice in a row, the order alternating: with
# FLAGS, and with FLAGS and PAIR_FLAGS. Counted per benchmark: runs whose wall-time was judged
# regressed, runs with any counter flagged either way (at slowdown 0 every flag is a false
# alarm), runs that measured the benchmark again in this build to confirm a regression, and runs
# that measured the baseline's build again because the benchmark read faster (from each run's
# terminal output, kept beside its JSON); in brackets, the regressions a paired settle decided
# (`"method": "paired"`). FLAGS go to every
# run (e.g. --quick, --noise-threshold 10). Results and reports land in $VERDICT_WORK (default
# /tmp/perfbench-verdict); the table is printed and kept in $VERDICT_WORK/summary.md.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
runs=${RUNS:-20}
slowdowns=${SLOWDOWNS:-"0 0.05 0.10 0.15 0.25"}
flags=${FLAGS:-}
pair_flags=${PAIR_FLAGS:-}
base_runs=${BASE_RUNS:-1}
save_load=${SAVE_LOAD:-0}
save_slowdown=${SAVE_SLOWDOWN:-0}
work=${VERDICT_WORK:-/tmp/perfbench-verdict}
rm -rf "$work/perfbench" "$work/runs" "$work/target/perfbench" "$work/ref-saved"
mkdir -p "$work/runs"
export CARGO_TARGET_DIR="$work/target" CARGO_TERM_COLOR=never NO_COLOR=1

log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }

log "build (release)"
(cd "$here/verdict-suite" && cargo bench --no-run --quiet)
bin=$(ls -t "$CARGO_TARGET_DIR"/release/deps/verdict-* | grep -v '\.d$' | head -n 1)

busy=()
trap 'if [ "${#busy[@]}" -gt 0 ]; then kill "${busy[@]}" 2>/dev/null || true; fi' EXIT
for _ in $(seq 1 "$save_load"); do
    (while :; do :; done) &
    busy+=($!)
done
for r in $(seq 1 "$base_runs"); do
    log "baseline: saved as \`ref\` (run $r of $base_runs; slowdown $save_slowdown; $save_load busy loops beside it)"
    # shellcheck disable=SC2086
    PERFBENCH_SLOWDOWN=$save_slowdown "$bin" --bench $flags --save-baseline ref --discard-baseline --format terse >/dev/null
done
if [ "${#busy[@]}" -gt 0 ]; then
    kill "${busy[@]}"
    wait "${busy[@]}" 2>/dev/null || true
    busy=()
fi

# A run that confirms a regression adds the baseline build's fresh processes to the baseline;
# each run starts from the baseline as saved, as a CI job restores it from its cache.
saved="$CARGO_TARGET_DIR/perfbench/baselines/ref"
rm -rf "$work/ref-saved" && cp -r "$saved" "$work/ref-saved"
one() {
    rm -rf "$saved" && cp -r "$work/ref-saved" "$saved"
    local t0
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    PERFBENCH_SLOWDOWN=$1 "$bin" --bench $flags $3 --baseline ref --discard-baseline \
        --format terse --json "$work/runs/$2.json" >"$work/runs/$2.out" 2>&1 || true
    awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f\n", b - a }' >"$work/runs/$2.time"
}
for s in $slowdowns; do
    for r in $(seq 1 "$runs"); do
        log "slowdown $s, run $r of $runs"
        if [ -z "$pair_flags" ]; then
            one "$s" "$s-$r" ""
        elif [ $((r % 2)) -eq 1 ]; then
            one "$s" "$s-$r" "" && one "$s" "pair-$s-$r" "$pair_flags"
        else
            one "$s" "pair-$s-$r" "$pair_flags" && one "$s" "$s-$r" ""
        fi
    done
done

SAVE_SLOWDOWN=$save_slowdown python3 - "$work" "$runs" "$slowdowns" "$flags" "$pair_flags" <<'PY' | tee "$work/summary.md"
import json, os, re, sys, glob, statistics
work, runs, slowdowns, flags, pair_flags = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4], sys.argv[5]
benches = ["verdict/compute", "verdict/memory", "verdict/sort"]
base_runs = json.load(open(glob.glob(f"{work}/ref-saved/*.json")[0])).get("earlier_runs", [])
save = float(os.environ.get("SAVE_SLOWDOWN") or 0)
saved_from = f", saved from code {save * 100:.0f}% slower" if save else ""
print(f"# Verdicts against a saved baseline of {1 + len(base_runs)} run(s){saved_from} ({runs} runs per slowdown; flags: `{flags or '(none)'}`)\n")
print("Each cell: runs whose wall-time was judged regressed / runs with any counter flagged / runs that measured the benchmark again in this build to confirm a regression / runs that measured it again because it read faster (the baseline's build), of the runs read.\n")
variants = [("", flags or "(none)")] + ([("pair-", f"{flags} {pair_flags}".strip())] if pair_flags else [])
print("| slowdown | flags | " + " | ".join(benches) + " | run time (median) |")
print("| ---: | --- | " + " | ".join("---:" for _ in benches) + " | ---: |")
for s in slowdowns:
    for prefix, label in variants:
        cells = []
        for b in benches:
            regressed = paired = flagged = again = faster = n = 0
            for r in range(1, runs + 1):
                try:
                    doc = json.load(open(f"{work}/runs/{prefix}{s}-{r}.json"))
                except (OSError, ValueError):
                    continue
                bench = next((x for x in doc["benchmarks"] if x["id"] == b), None)
                if bench is None:
                    continue
                n += 1
                verdicts = {k: (c.get("change") or {}).get("verdict") for k, c in bench["counters"].items()}
                regressed += verdicts.get("wall-time") == "regressed"
                wall = (bench["counters"].get("wall-time") or {}).get("change") or {}
                paired += wall.get("verdict") == "regressed" and wall.get("method") == "paired"
                flagged += any(v in ("regressed", "improved") for v in verdicts.values())
                again += any(b in e.get("benchmarks", {}) for e in doc.get("earlier_runs", []))
                try:
                    out = open(f"{work}/runs/{prefix}{s}-{r}.out").read()
                except OSError:
                    out = ""
                faster += bool(re.search(rf"^  {re.escape(b)}  \S+: -[\d.]+% in this process", out, re.M))
            settled = f" ({paired})" if paired else ""
            cells.append(f"{regressed}{settled} / {flagged} / {again} / {faster} of {n}")
        times = []
        for r in range(1, runs + 1):
            try:
                times.append(float(open(f"{work}/runs/{prefix}{s}-{r}.time").read()))
            except (OSError, ValueError):
                pass
        took = f"{statistics.median(times):.1f} s" if times else "-"
        print(f"| {float(s) * 100:.0f}% | `{label}` | " + " | ".join(cells) + f" | {took} |")
PY
if [ "$base_runs" -gt 1 ]; then
    log "re-judging against each baseline run alone (perfbench compare)"
    cargo build --release --quiet --manifest-path "$here/../Cargo.toml" -p perfbench-cli --bin perfbench
    echo
    python3 "$here/base_runs.py" "$work" "$CARGO_TARGET_DIR/release/perfbench"
fi
