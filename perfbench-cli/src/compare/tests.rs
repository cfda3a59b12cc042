use super::render;
use super::*;
use perfbench_analysis::model::fixtures::synthetic_report;
use perfbench_analysis::model::json::to_json;
use perfbench_analysis::model::Source;
use perfbench_analysis::verdict::{parse_percent, parse_threshold, CompareSettings as _};

fn side(report: Report) -> Side {
    Side {
        path: PathBuf::from(format!("{}.json", report.suite)),
        directory: false,
        reports: vec![(PathBuf::from("x.json"), report)],
    }
}

fn dir(reports: Vec<Report>) -> Side {
    Side {
        path: PathBuf::from("baselines/main"),
        directory: true,
        reports: reports
            .into_iter()
            .map(|r| (PathBuf::from(format!("{}.json", r.suite)), r))
            .collect(),
    }
}

/// `report` with every value of counter `name` of benchmark `id` multiplied by `factor`.
fn scaled(mut report: Report, id: &str, name: &str, factor: f64) -> Report {
    let b = report.benchmarks.iter_mut().find(|b| b.id == id).unwrap();
    let c = b.counters.iter_mut().find(|c| c.name == name).unwrap();
    for v in &mut c.per_iteration {
        *v *= factor;
    }
    c.estimate = perfbench_analysis::stats::estimate(&c.per_iteration, None, &Default::default());
    report
}

fn counter<'a>(cmp: &'a Comparison, id: &str, name: &str) -> &'a CounterComparison {
    cmp.suites[0]
        .benchmarks
        .iter()
        .find(|b| b.id == id)
        .unwrap()
        .counters
        .iter()
        .find(|c| c.name == name)
        .unwrap()
}

#[test]
fn identical_reports_are_unchanged_everywhere() {
    let r = synthetic_report();
    let cmp = compare(&side(r.clone()), &side(r), &Settings::default()).unwrap();
    assert!(!cmp.regressed());
    assert!(cmp.warnings.is_empty());
    // fib: 4 counters with finite samples (page-faults has none); sum: 1.
    assert_eq!(
        cmp.summary,
        Summary {
            unchanged: 5,
            not_comparable: 3,
            ..Summary::default()
        }
    );
    let pf = counter(&cmp, "math/fib_20", "page-faults");
    assert_eq!(pf.presence, Presence::NotComparable);
    // Two benchmarks panicked / failed on both sides: not comparable, with the reason.
    let boom = &cmp.suites[0].benchmarks[2];
    assert_eq!(boom.presence, Presence::NotComparable);
    assert!(boom
        .reason
        .as_deref()
        .unwrap()
        .contains("panicked: index out of bounds"));
}

#[test]
fn a_real_change_is_flagged_and_its_direction_is_right() {
    let base = synthetic_report();
    let slower = scaled(base.clone(), "math/sum/4096", "wall-time", 1.5);
    let cmp = compare(&side(base.clone()), &side(slower), &Settings::default()).unwrap();
    let c = counter(&cmp, "math/sum/4096", "wall-time");
    assert_eq!(c.verdict(), Some(Verdict::Regressed));
    let ch = c.change.unwrap();
    assert!((ch.ratio.unwrap() - 1.5).abs() < 1e-9);
    assert_eq!(ch.threshold, 0.25, "wall time's default threshold");
    assert!(cmp.regressed());
    assert_eq!(cmp.summary.regressed, 1);

    let faster = scaled(base.clone(), "math/sum/4096", "wall-time", 0.5);
    let cmp = compare(&side(base.clone()), &side(faster), &Settings::default()).unwrap();
    assert_eq!(
        counter(&cmp, "math/sum/4096", "wall-time").verdict(),
        Some(Verdict::Improved)
    );
    assert!(!cmp.regressed());

    // One more instruction in 4523 (+0.02%) is below the exact counters' 0.5%; +1% is not.
    let plus = |f| scaled(base.clone(), "math/fib_20", "instructions", f);
    let cmp = compare(
        &side(base.clone()),
        &side(plus(4524.0 / 4523.0)),
        &Settings::default(),
    )
    .unwrap();
    assert_eq!(
        counter(&cmp, "math/fib_20", "instructions").verdict(),
        Some(Verdict::Unchanged)
    );
    let cmp = compare(&side(base.clone()), &side(plus(1.01)), &Settings::default()).unwrap();
    assert_eq!(
        counter(&cmp, "math/fib_20", "instructions").verdict(),
        Some(Verdict::Regressed)
    );
}

