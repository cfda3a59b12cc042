//! The `arm64_suite` example (a `perfbench::main!()` suite, `.ci/arm64/suite.rs`) run and its
//! JSON report checked: exactly k per iteration, with the default counters, a captured `n`,
//! `iter_batched` and its batched routines through `mrs` and through `read(2)`.

use perfbench::Source;
use perfbench_analysis::model::Report;

use crate::checks::{figure, section, Checks};
use crate::run::set_user_access;

/// k of the `arm64_suite` example's benchmarks `arm64/add_<k>` (straight-line bodies of
/// exactly k `add`s).
const SUITE_KS: [u64; 8] = [0, 1, 2, 4, 16, 37, 64, 1001];

/// Runs the `arm64_suite` example (a `perfbench::main!()` suite of straight-line bodies of
/// exactly k `add`s) and checks its JSON report: k instructions (and, under icount, k
/// cycles) per iteration in every sample, read through `mrs`.
pub(crate) fn phase_suite(c: &mut Checks, path: &str) {
    section("a perfbench::main!() suite: arm64_suite");
    let json = "/tmp/arm64_suite.json";
    let args = [
        "--bench",
        "--counters",
        "instructions,cycles",
        "--json",
        json,
        "--sample-size",
        "10",
        "--warm-up-time",
        "0.01",
        "--measurement-time",
        "0.05",
    ];
    println!("$ {path} {}", args.join(" "));
    let out = std::process::Command::new(path)
        .args(args)
        .env("CARGO_TARGET_DIR", "/tmp/target")
        .env("NO_COLOR", "1")
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) => {
            c.check(false, format_args!("run {path}: {e}"));
            return;
        }
    };
    print!("{}", String::from_utf8_lossy(&out.stdout));
    print!("{}", String::from_utf8_lossy(&out.stderr));
    if !c.check(
        out.status.success(),
        format_args!("the suite exits 0 ({})", out.status),
    ) {
        return;
    }
    let report = match std::fs::read_to_string(json)
        .map_err(|e| e.to_string())
        .and_then(|t| perfbench_analysis::model::json::from_json(&t).map_err(|e| e.to_string()))
    {
        Ok(r) => r,
        Err(e) => {
            c.check(
                false,
                format_args!("read the suite's JSON report {json}: {e}"),
            );
            return;
        }
    };
    // The realistic `cargo bench` path: no --counters. The defaults keep the hardware
    // counters this PMU has (it lacks `branches`), so `instructions` is measured via mrs.
    let defaults_json = "/tmp/perfbench-defaults.json";
    let defaults = std::process::Command::new(path)
        .args(["--bench", "--sample-size", "10", "--warm-up-time", "0.01"])
        .args([
            "--measurement-time",
            "0.05",
            "--format",
            "terse",
            "--json",
            defaults_json,
            "arm64/add_4",
        ])
        .env("CARGO_TARGET_DIR", "/tmp/target")
        .env("NO_COLOR", "1")
        .output();
    if let Ok(o) = &defaults {
        println!("default counters ($ {path} --bench ... arm64/add_4):");
        print!("{}", String::from_utf8_lossy(&o.stderr));
        print!("{}", String::from_utf8_lossy(&o.stdout));
    }
    let default_report = std::fs::read_to_string(defaults_json)
        .ok()
        .and_then(|t| perfbench_analysis::model::json::from_json(&t).ok());
    let instructions = default_report
        .as_ref()
        .and_then(|r| r.bench("arm64/add_4"))
        .and_then(|b| b.counter("instructions").cloned());
    c.check(
        instructions
            .as_ref()
            .is_some_and(|i| i.source == Source::Mrs && i.per_iteration.iter().all(|v| *v == 4.0)),
        format_args!(
            "default counters include instructions via mrs, exactly 4 per iteration of add_4: {:?}",
            instructions
                .as_ref()
                .map(|i| (i.source, i.per_iteration.clone()))
        ),
    );
    for k in SUITE_KS {
        let id = format!("arm64/add_{k}");
        let Some(bench) = report.bench(&id) else {
            c.check(false, format_args!("the report has {id}"));
            continue;
        };
        for counter in ["instructions", "cycles"] {
            let Some(r) = bench.counter(counter) else {
                c.check(false, format_args!("{id}: the report has {counter}"));
                continue;
            };
            c.check(
                r.source == Source::Mrs
                    && !r.multiplexed
                    && !r.per_iteration.is_empty()
                    && r.per_iteration.iter().all(|&v| v == k as f64),
                format_args!(
                    "{id}: {counter} per iteration exactly {k} in all {} samples, via {} \
                     (min {:?}, max {:?})",
                    r.per_iteration.len(),
                    r.source,
                    r.estimate.as_ref().map(|e| e.min),
                    r.estimate.as_ref().map(|e| e.max),
                ),
            );
            figure(
                format_args!("suite {id} {counter}"),
                format_args!("{:?}", r.per_iteration.first()),
            );
        }
    }

    // Work the compiled sample loop does once per sample (loading the captured `n`) must
    // not show in an exact count: a whole number in every sample, 2n + c, and the two
    // loops exactly 20 apart.
    let captured: Vec<Option<Vec<f64>>> = [10u64, 20]
        .iter()
        .map(|n| {
            report
                .bench(&format!("arm64/captured_{n}"))
                .and_then(|b| b.counter("instructions"))
                .map(|r| r.per_iteration.clone())
        })
        .collect();
    let whole = |v: &Option<Vec<f64>>| {
        v.as_ref()
            .filter(|v| !v.is_empty() && v.iter().all(|x| *x == v[0] && x.fract() == 0.0))
            .map(|v| v[0])
    };
    c.check(
        matches!(
            (whole(&captured[0]), whole(&captured[1])),
            (Some(a), Some(b)) if (20.0..=24.0).contains(&a) && b - a == 20.0
        ),
        format_args!(
            "captured n: instructions per iteration a whole number in every sample, \
             2n + c, 20 apart (n = 10: {:?}; n = 20: {:?})",
            captured[0].as_ref().and_then(|v| v.first()),
            captured[1].as_ref().and_then(|v| v.first()),
        ),
    );
    if whole(&captured[0]).is_none() || whole(&captured[1]).is_none() {
        println!("captured n per sample: {captured:?}");
    }
    for (n, v) in [10, 20].iter().zip(&captured) {
        figure(
            format_args!("suite arm64/captured_{n} instructions"),
            format_args!("{:?}", v.as_ref().and_then(|v| v.first())),
        );
    }

    // iter_batched, one input per bracket: exactly 0 per iteration, and the calibration's
    // overhead per iteration is the harness's bracket.
    match report
        .bench("arm64/batched_empty")
        .and_then(|b| b.counter("instructions"))
    {
        Some(r) => {
            let per = r.iterations.first().map(|&n| r.overhead / n as f64);
            let mut sorted = r.per_iteration.clone();
            sorted.sort_by(f64::total_cmp);
            let median = sorted.get(sorted.len() / 2).copied();
            // Thousands of brackets per sample and per calibration run: now and then a
            // read sees the kernel update the page and retries, counting tens of
            // instructions more in that reading (seen in most runs of this rig). The
            // harness leaves such readings out of its exactness test (`Group::slow_reads`),
            // so every sample, a retried one too, must read exactly 0.
            c.check(
                r.source == Source::Mrs
                    && !r.per_iteration.is_empty()
                    && r.per_iteration.iter().all(|&v| v == 0.0)
                    && per.is_some_and(|p| p > 0.0 && p.fract() == 0.0),
                format_args!(
                    "arm64/batched_empty: exactly 0 instructions per iteration in every one \
                     of {} samples (median {median:?}), bracket {per:?} instructions per \
                     iteration (via {})",
                    r.per_iteration.len(),
                    r.source
                ),
            );
            if r.per_iteration.iter().any(|&v| v != 0.0) {
                println!("batched_empty per sample: {:?}", r.per_iteration);
            }
            figure(
                "suite iter_batched bracket per iteration",
                format_args!("{per:?}"),
            );
        }
        None => {
            c.check(false, "the report has arm64/batched_empty instructions");
        }
    }

    // Batched routines of exactly 37 instructions, each batch size, with a setup of 4,097:
    // exactly 37 in every sample, via mrs; then three of them through read(2), on a short
    // plan (a read(2) bracket costs tens of thousands of instructions here: the whole set on
    // the plan above takes minutes of the boot's time).
    check_batched(c, &report, Source::Mrs, &BATCHED_37);
    set_user_access(c, 0);
    let read_json = "/tmp/arm64_batched_read.json";
    let read_ids = [
        "arm64/batched_37",
        "arm64/batched_small_37",
        "arm64/batched_ref_37",
    ];
    let mut read_args = vec![
        "--bench",
        "--counters",
        "instructions",
        "--json",
        read_json,
        "--sample-size",
        "10",
        "--rounds",
        "2",
        "--warm-up-time",
        "0.001",
        "--measurement-time",
        "0.005",
        "--format",
        "terse",
        "--exact",
    ];
    read_args.extend(read_ids);
    println!("$ {path} {}", read_args.join(" "));
    let started = std::time::Instant::now();
    let out = std::process::Command::new(path)
        .args(&read_args)
        .env("CARGO_TARGET_DIR", "/tmp/target-read")
        .env("NO_COLOR", "1")
        .output();
    set_user_access(c, 1);
    println!(
        "(the read(2) run took {:.1} s of guest time)",
        started.elapsed().as_secs_f64()
    );
    match out {
        Ok(o) if o.status.success() => match std::fs::read_to_string(read_json)
            .map_err(|e| e.to_string())
            .and_then(|t| perfbench_analysis::model::json::from_json(&t).map_err(|e| e.to_string()))
        {
            Ok(r) => check_batched(
                c,
                &r,
                Source::Read,
                &["batched_37", "batched_small_37", "batched_ref_37"],
            ),
            Err(e) => {
                c.check(false, format_args!("read {read_json}: {e}"));
            }
        },
        Ok(o) => {
            print!("{}", String::from_utf8_lossy(&o.stdout));
            print!("{}", String::from_utf8_lossy(&o.stderr));
            c.check(
                false,
                format_args!("the batched run through read(2) exits 0 ({})", o.status),
            );
        }
        Err(e) => {
            c.check(false, format_args!("run {path}: {e}"));
        }
    }
}

