#!/usr/bin/env python3
"""How many fresh processes confirming a regression needs, replayed on real runs.

    PAIR_FLAGS=--no-confirm SLOWDOWNS="0 0.10" VERDICT_WORK=/tmp/perfbench-verdict \\
        bash bench-compare/verdict.sh
    python3 bench-compare/confirm_replay.py /tmp/perfbench-verdict/runs [--near 0.5] [MORE_RUNS...]

Every run of bench-compare/verdict.sh is one process of the build it measured (its own rounds,
not the fresh processes a default run adds): with PAIR_FLAGS two per run. Per benchmark, the
processes at slowdown 0 are the pool of unchanged code, those at each slowdown S > 0 the pool of
the slowed build. Each trial draws a baseline process and a new one (distinct, at random) and
judges them (with `--base-runs B`, a baseline saved from B processes) as stats/rounds.rs
`compare_runs` judges wall time (the ratio of the sides' floors,
each the smallest round figure of its processes, against max(8%, 0.5 x the root mean square of
the sides' median IQR of ln round figures)); while the new side reads regressed and fewer than
MOST fresh processes of each side were drawn, it draws one more for each side and judges again
over all (runner/confirm.rs with MOST_AGAIN = MOST); with `--near F`, also while it reads slower by
more than F times the threshold (a near miss, runner/confirm.rs NEAR), from the first process
on. Several runs/ directories are pooled. Printed per benchmark, MOST and near-miss rule: the
share of trials of unchanged code judged regressed (false alarms), and of each slowdown caught.

Standard library only.
"""

import argparse
import glob
import math
import os
import random
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from noise_fit import load, run_figures  # noqa: E402

THRESHOLD = 0.08
NOISE_FACTOR = 0.5


def judged(base, new):
    """The ratio of the floors of the processes `new` and `base` (run_figures each), and the
    threshold compare_runs holds it against."""
    floor_b, floor_n = min(r[0] for r in base), min(r[0] for r in new)
    spread_b = statistics.median(r[1] for r in base)
    spread_n = statistics.median(r[1] for r in new)
    limit = max(THRESHOLD, NOISE_FACTOR * math.sqrt(0.5 * (spread_b ** 2 + spread_n ** 2)))
    return math.exp(floor_n - floor_b), limit


def trial(rng, unchanged, slowed, most, base_runs, near=None):
    """One comparison, against a baseline saved from `base_runs` processes, confirmed while it
    reads regressed (or, with `near`, slower by more than `near` times the threshold: a near
    miss) by one more process of the new build at a time, and one of the baseline's build
    whenever the baseline then has fewer, up to `most` fresh processes of the new build:
    whether it ends regressed. `slowed` is None for unchanged code (the new side drawn from
    `unchanged` too)."""
    n_base = max(base_runs, most + 1)
    if slowed is None:
        drawn = rng.sample(unchanged, min(len(unchanged), n_base + most + 1))
        base_pool, new_pool = drawn[:n_base], drawn[n_base:]
    else:
        base_pool = rng.sample(unchanged, min(len(unchanged), n_base))
        new_pool = rng.sample(slowed, min(len(slowed), most + 1))
    k = 1
    while True:
        ratio, limit = judged(base_pool[: max(base_runs, k)], new_pool[:k])
        verdict = ratio > 1 + limit
        again = verdict or (near is not None and ratio > 1 + near * limit)
        if not again or k > most or k >= len(new_pool):
            return verdict
        k += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("directories", nargs="+",
                    help="runs/ directories of verdict.sh work directories (pooled)")
    ap.add_argument("--most", default="0,1,2,3,4", help="fresh processes a side at most")
    ap.add_argument("--trials", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--base-runs", type=int, default=1, help="processes the baseline was saved from")
    ap.add_argument("--near", type=float, action="append",
                    help="also confirm a near miss: slower by more than this share of the threshold "
                         "(runner/confirm.rs NEAR); repeatable, each a row")
    args = ap.parse_args()
    pools, slowdowns = {}, set()
    for directory in args.directories:
        names = {os.path.basename(p) for p in glob.glob(os.path.join(directory, "*.json"))}
        found = {m.group(1) for n in names if (m := re.fullmatch(r"(?:pair-)?([\d.]+)-\d+\.json", n))}
        slowdowns |= found
        for s in found:
            for prefix in (s, f"pair-{s}"):
                if any(n.startswith(prefix + "-") for n in names):
                    for bench, runs in load(directory, prefix).items():
                        pools.setdefault(bench, {}).setdefault(s, []).extend(
                            run_figures(r) for r in runs)
    slowdowns = sorted(slowdowns, key=float)
    if "0" not in slowdowns:
        sys.exit(f"no runs of unchanged code (0-R.json) in {args.directories}")
    mosts = [int(m) for m in args.most.split(",")]
    nears = [None] + (args.near or [])
    shown = [s for s in slowdowns if s != "0"]
    print("| benchmark | processes (unchanged / slowed) | fresh processes a side, at most | "
          "near misses | false alarms | "
          + " | ".join(f"{float(s) * 100:.0f}% caught" for s in shown) + " |")
    print("| --- | --- | ---: | --- | ---: | " + " | ".join("---:" for _ in shown) + " |")
    for bench in sorted(pools):
        unchanged = pools[bench]["0"]
        sizes = " / ".join(str(len(pools[bench].get(s, []))) for s in slowdowns)
        for most in mosts:
            for near in nears if most else [None]:
                rng = random.Random(args.seed)
                cells = []
                for s in ["0"] + shown:
                    slowed = None if s == "0" else pools[bench].get(s)
                    if s != "0" and not slowed:
                        cells.append("")
                        continue
                    hits = sum(trial(rng, unchanged, slowed, most, args.base_runs, near)
                               for _ in range(args.trials))
                    cells.append(f"{100 * hits / args.trials:.1f}%")
                shown_near = "no" if near is None else f"over {near:g} x threshold"
                print(f"| {bench} | {sizes} | {most} | {shown_near} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