#[test]
fn thresholds_from_the_command_line_win_in_order() {
    let base = synthetic_report();
    let slower = scaled(base.clone(), "math/sum/4096", "wall-time", 1.5);
    let run = |settings: Settings| {
        let cmp = compare(&side(base.clone()), &side(slower.clone()), &settings).unwrap();
        let c = counter(&cmp, "math/sum/4096", "wall-time");
        (c.verdict().unwrap(), c.change.unwrap().threshold)
    };
    assert_eq!(
        run(Settings {
            noise_threshold: Some(0.6),
            thresholds: vec![]
        }),
        (Verdict::Unchanged, 0.6)
    );
    assert_eq!(
        run(Settings {
            noise_threshold: Some(0.6),
            thresholds: vec![("wall-time".into(), 0.7), ("wall-time".into(), 0.1)]
        }),
        (Verdict::Regressed, 0.1)
    );
    assert_eq!(
        run(Settings {
            noise_threshold: None,
            thresholds: vec![("instructions".into(), 0.9)]
        }),
        (Verdict::Regressed, 0.25)
    );
    let settings = Settings {
        noise_threshold: Some(0.05),
        thresholds: vec![("cpu-migrations".into(), 0.2)],
    };
    assert_eq!(
        settings.config_for("context-switches").threshold,
        f64::INFINITY
    );
    assert_eq!(settings.config_for("cpu-migrations").threshold, 0.2);
    assert_eq!(settings.config_for("cache-misses").threshold, 0.05);
    assert_eq!(parse_percent("5"), Ok(0.05));
    assert_eq!(parse_percent(" 2.5% "), Ok(0.025));
    assert!(parse_percent("-1")
        .unwrap_err()
        .contains("not a percentage"));
    assert!(parse_percent("NaN").is_err());
    assert_eq!(
        parse_threshold("wall-time=10"),
        Ok(("wall-time".into(), 0.1))
    );
    assert!(parse_threshold("=10").unwrap_err().contains("COUNTER=PCT"));
    assert!(parse_threshold("wall-time").is_err());
    assert!(parse_threshold("wall-time=x")
        .unwrap_err()
        .contains("not a percentage"));
}

#[test]
fn one_sided_benchmarks_and_counters_are_reported_not_failed() {
    let base = synthetic_report();
    let mut new = base.clone();
    new.benchmarks.remove(1); // sum removed
    let mut extra = new.benchmarks[0].clone();
    extra.id = "math/fib_25".into();
    new.benchmarks.push(extra); // fib_25 added
    new.benchmarks[0].counters.remove(2); // cycles removed from fib
    let cmp = compare(&side(base), &side(new), &Settings::default()).unwrap();
    assert_eq!((cmp.summary.added, cmp.summary.removed), (1, 1));
    assert!(!cmp.regressed());
    let ids: Vec<(&str, Presence)> = cmp.suites[0]
        .benchmarks
        .iter()
        .map(|b| (b.id.as_str(), b.presence))
        .collect();
    assert!(ids.contains(&("math/fib_25", Presence::Added)));
    assert_eq!(ids.last(), Some(&("math/sum/4096", Presence::Removed)));
    assert_eq!(
        counter(&cmp, "math/fib_20", "cycles").presence,
        Presence::Removed
    );
    let text = render::text(&cmp, false);
    assert!(text.contains("  added: math/fib_25\n"), "{text}");
    assert!(text.contains("  removed: math/sum/4096\n"), "{text}");
    assert!(text.contains("math/fib_20 cycles: only in BASE"), "{text}");
}

