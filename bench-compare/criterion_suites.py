#!/usr/bin/env python3
"""Summary of bench-compare/criterion-suites.sh's results directory (markdown on stdout).

    python3 bench-compare/criterion_suites.py $BC_WORK/results

Reads (harness = criterion or perfbench, i = round):
  env.txt, suites.txt, runs.txt, filter.txt   what the script recorded
  ids-<harness>-<suite>.txt                   the ids `<binary> --bench --list` printed
  run-<harness>-<suite>-i.time                /usr/bin/time: "wall user sys maxrss" (last line)
  run-<harness>-<suite>-i.load                1-min load average just before the run
  run-criterion-<suite>-i/criterion/**/new/{benchmark,estimates}.json   criterion's reports
  run-perfbench-<suite>-i/perfbench/real_<suite>.json                  perfbench's report

Per benchmark and run, each harness's headline wall time per iteration (ns), with its interval:
criterion the slope of estimates.json where it has one, else the mean (what its `time:` line
shows; its median is kept beside); perfbench `counters["wall-time"].estimate.point` with
`ci_low`/`ci_high` (as bench-compare/summarize.py reads it).
"""
import glob
import json
import math
import os
import statistics
import sys

HARNESSES = ["criterion", "perfbench"]
NAN = float("nan")


def med(xs):
    xs = [x for x in xs if x is not None and not math.isnan(x)]
    return statistics.median(xs) if xs else NAN


def read_text(path, default=""):
    return open(path).read() if os.path.exists(path) else default


def read_time(path):
    """(wall s, cpu s, max RSS KiB, failed) from /usr/bin/time's file, or None. A command that
    failed has "Command exited with non-zero status N" (or "terminated by signal") first."""
    if not os.path.exists(path):
        return None
    lines = [l for l in open(path).read().splitlines() if l.strip()]
    if not lines:
        return None
    f = lines[-1].split()
    try:
        wall, user, sys_, rss = float(f[0]), float(f[1]), float(f[2]), int(f[3])
    except (ValueError, IndexError):
        return None
    return wall, user + sys_, rss, len(lines) > 1


def fmt_ns(x):
    if x is None or math.isnan(x):
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if x >= scale:
            return f"{x / scale:.4g} {unit}"
    return f"{x:.4g} ns"


def pct(x):
    return "-" if x is None or math.isnan(x) else f"{100 * x:.1f}%"


def fmt_r(x):
    return "-" if x is None or math.isnan(x) else f"{x:.3f}"


def criterion_run(d):
    """{id: (headline ns, "slope"|"mean", relative half-width of the headline's interval,
    median ns)} from one criterion output directory."""
    out = {}
    for bj in glob.glob(os.path.join(d, "criterion", "**", "new", "benchmark.json"), recursive=True):
        ej = os.path.join(os.path.dirname(bj), "estimates.json")
        if not os.path.exists(ej):
            continue
        full_id = json.load(open(bj))["full_id"]
        e = json.load(open(ej))
        kind = "slope" if e.get("slope") else "mean"
        h = e[kind]
        ci = h["confidence_interval"]
        p = h["point_estimate"]
        out[full_id] = (p, kind, (ci["upper_bound"] - ci["lower_bound"]) / 2 / p,
                        e["median"]["point_estimate"])
    return out


def perfbench_run(d, suite):
    """{id: (point ns, relative half-width of its interval, median ns, loop ns)} from one
    perfbench output directory. The loop is what calibration subtracted per iteration: the
    counter's `overhead` (per sample, at the first sample's iteration count) over that count,
    the cost of an empty iteration of perfbench's loop (and the bracket's share), which
    criterion's slope keeps in its figure."""
    p = os.path.join(d, "perfbench", f"real_{suite}.json")
    if not os.path.exists(p):
        return {}
    out = {}
    for b in json.load(open(p))["benchmarks"]:
        wall = (b.get("counters") or {}).get("wall-time") or {}
        e = wall.get("estimate")
        if b.get("outcome") != "measured" or not e:
            continue
        point = e.get("point", e["slope"] if e.get("slope") is not None else e["mean"])
        its = wall.get("iterations") or [0]
        loop = wall.get("overhead", 0.0) / its[0] if its[0] else 0.0
        out[b["id"]] = (point, (e["ci_high"] - e["ci_low"]) / 2 / point, e["median"], loop)
    return out


def spread(xs):
    """Relative range over the runs, (max - min) / median; 0 with one run."""
    xs = [x for x in xs if x is not None]
    return (max(xs) - min(xs)) / statistics.median(xs) if xs else NAN


