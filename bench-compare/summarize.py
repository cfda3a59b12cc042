#!/usr/bin/env python3
"""Summary table of bench-compare/run.sh's results directory (markdown on stdout).

Reads, for each round i (suite = criterion, perfbench or divan):
  build-<suite>-i.time                        "wall user sys" of the clean build (s)
  build-<suite>-i.timing.html                 cargo's --timings report (per-crate durations)
  run-<suite>-i.time                          "wall user sys" of the default bench run (s)
  run-perfbench-i.json                        perfbench's JSON report
  run-criterion-i-<bench>.estimates.json      criterion's estimates
  run-divan-i.out                             divan's output (its text table)

Headline figure of each harness (ns per iteration), as used in the repeatability table:
perfbench `counters["wall-time"].estimate.point`, criterion the slope of estimates.json where it
has one and else the mean (what its `time:` line shows), divan the median column of its table.
"""
import glob
import json
import os
import re
import statistics
import sys

BENCHES = ["fib_20", "sum_4096", "sort_1000", "hash_1k", "copy_64k"]
SUITES = ["criterion", "perfbench", "divan"]
# The repeatability table's columns: each harness's headline, and perfbench's floor.
HEADS = SUITES + ["perfbench floor"]


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
    # Under a second (divan's default run): /usr/bin/time's full resolution, 0.01 s.
    return f"{x:.2f}" if x < 1 else f"{x:.1f}"


def fmt_ratio(r, decimals):
    # Ratios too small for the usual decimals (divan's run against criterion's) keep 2 digits.
    return f"{r:.2g}" if 0 < r < 10 ** -decimals * 10 else f"{r:.{decimals}f}"


def med(xs):
    return statistics.median(xs) if xs else float("nan")


SHORT = {"criterion": "cr", "perfbench": "pb", "divan": "dv"}
# The suites whose times are compared with criterion's (a ratio column each).
VS_CRITERION = ["perfbench", "divan"]


def ratio_of(a, b):
    return a / b if a is not None and b else float("nan")


def times_table(res, phase, rs, decimals):
    """Prints the per-round table of a phase ("build" or "run") with its median row; returns the
    wall and CPU seconds per suite and the ratios of the median walls to criterion's
    ({"perfbench": pb/cr, "divan": dv/cr})."""
    head = ["round"]
    for s in SUITES:
        head += [f"{s} wall", f"{s} cpu", "load"]
    head += [f"wall ratio {SHORT[s]}/cr" for s in VS_CRITERION]
    print("| " + " | ".join(head) + " |")
    print("| --- |" + " ---: |" * (len(head) - 1))
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
        row += [fmt_ratio(ratio_of(vals.get(s), vals.get("criterion")), decimals) for s in VS_CRITERION]
        print("| " + " | ".join(row) + " |")
    ratios = {s: med(walls[s]) / med(walls["criterion"]) for s in VS_CRITERION}
    row = ["**median**"]
    for s in SUITES:
        row += [f"**{fmt_s(med(walls[s]))}**", fmt_s(med(cpus[s])), ""]
    row += [f"**{fmt_ratio(ratios[s], decimals)}**" for s in VS_CRITERION]
    print("| " + " | ".join(row) + " |")
    return walls, cpus, ratios


