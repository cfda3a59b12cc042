#!/usr/bin/env python3
"""Fits the noise model of perfbench/src/stats/simulation.rs to runs of unchanged code.

    VERDICT_WORK=/tmp/perfbench-noise RUNS=21 SLOWDOWNS=0 bash bench-compare/verdict.sh \\
        && python3 bench-compare/noise_fit.py /tmp/perfbench-noise/runs

Reads every `0-R.json` report in the directory (the runs at slowdown 0; `--prefix P` reads
`P-R.json` instead, e.g. `--prefix plain-0` for bench-compare/pairs.sh's runs), takes each
benchmark's wall-time `per_iteration` samples split into rounds by `rounds`, and fits every
field of simulation.rs's `Profile` (see its module documentation for the model):

    sample = true cost x run level x round state x (slow, for the samples a disturbance hits)
             x spike x exp(tails)

It prints one Rust `Profile` literal per benchmark, a table of the fitted parameters, and the
check: what the verdict reads from the runs (the spread of the floors over runs, and each run's
interquartile range and lower quarter of its ln round minima) measured on the runs and on runs
simulated from the fit, and the two spread rules of stats/rounds.rs replayed on both.

How it fits: `estimate` reads each parameter from one feature of the runs (see the comments
there). The parts of the model overlap (a round that a disturbance hits in a few samples looks
a little like a noisier round), so those direct estimates are biased; `fit` removes the bias by
indirect inference: it simulates runs from the current parameters, estimates them back with the
same estimators, and moves each parameter by the difference, a few times. The check figures are
not among the estimators' inputs, so the check is a test of the model's shape, not of the fit.

Standard library only.
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
# A round counts as disturbed when its figure (median or smallest sample) is more than this
# above the run's floor: the smallest samples of quiet rounds stay within 1% of it here, and
# their medians within 3%.
GAP = 0.05

# simulation.rs's `Profile` fields in order, with the value that gives the earlier model's
# behaviour (a disturbance slows every sample of its round; no per-run or per-process state).
DEFAULTS = {
    "sample_noise": 0.0,
    "spike_rate": 0.0,
    "spike_max": 0.0,
    "p_slow": 0.0,
    "slow": (1.0, 1.0),
    "run_drift": 0.0,
    "p_all_slow": 0.0,
    "sample_tail": 0.0,
    "round_tail": 0.0,
    "noise_spread": 0.0,
    "slow_shape": 0.0,
    "whole": 1.0,
    "whole_spread": 0.0,
    "persist": 0.0,
    "p_high": 0.0,
    "high": 1.0,
    "p_switch": 0.0,
}


def robust_sigma(values):
    """MAD about the median x 1.4826 (0 for fewer than two values)."""
    if len(values) < 2:
        return 0.0
    m = statistics.median(values)
    return MAD_TO_SIGMA * statistics.median(abs(v - m) for v in values)


def mad(values):
    """The median absolute deviation about the median (0 for fewer than two values)."""
    if len(values) < 2:
        return 0.0
    m = statistics.median(values)
    return statistics.median(abs(v - m) for v in values)


def percentile(values, p):
    """Linear interpolation between closest ranks (R type 7, as perfbench's Percentiles)."""
    s = sorted(values)
    if not s:
        return float("nan")
    rank = p / 100 * (len(s) - 1)
    lo = math.floor(rank)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (rank - lo) * (s[hi] - s[lo])


def load(directory, prefix):
    """{benchmark id: [run, ...]}, each run a list of rounds, each round its samples (in order)."""
    paths = glob.glob(os.path.join(directory, f"{prefix}-*.json"))
    paths = [p for p in paths if re.fullmatch(re.escape(prefix) + r"-\d+\.json", os.path.basename(p))]
    paths.sort(key=lambda p: int(re.search(r"-(\d+)\.json$", p).group(1)))
    if not paths:
        sys.exit(f"no {prefix}-R.json reports in {directory}")
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


# ---------------------------------------------------------------------------------------------
# The model, drawn as simulation.rs's `simulate` draws it (the same distributions; Python's
# generator, so not the same numbers).


def slow_factor(rng, p):
    """A disturbance's factor: uniform on `slow` (slow_shape 0), or 1 + a Pareto excess with
    tail index slow_shape from slow.0 - 1 up to slow.1 - 1."""
    a, b = p["slow"]
    if p["slow_shape"] <= 0 or b <= a:
        return rng.uniform(a, b)
    x0, x1, alpha = a - 1, b - 1, p["slow_shape"]
    u = rng.random()
    return 1 + x0 * (1 - u * (1 - (x0 / x1) ** alpha)) ** (-1 / alpha)


def simulate(rng, p, cost, rounds, per_round):
    """One run of `rounds` rounds of `per_round` per-iteration values under profile `p`."""
    run = cost * math.exp(p["run_drift"] * rng.gauss(0, 1))
    high = p["p_high"] > 0 and rng.random() < p["p_high"]
    all_slow = rng.random() < p["p_all_slow"]
    whole = p["whole"]
    if p["whole_spread"] > 0 and 0 < whole < 1:
        k = 1 / p["whole_spread"] - 1
        whole = rng.betavariate(whole * k, (1 - whole) * k)
    calm = math.exp(p["noise_spread"] * rng.gauss(0, 1)) if p["noise_spread"] > 0 else 1.0
    out = []
    disturbed, state, share = False, 1.0, 1.0
    for i in range(rounds):
        if i > 0 and p["p_switch"] > 0 and rng.random() < p["p_switch"]:
            high = not high
        if not (i > 0 and p["persist"] > 0 and rng.random() < p["persist"]):
            disturbed = all_slow or rng.random() < p["p_slow"]
            state = slow_factor(rng, p) if disturbed else 1.0
            share = 1.0
            if disturbed and whole < 1 and rng.random() >= whole:
                share = rng.random()
        level = run * (p["high"] if high else 1.0)
        if p["round_tail"] > 0:
            level *= math.exp(p["round_tail"] * rng.expovariate(1))
        r = []
        for _ in range(per_round):
            hit = share >= 1 or rng.random() < share
            spike = 1 + p["spike_max"] * rng.random() if rng.random() < p["spike_rate"] else 1
            x = level * (state if hit else 1.0) * spike
            x *= math.exp(p["sample_noise"] * rng.gauss(0, 1))
            if p["sample_tail"] > 0:
                # (Clamped where a fit's trial parameters would overflow.)
                x *= math.exp(min(50.0, calm * p["sample_tail"] * rng.expovariate(1)))
            r.append(x)
        out.append(r)
    return out


# ---------------------------------------------------------------------------------------------
# The estimators.


def two_levels(ln_floors):
    """(p_high, ln high, sigma, level of each run) from the runs' ln floors: a mixture of two
    normals with one sigma, fitted by EM, when its two means lie more than 3 sigmas and 1.5%
    apart with
    at least two runs in each; else one normal (p_high 0, each run level 0). Sigma is the
    spread of the floors about their level: the run drift."""
    s = sorted(ln_floors)
    if len(s) < 5:
        return 0.0, 0.0, robust_sigma(s), [0] * len(ln_floors)
    # Start from the split at the widest gap between neighbours.
    i = max(range(2, len(s) - 1), key=lambda i: s[i] - s[i - 1])
    mu = [statistics.mean(s[:i]), statistics.mean(s[i:])]
    w = (len(s) - i) / len(s)
    sigma = max(1e-6, math.sqrt(statistics.pvariance([x - mu[x >= s[i]] for x in s])))
    for _ in range(200):
        resp = []
        for x in ln_floors:
            a = (1 - w) * math.exp(-0.5 * ((x - mu[0]) / sigma) ** 2)
            b = w * math.exp(-0.5 * ((x - mu[1]) / sigma) ** 2)
            resp.append(b / (a + b) if a + b > 0 else float(x > 0.5 * (mu[0] + mu[1])))
        w = statistics.mean(resp)
        if w <= 0 or w >= 1:
            break
        mu = [
            sum((1 - r) * x for r, x in zip(resp, ln_floors)) / sum(1 - r for r in resp),
            sum(r * x for r, x in zip(resp, ln_floors)) / sum(resp),
        ]
        var = sum((1 - r) * (x - mu[0]) ** 2 + r * (x - mu[1]) ** 2
                  for r, x in zip(resp, ln_floors)) / len(ln_floors)
        sigma = max(1e-6, math.sqrt(var))
    level = [int(r > 0.5) for r in resp]
    apart = mu[1] - mu[0] > max(0.015, 3 * sigma)
    if 0 < w < 1 and apart and 2 <= sum(level) <= len(level) - 2:
        return w, mu[1] - mu[0], sigma, level
    return 0.0, 0.0, robust_sigma(s), [0] * len(ln_floors)


def tail_of(rounds):
    """The scale of the samples' exponential tail read from some rounds: every sample's
    ln(sample / its round's smallest) is, by memorylessness, Exp(tail) whatever the smallest
    was, for the samples that no disturbance hit; those that one hit lie above. So the lower
    quartile of the excesses over ln(4/3) (the quartile of Exp(1)); 0 for fewer than 9."""
    excess = [math.log(x / min(r)) for r in rounds for x in r if x != min(r)]
    if len(excess) < 9:
        return 0.0
    return percentile(excess, 25) / math.log(4 / 3)


def estimate(runs):
    """Direct estimates of every fitted field of `Profile` (and the intermediate figures)."""
    n = int(statistics.median(len(r) for run in runs for r in run))
    R = int(statistics.median(len(run) for run in runs))

    # sample_tail and noise_spread: each run's sample tail (tail_of its rounds) is
    # sample_tail x calm, calm = exp(noise_spread x N(0, 1)) the run's noise level: from the
    # median and the robust sigma over runs of ln(tail).
    per_run = [math.log(t) for t in (tail_of(run) for run in runs) if t > 0]
    pooled_tail = tail_of([r for run in runs for r in run])
    if len(per_run) >= 5:
        noise_spread = robust_sigma(per_run)
        sample_tail = math.exp(statistics.median(per_run))
    else:
        noise_spread, sample_tail = 0.0, pooled_tail

    # Spikes: samples more than `spike_cut` above their round's median. The model's spike
    # multiplies by 1 + spike_max x U(0, 1); the excesses above the cut are then uniform on
    # (cut, spike_max), so spike_max = 2 x median(excess) - cut, and only the share
    # (spike_max - cut) / spike_max of spikes is seen: spike_rate = seen share / that.
    resid = [math.log(x / statistics.median(r)) for run in runs for r in run for x in r]
    spike_cut = max(0.05, 6 * pooled_tail)
    excess = [math.expm1(v) for v in resid if math.expm1(v) > spike_cut]
    if excess:
        spike_max = max(2 * statistics.median(excess) - spike_cut, 1.25 * spike_cut)
        spike_rate = len(excess) / len(resid) * spike_max / (spike_max - spike_cut)
    else:
        spike_max, spike_rate = 0.0, 0.0

    # Levels: a run's floor is its smallest sample. The floors may fall into two process
    # levels (two_levels). p_all_slow: runs whose floor is far above their level's (beyond
    # both the gap and 5 robust sigmas): they never saw an undisturbed round; the levels are
    # then fitted again without them.
    gap = GAP
    floors = [min(min(r) for r in run) for run in runs]
    ln_f = [math.log(f) for f in floors]
    p_high, ln_high, sigma, level = two_levels(ln_f)
    base = statistics.median([x - ln_high * lv for x, lv in zip(ln_f, level)])
    rel = [x - ln_high * lv - base for x, lv in zip(ln_f, level)]
    far = max(math.log1p(gap), 5 * robust_sigma(rel))
    all_slow = [x > far for x in rel]
    p_all_slow = sum(all_slow) / len(runs)
    if any(all_slow):
        kept = [x for x, s in zip(ln_f, all_slow) if not s]
        p_high, ln_high, sigma, lv_kept = two_levels(kept)
        it = iter(lv_kept)
        level = [1 if s else next(it) for s in all_slow]
    high = math.exp(ln_high)
    # run_drift: the floors' spread about their level.
    run_drift = sigma

    # p_switch: a low-level run of which a block of at least three rounds at its start or end,
    # and no other round, sits within a third of the levels' gap of the high level has
    # switched once; for a small chance per round boundary, switched runs / (runs x (R - 1)).
    switched = 0
    if p_high > 0:
        for run, lf, lv in zip(runs, ln_f, level):
            if lv:
                continue
            at = [abs(math.log(min(r)) - lf - ln_high) < ln_high / 3 for r in run]
            if any(
                (all(at[:k]) and not any(at[k:])) or (all(at[-k:]) and not any(at[:-k]))
                for k in range(3, len(at))
            ):
                switched += 1
    p_switch = switched / (len(runs) * max(1, R - 1))

    # Disturbances. A round is touched when its median is more than `gap` above the run's
    # floor, whole when its smallest sample is. A disturbance hits every sample of its round
    # with probability `whole`, else each sample with a chance `share` ~ U(0, 1) (so the number
    # of samples hit is uniform on 0..n): then the median is raised with chance about 1/2, the
    # smallest with 1 / (n + 1). From the shares A (touched) and B (whole) of rounds:
    # p_slow (1 - whole) = (A - B) / (1/2 - 1/(n + 1)), p_slow whole = B - (that) / (n + 1).
    xs, touched, factors = [], 0, []
    for run, f, s in zip(runs, floors, all_slow):
        if s:
            continue
        touched += sum(statistics.median(r) > f * (1 + gap) for r in run)
        xs.append([1.0 if min(r) > f * (1 + gap) else 0.0 for r in run])
        factors += [min(r) / f for r in run if min(r) > f * (1 + gap)]
    total = sum(len(x) for x in xs)
    A, B = touched / total, sum(map(sum, xs)) / total
    partial = max(0.0, (A - B) / (0.5 - 1 / (n + 1)))
    whole_rate = max(0.0, B - partial / (n + 1))
    p_slow = min(1.0, partial + whole_rate)
    whole = whole_rate / (partial + whole_rate) if partial + whole_rate > 0 else 1.0

    # Their factor: 1 + an excess, Pareto from the gap up to the largest seen (whole rounds'
    # smallest samples over the floor), its tail index by maximum likelihood (Hill).
    if len(factors) >= 2:
        excesses = [f - 1 for f in factors]
        slow = (1 + gap, 1 + max(excesses))
        slow_shape = len(excesses) / sum(math.log(x / gap) for x in excesses)
    else:
        slow, slow_shape = (1 + gap, 1 + 2 * gap), 0.0

    # The whole-round indicator's autocorrelation over the rounds of a run (about the mean of
    # all runs): at lags 2-4 mostly the runs' own rates (whole_spread: the run's `whole` is
    # Beta with that overdispersion), at lag 1 also a disturbance going on into the next round
    # (persist: the chance that a round repeats the one before).
    var = B * (1 - B)

    def autocorr(lag):
        pairs = sum(max(0, len(x) - lag) for x in xs)
        if var == 0 or pairs == 0:
            return 0.0
        num = sum((x[i] - B) * (x[i - lag] - B) for x in xs for i in range(lag, len(x)))
        return num / pairs / var

    between = min(0.9, max(0.0, statistics.mean([autocorr(2), autocorr(3), autocorr(4)])))
    persist = min(0.9, max(0.0, (autocorr(1) - between) / (1 - between)))
    if p_slow > 0 and 0 < whole < 1:
        whole_spread = min(0.9, between * var / (p_slow**2 * whole * (1 - whole)))
    else:
        whole_spread = 0.0

    # round_tail: the quiet rounds' smallest samples over the run's floor (less the run's own
    # floor round) are about Exp(round_tail) plus the smallest of n sample tails (about
    # Exp(tail / n)); from their median.
    quiet = []
    for run, f in zip(runs, floors):
        ms = sorted(math.log(min(r) / f) for r in run if statistics.median(r) <= f * (1 + gap))
        quiet += ms[1:]
    round_tail = 0.0
    if quiet:
        round_tail = max(0.0, statistics.median(quiet) / math.log(2) - pooled_tail / n)

    return {
        "runs": len(runs),
        "per_round": n,
        "rounds": R,
        "sample_noise": 0.0,
        "spike_rate": spike_rate,
        "spike_max": spike_max,
        "p_slow": p_slow,
        "slow": slow,
        "run_drift": run_drift,
        "p_all_slow": p_all_slow,
        "sample_tail": sample_tail,
        "round_tail": round_tail,
        "noise_spread": noise_spread,
        "slow_shape": slow_shape,
        "whole": whole,
        "whole_spread": whole_spread,
        "persist": persist,
        "p_high": p_high,
        "high": high,
        "p_switch": p_switch,
        "gap": gap,
        "touched": A,
        "all_slow_runs": sum(all_slow),
    }


# Fields corrected by indirect inference: scales multiplicatively, shares additively (clipped).
SCALES = ["sample_tail", "round_tail", "noise_spread", "run_drift", "spike_max", "slow_shape"]
CAPS = {"sample_tail": 0.2, "round_tail": 0.2, "noise_spread": 3.0, "run_drift": 0.2,
        "spike_max": 2.0, "slow_shape": 5.0}
SHARES = {"p_high": 1.0, "p_slow": 1.0, "whole": 1.0, "whole_spread": 0.9, "persist": 0.9, "spike_rate": 1.0}


def mean_estimate(sets):
    """The mean of `estimate` over several sets of runs (field by field)."""
    ests = [estimate(runs) for runs in sets]
    return {k: statistics.mean(e[k] for e in ests) for k in SCALES + list(SHARES)}


def fit(runs, iterations=6, replicates=40, seed=7):
    """`estimate`, with the bias of each corrected field removed by simulation: simulate
    `replicates` sets of as many runs as the data has from the current parameters (the same
    seed every time), estimate each set back, and move each field by the difference between
    the data's estimate and the mean of those; a few times."""
    target = estimate(runs)
    p = {**DEFAULTS, **target}
    for _ in range(iterations):
        rng = random.Random(seed)
        sets = [
            [simulate(rng, p, 1000.0, p["rounds"], p["per_round"]) for _ in range(len(runs))]
            for _ in range(replicates)
        ]
        back = mean_estimate(sets)
        for k in SCALES:
            if target[k] <= 0 or p[k] <= 0:
                p[k] = target[k]
            elif back[k] > 0:
                # Damped, so that an estimator that hardly moves cannot drive it away.
                p[k] = min(CAPS[k], p[k] * min(2.0, max(0.5, target[k] / back[k])))
        for k, top in SHARES.items():
            p[k] = min(top, max(0.0, p[k] + target[k] - back[k]))
    if p["spike_rate"] < 5e-4:
        p["spike_rate"], p["spike_max"] = 0.0, 0.0
    return p


# ---------------------------------------------------------------------------------------------
# The check.


def run_figures(run):
    """A run's ln floor, and the interquartile range, the lower quarter (25th percentile minus
    the smallest) and the floor level's IQR (level_iqr) of its ln round minima."""
    m = sorted(math.log(min(r)) for r in run)
    return m[0], percentile(m, 75) - percentile(m, 25), percentile(m, 25) - m[0], level_iqr(m)


def level_iqr(m, gap=math.log(1.05), share=0.25):
    """The IQR of the floor's level: the sorted ln round figures `m` up to the first gap wider
    than `gap`, when they are at least `share` of the rounds and 3; else the IQR of all."""
    end = next((i for i in range(1, len(m)) if m[i] - m[i - 1] > gap), len(m))
    if end >= max(3, share * len(m)):
        m = m[:end]
    return percentile(m, 75) - percentile(m, 25)


def verdict_figures(runs):
    """What the verdict reads: the MAD of ln floor over runs; the median and 90th percentile
    over runs of each run's IQR and lower quarter of ln round minima."""
    st = [run_figures(r) for r in runs]
    iqr, low = [s[1] for s in st], [s[2] for s in st]
    return (
        mad([s[0] for s in st]),
        statistics.median(iqr),
        percentile(iqr, 90),
        statistics.median(low),
        percentile(low, 90),
    )


RULES = {
    # stats/rounds.rs: Spread::Iqr, Spread::LowQuarter and Spread::Level (the default: the
    # floor's level alone; docs/validation.md, "The floor's level").
    "iqr x 0.5": lambda b, n: 0.5 * math.sqrt(0.5 * (b[1] ** 2 + n[1] ** 2)),
    "q25-min x 1": lambda b, n: 1.0 * math.sqrt(0.5 * (b[2] ** 2 + n[2] ** 2)),
    "level iqr x 0.5": lambda b, n: 0.5 * math.sqrt(0.5 * (b[3] ** 2 + n[3] ** 2)),
}


def pair_rates(base_runs, new_runs, rule, threshold=0.08, scale=1.0):
    """Over every ordered pair of a base run and a different new run: the share flagged at
    all (scale 1), or judged regressed (scale > 1: the new run's samples times `scale`)."""
    sb = [run_figures(r) for r in base_runs]
    sn = [run_figures(r) for r in new_runs]
    same = base_runs is new_runs
    hits = pairs = 0
    for i, b in enumerate(sb):
        for j, n in enumerate(sn):
            if same and i == j:
                continue
            limit = max(threshold, RULES[rule](b, n))
            ratio = scale * math.exp(n[0] - b[0])
            hits += ratio > 1 + limit or (scale == 1.0 and ratio < 1 - limit)
            pairs += 1
    return hits / pairs


def rust_name(bench):
    return re.sub(r"\W", "_", bench.split("/")[-1]).upper()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("directory", help="the runs/ directory of a verdict.sh work directory")
    ap.add_argument("--prefix", "--slowdown", default="0", help="report prefix (default 0)")
    ap.add_argument("--check-runs", type=int, default=2000, help="simulated runs for the check")
    args = ap.parse_args()

    benches = load(args.directory, args.prefix)
    fits = {b: fit(runs) for b, runs in sorted(benches.items())}

    for bench, p in fits.items():
        print(f"/// {bench}: fitted by bench-compare/noise_fit.py to {p['runs']} runs.")
        print(f"const {rust_name(bench)}: Profile = Profile {{")
        print(f'    name: "{bench.split("/")[-1]}",')
        for i, (k, default) in enumerate(DEFAULTS.items()):
            x = p[k]
            if k == "slow":
                print(f"    slow: ({x[0]:.3f}, {x[1]:.3f}),")
            elif i < 7 or round(x, 4) != default:
                print(f"    {k}: {x:.4f},")
        print("    ..FIRST_SHAPE\n};\n")

    print("| benchmark | runs | sample tail (calm; spread) | round tail | spikes (rate, up to) | "
          "disturbed rounds (all samples) | factor | persist | run drift | two levels | switch |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for bench, p in fits.items():
        print(f"| {bench} | {p['runs']} | {100 * p['sample_tail']:.2f}%; {p['noise_spread']:.2f} | "
              f"{100 * p['round_tail']:.2f}% | {100 * p['spike_rate']:.1f}%, +{100 * p['spike_max']:.0f}% | "
              f"{100 * p['p_slow']:.0f}% ({100 * p['whole']:.0f}%, spread {p['whole_spread']:.2f}) | "
              f"x{p['slow'][0]:.2f}-{p['slow'][1]:.2f}, tail {p['slow_shape']:.2f} | "
              f"{p['persist']:.2f} | {100 * p['run_drift']:.2f}% | "
              f"{100 * p['p_high']:.0f}% at x{p['high']:.3f} | {p['p_switch']:.3f} |")

    print("\nCheck: what the verdict reads, measured / simulated from the fit "
          f"({args.check_runs} runs); the median and 90th percentile over runs\n")
    print("| benchmark | MAD of ln floor | IQR of ln round minima | (p90) | "
          "q25 - min of ln round minima | (p90) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    sims = {}
    for bench, p in fits.items():
        rng = random.Random(1)
        sims[bench] = [simulate(rng, p, 1000.0, p["rounds"], p["per_round"])
                       for _ in range(args.check_runs)]
        measured, sim = verdict_figures(benches[bench]), verdict_figures(sims[bench])
        cells = [f"{100 * m:.2f}% / {100 * x:.2f}%" for m, x in zip(measured, sim)]
        print(f"| {bench} | " + " | ".join(cells) + " |")

    print("\nThe two spread rules over every ordered pair of runs, measured / simulated "
          "(the simulated runs' first 100): false alarms, and a 10% slowdown caught "
          "(the new run's samples x 1.1)\n")
    print("| benchmark | rule | false alarms | +10% caught |")
    print("| --- | --- | ---: | ---: |")
    for bench in fits:
        real, sim = benches[bench], sims[bench][:100]
        for rule in RULES:
            cells = [f"{100 * pair_rates(real, real, rule, scale=s):.1f}% / "
                     f"{100 * pair_rates(sim, sim, rule, scale=s):.1f}%" for s in (1.0, 1.1)]
            print(f"| {bench} | {rule} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
