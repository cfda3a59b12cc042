#!/usr/bin/env python3
"""Summary of bench-compare/stopping.sh's runs directory (markdown on stdout).

    stopping.py RUNS_DIR "name:flags;name:flags;..." [DIVAN_FINE]

Reads divan-i.out/.time and, for each variant, NAME-i.json/.time. Per variant: the median
suite run time, its median ratio to divan's in the same rounds, the rounds each benchmark took
(median), and per benchmark the run-to-run MAD (relative to the median, %) of the headline
(perfbench `estimate.point` of wall-time, divan's median) and of perfbench's floor (the
smallest sample: what the verdict compares). With divanfine-i.out (divan run with
`--sample-size DIVAN_FINE`) a second divan row; and divan's iterations per sample, with the
clock's step measured here, give the grid its per-iteration figures lie on.
"""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from summarize import BENCHES, divan_table, perfbench_point  # noqa: E402


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def rel_mad(xs):
    """MAD from the median, relative to the median, in %."""
    if len(xs) < 2:
        return float("nan")
    m = med(xs)
    return 100.0 * med([abs(x - m) for x in xs]) / m


def four_digits(xs):
    """Each value to 4 significant digits, as divan prints it."""
    return [float(f"{x:.4g}") for x in xs]


def seconds(path):
    try:
        return float(open(path).read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def mad_difference(ours, theirs, resamples=2000):
    """90% percentile-bootstrap interval of rel_mad(ours) - rel_mad(theirs), each resampled
    on its own (nan when either has fewer than two values)."""
    import random
    if len(ours) < 2 or len(theirs) < 2:
        return float("nan"), float("nan")
    rng = random.Random(1)
    diffs = sorted(rel_mad(rng.choices(ours, k=len(ours))) -
                   rel_mad(rng.choices(theirs, k=len(theirs))) for _ in range(resamples))
    return diffs[int(0.05 * resamples)], diffs[int(0.95 * resamples) - 1]


def clock_step():
    """The monotonic clock's step in ns: the largest of 1000, 100, 10 dividing (nearly) every
    difference between successive readings (1 where none does)."""
    import time
    reads = [time.monotonic_ns() for _ in range(20000)]
    deltas = [b - a for a, b in zip(reads, reads[1:]) if b > a]
    for step in (1000, 100, 10):
        # within 1 ns of a multiple of step: the hypervisor's clock adds a 1 ns carry
        if sum(1 for d in deltas if d % step <= 1) >= 0.95 * len(deltas):
            return float(step)
    return 1.0


def main():
    runs, variants = sys.argv[1], [v.split(":", 1)[0] for v in sys.argv[2].split(";") if v]
    rounds = sorted({int(f.split("-")[1].split(".")[0]) for f in os.listdir(runs)
                     if f.startswith("divan-") and f.endswith(".time")})
    divan_t = {i: seconds(os.path.join(runs, f"divan-{i}.time")) for i in rounds}
    heads = {"divan": {b: [] for b in BENCHES}}
    fine = len(sys.argv) > 3 and sys.argv[3] != "0" and \
        os.path.exists(os.path.join(runs, f"divanfine-{rounds[0]}.out"))
    fine_name = f"divan --sample-size {sys.argv[3]}" if fine else None
    per_sample = {b: [] for b in BENCHES}
    print(f"# The stopping rule on the peer suite: {len(rounds)} alternating runs\n")
    print("| harness | suite run time (median) | against divan | rounds taken (median, per benchmark) |")
    print("| --- | ---: | ---: | --- |")
    print(f"| divan 0.1 | {med([t for t in divan_t.values() if t]):.3f} s | 1 | |")
    for i in rounds:
        table = divan_table(os.path.join(runs, f"divan-{i}.out"))
        for b in BENCHES:
            if b in table:
                heads["divan"][b].append(table[b]["median"])
                per_sample[b].append(table[b]["iters"] / table[b]["samples"])
        if fine:
            table = divan_table(os.path.join(runs, f"divanfine-{i}.out"))
            heads.setdefault(fine_name, {b: [] for b in BENCHES})
            for b in BENCHES:
                if b in table:
                    heads[fine_name][b].append(table[b]["median"])
    floors = {}
    for v in variants:
        heads[v] = {b: [] for b in BENCHES}
        floors[v] = {b: [] for b in BENCHES}
        taken = {b: [] for b in BENCHES}
        times, ratios = [], []
        for i in rounds:
            t = seconds(os.path.join(runs, f"{v}-{i}.time"))
            if t is not None:
                times.append(t)
                if divan_t.get(i):
                    ratios.append(t / divan_t[i])
            p = os.path.join(runs, f"{v}-{i}.json")
            if not os.path.exists(p):
                continue
            for bench in json.load(open(p))["benchmarks"]:
                w = bench.get("counters", {}).get("wall-time")
                if bench["name"] not in heads[v] or not w:
                    continue
                heads[v][bench["name"]].append(perfbench_point(w["estimate"]))
                floors[v][bench["name"]].append(w["estimate"]["min"])
                taken[bench["name"]].append(len(w.get("rounds") or [1]))
        print(f"| perfbench `{v}` | {med(times):.3f} s | {med(ratios):.1f}x | " +
              " / ".join(f"{med(taken[b]):.0f}" for b in BENCHES) + " |")
    print("\n## Run-to-run MAD of the headline (relative, %)\n")
    print("| harness | " + " | ".join(BENCHES) + " |")
    print("| --- |" + " ---: |" * len(BENCHES))
    harnesses = ["divan"] + ([fine_name] if fine else []) + variants
    for h in harnesses:
        print(f"| {h} | " + " | ".join(f"{rel_mad(heads[h][b]):.2f}" for b in BENCHES) + " |")
    print("\n## The same, each headline to 4 significant digits (as divan prints it)\n")
    print("| harness | " + " | ".join(BENCHES) + " |")
    print("| --- |" + " ---: |" * len(BENCHES))
    for h in harnesses:
        print(f"| {h} | " + " | ".join(f"{rel_mad(four_digits(heads[h][b])):.2f}"
                                       for b in BENCHES) + " |")
    print("\n## Each variant's 4-digit MAD less divan's, in points, with a 90% bootstrap interval\n")
    print("A MAD over ten runs is itself noisy; an interval that holds 0 is no difference this set "
          "can show (2,000 resamples of each harness's runs, seed 1).\n")
    print("| variant | " + " | ".join(BENCHES) + " |")
    print("| --- |" + " ---: |" * len(BENCHES))
    for v in variants:
        cells = []
        for b in BENCHES:
            ours, theirs = four_digits(heads[v][b]), four_digits(heads["divan"][b])
            low, high = mad_difference(ours, theirs)
            cells.append(f"{rel_mad(ours) - rel_mad(theirs):+.2f} [{low:+.2f}, {high:+.2f}]")
        print(f"| {v} | " + " | ".join(cells) + " |")
    step = clock_step()
    print(f"\ndivan's default: iterations per sample (median) and the grid its per-iteration "
          f"figures lie on, the clock's step ({step:.0f} ns here) over them: " +
          ", ".join(f"{b} {med(per_sample[b]):.0f} ({step / med(per_sample[b]):.2g} ns)"
                    for b in BENCHES if per_sample[b]))
    s50 = [t for t in (seconds(os.path.join(runs, f)) for f in sorted(os.listdir(runs))
                       if f.startswith("suite50-") and f.endswith(".time")) if t is not None]
    if s50:
        print(f"\nsuite50 (50 benchmarks), default run: {med(s50):.2f} s (median of {len(s50)}: "
              + ", ".join(f"{t:.2f}" for t in s50) + ")")
    print("\n## Run-to-run MAD of perfbench's floor (relative, %)\n")
    print("| variant | " + " | ".join(BENCHES) + " |")
    print("| --- |" + " ---: |" * len(BENCHES))
    for v in variants:
        print(f"| {v} | " + " | ".join(f"{rel_mad(floors[v][b]):.2f}" for b in BENCHES) + " |")


if __name__ == "__main__":
    main()
