#!/usr/bin/env bash
# Clean downstream build time: alternating clean `cargo build --release --benches` of
# criterion-suite and perfbench-suite (perfbench's default features: the benchmark binary
# measures, the `perfbench` tool analyses), each in a fresh target directory, ROUNDS times.
# Downloads are fetched first and not timed. Then the perfbench benchmark binary is run as a new
# user's first run and must measure the three benchmarks on an empty tool cache: it builds the
# `perfbench` tool, once (the one-time step, timed).
#
#   bash bench-compare/build.sh [ROUNDS]      # ROUNDS defaults to 3
#
# Prints each build's wall and CPU seconds and the ratios of the medians to criterion's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rounds=${1:-3}
work=${BC_WORK:-/tmp/bench-compare-build}
rm -rf "$work"
mkdir -p "$work"
# shellcheck source=clean_builds.sh
source "$here/clean_builds.sh"

dir_of() {
    case $1 in
        criterion) echo "$here/criterion-suite" ;;
        perfbench) echo "$here/perfbench-suite" ;;
    esac
}
suites=(criterion perfbench)
clean_builds "$rounds" "${suites[@]}"
# The perfbench build measures, as a new user's first run: no `perfbench` on PATH
# and an empty tool cache, so the benchmark binary builds the tool itself first (the one-time
# step, timed by the binary's own `built the perfbench tool in N s` line), offline from cargo's
# cache.
no_tool_path=$(tr ':' '\n' <<<"$PATH" | while read -r d; do [ -e "$d/perfbench" ] || printf '%s:' "$d"; done)
exe=$(find "$work/target-perfbench/release/deps" -maxdepth 1 -type f -executable -name 'suite-*' | head -1)
out=$(cd "$work" && CARGO_TARGET_DIR="$work/reports-perfbench" PERFBENCH_CACHE_DIR="$work/tool-cache" \
    PATH="${no_tool_path%:}" CARGO_NET_OFFLINE=true "$exe" --bench --quick --rounds 2 --sample-size 10 2>&1)
grep -q '3 benchmarks: 3 measured' <<<"$out" || { echo "the benchmark binary did not measure:"; echo "$out"; exit 1; }
echo "perfbench: measured fib_20, sum_4096, sort_1000"
built=$(grep -o 'built the `perfbench` tool in [0-9.]* s' <<<"$out") || { echo "the benchmark binary did not build the tool:"; echo "$out"; exit 1; }
echo "one-time step of the first run (the tool's build, load $(cut -d' ' -f1 /proc/loadavg)): $built"
build_medians "$rounds" "${suites[@]}"
