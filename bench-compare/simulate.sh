#!/usr/bin/env bash
# perfbench --simulate beside gungraun 0.20, on the same workloads (issue 16, evidence 3):
# per benchmark each tool's instruction count, the difference explained from the Callgrind
# profiles both tools leave behind, and each suite's wall time.
#
#   bench-compare/simulate.sh              # RUNS=3
#   RUNS=5 BC_WORK=/tmp/sim bench-compare/simulate.sh
#
# Two downstream crates, each its own workspace, with the same workloads (simsuite-perfbench/
# src/lib.rs, which gungraun-suite/src/lib.rs includes as a module: fib(20), sort of 1000 u32
# from a fixed permutation, FNV-1a and std's DefaultHasher over 4 KiB, a hand-written parse of
# a 1.3 KB CSV text, and two trivial benchmarks, `empty` and `constant`, whose gungraun counts
# are its fixed cost per call):
#   * simsuite-perfbench: perfbench by path, `#[perfbench]` + `perfbench::main!()`, run as
#     `cargo bench --bench sim -- --simulate` (its defaults: 5 rounds, one Callgrind child per
#     benchmark, up to one per core at once, cache and branch simulation).
#   * gungraun-suite: gungraun = "0.20", `#[library_benchmark]` + `library_benchmark_group!` +
#     `main!`, run as `cargo bench --bench sim` (its defaults: one call per benchmark under
#     Callgrind, one benchmark at a time, cache simulation) and, as its docs offer, with
#     `--parallel=auto` (up to one benchmark per core). Needs `gungraun-runner` 0.20.0 on PATH
#     (`cargo install gungraun-runner --version 0.20.0`) or GUNGRAUN_RUNNER set to it.
#
# 1. Both suites are built (release, `cargo bench --no-run`) and each configuration runs once
#    untimed, so neither build time nor a first run's setup is counted.
# 2. RUNS rounds; in each, every configuration runs once, the order rotating from round to round,
#    each a whole `cargo bench` of the suite timed with /usr/bin/time (wall, user+sys CPU of
#    the process tree; a run during which cargo rebuilt, because sources changed meanwhile, is
#    flagged under the table). Instruction counts come from perfbench's JSON report (`--json`,
#    `benchmarks[].counters.instructions.estimate.point`) and gungraun's JSON lines
#    (`--output-format=json`, `profiles[0].data.total.metrics.Ir.values.new`).
# 3. The explanation: in the last round's profiles, the inclusive Ir of the workload function
#    (all `#[inline(never)]` in the library crate, so the same machine code in both suites)
#    is read with callgrind_annotate: from gungraun's callgrind.*.out and from perfbench's dumps
#    (the body's n- and 2n-iteration regions, differenced and divided by n). Each tool's count
#    minus it is what that tool's bracket adds: gungraun's is the benchmark function's own
#    instructions (its prologue, argument moves, `black_box`, epilogue and `ret`; the `call`
#    is in the caller, outside the toggle) and any drop inside it (`__rust_dealloc`), perfbench's
#    is the closure's glue left after its empty-body calibration.
#
# Everything lands in $BC_WORK (default /tmp/bench-compare-sim): target/ (kept between script
# runs, so a second run builds incrementally), runs/ (every run's stdout, stderr, report and
# time) and results/ (env.txt, summary.md). The tables are printed and kept in
# results/summary.md. Wall time on a shared 2-core VM drifts: read the ratios of one script run.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
runs=${RUNS:-3}
work=${BC_WORK:-/tmp/bench-compare-sim}
res=$work/results
out=$work/runs
configs=(perfbench gungraun gungraun-par)

rm -rf "$res" "$out"
mkdir -p "$res" "$out" "$work/target"
unset CARGO_BUILD_TARGET_DIR
export CARGO_TERM_COLOR=never NO_COLOR=1

log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }

command -v valgrind >/dev/null || { log "valgrind is not on PATH (apt-get install valgrind)"; exit 1; }
command -v callgrind_annotate >/dev/null || { log "callgrind_annotate is not on PATH (it comes with valgrind)"; exit 1; }
[ -x /usr/bin/time ] || { log "/usr/bin/time is missing (apt-get install time)"; exit 1; }
runner=${GUNGRAUN_RUNNER:-$(command -v gungraun-runner || true)}
gversion=$(sed -n '/^name = "gungraun"$/{n;s/^version = "\(.*\)"$/\1/p}' "$here/gungraun-suite/Cargo.lock")
if [ -z "$runner" ] || [ "$("$runner" --version 2>/dev/null)" != "gungraun-runner $gversion" ]; then
    log "gungraun-runner $gversion is needed: cargo install gungraun-runner --version $gversion"
    exit 1
fi

{
    echo "date: $(date -Is)"
    echo "runs: $runs of each configuration"
    echo "host: $(nproc) cpus, $(uname -r)"
    echo "rustc: $(rustc --version)"
    echo "cargo: $(cargo --version)"
    echo "valgrind: $(valgrind --version)"
    echo "gungraun: $gversion (library, gungraun-suite/Cargo.lock); runner: $("$runner" --version) at $runner"
    echo "perfbench git: $(git -C "$here/.." rev-parse --short HEAD 2>/dev/null)$(git -C "$here/.." diff --quiet HEAD -- perfbench perfbench-macros 2>/dev/null || echo ' + uncommitted changes')"
} >"$res/env.txt"

suite_dir() { case $1 in perfbench) echo "$here/simsuite-perfbench" ;; *) echo "$here/gungraun-suite" ;; esac; }
target_of() { case $1 in perfbench) echo "$work/target/perfbench" ;; *) echo "$work/target/gungraun" ;; esac; }

# run_one CONFIG PREFIX: one whole `cargo bench` of CONFIG's suite, timed. Writes PREFIX.out,
# PREFIX.err, PREFIX.time ("wall user sys" in seconds) and PREFIX.json (perfbench's report) or
# PREFIX.jsonl (gungraun's JSON lines).
run_one() {
    local config=$1 prefix=$2 args stdout=$2.out
    case $config in
        perfbench) args=(--simulate --json "$prefix.json") ;;
        gungraun) args=(--output-format=json); stdout=$prefix.jsonl ;;
        gungraun-par) args=(--output-format=json --parallel=auto); stdout=$prefix.jsonl ;;
    esac
    (
        cd "$(suite_dir "$config")"
        CARGO_TARGET_DIR=$(target_of "$config") GUNGRAUN_RUNNER=$runner \
            /usr/bin/time -f '%e %U %S' -o "$prefix.time" \
            cargo bench --bench sim -- "${args[@]}" >"$stdout" 2>"$prefix.err"
    ) || { log "$config failed: see $prefix.err"; tail -n 20 "$prefix.err" >&2; return 1; }
}

log "build both suites (not timed)"
(cd "$here/simsuite-perfbench" && CARGO_TARGET_DIR=$work/target/perfbench cargo bench --quiet --bench sim --no-run)
(cd "$here/gungraun-suite" && CARGO_TARGET_DIR=$work/target/gungraun cargo bench --quiet --locked --bench sim --no-run)
for c in "${configs[@]}"; do
    log "warm-up run: $c (not timed)"
    run_one "$c" "$out/warmup-$c"
done

