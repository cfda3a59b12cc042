#!/usr/bin/env bash
# Clean downstream build time only (issue 8's budget; issue 11's "measure both"): alternating
# clean `cargo build --release --benches` of criterion-suite, perfbench-suite (perfbench's
# default features: the lean build, whose runs the `perfbench` tool analyses) and the same suite
# with `features = ["html"]` (the analysis and the HTML report in the benchmark binary), each in
# a fresh target directory, ROUNDS times. Downloads are fetched first and not timed. Then each
# perfbench build's benchmark binary is run and must
# measure the three benchmarks, the lean one on an empty tool cache: its first run builds the
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

# The full variant: a copy of perfbench-suite whose dependency enables `html` (and `analysis`).
full=$work/perfbench-full-suite
mkdir -p "$full"
cp -r "$here/perfbench-suite/benches" "$full/"
sed -e 's|name = "perfbench-suite"|name = "perfbench-full-suite"|' \
    -e "s|perfbench = { path = \"../../perfbench\" }|perfbench = { path = \"$here/../perfbench\", features = [\"html\"] }|" \
    "$here/perfbench-suite/Cargo.toml" >"$full/Cargo.toml"
grep -q 'features = \["html"\]' "$full/Cargo.toml"

dir_of() {
    case $1 in
        criterion) echo "$here/criterion-suite" ;;
        perfbench) echo "$here/perfbench-suite" ;;
        perfbench-full) echo "$full" ;;
    esac
}
suites=(criterion perfbench perfbench-full)
clean_builds "$rounds" "${suites[@]}"
# Both perfbench builds measure. The lean one as a new user's first run: no `perfbench` on PATH
# and an empty tool cache, so the benchmark binary builds the tool itself first (the one-time
# step, timed by the binary's own `built the perfbench tool in N s` line), offline from cargo's
# cache.
no_tool_path=$(tr ':' '\n' <<<"$PATH" | while read -r d; do [ -e "$d/perfbench" ] || printf '%s:' "$d"; done)
for s in perfbench perfbench-full; do
    exe=$(find "$work/target-$s/release/deps" -maxdepth 1 -type f -executable -name 'suite-*' | head -1)
    out=$(cd "$work" && CARGO_TARGET_DIR="$work/reports-$s" PERFBENCH_CACHE_DIR="$work/tool-cache" \
        PATH="${no_tool_path%:}" CARGO_NET_OFFLINE=true "$exe" --bench --quick --rounds 2 --sample-size 10 2>&1)
    grep -q '3 benchmarks: 3 measured' <<<"$out" || { echo "$s: the benchmark binary did not measure:"; echo "$out"; exit 1; }
    echo "$s: measured fib_20, sum_4096, sort_1000"
    if [ "$s" = perfbench ]; then
        built=$(grep -o 'built the `perfbench` tool in [0-9.]* s' <<<"$out") || { echo "the lean binary did not build the tool:"; echo "$out"; exit 1; }
        echo "one-time step of the first run (the tool's build, load $(cut -d' ' -f1 /proc/loadavg)): $built"
    fi
done
build_medians "$rounds" "${suites[@]}"
