#!/usr/bin/env python3
"""Re-estimates the runs of bench-compare/stopping.sh both ways: the median of every sample and
the median of the quiet rounds (perfbench::harness::quiet: the rounds whose median is within
BAND of the smallest where three are, else within BAND of the third smallest), and prints each
benchmark's run-to-run MAD (relative, %) beside divan's, per work directory.

    python3 bench-compare/quiet_replay.py /tmp/perfbench-stopping [DIR ...]
    VARIANT=p1 BAND=0.005 python3 bench-compare/quiet_replay.py DIR

The runs keep every sample and its round, so the runs of any version of the tool can be
re-estimated (the rounds they took are the rule of that version's).
"""
import glob
import json
import os
import re
import statistics as st
import sys

BENCHES = ["fib_20", "sum_4096", "sort_1000", "hash_1k", "copy_64k"]
UNITS = {"ns": 1, "µs": 1e3, "ms": 1e6}


def rounds_of(c):
    out, k = [], 0
    for n in c["rounds"]:
        out.append([x for x in c["per_iteration"][k:k + n] if x == x])
        k += n
    return [r for r in out if r]


def quiet(rounds, band):
    meds = [st.median(r) for r in rounds]
    ranked = sorted(meds)

    def within(a):
        return [i for i, m in enumerate(meds) if m <= a + band * max(abs(a), 1.0)]

    if len(ranked) < 3:
        return list(range(len(meds)))
    fastest = within(ranked[0])
    return fastest if len(fastest) >= 3 else within(ranked[2])


def mad(values):
    m = st.median(values)
    return 100 * st.median([abs(v - m) for v in values]) / m


def divan(runs):
    figures = {}
    for f in sorted(glob.glob(f"{runs}/divan-*.out")):
        for line in open(f, encoding="utf-8"):
            m = re.match(r"[├╰]─ (\w+)\s+\S+ \S+\s+│\s+\S+ \S+\s+│\s+([\d.]+) (\S+)", line)
            if m:
                figures.setdefault(m.group(1), []).append(float(m.group(2)) * UNITS[m.group(3)])
    return figures


def main():
    variant = os.environ.get("VARIANT", "p1")
    band = float(os.environ.get("BAND", "0.005"))
    print(f"| set | estimate | {' | '.join(BENCHES)} |")
    print(f"| --- | --- |{' ---: |' * len(BENCHES)}")
    for work in sys.argv[1:]:
        runs = f"{work}/runs"
        every, quiet_median = {}, {}
        for f in sorted(glob.glob(f"{runs}/{variant}-*.json")):
            for b in json.load(open(f, encoding="utf-8"))["benchmarks"]:
                rounds = rounds_of(b["counters"]["wall-time"])
                every.setdefault(b["name"], []).append(st.median([x for r in rounds for x in r]))
                kept = [x for i in quiet(rounds, band) for x in rounds[i]]
                quiet_median.setdefault(b["name"], []).append(st.median(kept))
        for name, figures in [("divan", divan(runs)), ("every sample", every),
                              ("quiet rounds", quiet_median)]:
            cells = " | ".join(f"{mad(figures[n]):.2f}" if n in figures else "" for n in BENCHES)
            print(f"| {os.path.basename(work)} | {name} | {cells} |")


if __name__ == "__main__":
    main()
