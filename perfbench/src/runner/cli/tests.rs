use super::*;

fn p(args: &[&str]) -> Result<Args, CliError> {
    parse(
        "suite",
        std::iter::once("suite").chain(args.iter().copied()),
    )
}

#[test]
fn cargo_bench_measures_and_cargo_test_smoke_tests() {
    assert!(!p(&["--bench"]).unwrap().test);
    assert!(p(&[]).unwrap().test);
    assert!(p(&["--bench", "--test"]).unwrap().test);
}

#[test]
fn filter_and_flags() {
    let a = p(&[
        "--bench",
        "fib",
        "--exact",
        "--counters",
        "wall-time",
        "--quick",
    ])
    .unwrap();
    assert_eq!(a.filters, ["fib"]);
    assert!(a.exact && a.quick);
    assert_eq!(a.counters.as_deref(), Some("wall-time"));
    let a = p(&["--bench", "--sample-size", "20", "--warm-up-time", "0.5"]).unwrap();
    assert_eq!(a.sample_size, Some(20));
    assert_eq!(a.warm_up_time, Some(0.5));
    assert!(p(&["--bench", "--sampling", "linear"]).unwrap().linear);
    assert_eq!(p(&["--format", "terse"]).unwrap().format, Format::Terse);
}

#[test]
fn unknown_flags_and_bad_values_are_errors_naming_them() {
    let e = p(&["--frobnicate"]).unwrap_err();
    assert!(e.to_string().contains("--frobnicate"), "{e}");
    assert!(p(&["--sample-size", "1"]).is_err());
    assert_eq!(p(&["--rounds", "3"]).unwrap().rounds, Some(3));
    assert_eq!(p(&["--rounds=1"]).unwrap().rounds, Some(1));
    for bad in ["0", "1001", "x"] {
        let e = p(&["--rounds", bad]).unwrap_err().to_string();
        assert!(e.contains("rounds"), "{e}");
    }
    let e = p(&["--warm-up-time", "soon"]).unwrap_err();
    assert!(e.to_string().contains("soon"));
    assert!(p(&["--measurement-time", "-1"]).is_err());
    assert!(p(&["--format", "xml"]).is_err());
    // --precision: a percentage, 0 to 100, a `%` allowed.
    assert_eq!(p(&["--precision", "2"]).unwrap().precision, Some(0.02));
    assert_eq!(p(&["--precision", "0.5%"]).unwrap().precision, Some(0.005));
    assert_eq!(p(&["--precision", "0"]).unwrap().precision, Some(0.0));
    for bad in ["101", "-1", "tight", "NaN"] {
        let e = p(&["--precision", bad]).unwrap_err().to_string();
        assert!(e.contains("--precision") && e.contains(bad), "{e}");
    }
}

#[test]
fn equals_forms_help_and_positionals() {
    let a = p(&[
        "--bench",
        "--sample-size=20",
        "--format=json",
        "--json=out.json",
    ])
    .unwrap();
    assert_eq!(a.sample_size, Some(20));
    assert_eq!(a.format, Format::Json);
    assert_eq!(a.json.as_deref(), Some(std::path::Path::new("out.json")));
    // Several FILTERs, as libtest: any of them selects.
    assert_eq!(
        p(&["fib", "sort", "--exact"]).unwrap().filters,
        ["fib", "sort"]
    );
    let e = p(&["--exact=yes"]).unwrap_err();
    assert!(e.to_string().contains("--exact"), "{e}");
    let e = p(&["--counters"]).unwrap_err();
    assert!(e.to_string().contains("--counters"), "{e}");
    for h in ["--help", "-h"] {
        let e = p(&["--bench", h]).unwrap_err();
        assert!(e.is_help());
        for flag in [
            "--measurement-time",
            "--sampling",
            "--include-ignored",
            "--help",
        ] {
            assert!(e.to_string().contains(flag), "{e}");
        }
    }
    let e = p(&["--exat"]).unwrap_err();
    assert!(e.to_string().contains("did you mean `--exact`"), "{e}");
    assert_eq!(p(&["--", "--odd"]).unwrap().filters, ["--odd"]);
}

