#!/usr/bin/env bash
# What the clean downstream build budget (issue 8: at most 0.35x criterion's) would take: clean
# builds of the three-benchmark downstream crate against three cut-down copies of the library,
# alternating with criterion-suite's, each in a fresh target directory.
#
#   bash bench-compare/build_floor.sh [ROUNDS]      # ROUNDS defaults to 3
#
# - `measure`: the measurement layers only (sys, machine, sorting, units, events, counters,
#   harness) and a `main!()` that runs every registered function through the harness and prints
#   its raw samples as JSON: what a benchmark build would compile if statistics, verdicts,
#   baselines and reports ran in a separately installed tool.
# - `raw`: `measure` without serde: the raw samples printed as JSON by a few lines of `format!`
#   (no serde, serde_derive or serde_json in the build; the attribute and linkme keep syn).
# - `model`: `measure` plus the data model and the statistics (`model`, `stats`); still no
#   runner, reports, baselines, history, compare or doctor.
#
# The copies are made from this checkout's perfbench/src by deleting modules and a few textual
# patches; a patch that no longer applies stops the script (the library changed: update it).
# No copy is a product: they measure a floor. Prints each build's wall and CPU seconds,
# the medians and their ratio to criterion's, and checks that each copy's benchmark binary
# measures the three benchmarks.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rounds=${1:-3}
work=${BC_WORK:-/tmp/bench-compare-floor}
rm -rf "$work"
mkdir -p "$work"
# shellcheck source=clean_builds.sh
source "$here/clean_builds.sh"

make_copy() { # $1: variant (measure | raw | model)
    local variant=$1 dir=$work/lib-$1
    mkdir -p "$dir"
    cp -r "$here/../perfbench/src" "$dir/src"
    rm -rf "$dir/src/bin"
    cat >"$dir/Cargo.toml" <<EOF
[package]
name = "perfbench"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
libc = "0.2"
perf-event-open-sys = "7.1"
linkme = "0.3"
perfbench-macros = { path = "$here/../perfbench-macros" }
serde = { version = "1.0.200", default-features = false, features = ["std"] }
serde_derive = "1.0.200"
serde_json = { version = "1.0.120", default-features = false, features = ["std", "float_roundtrip"] }

[features]
html = []
profile = []
criterion = []

[workspace]
EOF
    if [ "$variant" = raw ]; then
        sed -i '/^serde/d' "$dir/Cargo.toml"
    fi
    python3 - "$dir/src" "$variant" <<'PY'
import os, shutil, sys
src, variant = sys.argv[1], sys.argv[2]

def patch(path, old, new):
    p = os.path.join(src, path)
    s = open(p).read()
    if old not in s:
        sys.exit(f"build_floor.sh: the patch of {path} no longer applies: {old[:60]!r}")
    open(p, "w").write(s.replace(old, new, 1))

def drop(*names):
    for n in names:
        p = os.path.join(src, n)
        shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)

drop("runner", "report", "baseline.rs", "compare", "history.rs", "doctor.rs", "profile", "criterion.rs")
for m in ["baseline", "compare", "doctor", "history", "report", "runner"]:
    patch("lib.rs", f"pub mod {m};\n", "")
patch("lib.rs", '#[cfg(feature = "criterion")]\npub mod criterion;\n', "")
patch("lib.rs", '#[cfg(feature = "profile")]\npub mod profile;\n', "")
patch("lib.rs", "$crate::runner::main()", "$crate::floor_main()")
if variant in ("measure", "raw"):
    drop("model", "stats", "json_fields.rs")
    patch("lib.rs", "pub mod model;\n", "")
    patch("lib.rs", "pub mod stats;\n", "")
    patch("lib.rs", "mod json_fields;\n", "")
    patch("lib.rs", "pub use model::Throughput;\n", "pub use harness::entry::Throughput;\n")
    patch("harness/sampler.rs", "use crate::model::CounterResult;", """
/// One counter's raw samples.
#[derive(Debug, Clone, serde_derive::Serialize)]
pub struct CounterResult {
    pub name: String,
    pub unit: String,
    pub source: crate::counters::Source,
    pub multiplexed: bool,
    pub per_iteration: Vec<f64>,
    pub iterations: Vec<u64>,
    pub rounds: Vec<u32>,
    pub overhead: f64,
    pub estimate: Option<f64>,
    pub change: Option<f64>,
}""")
    patch("harness/sampler.rs",
          "crate::stats::univariate::Sample::new(&v).map_or(0.0, |s| s.median())",
          "{ let mut v = v; v.sort_by(f64::total_cmp); v.get(v.len() / 2).copied().unwrap_or(0.0) }")
    patch("harness/entry.rs", "pub use crate::model::Throughput;", """
/// Work per iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde_derive::Serialize)]
pub enum Throughput {
    /// Bytes.
    Bytes(u64),
    /// Elements.
    Elements(u64),
}""")
    patch("harness/bencher.rs", "use crate::model::Throughput;", "use crate::harness::entry::Throughput;")
    result = "sampler::CounterResult"