#[test]
fn suites_are_matched_by_name_and_mismatches_are_errors() {
    let demo = synthetic_report();
    let other = Report {
        suite: "other".into(),
        ..synthetic_report()
    };
    let e = compare(
        &side(demo.clone()),
        &side(other.clone()),
        &Settings::default(),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("is a report of suite `demo` but other.json of suite `other`"),
        "{e}"
    );

    // A directory against a file: the file's suite is found in the directory.
    let cmp = compare(
        &dir(vec![other.clone(), demo.clone()]),
        &side(demo.clone()),
        &Settings::default(),
    )
    .unwrap();
    assert_eq!(cmp.suites.len(), 1);
    assert_eq!(cmp.suites[0].suite, "demo");
    let e = compare(
        &side(demo.clone()),
        &dir(vec![other.clone()]),
        &Settings::default(),
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("has no report of suite `demo`"),
        "{e}"
    );
    assert!(e.to_string().contains("it has: `other`"), "{e}");

    // Two directories: the union, suites on one side reported as added or removed.
    let third = Report {
        suite: "third".into(),
        ..synthetic_report()
    };
    let cmp = compare(
        &dir(vec![demo.clone(), other.clone()]),
        &dir(vec![third, demo]),
        &Settings::default(),
    )
    .unwrap();
    let suites: Vec<(&str, Presence)> = cmp
        .suites
        .iter()
        .map(|s| (s.suite.as_str(), s.presence))
        .collect();
    assert_eq!(
        suites,
        [
            ("third", Presence::Added),
            ("demo", Presence::Compared),
            ("other", Presence::Removed)
        ]
    );
    assert_eq!((cmp.summary.added, cmp.summary.removed), (4, 4));
}

#[test]
fn different_machines_give_a_warning_in_every_format() {
    let base = synthetic_report();
    let mut new = base.clone();
    new.machine.kernel = "6.9.0".into();
    new.machine.core_pmus = vec![];
    new.machine.sources[1].1 = perfbench_analysis::model::Source::Read;
    let cmp = compare(&side(base), &side(new), &Settings::default()).unwrap();
    assert_eq!(cmp.warnings.len(), 1);
    let w = &cmp.warnings[0];
    assert!(w.contains("kernel: \"6.1.0-test\" vs \"6.9.0\""), "{w}");
    assert!(w.contains("PMU: cpu vs none"), "{w}");
    assert!(w.contains("instructions read via rdpmc vs read"), "{w}");
    assert!(render::text(&cmp, false).contains(&format!("warning: {w}")));
    assert!(render::markdown(&cmp).contains("> [!WARNING]"));
    assert!(render::json(&cmp).contains("\"warnings\": [\"suite `demo` ran on different machines"));
}