#[test]
fn a_front_end_passes_its_selection_and_its_dialect_on() {
    let a = p(&[
        "--perfbench-select=a/b",
        "--perfbench-select=-odd",
        "--perfbench-select",
        "c",
        "x",
    ])
    .unwrap();
    assert_eq!(
        a.select.as_deref(),
        Some(&["a/b", "-odd", "c"].map(String::from)[..])
    );
    assert_eq!(a.filters, ["x"]);
    assert_eq!(p(&["x"]).unwrap().select, None);
    // criterion's `--noise-threshold` is a fraction, unless it says `%`.
    let noise = |line: &[&str]| p(line).unwrap().thresholds.noise_threshold;
    assert_eq!(noise(&["--noise-threshold", "5"]), Some(0.05));
    assert_eq!(
        noise(&["--noise-threshold", "0.05", "--perfbench-criterion"]),
        Some(0.05)
    );
    assert_eq!(
        noise(&["--perfbench-criterion", "--noise-threshold=2%"]),
        Some(0.02)
    );
    assert_eq!(noise(&["--perfbench-criterion"]), None);
    let e = p(&["--perfbench-criterion", "--noise-threshold", "x"]).unwrap_err();
    assert!(e.to_string().contains("`--noise-threshold`"), "{e}");
}

#[test]
fn the_tool_narrows_a_line_to_the_benchmarks_it_measures_again() {
    use crate::runner::select::selected_id;
    let a = p(&[
        "sort",
        "--perfbench-only=g/sort_big",
        "--perfbench-only",
        "g/hash",
        "--perfbench-stream",
        "/tmp/tool.sock",
    ])
    .unwrap();
    assert_eq!(
        a.stream_to.as_deref(),
        Some(std::path::Path::new("/tmp/tool.sock"))
    );
    // Only what the rest of the line selects, and of that only these.
    assert!(selected_id("g/sort_big", false, &a));
    assert!(!selected_id("g/sort_small", false, &a));
    assert!(!selected_id("g/hash", false, &a));
    let all = p(&["--perfbench-only=g/hash"]).unwrap();
    assert!(selected_id("g/hash", false, &all) && !selected_id("g/sort_big", false, &all));
    assert!(selected_id("g/x", false, &p(&[]).unwrap()));
    assert!(!p(&[]).unwrap().no_confirm);
    assert!(p(&["--no-confirm"]).unwrap().no_confirm);
}

#[test]
fn bencher_output_as_criterion_spells_it() {
    assert_eq!(
        p(&["--output-format", "bencher"]).unwrap().format,
        Format::Libtest
    );
    assert_eq!(
        p(&["--output-format=bencher"]).unwrap().format,
        Format::Libtest
    );
    assert_eq!(p(&["--format", "bencher"]).unwrap().format, Format::Libtest);
    let e = p(&["--output-format", "junit"]).unwrap_err();
    assert!(e.to_string().contains("`bencher`"), "{e}");
    let e = p(&["--output-format", "bencher", "--output-format", "json"]).unwrap_err();
    assert!(e.to_string().contains("more than once"), "{e}");
}

#[test]
fn baseline_flags() {
    let a = p(&[
        "--save-baseline",
        "main",
        "--baseline-lenient",
        "v1",
        "--threshold",
        "wall-time=10",
        "--threshold=instructions=1",
        "--noise-threshold",
        "5%",
        "--fail-on-regression",
        "--discard-baseline",
    ])
    .unwrap();
    assert_eq!(a.save_baseline.as_deref(), Some("main"));
    assert_eq!(
        a.baseline,
        Some(BaselineArg {
            name: "v1".into(),
            lenient: true
        })
    );
    assert_eq!(
        a.thresholds.thresholds,
        [
            ("wall-time".to_owned(), 0.1),
            ("instructions".to_owned(), 0.01)
        ]
    );
    assert_eq!(a.thresholds.noise_threshold, Some(0.05));
    assert!(a.fail_on_regression && a.discard_baseline);
    for (args, expect) in [
        (
            &["--baseline", "a", "--baseline-lenient", "b"][..],
            "exclude each other",
        ),
        (&["--save-baseline", "../x"], "a baseline name"),
        (&["--baseline", ""], "a baseline name"),
        (&["--threshold", "wall-time"], "COUNTER=PCT"),
        (&["--noise-threshold", "lots"], "not a percentage"),
    ] {
        let e = p(args).unwrap_err().to_string();
        assert!(e.contains(expect), "{args:?}: {e}");
    }
}

#[test]
fn paired_flags() {
    let a = p(&[
        "--bench",
        "--paired",
        "main",
        "--null-control",
        "--worker-timeout",
        "30",
    ])
    .unwrap();
    assert_eq!(a.paired.as_deref(), Some("main"));
    assert!(a.null_control);
    assert_eq!(a.worker_timeout, Some(30.0));
    assert_eq!(a.worker, None);
    // The worker flag is not in --help, and takes the suite's name.
    let w = p(&["--bench", "--perfbench-worker", "suite"]).unwrap();
    assert_eq!(w.worker.as_deref(), Some("suite"));
    assert!(!help("suite").contains("perfbench-worker"));
    for (args, expect) in [
        (
            &["--paired", "a", "--baseline", "b"][..],
            "exclude each other",
        ),
        (
            &["--paired", "a", "--save-baseline", "b"],
            "exclude each other",
        ),
        (&["--paired", "../x"], "a baseline name"),
        (&["--worker-timeout", "-1"], "out of range"),
    ] {
        let e = p(args).unwrap_err().to_string();
        assert!(e.contains(expect), "{args:?}: {e}");
    }
}

