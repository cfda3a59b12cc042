#!/usr/bin/env python3
"""Summary table of bench-compare/run.sh's results directory (markdown on stdout).

Reads, for each round i:
  build-{criterion,perfbench}-i.time          "wall user sys" of the clean build (s)
  build-{criterion,perfbench}-i.timing.html   cargo's --timings report (per-crate durations)
  run-{criterion,perfbench}-i.time            "wall user sys" of the default bench run (s)
  run-perfbench-i.json                        perfbench's JSON report
  run-criterion-i-<bench>.estimates.json      criterion's estimates
"""
import glob
import json
import os
import re
import statistics
import sys

BENCHES = ["fib_20", "sum_4096", "sort_1000"]
SUITES = ["criterion", "perfbench"]


def read_time(path):
    wall, user, sys_ = open(path).read().split()[:3]
    return float(wall), float(user) + float(sys_)


def load(path):
    return open(path).read().split()[0] if os.path.exists(path) else "?"


def rounds(res, phase):
    """The rounds of a phase ("build" or "run") that have a time file."""
    out = set()
    for p in glob.glob(os.path.join(res, f"{phase}-*-*.time")):
        m = re.search(r"-(\d+)\.time$", p)
        out.add(int(m.group(1)))
    return sorted(out)


def unit_data(html_path):
    text = open(html_path).read()
    start = text.index("UNIT_DATA = [") + len("UNIT_DATA = ")
    units, _ = json.JSONDecoder().raw_decode(text[start:])
    return units


def crate_times(html_path):
    """Seconds per crate (all its units: build script, its run, the library), and the sum."""
    per = {}
    for u in unit_data(html_path):
        key = f"{u['name']} {u['version']}"
        per[key] = per.get(key, 0.0) + float(u["duration"])
    return per


