#!/usr/bin/env bash
# Clean downstream build time only (issue 8's budget; issue 11's "measure both"): alternating
# clean `cargo build --release --benches` of criterion-suite, perfbench-suite (default features,
# with the HTML report) and the same suite with `default-features = false` (no `html`), each
# in a fresh target directory, ROUNDS times. Downloads are fetched first and not timed.
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

# The no-html variant: a copy of perfbench-suite whose dependency turns the default features off.
nohtml=$work/perfbench-nohtml-suite
mkdir -p "$nohtml"
cp -r "$here/perfbench-suite/benches" "$nohtml/"
sed -e 's|name = "perfbench-suite"|name = "perfbench-nohtml-suite"|' \
    -e "s|perfbench = { path = \"../../perfbench\" }|perfbench = { path = \"$here/../perfbench\", default-features = false }|" \
    "$here/perfbench-suite/Cargo.toml" >"$nohtml/Cargo.toml"
grep -q 'default-features = false' "$nohtml/Cargo.toml"

dir_of() {
    case $1 in
        criterion) echo "$here/criterion-suite" ;;
        perfbench) echo "$here/perfbench-suite" ;;
        perfbench-nohtml) echo "$nohtml" ;;
    esac
}
suites=(criterion perfbench perfbench-nohtml)
clean_builds "$rounds" "${suites[@]}"
build_medians "$rounds" "${suites[@]}"