#[test]
fn libtest_flags_are_accepted() {
    assert!(p(&["--nocapture", "--color", "never", "--show-output"]).is_ok());
    // criterion's, which its suites are run with.
    assert!(p(&[
        "--noplot",
        "--plotting-backend",
        "plotters",
        "--nresamples",
        "10"
    ])
    .is_ok());
    let e = p(&["--profile-time", "5"]).unwrap_err().to_string();
    assert!(e.contains("--profile"), "{e}");
    let e = p(&["--load-baseline", "new"]).unwrap_err().to_string();
    assert!(e.contains("perfbench compare"), "{e}");
}

/// 30,000 command lines drawn (by the bootstrap's seeded generator) from every option
/// (alone, with `=`, misspelt) and odd values (empty, negative, huge, NaN, non-UTF-8,
/// option-like): each parses or is refused with a message, never a panic, and what parses
/// holds values in the ranges the parser promises.
#[test]
fn odd_command_lines_never_panic_and_what_parses_is_in_range() {
    use std::ffi::OsString;
    use std::os::unix::ffi::OsStringExt;

    let options = [
        "exact",
        "list",
        "bench",
        "test",
        "quick",
        "ignored",
        "include-ignored",
        "counters",
        "json",
        "sample-size",
        "rounds",
        "warm-up-time",
        "measurement-time",
        "save-baseline",
        "baseline",
        "baseline-lenient",
        "discard-baseline",
        "paired",
        "null-control",
        "worker-timeout",
        "perfbench-worker",
        "simulate",
        "profile",
        "profile-counter",
        "branch-filter",
        "profile-frequency",
        "perfbench-simulated",
        "perfbench-describe",
        "fail-on-regression",
        "noise-threshold",
        "threshold",
        "sampling",
        "format",
        "output-format",
        "help",
        "nocapture",
        "show-output",
        "color",
        "bech",
        "",
    ];
    let values = [
        "",
        "0",
        "1",
        "2",
        "-1",
        "1.5",
        "1e309",
        "NaN",
        "inf",
        "-0",
        "86401",
        "100001",
        "18446744073709551616",
        "main",
        "a/b",
        "..",
        "fib",
        "é",
        "=",
        "-",
        "--",
        "-h",
        "--bench",
        "flat",
        "linear",
        "pretty",
        "json",
        "bencher",
        "instructions,cycles",
        "page-faults=5",
        "wall-time=-3",
        "x=",
        "=5",
        "never",
        "any,call",
    ];
    let mut rng = crate::rng::Rng::new(0x9e37_79b9_7f4a_7c15);
    let mut next = |n: usize| rng.below(n);
    let (mut parsed, mut refused) = (0, 0);
    for _ in 0..30_000 {
        let mut line = vec![OsString::from("suite")];
        for _ in 0..next(7) {
            let v = values[next(values.len())];
            let o = options[next(options.len())];
            line.push(match next(6) {
                0 | 1 => OsString::from(format!("--{o}")),
                2 => OsString::from(format!("--{o}={v}")),
                3 => OsString::from(v),
                4 => OsString::from_vec(vec![b'-', b'-', 0xff, b'a']),
                _ => OsString::from_vec(vec![0xc3, next(256) as u8]),
            });
        }
        match parse("suite", line.clone()) {
            Ok(a) => {
                parsed += 1;
                let ctx = format!("{line:?}");
                assert!(
                    a.sample_size.is_none_or(|n| (2..=100_000).contains(&n)),
                    "{ctx}"
                );
                assert!(a.rounds.is_none_or(|n| (1..=1000).contains(&n)), "{ctx}");
                for t in [a.warm_up_time, a.measurement_time].into_iter().flatten() {
                    assert!(t.is_finite() && (0.0..=86_400.0).contains(&t), "{ctx}");
                }
                for name in [&a.save_baseline, &a.paired].into_iter().flatten() {
                    assert!(crate::options::valid_name(name), "{ctx}");
                }
                if let Some(b) = &a.baseline {
                    assert!(crate::options::valid_name(&b.name), "{ctx}");
                }
                assert!(!(a.paired.is_some() && a.save_baseline.is_some()), "{ctx}");
            }
            Err(e) => {
                refused += 1;
                assert!(!e.to_string().trim().is_empty(), "{line:?}");
            }
        }
    }
    // Both outcomes are exercised, not only refusals.
    assert!(
        parsed > 1000 && refused > 1000,
        "{parsed} parsed, {refused} refused"
    );
}