def fmt_s(x):
    return f"{x:.1f}"


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def times_table(res, phase, rs, decimals):
    """Prints the per-round table of a phase ("build" or "run") with its median row; returns the
    wall and CPU seconds per suite and the ratio of the median walls, perfbench / criterion."""
    print("| round | criterion wall | criterion cpu | load | perfbench wall | perfbench cpu | load | wall ratio pb/cr |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    walls = {s: [] for s in SUITES}
    cpus = {s: [] for s in SUITES}
    for i in rs:
        row = [str(i)]
        vals = {}
        for s in SUITES:
            p = os.path.join(res, f"{phase}-{s}-{i}.time")
            if not os.path.exists(p):
                row += ["-", "-", "-"]
                continue
            w, c = read_time(p)
            vals[s] = w
            walls[s].append(w)
            cpus[s].append(c)
            row += [fmt_s(w), fmt_s(c), load(os.path.join(res, f"{phase}-{s}-{i}.load"))]
        ratio = vals["perfbench"] / vals["criterion"] if len(vals) == 2 else float("nan")
        print("| " + " | ".join(row + [f"{ratio:.{decimals}f}"]) + " |")
    ratio = med(walls["perfbench"]) / med(walls["criterion"])
    print(f"| **median** | **{fmt_s(med(walls['criterion']))}** | {fmt_s(med(cpus['criterion']))} | | "
          f"**{fmt_s(med(walls['perfbench']))}** | {fmt_s(med(cpus['perfbench']))} | | "
          f"**{ratio:.{decimals}f}** |")
    return walls, cpus, ratio


def main():
    res = sys.argv[1]
    rs = rounds(res, "build")
    print("# perfbench vs criterion 0.8: side by side\n")
    env = os.path.join(res, "env.txt")
    if os.path.exists(env):
        print("```\n" + open(env).read().rstrip() + "\n```\n")

    # 1. Builds
    print("## 1. Clean release build (`cargo build --release --benches`, fresh target dir)\n")
    print("Alternating criterion, perfbench, criterion, ... Wall and CPU (user+sys) seconds; "
          "load = 1-min load average just before.\n")
    _, bc, build_ratio = times_table(res, "build", rs, 2)
    build_cpu_ratio = med(bc["perfbench"]) / med(bc["criterion"])
    print()
    print(f"Ratio of medians, perfbench / criterion: wall **{build_ratio:.2f}**, "
          f"CPU {build_cpu_ratio:.2f}. Target <= 0.35 (the build budget): "
          f"**{'met' if build_ratio <= 0.35 else 'NOT met'}**.\n")

    for s in SUITES:
        htmls = sorted(glob.glob(os.path.join(res, f"build-{s}-*.timing.html")))
        if not htmls:
            continue
        per_round = [crate_times(h) for h in htmls]
        names = set().union(*per_round)
        medians = {n: med([r.get(n, 0.0) for r in per_round]) for n in names}
        total = sum(medians.values())
        top = sorted(medians.items(), key=lambda kv: -kv[1])[:5]
        print(f"Top 5 crates of the {s} build by compile time (cargo --timings, median over "
              f"rounds; {len(names)} crates, {total:.1f} s of unit time in all, 2 jobs in parallel):\n")
        print("| crate | s | share |")
        print("| --- | ---: | ---: |")
        for n, t in top:
            print(f"| {n} | {t:.1f} | {100 * t / total:.0f}% |")
        print()

    # 2. Runs
    rs = rounds(res, "run")
    print("## 2. Default run (`<bench binary> --bench`)\n")
    _, _, run_ratio = times_table(res, "run", rs, 3)
    print()
    print(f"Ratio of medians, perfbench / criterion: **{run_ratio:.3f}**. Target <= 0.25: "
          f"**{'met' if run_ratio <= 0.25 else 'NOT met'}**.\n")
    # Where the time goes in perfbench's run: the warm-up budget, the time inside the measured
    # brackets (sum over samples of wall-time per iteration x iterations), and the rest
    # (calibration runs, iter_batched's setup and its read(2) calls per iteration, the
    # bootstrap, start-up and reporting).
    pj = [(i, os.path.join(res, f"run-perfbench-{i}.json")) for i in rs]
    pj = [(i, p) for i, p in pj if os.path.exists(p)]
    if pj:
        cfg = json.load(open(pj[0][1]))["config"]
        print(f"perfbench's budget per benchmark: {cfg['warm_up_time']} s warm-up + "
              f"{cfg['measurement_time']} s measurement, {cfg['sample_size']} samples, "
              f"{cfg['resamples']} bootstrap resamples (criterion: 3 s + 5 s, 100 samples, "
              "100000 resamples). Where perfbench's run time goes (s):\n")
        print("| round | total | warm-up (budget) | measured: fib_20 | sum_4096 | sort_1000 | rest |")
        print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for i, p in pj:
            d = json.load(open(p))
            total = read_time(os.path.join(res, f"run-perfbench-{i}.time"))[0]
            warm = len(d["benchmarks"]) * d["config"]["warm_up_time"]
            body = {}
            for b in d["benchmarks"]:
                w = b["counters"]["wall-time"]
                body[b["name"]] = sum(x * n for x, n in zip(w["per_iteration"], w["iterations"])) / 1e9
            rest = total - warm - sum(body.values())
            print(f"| {i} | {total:.2f} | {warm:.2f} | " +
                  " | ".join(f"{body.get(b, float('nan')):.2f}" for b in BENCHES) +
                  f" | {rest:.2f} |")
        print()

    # 3. Interval widths and 4. point estimates
    print("## 3. Relative width of the 95% wall-time interval, (high - low) / point\n")
    print("perfbench: `counters[\"wall-time\"].estimate`, interval of `point` (flat sampling: the mean "
          "of the samples within Tukey's outer fences; `excluded` says how many were left out). "
          "criterion: `mean` and `slope` of `estimates.json` (its headline `time:` is the slope).\n")
    print("| bench | round | perfbench point | excluded | criterion mean | criterion slope | pb <= cr mean | pb <= cr slope |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | :---: | :---: |")
    widths = {b: {"pb": [], "crm": [], "crs": []} for b in BENCHES}
    points = {b: [] for b in BENCHES}
    for b in BENCHES:
        for i in rs:
            pp = os.path.join(res, f"run-perfbench-{i}.json")
            cp = os.path.join(res, f"run-criterion-{i}-{b}.estimates.json")
            if not (os.path.exists(pp) and os.path.exists(cp)):
                continue
            bench = next(x for x in json.load(open(pp))["benchmarks"] if x["name"] == b)
            e = bench["counters"]["wall-time"]["estimate"]
            pb_point = e.get("point", e["slope"] if e.get("slope") is not None else e["mean"])
            pb = (e["ci_high"] - e["ci_low"]) / pb_point
            c = json.load(open(cp))
            cm, cs = c["mean"], c.get("slope")

            def width(x):
                ci = x["confidence_interval"]
                return (ci["upper_bound"] - ci["lower_bound"]) / x["point_estimate"]

            crm = width(cm)
            crs = width(cs) if cs else float("nan")
            widths[b]["pb"].append(pb)
            widths[b]["crm"].append(crm)
            widths[b]["crs"].append(crs)
            points[b].append((i, pb_point, e["median"], cm["point_estimate"],
                              cs["point_estimate"] if cs else float("nan"),
                              c["median"]["point_estimate"]))
            print(f"| {b} | {i} | {100 * pb:.1f}% | {e.get('excluded', 0)} | {100 * crm:.1f}% | {100 * crs:.1f}% | "
                  f"{'yes' if pb <= crm else 'no'} | {'yes' if pb <= crs else 'no'} |")
    print()
    print("| bench | median perfbench | median criterion mean | median criterion slope | rounds pb <= cr mean | rounds pb <= cr slope |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    all_ok_mean = all_ok_slope = True
    for b in BENCHES:
        w = widths[b]
        if not w["pb"]:
            continue
        mp, mm, ms = med(w["pb"]), med(w["crm"]), med(w["crs"])
        all_ok_mean &= mp <= mm
        all_ok_slope &= mp <= ms
        n = len(w["pb"])
        wins_m = sum(p <= m for p, m in zip(w["pb"], w["crm"]))
        wins_s = sum(p <= c for p, c in zip(w["pb"], w["crs"]))
        print(f"| {b} | {100 * mp:.1f}% | {100 * mm:.1f}% | {100 * ms:.1f}% | {wins_m}/{n} | {wins_s}/{n} |")
    print()
    print(f"Target (perfbench's intervals no wider than criterion's), on the medians: "
          f"against criterion's mean **{'met' if all_ok_mean else 'NOT met'}**, against its slope "
          f"**{'met' if all_ok_slope else 'NOT met'}**.\n")

    print("## 4. Point estimates of wall time per iteration (ns)\n")
    print("| bench | round | perfbench mean | criterion mean | criterion slope | pb/cr mean | pb/cr slope | perfbench median | criterion median | pb/cr median |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for b in BENCHES:
        for i, pbm, pbmed, crm, crs, crmed in points[b]:
            print(f"| {b} | {i} | {pbm:.1f} | {crm:.1f} | {crs:.1f} | {pbm / crm:.3f} | "
                  f"{pbm / crs:.3f} | {pbmed:.1f} | {crmed:.1f} | {pbmed / crmed:.3f} |")
    print()
    print("| bench | median pb/cr mean | median pb/cr slope | median pb/cr median |")
    print("| --- | ---: | ---: | ---: |")
    for b in BENCHES:
        if points[b]:
            print(f"| {b} | {med([p[1] / p[3] for p in points[b]]):.3f} | "
                  f"{med([p[1] / p[4] for p in points[b]]):.3f} | "
                  f"{med([p[2] / p[5] for p in points[b]]):.3f} |")
    print()


if __name__ == "__main__":
    main()
