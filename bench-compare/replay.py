#!/usr/bin/env python3
"""Replays compare_rounds' verdict on wall time over every pair of real runs, with the three
spread measures of stats/rounds.rs (`Spread::Iqr`: 0.5 x the IQR of the ln round figures;
`Spread::LowQuarter`: 1 x their 25th percentile minus their smallest; `Spread::Level`, the
default, `level iqr` here: 0.5 x the IQR of the floor's level alone, noise_fit.level_iqr; the
guide's validation page, "The floor's level").

    python3 bench-compare/replay.py /tmp/perfbench-noise/runs:0 \\
        /tmp/perfbench-pairs/runs:plain-0:plain-0.10 /tmp/perfbench-pairs-busy/runs:0:0.10

Each argument is DIR:UNCHANGED[:SLOWED], the report prefixes of bench-compare/verdict.sh or
pairs.sh runs (`DIR/UNCHANGED-R.json`). False alarms: every ordered pair of two different
unchanged runs, flagged either way. Caught: every unchanged run as the baseline against every
slowed run, judged regressed; without SLOWED, against every other unchanged run with its
samples times 1.1. The rule is compare_rounds' for a time counter: the ratio of the floors
(each run's smallest sample) against max(8%, the pooled spread x its factor); the root mean
square of the two runs' spreads pools them. With `level iqr` (`Spread::Level`) this is what
`perfbench compare` of two single runs says.

`BASE_RUNS=1,3,5` (default 1) also replays baselines saved from several runs of one build
(`--save-baseline` repeated; stats/rounds.rs `compare_runs`): each window of K consecutive
unchanged runs is a baseline, whose floor is the smallest of its runs' and whose spread is the
median of theirs; false alarms are counted against every unchanged run outside the window,
and a slowdown against every slowed run (or every run outside the window times 1.1).

Standard library only.
"""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from noise_fit import RULES, load, percentile, run_figures  # noqa: E402

THRESHOLD = 0.08


def median(values):
    return percentile(values, 50)


def flagged(base, new, rule, scale=1.0):
    """Whether compare_runs flags `new` (its samples times `scale`) against `base`, given as
    run_figures: `base` one run's or a list of runs'; +1 regressed, -1 improved, 0
    unchanged."""
    runs = base if isinstance(base, list) else [base]
    pooled = (min(r[0] for r in runs), *(median([r[i] for r in runs]) for i in (1, 2, 3)))
    limit = max(THRESHOLD, RULES[rule](pooled, new))
    ratio = scale * math.exp(new[0] - pooled[0])
    return 1 if ratio > 1 + limit else -1 if ratio < 1 - limit else 0


def replay(unchanged, slowed, k=1):
    """{rule: (false alarms, pairs, caught, pairs)} for one benchmark, with baselines of `k`
    consecutive unchanged runs (k = 1: every ordered pair)."""
    u = [run_figures(r) for r in unchanged]
    s = [run_figures(r) for r in slowed] if slowed else None
    out = {}
    for rule in RULES:
        alarms = pairs = caught = total = 0
        for w in range(len(u) - k + 1):
            base = u[w:w + k]
            others = u[:w] + u[w + k:]
            alarms += sum(flagged(base, b, rule) != 0 for b in others)
            pairs += len(others)
            if s is not None:
                caught += sum(flagged(base, b, rule) == 1 for b in s)
                total += len(s)
            else:
                caught += sum(flagged(base, b, rule, 1.1) == 1 for b in others)
                total += len(others)
        out[rule] = (alarms, pairs, caught, total)
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    ks = [int(k) for k in os.environ.get("BASE_RUNS", "1").split(",")]
    print("| set | benchmark | rule | baseline runs | false alarms | 10% slower caught |")
    print("| --- | --- | --- | ---: | ---: | ---: |")
    for arg in sys.argv[1:]:
        directory, unchanged, *rest = arg.split(":")
        runs = load(directory, unchanged)
        slow_runs = load(directory, rest[0]) if rest else {}
        label = f"{directory} ({unchanged}{' / ' + rest[0] if rest else ', x1.1'})"
        for bench in sorted(runs):
            for k in ks:
                result = replay(runs[bench], slow_runs.get(bench), k)
                for rule, (a, p, c, t) in result.items():
                    print(f"| {label} | {bench} | {rule} | {k} | {a}/{p} ({100 * a / p:.1f}%) | "
                          f"{c}/{t} ({100 * c / t:.1f}%) |")


if __name__ == "__main__":
    main()