/// The suite's batched benchmarks of a 37-instruction routine (`.ci/arm64/suite.rs`).
const BATCHED_37: [&str; 7] = [
    "batched_37",
    "batched_small_37",
    "batched_large_37",
    "batched_one_37",
    "batched_four_37",
    "batched_three_37",
    "batched_ref_37",
];

/// Each of `names` (of [`BATCHED_37`]) reads exactly 37 instructions per iteration in every
/// sample of `report`, via `source`.
fn check_batched(c: &mut Checks, report: &Report, source: Source, names: &[&str]) {
    for name in names {
        let id = format!("arm64/{name}");
        match report.bench(&id).and_then(|b| b.counter("instructions")) {
            Some(r) => {
                c.check(
                    r.source == source
                        && !r.multiplexed
                        && !r.per_iteration.is_empty()
                        && r.per_iteration.iter().all(|&v| v == 37.0),
                    format_args!(
                        "{id}: instructions exactly 37 per iteration in all {} samples via {} \
                         (setup 4,097 not counted): {:?}",
                        r.per_iteration.len(),
                        r.source,
                        r.per_iteration.first()
                    ),
                );
                figure(
                    format_args!("suite {id} instructions via {source}"),
                    format_args!("{:?}", r.per_iteration.first()),
                );
            }
            None => {
                c.check(false, format_args!("the report has {id} instructions"));
            }
        }
    }
}
