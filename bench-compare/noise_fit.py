#!/usr/bin/env python3
"""Fits the noise model of perfbench/src/stats/simulation.rs to runs of unchanged code.

    VERDICT_WORK=/tmp/perfbench-noise RUNS=21 SLOWDOWNS=0 bash bench-compare/verdict.sh \\
        && python3 bench-compare/noise_fit.py /tmp/perfbench-noise/runs

Reads every `0-R.json` report in the directory (the runs at slowdown 0; `--slowdown S` picks
another prefix), takes each benchmark's wall-time `per_iteration` samples split into rounds by
`rounds`, and derives per benchmark every field of simulation.rs's `Profile`:

    sample  = true cost * run drift * round state * spike * exp(sample_noise * N(0, 1))

It prints one Rust `Profile` literal per benchmark, a table of the fitted parameters, and a check
of the fit: figures that the verdict depends on, measured on the runs and on runs simulated from
the fitted profile with the same rule (floor ratio beyond max(8%, 0.5 x pooled IQR of the ln round
minima); see perfbench/src/stats/rounds.rs).

Standard library only. The estimators (see `fit`) are medians and MADs, so that the few wild
values of a shared machine do not drive them. The round states are read from each round's
median (default) or, with `--round-figure min`, from its smallest sample, the figure the verdict
compares: on a machine whose disturbances hit single samples rather than whole rounds the two
fits differ, and the check shows which one reproduces what the verdict sees.
"""

import argparse
import glob
import json
import math
import os
import random
import re
import statistics
import sys

MAD_TO_SIGMA = 1.4826  # MAD x 1.4826 estimates sigma for normal data
COUNTER = "wall-time"


def robust_sigma(values):
    """MAD about the median x 1.4826 (0 for fewer than two values)."""
    if len(values) < 2:
        return 0.0
    m = statistics.median(values)
    return MAD_TO_SIGMA * statistics.median(abs(v - m) for v in values)


def percentile(values, p):
    """Linear interpolation between closest ranks (R type 7, as perfbench's Percentiles)."""
    s = sorted(values)
    if not s:
        return float("nan")
    rank = p / 100 * (len(s) - 1)
    lo = math.floor(rank)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (rank - lo) * (s[hi] - s[lo])


def load(directory, slowdown):
    """{benchmark id: [run, ...]}, each run a list of rounds, each round its samples (in order)."""
    paths = glob.glob(os.path.join(directory, f"{slowdown}-*.json"))
    paths.sort(key=lambda p: int(re.search(r"-(\d+)\.json$", p).group(1)))
    if not paths:
        sys.exit(f"no {slowdown}-*.json reports in {directory}")
    runs = {}
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        for bench in doc["benchmarks"]:
            c = (bench.get("counters") or {}).get(COUNTER)
            if not c or not c.get("per_iteration") or not c.get("rounds"):
                continue
            samples, rounds, i = c["per_iteration"], [], 0
            for n in c["rounds"]:
                rounds.append([x for x in samples[i : i + n] if math.isfinite(x) and x > 0])
                i += n
            rounds = [r for r in rounds if r]
            if len(rounds) >= 3:
                runs.setdefault(bench["id"], []).append(rounds)
    return runs


