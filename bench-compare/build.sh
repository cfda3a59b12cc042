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
unset CARGO_TARGET_DIR CARGO_BUILD_TARGET_DIR
export CARGO_TERM_COLOR=never

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
for s in "${suites[@]}"; do (cd "$(dir_of "$s")" && cargo fetch --quiet); done
for i in $(seq 1 "$rounds"); do
    for s in "${suites[@]}"; do
        t=$work/target-$s
        rm -rf "$t"
        (cd "$(dir_of "$s")" && CARGO_TARGET_DIR=$t /usr/bin/time -f '%e %U %S' -o "$work/$s-$i.time" \
            cargo build --release --benches --quiet)
        echo "$s round $i: $(cat "$work/$s-$i.time") (wall user sys, s; load $(cut -d' ' -f1 /proc/loadavg))"
    done
done
python3 - "$work" "$rounds" <<'PY'
import statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
def times(s):
    out = []
    for i in range(1, rounds + 1):
        w, u, sy = map(float, open(f"{work}/{s}-{i}.time").read().split())
        out.append((w, u + sy))
    return out
med = {s: (statistics.median(w for w, _ in times(s)), statistics.median(c for _, c in times(s)))
       for s in ["criterion", "perfbench", "perfbench-nohtml"]}
cw, cc = med["criterion"]
for s, (w, c) in med.items():
    print(f"{s:18s} median wall {w:6.1f} s  CPU {c:6.1f} s  wall/criterion {w / cw:.2f}  CPU/criterion {c / cc:.2f}")
PY
