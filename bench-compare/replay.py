#!/usr/bin/env python3
"""Replays compare_rounds' verdict on wall time over every pair of real runs, with both spread
measures of stats/rounds.rs (`Spread::Iqr`, the default: 0.5 x the IQR of the ln round
figures; `Spread::LowQuarter`: 1 x their 25th percentile minus their smallest).

    python3 bench-compare/replay.py /tmp/perfbench-noise/runs:0 \\
        /tmp/perfbench-pairs/runs:plain-0:plain-0.10 /tmp/perfbench-pairs-busy/runs:0:0.10

Each argument is DIR:UNCHANGED[:SLOWED], the report prefixes of bench-compare/verdict.sh or
pairs.sh runs (`DIR/UNCHANGED-R.json`). False alarms: every ordered pair of two different
unchanged runs, flagged either way. Caught: every unchanged run as the baseline against every
slowed run, judged regressed; without SLOWED, against every other unchanged run with its
samples times 1.1. The rule is compare_rounds' for a time counter: the ratio of the floors
(each run's smallest sample) against max(8%, the pooled spread x its factor); the root mean
square of the two runs' spreads pools them. With `Spread::Iqr` this is what `perfbench
compare` says (bench-compare/pairs.sh's summary.md counts the same pairs).

Standard library only.
"""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from noise_fit import RULES, load, run_figures  # noqa: E402

THRESHOLD = 0.08


def flagged(base, new, rule, scale=1.0):
    """Whether compare_rounds flags `new` (its samples times `scale`) against `base`, given
    each as run_figures; +1 regressed, -1 improved, 0 unchanged."""
    limit = max(THRESHOLD, RULES[rule](base, new))
    ratio = scale * math.exp(new[0] - base[0])
    return 1 if ratio > 1 + limit else -1 if ratio < 1 - limit else 0


def replay(unchanged, slowed):
    """{rule: (false alarms, pairs, caught, pairs)} for one benchmark."""
    u = [run_figures(r) for r in unchanged]
    out = {}
    for rule in RULES:
        alarms = sum(flagged(a, b, rule) != 0 for i, a in enumerate(u) for j, b in enumerate(u)
                     if i != j)
        pairs = len(u) * (len(u) - 1)
        if slowed:
            s = [run_figures(r) for r in slowed]
            caught = sum(flagged(a, b, rule) == 1 for a in u for b in s)
            total = len(u) * len(s)
        else:
            caught = sum(flagged(a, b, rule, 1.1) == 1 for i, a in enumerate(u)
                         for j, b in enumerate(u) if i != j)
            total = pairs
        out[rule] = (alarms, pairs, caught, total)
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print("| set | benchmark | rule | false alarms | 10% slower caught |")
    print("| --- | --- | --- | ---: | ---: |")
    for arg in sys.argv[1:]:
        directory, unchanged, *rest = arg.split(":")
        runs = load(directory, unchanged)
        slow_runs = load(directory, rest[0]) if rest else {}
        label = f"{directory} ({unchanged}{' / ' + rest[0] if rest else ', x1.1'})"
        for bench in sorted(runs):
            for rule, (a, p, c, t) in replay(runs[bench], slow_runs.get(bench)).items():
                print(f"| {label} | {bench} | {rule} | {a}/{p} ({100 * a / p:.1f}%) | "
                      f"{c}/{t} ({100 * c / t:.1f}%) |")


if __name__ == "__main__":
    main()