if variant == "raw":
    for path in ["harness/sampler.rs", "harness/entry.rs"]:
        patch(path, ", serde_derive::Serialize)]", ")]")
    patch("counters/mod.rs", "    serde_derive::Serialize,\n    serde_derive::Deserialize,\n", "")
    patch("counters/mod.rs", '#[serde(rename_all = "lowercase")]\n', "")
    patch("harness/simulate.rs", "use serde_derive::{Deserialize, Serialize};\n", "")
    for _ in range(2):
        patch("harness/simulate.rs", ", Serialize, Deserialize)]", ")]")
    PRINT = r"""let mut s = String::from("[");
    for (i, (name, counters)) in out.iter().enumerate() {
        s.push_str(if i == 0 { "[" } else { ",[" });
        s.push_str(&format!("{name:?},["));
        for (j, c) in counters.iter().enumerate() {
            let values: Vec<String> = c.per_iteration.iter().map(|v| v.to_string()).collect();
            let sep = if j == 0 { "" } else { "," };
            s.push_str(&format!("{sep}{{\"name\":{:?},\"per_iteration\":[{}]}}", c.name, values.join(",")));
        }
        s.push_str("]]");
    }
    s.push(']');
    println!("{s}");"""
else:
    PRINT = 'println!("{}", serde_json::to_string(&out).unwrap());'
if variant == "model":
    result = "crate::model::CounterResult"

open(os.path.join(src, "harness/mod.rs"), "a").write(f"""
/// Every round of one registered function through the harness: its raw samples.
pub fn measure_raw(e: &'static entry::Entry) -> (String, Vec<{result}>) {{
    let plan = sampler::Plan {{
        sample_size: 100,
        warm_up_ns: 1_000_000_000,
        measurement_ns: 3_000_000_000,
        linear: false,
        rounds: 10,
    }};
    let events = [crate::events::Event::wall_time()];
    let mut s: Option<Box<sampler::Sampler>> = None;
    for _ in 0..plan.round_count() {{
        let counters = crate::counters::Counters::open(&events, &Default::default()).unwrap();
        let next = match s.take() {{
            Some(mut x) => {{
                x.next_round(counters);
                x
            }}
            None => Box::new(sampler::Sampler::new(counters, plan.clone())),
        }};
        let mut b = bencher::Bencher::measuring(next);
        let run = e.run;
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&mut b, 0)));
        s = b.into_sampler();
        if !matches!(s.as_ref().map(|x| x.round_result()), Some(Ok(true))) {{
            break;
        }}
    }}
    (e.name.to_owned(), s.and_then(|x| x.into_measured()).unwrap_or_default())
}}
""")
patch("lib.rs", "#![warn(missing_docs)]", "#![allow(dead_code, missing_docs)]")
open(os.path.join(src, "lib.rs"), "a").write("""
/// Measures every registered function and prints the raw samples as JSON.
pub fn floor_main() -> std::process::ExitCode {
    let out: Vec<_> = harness::entry::registered().into_iter().map(harness::measure_raw).collect();
    PRINT
    std::process::ExitCode::SUCCESS
}
""".replace("PRINT", PRINT))
PY
    local suite=$work/suite-$variant
    mkdir -p "$suite"
    cp -r "$here/perfbench-suite/benches" "$suite/"
    sed -e "s|name = \"perfbench-suite\"|name = \"floor-$variant-suite\"|" \
        -e "s|perfbench = { path = \"../../perfbench\" }|perfbench = { path = \"$dir\" }|" \
        "$here/perfbench-suite/Cargo.toml" >"$suite/Cargo.toml"
    grep -q "path = \"$dir\"" "$suite/Cargo.toml"
}

dir_of() {
    case $1 in
        criterion) echo "$here/criterion-suite" ;;
        *) echo "$work/suite-$1" ;;
    esac
}
make_copy measure
make_copy raw
make_copy model
suites=(criterion measure raw model)
clean_builds "$rounds" "${suites[@]}"
# Each copy measures: its benchmark binary prints the three benchmarks' raw wall-time samples.
for s in measure raw model; do
    exe=$(find "$work/target-$s/release/deps" -maxdepth 1 -type f -executable -name 'suite-*' | head -1)
    "$exe" --bench >"$work/$s.json"
    python3 - "$work/$s.json" "$s" <<'PY'
import json, sys
out = json.load(open(sys.argv[1]))
names = sorted(name for name, _ in out)
assert names == ["fib_20", "sort_1000", "sum_4096"], names
for name, counters in out:
    assert counters and len(counters[0]["per_iteration"]) >= 10, (name, counters)
print(f"{sys.argv[2]}: measured {', '.join(names)}")
PY
done
build_medians "$rounds" "${suites[@]}"
