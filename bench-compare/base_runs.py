#!/usr/bin/env python3
"""Re-judges bench-compare/verdict.sh's runs against its baseline of several runs, whole and
one run at a time, with `perfbench compare` itself (verdict.sh calls it when BASE_RUNS > 1).

    python3 bench-compare/base_runs.py WORK PERFBENCH

WORK is verdict.sh's $VERDICT_WORK (its baseline `ref` in WORK/target/perfbench/baselines/ref/,
its runs in WORK/runs/SLOWDOWN-R.json); PERFBENCH the `perfbench` tool. Each earlier run of the
baseline is kept as its round figures (each round's smallest per-iteration value); a run alone
is rebuilt from them as rounds of one sample each, which gives `perfbench compare` the same
floor, spread and interval as the run's own samples did. Each cell: wall time judged regressed
(at 0%: judged either way, every one a false alarm), out of the runs. Written to
WORK/base_runs.md too.

Standard library only.
"""

import copy
import glob
import json
import os
import subprocess
import sys

BENCHES = ["verdict/compute", "verdict/memory", "verdict/sort"]


def alone(base, k):
    """The baseline document with only its run `k` (0: its own, 1..: its earlier runs, newest
    first)."""
    doc = copy.deepcopy(base)
    doc.pop("earlier_runs", None)
    if k == 0:
        return doc
    earlier = base["earlier_runs"][k - 1]["benchmarks"]
    for b in doc["benchmarks"]:
        for name, c in b["counters"].items():
            figures = earlier.get(b["id"], {}).get(name)
            if figures is not None:
                c["per_iteration"] = figures
                c["rounds"] = [1] * len(figures)
                c["iterations"] = [1] * len(figures)
    return doc


def floor(doc, bench):
    c = next(b for b in doc["benchmarks"] if b["id"] == bench)["counters"]["wall-time"]
    return min(x for x in c["per_iteration"] if x is not None)


def judge(perfbench, base_dir, runs, slowdown):
    """{bench: count} of runs whose wall time was judged regressed (any verdict at 0%)."""
    counts = dict.fromkeys(BENCHES, 0)
    for path in runs:
        out = subprocess.run([perfbench, "compare", base_dir, path, "--format", "json"],
                             capture_output=True, text=True, check=False)
        if out.returncode != 0:
            sys.exit(f"perfbench compare {base_dir} {path}: {out.stderr.strip()}")
        for b in json.loads(out.stdout)["suites"][0]["benchmarks"]:
            if b["id"] not in counts:
                continue
            v = {c["name"]: (c.get("change") or {}).get("verdict") for c in b["counters"]}
            wall = v.get("wall-time")
            counts[b["id"]] += wall in ("regressed", "improved") if slowdown == 0 else wall == "regressed"
    return counts


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    work, perfbench = sys.argv[1], sys.argv[2]
    # The baseline as saved (verdict.sh keeps a copy: a run that confirms a regression adds to
    # the baseline itself).
    saved = os.path.join(work, "ref-saved")
    if not os.path.isdir(saved):
        saved = os.path.join(work, "target/perfbench/baselines/ref")
    [path] = glob.glob(os.path.join(saved, "*.json"))
    with open(path) as f:
        base = json.load(f)
    n_runs = 1 + len(base.get("earlier_runs", []))
    slowdowns = sorted({os.path.basename(p).rsplit("-", 1)[0]
                        for p in glob.glob(os.path.join(work, "runs/[0-9]*.json"))}, key=float)
    sides = [(f"all {n_runs} runs", base)]
    sides += [(f"run {k + 1} alone", alone(base, k)) for k in range(n_runs)]
    lines = [f"# The runs against the baseline of {n_runs} runs, and against each of its runs alone "
             "(newest first)\n",
             "| baseline | memory floor (ns) | " + " | ".join(
                 f"{float(s) * 100:.0f}%: " + " / ".join(b.split("/")[1] for b in BENCHES)
                 for s in slowdowns) + " |",
             "| --- | ---: | " + " | ".join("---:" for _ in slowdowns) + " |"]
    scratch = os.path.join(work, "base_runs")
    for i, (label, doc) in enumerate(sides):
        d = os.path.join(scratch, str(i))
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, os.path.basename(path)), "w") as f:
            json.dump(doc, f)
        memory = min([floor(doc, "verdict/memory")] + [
            min(r["benchmarks"]["verdict/memory"]["wall-time"])
            for r in doc.get("earlier_runs", [])])
        cells = []
        for s in slowdowns:
            runs = glob.glob(os.path.join(work, f"runs/{s}-*.json"))
            c = judge(perfbench, d, runs, float(s))
            cells.append(" / ".join(f"{c[b]}" for b in BENCHES) + f" of {len(runs)}")
        lines.append(f"| {label} | {memory:.0f} | " + " | ".join(cells) + " |")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    with open(os.path.join(work, "base_runs.md"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