def fit(runs, figure="median"):
    """Every `Profile` field from the runs of one benchmark (and the intermediate figures).
    `figure` is the round figure that the round states are read from: "median" or "min"."""
    per_round = statistics.median(len(r) for run in runs for r in run)

    # sample_noise: the robust sigma of ln(sample / its round's median), pooled over every
    # sample of every round of every run. Centring on the round median removes the round state
    # and the run drift; the MAD ignores the spikes.
    resid = [math.log(x / statistics.median(r)) for run in runs for r in run for x in r]
    sample_noise = robust_sigma(resid)

    # Spikes: samples more than `spike_cut` above their round's median (the larger of 5% and
    # 6 sigma of the sample noise, so that the noise itself almost never counts). The model's
    # spike multiplies by 1 + spike_max x U(0, 1); the excesses above the cut are then uniform
    # on (cut, spike_max), so spike_max = 2 x median(excess) - cut, and only the share
    # (spike_max - cut) / spike_max of spikes is seen: spike_rate = seen share / that.
    spike_cut = max(0.05, math.expm1(6 * sample_noise))
    excess = [math.expm1(v) for v in resid if math.expm1(v) > spike_cut]
    seen = len(excess) / len(resid)
    if excess:
        spike_max = max(2 * statistics.median(excess) - spike_cut, 1.25 * spike_cut)
        spike_rate = seen * spike_max / (spike_max - spike_cut)
    else:
        spike_max, spike_rate = 0.0, 0.0

    # Round states: each round's median relative to the run's fastest round median. A round is
    # disturbed when it is more than `gap` above (the larger of 3% and four standard errors
    # of a quiet round's median, 1.2533 x sample_noise / sqrt(samples per round)); the run's
    # fastest round is the reference and is not counted. With `--round-figure min` the
    # round's smallest sample stands for it instead (the figure the verdict reads; its
    # standard error over about ten samples is about 0.6 x sample_noise).
    if figure == "median":
        gap = max(0.03, 4 * 1.2533 * sample_noise / math.sqrt(per_round))
        figures = [[statistics.median(r) for r in run] for run in runs]
    else:
        gap = max(0.03, 4 * 0.6 * sample_noise)
        figures = [[min(r) for r in run] for run in runs]
    fastest = [min(f) for f in figures]

    # p_all_slow: runs whose fastest round figure is far above the typical one (the median
    # over runs): beyond both `gap` and 5 robust sigmas of ln(fastest) over runs. Those runs
    # never saw the quiet state; they are left out of p_slow, slow and run_drift below.
    ln_fast = [math.log(f) for f in fastest]
    typical = statistics.median(ln_fast)
    far = max(math.log1p(gap), 5 * robust_sigma(ln_fast))
    all_slow = [lf - typical > far for lf in ln_fast]
    p_all_slow = sum(all_slow) / len(runs)

    # p_slow: the share of disturbed rounds among the other rounds of the remaining runs.
    # slow: the range of a disturbed round's factor, as a uniform distribution through the
    # 10th and 90th percentiles of the disturbed rounds' ratios (U(a, b) has them at
    # a + 0.1 (b - a) and a + 0.9 (b - a)), its lower end no lower than 1 + gap.
    ratios, disturbed, levels = [], [], []
    for figs, f, slow_run in zip(figures, fastest, all_slow):
        if slow_run:
            continue
        q = [x / f for x in figs]
        ref = q.index(1.0)
        others = [x for i, x in enumerate(q) if i != ref]
        ratios += others
        disturbed += [x for x in others if x > 1 + gap]
        # The run's quiet level: the median of its quiet rounds' figures.
        levels.append(statistics.median([x * f for x in q if x <= 1 + gap]))
    p_slow = len(disturbed) / len(ratios) if ratios else 0.0
    if len(disturbed) >= 2:
        p10, p90 = percentile(disturbed, 10), percentile(disturbed, 90)
        width = (p90 - p10) / 0.8
        slow = (max(1 + gap, p10 - 0.1 * width), p90 + 0.1 * width)
    elif disturbed:
        slow = (disturbed[0], disturbed[0])
    else:
        slow = (1.0, 1.0)

    # run_drift: the robust sigma over runs of ln(the run's quiet level).
    run_drift = robust_sigma([math.log(level) for level in levels])

    return {
        "runs": len(runs),
        "per_round": per_round,
        "rounds": statistics.median(len(run) for run in runs),
        "sample_noise": sample_noise,
        "spike_rate": spike_rate,
        "spike_max": spike_max,
        "spike_cut": spike_cut,
        "p_slow": p_slow,
        "slow": slow,
        "gap": gap,
        "run_drift": run_drift,
        "p_all_slow": p_all_slow,
        "all_slow_runs": sum(all_slow),
        "levels": levels,
    }


def simulate(rng, p, cost, rounds, per_round):
    """One run under the fitted profile, as simulation.rs's `simulate` draws it."""
    run = cost * math.exp(p["run_drift"] * rng.gauss(0, 1))
    all_slow = rng.random() < p["p_all_slow"]
    out = []
    for _ in range(rounds):
        state = rng.uniform(*p["slow"]) if all_slow or rng.random() < p["p_slow"] else 1.0
        r = []
        for _ in range(per_round):
            spike = 1 + p["spike_max"] * rng.random() if rng.random() < p["spike_rate"] else 1
            r.append(run * state * spike * math.exp(p["sample_noise"] * rng.gauss(0, 1)))
        out.append(r)
    return out