#[test]
fn renderings_put_regressions_first_and_fold_the_unchanged() {
    let base = synthetic_report();
    let new = scaled(
        scaled(base.clone(), "math/sum/4096", "wall-time", 1.5),
        "math/fib_20",
        "cycles",
        0.5,
    );
    let cmp = compare(&side(base), &side(new), &Settings::default()).unwrap();
    let text = render::text(&cmp, false);
    let (reg, imp) = (
        text.find("  regressed\n").unwrap(),
        text.find("  improved\n").unwrap(),
    );
    assert!(reg < imp, "{text}");
    assert!(
        text.contains("math/sum/4096  wall-time  1.22 µs -> 1.83 µs  +50.0%  ["),
        "{text}"
    );
    assert!(text.contains("  3 unchanged\n"), "{text}");
    assert!(
        text.ends_with(
            "\n1 regressed, 1 improved, 3 unchanged, 0 added, 0 removed, 3 not comparable\n"
        ),
        "{text}"
    );
    assert!(!text.contains('\x1b'));
    assert!(render::text(&cmp, true).contains("\x1b[31m"));

    let md = render::markdown(&cmp);
    assert!(
        md.starts_with("### perfbench: :x: 1 regression\n\n1 regressed, 1 improved"),
        "{md}"
    );
    let header =
        "| Benchmark | Counter | Baseline | New | Ratio | Interval | Threshold | Verdict |";
    assert_eq!(md.matches(header).count(), 2, "{md}");
    let reg = md
        .find("| `math/sum/4096` | wall-time | 1.22 µs | 1.83 µs | 1.500 (+50.0%) |")
        .unwrap();
    let imp = md.find("| `math/fib_20` | cycles |").unwrap();
    let details = md.find("<details><summary>3 unchanged</summary>").unwrap();
    assert!(reg < imp && imp < details, "{md}");
    assert!(md.contains("| **regressed** |"));
    assert!(
        md.contains(
            "- Not compared: `io/boom`: BASE: panicked: index out of bounds: \"len\" is 3."
        ),
        "{md}"
    );
    assert!(md.trim_end().ends_with("</details>"));
}

#[test]
fn the_json_is_the_comparison_and_matches_its_schema() {
    let base = synthetic_report();
    let new = scaled(base.clone(), "math/sum/4096", "wall-time", 1.5);
    let cmp = compare(&side(base), &side(new), &Settings::default()).unwrap();
    let text = render::json(&cmp);
    let back: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(back["summary"]["regressed"], 1);
    // The checked-in schema, which the library's tests generate from the types.
    let schema: serde_json::Value = serde_json::from_str(include_str!(
        "../../../perfbench-analysis/schema/compare-v1.schema.json"
    ))
    .unwrap();
    let v = perfbench_analysis::schema_validator::Validator::new(&schema);
    v.assert_well_formed();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v.validate(&doc), Vec::<String>::new());
    let mut bad = doc.clone();
    bad["suites"][0]["presence"] = "gone".into();
    assert!(!v.validate(&bad).is_empty());
}

