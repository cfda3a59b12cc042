#!/usr/bin/env bash
# What confirming costs where nothing changed: suite50/'s fifty benchmarks compared with a saved
# baseline of the same build, RUNS times (default 6), each run made twice in a row, by default
# and with --no-confirm, the order alternating.
#
#   bench-compare/confirm_cost.sh            # RUNS=6
#   RUNS=10 FLAGS=--quick bench-compare/confirm_cost.sh
#
# One release build of suite50/ and of the `perfbench` tool; one saved baseline (`--save-baseline
# ref`: the run's process and a fresh one), restored before every run as a CI job restores it
# from its cache. Per run: its wall time, and from its terminal output how many benchmarks it
# measured again (regressed, slower near it, faster) and paired, and the benchmarks judged
# regressed and improved in wall time. The save's own time, with and without its second
# process, is the first line. Results land in $COST_WORK (default /tmp/perfbench-confirm-cost);
# the table is printed and kept in $COST_WORK/summary.md.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
runs=${RUNS:-6}
flags=${FLAGS:-}
work=${COST_WORK:-/tmp/perfbench-confirm-cost}
rm -rf "$work/runs" "$work/target/perfbench"
mkdir -p "$work/runs"
export CARGO_TARGET_DIR="$work/target" CARGO_TERM_COLOR=never NO_COLOR=1

log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }

log "build (release): suite50, the perfbench tool"
(cd "$here/suite50" && cargo bench --no-run --quiet)
bin=$(ls -t "$CARGO_TARGET_DIR"/release/deps/suite50-* | grep -v '\.d$' | head -n 1)
(cd "$here/.." && CARGO_TARGET_DIR="$work/tool-target" cargo build --release --quiet -p perfbench-cli --bin perfbench)
export PERFBENCH_TOOL="$work/tool-target/release/perfbench"

timed() { # timed NAME ARGS...: runs the suite, its output in runs/NAME.out, its time in .time
    local name=$1
    shift
    # shellcheck disable=SC2086
    /usr/bin/time -f '%e' -o "$work/runs/$name.time" "$bin" --bench $flags "$@" \
        --format terse >"$work/runs/$name.out" 2>&1 || true
}

log "baseline: saved without and with its second process"
timed save-one --save-baseline one --no-confirm --discard-baseline
timed save-two --save-baseline ref --discard-baseline
saved="$CARGO_TARGET_DIR/perfbench/baselines/ref"
rm -rf "$work/ref-saved" && cp -r "$saved" "$work/ref-saved"
one() {
    rm -rf "$saved" && cp -r "$work/ref-saved" "$saved"
    timed "$@" --baseline ref --discard-baseline --json "$work/runs/$1.json"
}
for r in $(seq 1 "$runs"); do
    log "run $r of $runs"
    if [ $((r % 2)) -eq 1 ]; then
        one "default-$r" && one "noconfirm-$r" --no-confirm
    else
        one "noconfirm-$r" --no-confirm && one "default-$r"
    fi
done

python3 - "$work" "$runs" <<'PY' | tee "$work/summary.md"
import json, re, sys
from pathlib import Path

work, runs = Path(sys.argv[1]) / "runs", int(sys.argv[2])
t = lambda name: float((work / f"{name}.time").read_text().split()[-1])
print(f"save: {t('save-one'):.1f} s from one process (--no-confirm), "
      f"{t('save-two'):.1f} s with its second process\n")
print("| run | mode | time (s) | measured again: regressed / slower / faster | paired | "
      "wall time regressed / improved |")
print("| ---: | --- | ---: | --- | ---: | --- |")
for r in range(1, runs + 1):
    for mode in ("default", "noconfirm"):
        name = f"{mode}-{r}"
        out = (work / f"{name}.out").read_text()
        reg = near = fast = paired = 0
        m = re.search(r"Measuring (\d+) regressed benchmarks? again", out)
        if m:
            reg = int(m.group(1))
        m = re.search(r"Measuring \d+ benchmarks? again in fresh processes, to confirm "
                      r"\(([^)]*)\)", out)
        if m:
            counts = dict((k, int(n)) for n, k in
                          re.findall(r"(\d+) (regressed|slower|faster)", m.group(1)))
            reg, near, fast = (counts.get(k, 0) for k in ("regressed", "slower", "faster"))
        m = re.search(r"Pairing (\d+) benchmark", out)
        if m:
            paired = int(m.group(1))
        report = json.loads((work / f"{name}.json").read_text())
        verdicts = [((b.get("counters") or {}).get("wall-time") or {}).get("change") or {}
                    for b in report["benchmarks"]]
        verdicts = [v.get("verdict") for v in verdicts]
        print(f"| {r} | {mode} | {t(name):.1f} | {reg} / {near} / {fast} | {paired} | "
              f"{verdicts.count('regressed')} / {verdicts.count('improved')} |")
PY