def verdict_figures(runs, threshold=0.08, factor=0.5):
    """What the verdict sees in a set of runs: the robust sigma over runs of ln(floor), the
    median over runs of the IQR of ln(round minima), and, over every ordered pair of runs
    (baseline, new), the share flagged at all and the shares of a 10% slowdown and a 10%
    speedup caught when the new run's samples are scaled by 1.1 and 0.9. The rule is that of
    stats/rounds.rs: the floor ratio against max(8%, 0.5 x pooled IQR of ln round minima)."""
    figures = [sorted(math.log(min(r)) for r in run) for run in runs]
    floors = [f[0] for f in figures]
    iqrs = [percentile(f, 75) - percentile(f, 25) for f in figures]
    flagged = slower = faster = pairs = 0
    for i in range(len(runs)):
        for j in range(len(runs)):
            if i == j:
                continue
            limit = max(threshold, factor * math.sqrt(0.5 * (iqrs[i] ** 2 + iqrs[j] ** 2)))
            ratio = math.exp(floors[j] - floors[i])
            flagged += ratio > 1 + limit or ratio < 1 - limit
            slower += 1.1 * ratio > 1 + limit
            faster += 0.9 * ratio < 1 - limit
            pairs += 1
    return (
        robust_sigma(floors),
        statistics.median(iqrs),
        flagged / pairs,
        slower / pairs,
        faster / pairs,
    )


def rust_name(bench):
    return re.sub(r"\W", "_", bench.split("/")[-1]).upper()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("directory", help="the runs/ directory of a verdict.sh work directory")
    ap.add_argument("--slowdown", default="0", help="report prefix to read (default 0)")
    ap.add_argument("--check-runs", type=int, default=400, help="simulated runs for the check")
    ap.add_argument("--round-figure", choices=["median", "min"], default="median")
    args = ap.parse_args()

    benches = load(args.directory, args.slowdown)
    fits = {b: fit(runs, args.round_figure) for b, runs in sorted(benches.items())}

    for bench, p in fits.items():
        print(f"/// {bench}: fitted by bench-compare/noise_fit.py to {p['runs']} runs.")
        print(f"const {rust_name(bench)}: Profile = Profile {{")
        print(f'    name: "{bench.split("/")[-1]}",')
        print(f"    sample_noise: {p['sample_noise']:.4f},")
        print(f"    spike_rate: {p['spike_rate']:.3f},")
        print(f"    spike_max: {p['spike_max']:.2f},")
        print(f"    p_slow: {p['p_slow']:.2f},")
        print(f"    slow: ({p['slow'][0]:.2f}, {p['slow'][1]:.2f}),")
        print(f"    run_drift: {p['run_drift']:.4f},")
        print(f"    p_all_slow: {p['p_all_slow']:.2f},")
        print("};\n")

    print("| benchmark | runs | sample noise | spikes (rate, up to) | disturbed rounds | "
          "their slowdown | run drift | runs with no quiet round |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for bench, p in fits.items():
        print(f"| {bench} | {p['runs']} | {100 * p['sample_noise']:.2f}% | "
              f"{100 * p['spike_rate']:.1f}%, +{100 * p['spike_max']:.0f}% | "
              f"{100 * p['p_slow']:.0f}% (> +{100 * p['gap']:.0f}%) | "
              f"x{p['slow'][0]:.2f}-{p['slow'][1]:.2f} | {100 * p['run_drift']:.2f}% | "
              f"{p['all_slow_runs']} of {p['runs']} |")

    print("\nCheck: what the verdict sees, measured / in runs simulated from the fit "
          f"({args.check_runs} runs); rates over every ordered pair of runs\n")
    print("| benchmark | floor spread over runs | IQR of ln round minima | "
          "false alarms | +10% caught | -10% caught | quiet levels (max/min) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    rng = random.Random(1)
    for bench, p in fits.items():
        measured = verdict_figures(benches[bench])
        sim = verdict_figures([
            simulate(rng, p, 1000.0, int(p["rounds"]), int(p["per_round"]))
            for _ in range(args.check_runs)
        ])
        cells = [f"{100 * m:.{d}f}% / {100 * x:.{d}f}%"
                 for m, x, d in zip(measured, sim, (2, 2, 1, 1, 1))]
        print(f"| {bench} | " + " | ".join(cells) +
              f" | {max(p['levels']) / min(p['levels']):.3f} |")


if __name__ == "__main__":
    main()