for r in $(seq 1 "$runs"); do
    n=${#configs[@]}
    for i in $(seq 0 $((n - 1))); do
        c=${configs[$(((i + r - 1) % n))]}
        run_one "$c" "$out/$c-$r"
        log "run $r/$runs: $c $(cut -d' ' -f1 "$out/$c-$r.time") s"
    done
done

log "summary"
python3 - "$work" "$runs" "${configs[@]}" >"$res/summary.md" <<'PY'
import glob, json, os, re, statistics, subprocess, sys

work, runs, configs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
out = os.path.join(work, "runs")
# benchmark -> the workload function it calls (None: no workload, the harness alone)
WORKLOADS = {"empty": None, "constant": None, "fib_20": "fib", "sort_1000": "sort",
             "fnv1a_4k": "fnv1a", "siphash_4k": "siphash", "parse_csv": "parse_csv"}

def perfbench_counts(path):
    d = json.load(open(path))
    res = {}
    for b in d["benchmarks"]:
        c = b["counters"]["instructions"]
        res[b["name"]] = (c["estimate"]["point"], c["per_iteration"])
    return res

def gungraun_counts(path):
    res = {}
    for line in open(path):
        d = json.loads(line)
        res[d["function_name"]] = d["profiles"][0]["data"]["total"]["metrics"]["Ir"]["values"]["new"]
    return res

def fmt(x):
    if x is None:
        return "n/a"
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.2f}"

pb = [perfbench_counts(f"{out}/perfbench-{r}.json") for r in range(1, runs + 1)]
gg = [gungraun_counts(f"{out}/gungraun-{r}.jsonl") for r in range(1, runs + 1)]
gp = [gungraun_counts(f"{out}/gungraun-par-{r}.jsonl") for r in range(1, runs + 1)]
names = [n for n in WORKLOADS if n in pb[0]] + [n for n in pb[0] if n not in WORKLOADS]
fixed = gg[0].get("empty")

print(f"## Instructions per benchmark (run 1 of {runs})\n")
print("perfbench: `--simulate`, estimate of `instructions` per iteration (bracket calibrated away).")
print("gungraun: `Instructions` (Callgrind Ir) of one call of the benchmark function.")
print(f"Fixed cost = gungraun's count for `empty` ({fmt(fixed)}).\n")
print("| benchmark | perfbench instructions | gungraun instructions | difference (gungraun - perfbench) | difference - fixed cost | identical across runs (perfbench / gungraun) |")
print("| --- | ---: | ---: | ---: | ---: | --- |")
for n in names:
    p, g = pb[0][n][0], gg[0].get(n)
    same_p = all(x[n][0] == p and len(set(x[n][1])) == 1 for x in pb)
    same_g = all(x.get(n) == g for x in gg + gp)
    diff = None if g is None else g - p
    print(f"| {n} | {fmt(p)} | {fmt(g)} | {fmt(diff)} | {fmt(None if diff is None or fixed is None else diff - fixed)} "
          f"| {'yes' if same_p else 'NO'} / {'yes' if same_g else 'NO'} |")
print()
print(f"Identical across runs: perfbench's estimate and every per-iteration sample of every run "
      f"the same; gungraun's count the same in all {2 * runs} runs (serial and `--parallel=auto`).\n")

# ---- wall times
def times(c):
    t = [tuple(map(float, open(f"{out}/{c}-{r}.time").read().split()[:3])) for r in range(1, runs + 1)]
    return [w for w, _, _ in t], [u + s for _, u, s in t]
label = {"perfbench": "perfbench `--simulate`", "gungraun": "gungraun (default: serial)",
         "gungraun-par": "gungraun `--parallel=auto`"}
wall, cpu = {c: times(c)[0] for c in configs}, {c: times(c)[1] for c in configs}
ref = "gungraun"
print(f"## Suite wall time: one whole `cargo bench` of the suite (7 benchmarks), median of {runs}\n")
print("| suite | wall (s), median [min, max] | CPU user+sys (s), median | wall / gungraun's | CPU / gungraun's |")
print("| --- | ---: | ---: | ---: | ---: |")
for c in configs:
    mw, mc = statistics.median(wall[c]), statistics.median(cpu[c])
    print(f"| {label[c]} | {mw:.2f} [{min(wall[c]):.2f}, {max(wall[c]):.2f}] | {mc:.2f} "
          f"| {mw / statistics.median(wall[ref]):.2f} | {mc / statistics.median(cpu[ref]):.2f} |")
rebuilt = [f"{c}-{r}" for c in configs for r in range(1, runs + 1)
           if "Compiling " in open(f"{out}/{c}-{r}.err").read()]