def main():
    res = sys.argv[1]
    suites = read_text(os.path.join(res, "suites.txt")).split()
    runs = int(read_text(os.path.join(res, "runs.txt"), "0").strip() or 0)
    flt = read_text(os.path.join(res, "filter.txt"))
    rounds = list(range(1, runs + 1))

    print("# Published criterion suites on criterion 0.8 and on perfbench-criterion\n")
    env = os.path.join(res, "env.txt")
    if os.path.exists(env):
        print("```\n" + open(env).read().rstrip() + "\n```\n")
    print(f"Each suite's bench file (tests/fixtures/criterion/real_<suite>.rs, unchanged) built "
          f"against `criterion = \"0.8\"` and against perfbench-criterion; {runs} alternating "
          f"default runs (`<binary> --bench"
          + (f" {flt}`: FILTER `{flt}` passed to both" if flt else "`") +
          "), criterion first, each with a fresh output directory.\n")
    print("**Agreement rule.** Per benchmark, each harness's headline wall time per iteration "
          "(criterion: its slope where it has one, else its mean; perfbench: `estimate.point` of "
          "`wall-time`) is taken as the median over the runs, m_cr and m_pb. The benchmark "
          "*agrees* when |ln(m_pb / m_cr)| <= s_cr + s_pb + h_cr + h_pb, where s is a harness's "
          "run-to-run spread, (max - min) / median of its headline over the runs (0 with one "
          "run), and h is the relative half-width of its 95% interval, (high - low) / 2 / point "
          "(median over the runs). The `bound` column is that sum; the `excess` of a "
          "benchmark is |ln r| - bound (> 0: it disagrees). The two define the figure "
          "alike but for one thing: perfbench subtracts an empty iteration of its own loop (its "
          "calibration), criterion's slope keeps its loop's cost in the figure; `+loop` is "
          "perfbench's figure with its calibrated empty iteration added back, over criterion's "
          "(shown, not used by the rule; it matters below a few nanoseconds).\n")

    total = {"n": 0, "agree": 0, "ratios": [], "walls": {h: 0.0 for h in HARNESSES},
             "ids_same": 0, "worst": []}
    for s in suites:
        print(f"## {s}\n")
        ids = {h: read_text(os.path.join(res, f"ids-{h}-{s}.txt")).splitlines() for h in HARNESSES}
        same = ids["criterion"] == ids["perfbench"]
        total["ids_same"] += same
        print(f"**Ids** (`--bench --list`): criterion {len(ids['criterion'])}, perfbench "
              f"{len(ids['perfbench'])}: identical **{'yes' if same else 'NO'}**.")
        fx = read_text(os.path.join(res, f"ids-{s}-fixture.diff"))
        print(f"criterion 0.8's list {'is' if not fx.strip() else 'is NOT'} the same as "
              f"real_{s}.ids (what criterion 0.3-0.5 listed).\n")
        if not same:
            print("```diff\n" + read_text(os.path.join(res, f"ids-{s}.diff")).rstrip() + "\n```\n")

        # Run times.
        print("| round | criterion wall (s) | cpu | load | perfbench wall (s) | cpu | load | pb/cr wall |")
        print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        walls = {h: [] for h in HARNESSES}
        for i in rounds:
            row = [str(i)]
            w = {}
            for h in HARNESSES:
                base = os.path.join(res, f"run-{h}-{s}-{i}")
                t = read_time(base + ".time")
                load = read_text(base + ".load", "?").strip()
                if t is None:
                    row += ["-", "-", load]
                    continue
                w[h] = t[0]
                walls[h].append(t[0])
                row += [f"{t[0]:.1f}" + (" FAILED" if t[3] else ""), f"{t[1]:.1f}", load]
            r = w["perfbench"] / w["criterion"] if len(w) == 2 and w["criterion"] else NAN
            print("| " + " | ".join(row + [fmt_r(r)]) + " |")
        mw = {h: med(walls[h]) for h in HARNESSES}
        wall_ratio = mw["perfbench"] / mw["criterion"] if mw["criterion"] else NAN
        for h in HARNESSES:
            if not math.isnan(mw[h]):
                total["walls"][h] += mw[h]
        print(f"| **median** | **{mw['criterion']:.1f}** | | | **{mw['perfbench']:.1f}** | | | "
              f"**{fmt_r(wall_ratio)}** |\n")

        # Estimates.
        cr = [criterion_run(os.path.join(res, f"run-criterion-{s}-{i}")) for i in rounds]
        pb = [perfbench_run(os.path.join(res, f"run-perfbench-{s}-{i}"), s) for i in rounds]
        order = list(ids["criterion"]) + [x for x in ids["perfbench"] if x not in ids["criterion"]]
        seen = set().union(*cr, *pb) if rounds else set()
        order = [x for x in order if x in seen] + sorted(seen - set(order))
        rows = []
        for b in order:
            c = [r[b] for r in cr if b in r]
            p = [r[b] for r in pb if b in r]
            row = {"id": b, "nc": len(c), "np": len(p)}
            row["cr"] = med([x[0] for x in c])
            row["kind"] = "/".join(sorted({x[1] for x in c})) or "-"
            row["cr_median"] = med([x[3] for x in c])
            row["pb"] = med([x[0] for x in p])
            row["pb_median"] = med([x[2] for x in p])
            row["s_cr"] = spread([x[0] for x in c]) if c else NAN
            row["s_pb"] = spread([x[0] for x in p]) if p else NAN
            row["h_cr"] = med([x[2] for x in c])
            row["h_pb"] = med([x[1] for x in p])
            row["ratio"] = row["pb"] / row["cr"] if c and p else NAN
            row["loop_ratio"] = med([x[0] + x[3] for x in p]) / row["cr"] if c and p else NAN
            row["bound"] = row["s_cr"] + row["s_pb"] + row["h_cr"] + row["h_pb"]
            row["lnr"] = abs(math.log(row["ratio"])) if c and p else NAN
            row["excess"] = row["lnr"] - row["bound"]
            row["agree"] = bool(c and p) and row["lnr"] <= row["bound"]
            rows.append(row)
        both = [r for r in rows if r["nc"] and r["np"]]
        agree = sum(r["agree"] for r in both)
        ratios = [r["ratio"] for r in both]
        total["n"] += len(both)
        total["agree"] += agree
        total["ratios"] += ratios
        total["worst"] += [(s, r) for r in both]
        missing = [r["id"] for r in rows if not (r["nc"] == r["np"] == len(rounds))]

        print(f"**Run time**: median criterion {mw['criterion']:.1f} s, perfbench "
              f"{mw['perfbench']:.1f} s, perfbench/criterion **{fmt_r(wall_ratio)}**. "
              f"**Estimates**: {len(both)} benchmark{'' if len(both) == 1 else 's'} measured by both; **{agree}/{len(both)} "
              f"agree**; median ratio perfbench/criterion **{fmt_r(med(ratios))}** (range "
              f"{fmt_r(min(ratios) if ratios else NAN)} - {fmt_r(max(ratios) if ratios else NAN)})."
              + (f" Missing from some run: {', '.join(f'`{m}`' for m in missing)}." if missing else "")
              + "\n")
        worst = sorted(both, key=lambda r: -r["excess"])[:5]
        if worst:
            print("Worst 5 (largest excess): " + "; ".join(
                f"`{r['id']}` cr {fmt_ns(r['cr'])} pb {fmt_ns(r['pb'])} ratio {fmt_r(r['ratio'])} "
                f"(|ln r| {r['lnr']:.3f} vs bound {r['bound']:.3f})" for r in worst) + ".\n")

        print("Wall time per iteration, medians over the runs; spread = (max - min) / median over "
              "the runs; ±hw = relative half-width of the 95% interval.\n")
        print("| benchmark | criterion | (est.) | cr median | perfbench | pb median | pb/cr | "
              "+loop | cr spread | pb spread | cr ±hw | pb ±hw | \\|ln r\\| | bound | agrees |")
        print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
              "| ---: | ---: | :---: |")
        for r in rows:
            print(f"| {r['id']} | {fmt_ns(r['cr'])} | {r['kind']} | {fmt_ns(r['cr_median'])} | "
                  f"{fmt_ns(r['pb'])} | {fmt_ns(r['pb_median'])} | {fmt_r(r['ratio'])} | "
                  f"{fmt_r(r['loop_ratio'])} | "
                  f"{pct(r['s_cr'])} | {pct(r['s_pb'])} | {pct(r['h_cr'])} | {pct(r['h_pb'])} | "
                  f"{fmt_r(r['lnr'])} | {fmt_r(r['bound'])} | "
                  f"{'yes' if r['agree'] else ('**no**' if r['nc'] and r['np'] else '-')} |")
        print()

    if len(suites) > 1:
        print("## All suites\n")
        cw, pw = total["walls"]["criterion"], total["walls"]["perfbench"]
        print(f"Ids identical in {total['ids_same']}/{len(suites)} suites. Run time (sum of the "
              f"suites' medians): criterion {cw:.1f} s, perfbench {pw:.1f} s, perfbench/criterion "
              f"**{fmt_r(pw / cw if cw else NAN)}**. **{total['agree']}/{total['n']} benchmarks "
              f"agree**; median ratio perfbench/criterion **{fmt_r(med(total['ratios']))}**.\n")
        worst = sorted(total["worst"], key=lambda sr: -sr[1]["excess"])[:5]
        if worst:
            print("Worst 5 overall: " + "; ".join(
                f"{s} `{r['id']}` ratio {fmt_r(r['ratio'])} (|ln r| {r['lnr']:.3f} vs bound "
                f"{r['bound']:.3f})" for s, r in worst) + ".\n")


if __name__ == "__main__":
    main()