#[test]
fn sides_load_from_files_and_directories_with_clear_errors() {
    let root = std::env::temp_dir().join(format!("perfbench-compare-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let d = root.join("baselines/main");
    std::fs::create_dir_all(d.join("nested")).unwrap();
    let e = load_side(&d).unwrap_err().to_string();
    assert!(e.contains("no report (*.json) in this directory"), "{e}");
    let demo = synthetic_report();
    std::fs::write(d.join("demo.json"), to_json(&demo)).unwrap();
    std::fs::write(d.join("notes.txt"), "not a report").unwrap();
    std::fs::write(d.join("nested/x.json"), "not read").unwrap();
    let side = load_side(&d).unwrap();
    assert!(side.directory);
    assert_eq!(side.reports.len(), 1);
    let file = load_side(&d.join("demo.json")).unwrap();
    assert!(!file.directory);
    std::fs::write(d.join("zcopy.json"), to_json(&demo)).unwrap();
    let e = load_side(&d).unwrap_err().to_string();
    assert!(e.contains("are both reports of suite `demo`"), "{e}");
    std::fs::write(d.join("zcopy.json"), "{\"schema_version\": 1").unwrap();
    let e = load_side(&d).unwrap_err().to_string();
    assert!(e.contains("zcopy.json: not valid JSON"), "{e}");
    let e = load_side(&root.join("missing.json"))
        .unwrap_err()
        .to_string();
    assert!(e.ends_with("missing.json: no such file"), "{e}");
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn with_rounds_the_figures_are_the_floors_the_change_compares() {
    let mut base = synthetic_report();
    let fib = base
        .benchmarks
        .iter_mut()
        .find(|b| b.id == "math/fib_20")
        .unwrap();
    let wall = fib
        .counters
        .iter_mut()
        .find(|c| c.name == "wall-time")
        .unwrap();
    wall.rounds = vec![5, 5, 5, 5];
    let floor = wall
        .per_iteration
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min);
    let new = scaled(base.clone(), "math/fib_20", "wall-time", 2.0);
    let cmp = compare(&side(base), &side(new), &Settings::default()).unwrap();
    let c = counter(&cmp, "math/fib_20", "wall-time");
    assert_eq!(c.base.unwrap().point, floor);
    assert_eq!(c.new.unwrap().point, 2.0 * floor);
    let change = c.change.unwrap();
    assert_eq!(change.verdict, Verdict::Regressed);
    assert_eq!(change.ratio, Some(2.0));
    assert_eq!(change.baseline, floor);
    // Without rounds on a side, the figures are the estimates' points.
    let cycles = counter(&cmp, "math/fib_20", "cycles");
    assert_eq!(
        cycles.base.unwrap().point,
        synthetic_report().benchmarks[0]
            .counter("cycles")
            .unwrap()
            .estimate
            .unwrap()
            .point
    );
}

/// `report` with every counter of every benchmark marked as simulated by Callgrind.
fn simulated(mut report: Report) -> Report {
    for c in report.benchmarks.iter_mut().flat_map(|b| &mut b.counters) {
        c.source = Source::Callgrind;
    }
    report
}

#[test]
fn simulated_counts_never_compare_with_counted_ones() {
    let counted = synthetic_report();
    let sim = simulated(counted.clone());
    for (base, new) in [(&counted, &sim), (&sim, &counted)] {
        let cmp = compare(
            &side(base.clone()),
            &side(new.clone()),
            &Settings::default(),
        )
        .unwrap();
        let c = counter(&cmp, "math/fib_20", "instructions");
        assert_eq!(c.presence, Presence::NotComparable);
        assert!(c.change.is_none());
        let reason = c.reason.as_deref().unwrap();
        assert!(
            reason.contains("simulated (callgrind)") && reason.contains("counted (rdpmc)"),
            "{reason}"
        );
        assert_eq!(cmp.summary.regressed + cmp.summary.improved, 0);
    }
    // Simulated against simulated compares as usual.
    let cmp = compare(&side(sim.clone()), &side(sim), &Settings::default()).unwrap();
    let c = counter(&cmp, "math/fib_20", "instructions");
    assert_eq!(c.presence, Presence::Compared);
}

/// A simulated report of one benchmark whose counter `name` reads `per_round` (one sample per
/// round, as `--simulate` takes them).
fn simulated_rounds(name: &str, per_round: &[f64]) -> Report {
    let mut r = synthetic_report();
    r.benchmarks.truncate(1);
    let b = &mut r.benchmarks[0];
    b.counters.truncate(1);
    let c = &mut b.counters[0];
    c.name = name.to_owned();
    c.unit = "count".to_owned();
    c.source = Source::Callgrind;
    c.per_iteration = per_round.to_vec();
    c.iterations = vec![64; per_round.len()];
    c.rounds = vec![1; per_round.len()];
    c.estimate = perfbench_analysis::stats::estimate(&c.per_iteration, None, &Default::default());
    r
}

#[test]
fn simulated_counts_flag_one_count_and_never_identical_ones() {
    let id = synthetic_report().benchmarks[0].id.clone();
    // Every simulated counter is exact, misses too (10% threshold when counted on a machine):
    // one more count per iteration in 4099 (0.02%) regresses, the same counts never do.
    for name in ["instructions", "L1-dcache-load-misses", "estimated-cycles"] {
        let base = simulated_rounds(name, &[4099.0; 5]);
        let same = compare(
            &side(base.clone()),
            &side(base.clone()),
            &Settings::default(),
        )
        .unwrap();
        assert_eq!(
            counter(&same, &id, name).verdict(),
            Some(Verdict::Unchanged),
            "{name}"
        );
        let one_more = simulated_rounds(name, &[4100.0; 5]);
        let cmp = compare(&side(base), &side(one_more), &Settings::default()).unwrap();
        assert_eq!(
            counter(&cmp, &id, name).verdict(),
            Some(Verdict::Regressed),
            "{name}"
        );
    }
    // Code whose counts differ from round to round (a HashMap with RandomState): a step within
    // the rounds' own spread is not a change, one well beyond it is.
    let name = "instructions";
    let base = simulated_rounds(name, &[1000.0, 1004.0, 1001.0, 1009.0, 1002.0]);
    let drifted = simulated_rounds(name, &[1003.0, 1001.0, 1008.0, 1004.0, 1006.0]);
    let cmp = compare(&side(base.clone()), &side(drifted), &Settings::default()).unwrap();
    assert_eq!(counter(&cmp, &id, name).verdict(), Some(Verdict::Unchanged));
    // Beyond the relative threshold (+0.6%) but within the rounds' spread (9): unchanged.
    let within = simulated_rounds(name, &[1006.0, 1010.0, 1012.0, 1008.0, 1007.0]);
    let cmp = compare(&side(base.clone()), &side(within), &Settings::default()).unwrap();
    assert_eq!(counter(&cmp, &id, name).verdict(), Some(Verdict::Unchanged));
    let slower = simulated_rounds(name, &[1100.0, 1104.0, 1101.0, 1109.0, 1102.0]);
    let cmp = compare(&side(base), &side(slower), &Settings::default()).unwrap();
    assert_eq!(counter(&cmp, &id, name).verdict(), Some(Verdict::Regressed));
}

#[test]
fn simulated_reports_render_like_any_other() {
    let id = synthetic_report().benchmarks[0].id.clone();
    let base = simulated_rounds("instructions", &[4099.0; 5]);
    let new = simulated_rounds("instructions", &[4100.0; 5]);
    let cmp = compare(
        &side(base.clone()),
        &side(new.clone()),
        &Settings::default(),
    )
    .unwrap();
    for out in [
        render::text(&cmp, false),
        render::markdown(&cmp),
        render::json(&cmp),
    ] {
        assert!(out.contains(&id), "{out}");
        assert!(out.contains("regressed"), "{out}");
    }
    let bmf = crate::bmf::bmf(&new);
    assert!(
        bmf.contains(&id) && bmf.contains("\"instructions\""),
        "{bmf}"
    );
    assert!(bmf.contains("4100"), "{bmf}");
}

#[test]
fn another_simulator_is_a_fingerprint_difference() {
    let sim = |version: &str| {
        let mut r = simulated(synthetic_report());
        r.machine.simulator = Some(perfbench_analysis::model::Simulator {
            tool: "callgrind".into(),
            version: version.into(),
            cache: "I1=32768,8,64 D1=32768,8,64 LL=8388608,16,64".into(),
        });
        r
    };
    let same = compare(
        &side(sim("3.19.0")),
        &side(sim("3.19.0")),
        &Settings::default(),
    )
    .unwrap();
    assert!(same.warnings.is_empty(), "{:?}", same.warnings);
    let cmp = compare(
        &side(sim("3.19.0")),
        &side(sim("3.22.0")),
        &Settings::default(),
    )
    .unwrap();
    assert_eq!(cmp.warnings.len(), 1);
    assert!(
        cmp.warnings[0].contains("simulator: callgrind 3.19.0")
            && cmp.warnings[0].contains("vs callgrind 3.22.0"),
        "{}",
        cmp.warnings[0]
    );
}

#[test]
fn a_benchmark_on_another_number_of_threads_is_a_warning() {
    let base = synthetic_report();
    let mut new = base.clone();
    // sum ran on 4 threads in the fixture, fib is not threaded: one thread either way.
    new.benchmarks[0].threads = Some(1);
    let same = compare(
        &side(base.clone()),
        &side(new.clone()),
        &Settings::default(),
    )
    .unwrap();
    assert!(same.warnings.is_empty(), "{:?}", same.warnings);
    new.benchmarks[1].threads = Some(8);
    let cmp = compare(&side(base), &side(new), &Settings::default()).unwrap();
    assert_eq!(
        cmp.warnings,
        [
            "suite `demo`: math/sum/4096 ran on 4 threads in BASE and on 8 threads in NEW: its \
          counters are summed over the threads, so they differ for that reason alone"
        ]
    );
    assert!(render::text(&cmp, false).contains("on 8 threads in NEW"));
}

#[test]
fn a_figure_below_zero_reads_as_below_resolution_in_the_comparison() {
    let base = synthetic_report();
    // Calibration took the new run's figure below zero.
    let new = scaled(base.clone(), "math/sum/4096", "wall-time", -0.001);
    let cmp = compare(&side(base), &side(new), &Settings::default()).unwrap();
    let text = render::text(&cmp, false);
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("math/sum/4096  wall-time"))
        .unwrap_or_else(|| panic!("no row for the changed counter\n{text}"));
    assert!(line.contains("-> 0 ns (below resolution)"), "{line}");
}

#[test]
fn a_paired_change_the_run_settled_stands_against_its_own_baseline_only() {
    use perfbench_analysis::model::{BaselineRef, Build, Change, Method};
    let mut base = synthetic_report();
    base.build = Some(Build {
        len: 1,
        modified_ns: 2,
        inode: 3,
    });
    // 5% slower by the samples: unchanged against wall time's threshold here.
    let mut new = scaled(base.clone(), "math/sum/4096", "wall-time", 1.05);
    new.build = Some(Build {
        modified_ns: 9,
        ..base.build.unwrap()
    });
    let paired = Change {
        baseline: 100.0,
        ratio: Some(1.30),
        ci_low: Some(1.29),
        ci_high: Some(1.31),
        p_value: 0.001,
        threshold: 0.25,
        verdict: Verdict::Regressed,
        method: Method::Paired,
    };
    let b = new.benchmarks.iter_mut().find(|b| b.id == "math/sum/4096");
    let c = b
        .unwrap()
        .counters
        .iter_mut()
        .find(|c| c.name == "wall-time");
    c.unwrap().change = Some(paired);
    new.baseline = Some(BaselineRef {
        name: "main".into(),
        perfbench_version: base.perfbench_version.clone(),
        machine: base.machine.clone(),
        warnings: Vec::new(),
        runs: 1,
        build: base.build,
    });
    let judged = |base: &Report, new: &Report| {
        let cmp = compare(
            &side(base.clone()),
            &side(new.clone()),
            &Settings::default(),
        )
        .unwrap();
        counter(&cmp, "math/sum/4096", "wall-time").change.unwrap()
    };
    // Against the baseline the run was judged against: the paired change stands.
    assert_eq!(judged(&base, &new), paired);
    // Against another build of the baseline's code: judged by the runs.
    let mut other = base.clone();
    other.build = Some(Build {
        inode: 4,
        ..base.build.unwrap()
    });
    let by_runs = judged(&other, &new);
    assert_eq!(
        (by_runs.verdict, by_runs.method),
        (Verdict::Unchanged, Method::Separate)
    );
    // A report that names no build of its baseline, or a change of another method: by the runs.
    let mut unnamed = new.clone();
    unnamed.baseline.as_mut().unwrap().build = None;
    assert_eq!(judged(&base, &unnamed).verdict, Verdict::Unchanged);
    let mut separate = new.clone();
    let b = separate
        .benchmarks
        .iter_mut()
        .find(|b| b.id == "math/sum/4096");
    let c = b
        .unwrap()
        .counters
        .iter_mut()
        .find(|c| c.name == "wall-time");
    c.unwrap().change.as_mut().unwrap().method = Method::Separate;
    assert_eq!(judged(&base, &separate).verdict, Verdict::Unchanged);
}