if rebuilt:
    print(f"WARNING: cargo rebuilt during timed runs {', '.join(rebuilt)} (sources changed "
          "during the script): their times include a build.\n")
print()

# ---- explanation from the last run's profiles
def inclusive(path, fns):
    """Inclusive Ir of each function named in fns (exact name, outermost call) in a Callgrind file.
    perfbench's dumps keep a function's costs apart per chain of callers (--separate-callers:
    `f'caller'...`): its chains are added up, but for the deeper levels of a recursion (`f'2`)."""
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--show=Ir", "--threshold=100", path],
                          capture_output=True, text=True, check=True).stdout
    res = dict.fromkeys(fns, 0)
    for line in text.splitlines():
        m = re.match(r"^\s*([\d,]+)\s+(?:\([^)]*\)\s+)?[^:\s]*:(.*?) \[", line)
        if not m:
            continue
        parts = m.group(2).split("'")
        if parts[0] in res and not (len(parts) > 1 and parts[1].isdigit()):
            res[parts[0]] += int(m.group(1).replace(",", ""))
    return res

# gungraun: each benchmark's profile, in the output_dir its JSON line names
gprof = {}
for line in open(f"{out}/gungraun-{runs}.jsonl"):
    d = json.loads(line)
    od = d["output_dir"]
    if not os.path.isabs(od):
        od = os.path.join(d.get("project_root") or "", od)
    files = [f for f in glob.glob(os.path.join(od, "callgrind.*.out")) if not f.endswith(".old")]
    if files:
        gprof[d["function_name"]] = files[0]
# perfbench: the dumps of each benchmark's child, named by the --exact argument on their cmd line
pprof = {}
for res_file in glob.glob(os.path.join(work, "target/perfbench/perfbench/simulate/sim/*/result.json")):
    bdir = os.path.dirname(res_file)
    cmd = next((l for l in open(os.path.join(bdir, "cg.out.1")) if l.startswith("cmd:")), "")
    name = cmd.split()[-1].split("/")[-1]
    pprof[name] = (bdir, json.load(open(res_file))["samples"][0])

print("## Where the difference comes from (profiles of the last run)\n")
print("W = inclusive Ir of the workload function (one call), read from each tool's profile. "
      "gungraun's count = W + the benchmark function's own instructions + drops inside it; "
      "perfbench's = W + the closure's glue left after calibration.\n")
print("| benchmark | W in gungraun's profile | W in perfbench's dumps | perfbench - W | gungraun - W | of which dealloc (drop inside the call) | of which the function itself |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for n in names:
    wl = WORKLOADS.get(n)
    gfn = f"gungraun_suite::workloads::{wl}" if wl else None
    pfn = f"simsuite_perfbench::{wl}" if wl else None
    wg = dealloc = wp = None
    if n in gprof:
        got = inclusive(gprof[n], [x for x in (gfn, "__rustc::__rust_dealloc") if x])
        wg = got.get(gfn, 0) if gfn else 0
        dealloc = got["__rustc::__rust_dealloc"]
    if n in pprof:
        bdir, s = pprof[n]
        if pfn:
            a = inclusive(os.path.join(bdir, f"cg.out.{s['body'][0]['dump']}"), [pfn])[pfn]
            b = inclusive(os.path.join(bdir, f"cg.out.{s['body'][1]['dump']}"), [pfn])[pfn]
            wp = (b - a) / s["n"]
        else:
            wp = 0
    p, g = pb[-1][n][0], gg[-1].get(n)
    own = None if None in (g, wg, dealloc) else g - wg - dealloc
    print(f"| {n} | {fmt(wg)} | {fmt(wp)} | {fmt(None if wp is None else p - wp)} "
          f"| {fmt(None if None in (g, wg) else g - wg)} | {fmt(dealloc)} | {fmt(own)} |")
print()
PY
cat "$res/summary.md"
log "results in $res (runs in $out)"