# divan's table: a tree of rows "├─ name  fastest │ slowest │ median │ mean │ samples │ iters".
DIVAN_UNITS = {"ps": 1e-3, "ns": 1.0, "µs": 1e3, "μs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}
DIVAN_FIRST = re.compile(r"^[\s│├╰─]*(\S+)\s+([0-9.]+)\s*(ps|ns|µs|μs|us|ms|s)\s*$")
DIVAN_TIME = re.compile(r"^\s*([0-9.]+)\s*(ps|ns|µs|μs|us|ms|s)\s*$")


def divan_table(path):
    """{bench: {"fastest", "slowest", "median", "mean" (ns per iteration), "samples", "iters"}}
    from divan's output, or {} if there is none."""
    if not os.path.exists(path):
        return {}
    out = {}
    for line in open(path, encoding="utf-8"):
        cells = line.rstrip("\n").split("│")
        if len(cells) != 6:
            continue
        m = DIVAN_FIRST.match(cells[0])
        times = [DIVAN_TIME.match(c) for c in cells[1:4]]
        if not m or not all(times):
            continue
        ns = [float(m.group(2)) * DIVAN_UNITS[m.group(3)]] + \
             [float(t.group(1)) * DIVAN_UNITS[t.group(2)] for t in times]
        out[m.group(1)] = dict(zip(["fastest", "slowest", "median", "mean"], ns),
                               samples=int(cells[4]), iters=int(cells[5]))
    return out


def perfbench_point(e):
    """The headline of a perfbench wall-time estimate (older reports have no `point`)."""
    return e.get("point", e["slope"] if e.get("slope") is not None else e["mean"])


def headline(res, s, i, b):
    """The headline figure (ns per iteration) of harness s for bench b in run i, or None."""
    if s in ("perfbench", "perfbench floor"):
        p = os.path.join(res, f"run-perfbench-{i}.json")
        if not os.path.exists(p):
            return None
        bench = next((x for x in json.load(open(p))["benchmarks"] if x["name"] == b), None)
        if not bench:
            return None
        e = bench["counters"]["wall-time"]["estimate"]
        # The floor is the figure perfbench's change verdict compares: the smallest sample.
        return e["min"] if s == "perfbench floor" else perfbench_point(e)
    if s == "criterion":
        p = os.path.join(res, f"run-criterion-{i}-{b}.estimates.json")
        if not os.path.exists(p):
            return None
        c = json.load(open(p))
        return (c.get("slope") or c["mean"])["point_estimate"]
    if s == "divan":
        row = divan_table(os.path.join(res, f"run-divan-{i}.out")).get(b)
        return row["median"] if row else None
    raise ValueError(s)


def mad(xs):
    """Median absolute deviation from the median (unscaled)."""
    m = med(xs)
    return med([abs(x - m) for x in xs])


def main():
    res = sys.argv[1]
    rs = rounds(res, "build")
    print("# perfbench vs criterion 0.8 vs divan 0.1: side by side\n")
    env = os.path.join(res, "env.txt")
    if os.path.exists(env):
        print("```\n" + open(env).read().rstrip() + "\n```\n")

    # 1. Builds
    print("## 1. Clean release build (`cargo build --release --benches`, fresh target dir)\n")
    if not rs:
        print("No build rounds in this session (BUILD_ROUNDS=0): each suite was built once, "
              "untimed, for the runs.\n")
    else:
        print("Alternating criterion, perfbench, divan, criterion, ... Wall and CPU (user+sys) "
              "seconds; load = 1-min load average just before.\n")
        _, bc, build_ratios = times_table(res, "build", rs, 2)
        build_ratio = build_ratios["perfbench"]
        build_cpu_ratio = med(bc["perfbench"]) / med(bc["criterion"])
        print()
        print(f"Ratio of medians, perfbench / criterion: wall **{build_ratio:.2f}**, "
              f"CPU {build_cpu_ratio:.2f}. Target <= 0.35 (the build budget): "
              f"**{'met' if build_ratio <= 0.35 else 'NOT met'}**. "
              f"divan / criterion: wall {build_ratios['divan']:.2f}, "
              f"CPU {med(bc['divan']) / med(bc['criterion']):.2f}.\n")

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
    run_walls, _, run_ratios = times_table(res, "run", rs, 3)
    run_ratio = run_ratios["perfbench"]
    print()
    print(f"Ratio of medians, perfbench / criterion: **{run_ratio:.3f}**. Target <= 0.25: "
          f"**{'met' if run_ratio <= 0.25 else 'NOT met'}**. divan / criterion: "
          f"{fmt_ratio(run_ratios['divan'], 3)} (divan's run is at or near /usr/bin/time's "
          "resolution, 0.01 s, when it takes its defaults).\n")
    dv = [(i, divan_table(os.path.join(res, f"run-divan-{i}.out"))) for i in rs]
    dv = [(i, t) for i, t in dv if t]
    if dv:
        print("divan's own budget: its defaults (100 samples per benchmark, iterations per sample "
              "chosen from its timer's precision, no warm-up phase of its own). Samples x "
              "iterations in all, per benchmark (round " + str(dv[0][0]) + "): " +
              ", ".join(f"{b} {dv[0][1][b]['samples']} x {dv[0][1][b]['iters']}"
                        for b in BENCHES if b in dv[0][1]) + ".\n")
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
        print("| round | total | warm-up (budget) | measured: " + " | ".join(BENCHES) + " | rest |")
        print("| ---: " * (len(BENCHES) + 4) + "|")
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
          "criterion: `mean` and `slope` of `estimates.json` (its headline `time:` is the slope). "
          "divan reports no interval (its table gives fastest, slowest, median and mean), so it "
          "has no column here.\n")
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
            pb_point = perfbench_point(e)
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
    print("perfbench mean = its `point`. divan: the median and mean columns of its table (printed "
          "to 4 significant digits).\n")
    print("| bench | round | perfbench mean | criterion mean | criterion slope | pb/cr mean | pb/cr slope | perfbench median | criterion median | pb/cr median | divan median | divan mean | pb/dv median | pb/dv mean |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    dv_by_round = {i: divan_table(os.path.join(res, f"run-divan-{i}.out")) for i in rs}
    nan = float("nan")
    for b in BENCHES:
        for i, pbm, pbmed, crm, crs, crmed in points[b]:
            d = dv_by_round.get(i, {}).get(b, {})
            dmed, dmean = d.get("median", nan), d.get("mean", nan)
            print(f"| {b} | {i} | {pbm:.1f} | {crm:.1f} | {crs:.1f} | {pbm / crm:.3f} | "
                  f"{pbm / crs:.3f} | {pbmed:.1f} | {crmed:.1f} | {pbmed / crmed:.3f} | "
                  f"{dmed:.1f} | {dmean:.1f} | {pbmed / dmed:.3f} | {pbm / dmean:.3f} |")
    print()
    print("| bench | median pb/cr mean | median pb/cr slope | median pb/cr median | median pb/dv median | median pb/dv mean |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for b in BENCHES:
        if points[b]:
            dvr = [(p, dv_by_round.get(p[0], {}).get(b)) for p in points[b]]
            dvr = [(p, d) for p, d in dvr if d]
            print(f"| {b} | {med([p[1] / p[3] for p in points[b]]):.3f} | "
                  f"{med([p[1] / p[4] for p in points[b]]):.3f} | "
                  f"{med([p[2] / p[5] for p in points[b]]):.3f} | "
                  f"{med([p[2] / d['median'] for p, d in dvr]):.3f} | "
                  f"{med([p[1] / d['mean'] for p, d in dvr]):.3f} |")
    print()

    # 5. Repeatability
    heads = {s: {b: [] for b in BENCHES} for s in HEADS}
    for i in rs:
        for s in HEADS:
            for b in BENCHES:
                h = headline(res, s, i, b)
                if h is not None:
                    heads[s][b].append(h)
    counts = sorted({len(heads[s][b]) for s in HEADS for b in BENCHES})
    n = counts[-1] if counts else 0
    print(f"## 5. Repeatability over {n} alternating runs ({', '.join(SUITES)}, "
          f"{', '.join(SUITES[:2])}, ...)\n")
    print("Headline figure per harness: perfbench `estimate.point` of `wall-time` and, as "
          "`perfbench floor`, its floor (`estimate.min`, the smallest sample: the figure its "
          "change verdict compares), criterion its "
          "slope (its mean where it has no slope; what its `time:` line shows), divan the "
          "median of its table. Spread = median absolute deviation of the headline across the "
          "runs (unscaled), as a percentage of its median across the runs; lower repeats "
          "better." + (f" Runs with a figure: {', '.join(map(str, counts))} (some are missing)."
                        if len(counts) > 1 else "") + "\n")
    if n < 2:
        print("Fewer than 2 runs: no spread to report.\n")
    else:
        head = ["bench"]
        for s in HEADS:
            head += [f"{s} median (ns)", f"{s} MAD"]
        head += ["repeats best"]
        print("| " + " | ".join(head) + " |")
        print("| --- |" + " ---: |" * (2 * len(HEADS)) + " --- |")
        best_lines = []
        for b in BENCHES:
            row = [b]
            rel = {}
            for s in HEADS:
                xs = heads[s][b]
                if len(xs) < 2:
                    row += ["-", "-"]
                    continue
                rel[s] = 100 * mad(xs) / med(xs)
                row += [f"{med(xs):.1f}", f"{rel[s]:.2f}%"]
            lo = min(rel.values()) if rel else nan
            best = [s for s in HEADS if s in rel and rel[s] == lo]
            row.append(" = ".join(best) if best else "-")
            print("| " + " | ".join(row) + " |")
            if best:
                best_lines.append(f"{b}: {' = '.join(best)} ({lo:.2f}%)")
        row = ["run time (median wall, s)"]
        for s in HEADS:
            walls = run_walls[s.split()[0]]
            row += [fmt_s(med(walls)) if walls else "-", ""]
        row.append("")
        print("| " + " | ".join(row) + " |")
        print()
        print("Repeats best (lowest MAD / median of the headline), per benchmark: " +
              "; ".join(best_lines) + ".\n")


if __name__ == "__main__":
    main()
