#!/usr/bin/env bash
# Issue 34: what perfbench's counting allocator costs per allocation, against the system
# allocator alone, a wrapper that only forwards to it, and divan 0.1's AllocProfiler, in one
# session: RUNS alternating runs (default 10) of five builds of the same loop (1,000,000 allocations of 32 bytes, each freed at once,
# timed 21 times; each run prints its median ns per allocation-and-free pair). Prints, per
# allocator, the median over the runs and its cost over the system allocator's.
#
#   bash bench-compare/alloc-overhead.sh          # RUNS=10
#   RUNS=4 bash bench-compare/alloc-overhead.sh
#
# Wall clock drifts on the shared VM: the runs alternate so that drift reaches each alike.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
runs=${RUNS:-10}
export CARGO_TARGET_DIR=${BC_WORK:-/tmp/bench-compare-alloc}/target
(cd "$here/alloc-overhead" && cargo build --release -q --bins)
out=$(mktemp)
for i in $(seq 1 "$runs"); do
  for bin in system forward perfbench_off perfbench_on divan; do
    "$CARGO_TARGET_DIR/release/$bin" >>"$out"
  done
done
python3 - "$out" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    name, ns = line.split()
    runs.setdefault(name, []).append(float(ns))
base = statistics.median(runs["system"])
print(f"{'allocator':<15} {'ns/pair':>8} {'over system':>12}  (median of {len(runs['system'])} runs)")
for name in ["system", "forward", "perfbench-off", "perfbench-on", "divan"]:
    m = statistics.median(runs[name])
    print(f"{name:<15} {m:8.2f} {m - base:+11.2f} ns")
PY
rm -f "$out"
