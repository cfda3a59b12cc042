#!/usr/bin/env bash
# How far one process's figure for the 64 KiB copy sits from another's when nothing else
# differs (issue 35): RUNS (default 20) processes of process-level/ (the copy timed by a plain
# loop, no harness, buffers at the same offsets in every process), each printing its ten rounds'
# medians. Summary: per process, the spread of its rounds (max/min - 1); over the processes,
# the range and the MAD of their levels (the median of the rounds), in ns and % of the median.
#
#   bench-compare/process-level.sh            # RUNS=20
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
runs=${RUNS:-20}
export CARGO_TARGET_DIR=${PL_WORK:-/tmp/perfbench-process-level}/target
(cd "$here/process-level" && cargo build --release --quiet)
out=$(for _ in $(seq 1 "$runs"); do "$CARGO_TARGET_DIR/release/process-level"; done)
printf '%s\n' "$out"
printf '%s\n' "$out" | python3 -c '
import statistics, sys
levels, within = [], []
for line in sys.stdin:
    f = line.split()
    levels.append(float(f[f.index("level") + 1]))
    rs = [float(x) for x in f[f.index("rounds") + 1:]]
    within.append(100 * (max(rs) / min(rs) - 1))
m = statistics.median(levels)
mad = statistics.median(abs(x - m) for x in levels)
print(f"{len(levels)} processes: levels {min(levels):.1f} to {max(levels):.1f} ns "
      f"(range {100 * (max(levels) / min(levels) - 1):.2f}%), MAD {mad:.2f} ns ({100 * mad / m:.2f}%); "
      f"rounds within a process: median spread {statistics.median(within):.2f}%")
'
