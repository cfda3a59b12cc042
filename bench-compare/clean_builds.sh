# Sourced by build.sh: alternating clean release builds of downstream crates
# and the medians of their times. The caller sets `work` (a scratch directory) and defines
# `dir_of SUITE` (the suite's crate directory). Downloads are fetched first and not timed.
# Sourcing it clears a target directory set in the environment (each build picks its own) and
# turns cargo's colours off.

unset CARGO_TARGET_DIR CARGO_BUILD_TARGET_DIR
export CARGO_TERM_COLOR=never

# clean_builds ROUNDS SUITE...: ROUNDS rounds of `cargo build --release --benches`, one suite
# after the other, each in a fresh target directory ($work/target-SUITE); the times go to
# $work/SUITE-ROUND.time (wall, user and system seconds).
clean_builds() {
    local rounds=$1 s i t
    shift
    for s in "$@"; do (cd "$(dir_of "$s")" && cargo fetch --quiet); done
    for i in $(seq 1 "$rounds"); do
        for s in "$@"; do
            t=$work/target-$s
            rm -rf "$t"
            (cd "$(dir_of "$s")" && CARGO_TARGET_DIR=$t /usr/bin/time -f '%e %U %S' -o "$work/$s-$i.time" \
                cargo build --release --benches --quiet)
            echo "$s round $i: $(cat "$work/$s-$i.time") (wall user sys, s; load $(cut -d' ' -f1 /proc/loadavg))"
        done
    done
}

# build_medians ROUNDS SUITE...: each suite's median wall and CPU seconds, and their ratios to
# the first suite's.
build_medians() {
    python3 - "$work" "$@" <<'PY'
import statistics, sys
work, rounds, suites = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def times(s):
    out = []
    for i in range(1, rounds + 1):
        w, u, sy = map(float, open(f"{work}/{s}-{i}.time").read().split())
        out.append((w, u + sy))
    return out
med = {s: (statistics.median(w for w, _ in times(s)), statistics.median(c for _, c in times(s)))
       for s in suites}
rw, rc = med[suites[0]]
for s, (w, c) in med.items():
    print(f"{s:18s} median wall {w:6.1f} s  CPU {c:6.1f} s  wall/{suites[0]} {w / rw:.2f}  CPU/{suites[0]} {c / rc:.2f}")
PY
}
