use super::*;
use crate::model::fixtures::synthetic_report as synthetic_suite;
use perfbench::counters::Source;

fn plain(format: Format) -> Style {
    Style {
        format,
        color: false,
    }
}

#[test]
fn color_only_on_a_terminal_without_no_color() {
    use std::ffi::OsStr;
    assert!(color_allowed(true, None));
    assert!(color_allowed(true, Some(OsStr::new(""))));
    assert!(!color_allowed(true, Some(OsStr::new("1"))));
    assert!(!color_allowed(false, None));
}

#[test]
fn disturbed_rounds_are_named_under_the_table() {
    let mut suite = synthetic_suite();
    assert!(!render(&suite, plain(Format::Pretty)).contains("quiet rounds"));
    let wall = &mut suite.benchmarks[0].counters[0];
    wall.rounds = vec![5; 4];
    if let Some(e) = wall.estimate.as_mut() {
        e.disturbed_rounds = 3;
    }
    let out = render(&suite, plain(Format::Pretty));
    assert!(
        out.contains(
            "    3 of 4 rounds of wall-time ran slower than its quiet rounds (a busy machine): \
             left out of the estimate\n"
        ),
        "{out}"
    );
}

#[test]
fn pretty_table() {
    let suite = synthetic_suite();
    let out = render(&suite, plain(Format::Pretty));
    assert!(!out.contains('\x1b'), "{out}");
    // Group headers, once per group, and ids.
    assert_eq!(out.matches("\nmath\n").count(), 1, "{out}");
    assert_eq!(out.matches("\nio\n").count(), 1, "{out}");
    assert!(out.contains("  math/fib_20\n"), "{out}");
    // Scaled units, intervals in the point's scale, sources, aligned columns.
    let wall = out.lines().find(|l| l.contains("wall-time ")).unwrap();
    assert!(wall.contains(" µs"), "{wall}");
    assert!(wall.trim_end().ends_with("clock"), "{wall}");
    let instr = out.lines().find(|l| l.contains("instructions")).unwrap();
    assert!(instr.contains("4523"), "{instr}");
    assert!(instr.contains("[4523 4523]"), "{instr}");
    assert!(instr.trim_end().ends_with("rdpmc"), "{instr}");
    // Columns in characters (`µ` is two bytes).
    let col = |l: &str, needle: &str| l[..l.find(needle).unwrap()].chars().count();
    let cycles = out.lines().find(|l| l.contains("cycles*")).unwrap();
    assert_eq!(col(wall, "["), col(instr, "["), "\n{wall}\n{instr}");
    assert_eq!(
        wall.chars().position(|c| c == '1'),
        instr.chars().position(|c| c == '4')
    );
    assert_eq!(col(cycles, "rdpmc"), col(instr, "rdpmc"));
    // Small fractional counts keep two significant digits.
    let misses = out.lines().find(|l| l.contains("branch-misses")).unwrap();
    assert!(misses.contains(" 0.25 "), "{misses}");
    // No samples.
    assert!(out.contains("(no samples)"), "{out}");
    // Multiplexing mark and its footnote.
    assert!(out.contains("* scaled: counter was multiplexed"), "{out}");
    // IPC from the derived metric, with an interval.
    let ipc = out
        .lines()
        .find(|l| l.trim_start().starts_with("ipc"))
        .unwrap();
    assert!(ipc.contains("1.19") && ipc.contains('['), "{ipc}");
    // Throughput: 32 KiB in ~1.2 µs.
    let tp = out.lines().find(|l| l.contains("throughput")).unwrap();
    assert!(tp.contains("GiB/s"), "{tp}");
    // Outliers, criterion-style.
    assert!(
        out.contains(
            "1 outlier among 20 samples of wall-time \
             (1 high severe; the severe one is left out of the estimate)"
        ),
        "{out}"
    );
    // Failures with their messages; the summary names them.
    assert!(
        out.contains("io/boom  panicked: index out of bounds: \"len\" is 3"),
        "{out}"
    );
    assert!(out.contains("io/gone  failed: counter `cycles` failed: ENODEV"));
    assert!(out.contains("4 benchmarks: 2 measured, 1 panicked (io/boom), 1 failed (io/gone)"));
}

#[test]
fn ipc_computed_when_not_derived() {
    let mut suite = synthetic_suite();
    let b = &mut suite.benchmarks[0];
    b.derived.clear();
    b.counters[1].name = "instructions:u".into();
    b.counters[2].name = "cpu_core/cycles/".into();
    let out = render_line(b, plain(Format::Pretty));
    let ipc = out
        .lines()
        .find(|l| l.trim_start().starts_with("ipc"))
        .unwrap();
    assert_eq!(ipc.trim(), "ipc                1.19", "{out}");
    // Only one of the two: no IPC.
    b.counters.remove(2);
    let out = render_line(b, plain(Format::Pretty));
    assert!(!out.contains("ipc"), "{out}");
}

#[test]
fn multiplex_mark_only_when_multiplexed() {
    let mut suite = synthetic_suite();
    for c in &mut suite.benchmarks[0].counters {
        c.multiplexed = false;
    }
    let out = render_line(&suite.benchmarks[0], plain(Format::Pretty));
    assert!(!out.contains('*'), "{out}");
}

#[test]
fn colour() {
    let suite = synthetic_suite();
    let style = Style {
        format: Format::Pretty,
        color: true,
    };
    let out = render(&suite, style);
    assert!(out.contains("\x1b[1mmath/fib_20\x1b[0m"), "{out}");
    assert!(out.contains("\x1b[33m*\x1b[0m"), "{out}");
    assert!(out.contains("\x1b[2m[4523 4523]\x1b[0m"), "{out}");
    assert!(out.contains("\x1b[31mpanicked: "), "{out}");
    // Colour codes do not disturb alignment: the plain text is identical.
    let strip = |s: &str| {
        let mut t = String::new();
        let mut rest = s;
        while let Some(i) = rest.find('\x1b') {
            t.push_str(&rest[..i]);
            rest = &rest[i..];
            rest = &rest[rest.find('m').map_or(rest.len(), |j| j + 1)..];
        }
        t.push_str(rest);
        t
    };
    assert_eq!(strip(&out), render(&suite, plain(Format::Pretty)));
    let terse = render(
        &suite,
        Style {
            format: Format::Terse,
            color: true,
        },
    );
    assert_eq!(strip(&terse), render(&suite, plain(Format::Terse)));
}

#[test]
fn terse_lines() {
    let suite = synthetic_suite();
    let out = render(&suite, plain(Format::Terse));
    let lines: Vec<&str> = out.lines().collect();
    // One line per benchmark, then the summary.
    assert_eq!(lines.len(), 4 + 2, "{out}");
    assert!(lines[0].starts_with("math/fib_20  wall-time 1."), "{out}");
    assert!(
        lines[0].contains("  instructions 4523 [4523 4523]"),
        "{out}"
    );
    assert!(lines[0].contains("  cycles* "), "{out}");
    assert!(lines[0].contains("  ipc 1.19 ["), "{out}");
    assert!(lines[1].contains("throughput") && lines[1].contains("GiB/s"));
    // A threaded benchmark says what its figures are, at the end of its line.
    assert!(
        lines[1]
            .ends_with("  on 4 threads (counters summed over the threads; wall-time per thread)"),
        "{out}"
    );
    assert_eq!(out.matches("threads").count(), 2, "{out}");
    assert!(lines[2].starts_with("io/boom  panicked: "));
    assert!(!out.contains('\x1b'));
}

#[test]
fn changes_since_the_baseline_show_per_counter_and_in_the_summary() {
    let mut suite = synthetic_suite();
    let values = suite.benchmarks[1].counters[0].per_iteration.clone();
    let slower: Vec<f64> = values.iter().map(|v| v * 1.5).collect();
    let cfg = crate::stats::CompareConfig::for_counter("wall-time");
    suite.benchmarks[1].counters[0].change = Some(crate::stats::compare(&values, &slower, &cfg));
    suite.baseline = Some(crate::model::BaselineRef {
        name: "main".into(),
        perfbench_version: "0.1.0".into(),
        machine: suite.machine.clone(),
        warnings: vec!["kernel: \"6.1\" vs \"6.2\"".into()],
        runs: 1,
        build: None,
    });
    let out = render(&suite, plain(Format::Pretty));
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with("wall-time") && l.contains('%'))
        .unwrap();
    assert!(line.contains("clock  +50.0% ["), "{line}");
    assert!(line.ends_with("] regressed"), "{line}");
    assert!(
        out.contains("\ncompared with baseline `main`: 1 regressed (math/sum/4096 wall-time +50.0%), 0 improved, 0 unchanged\n"),
        "{out}"
    );
    assert!(
        out.contains("warning: baseline `main` ran on another machine: kernel"),
        "{out}"
    );
    // A baseline of several runs says so.
    let mut several = suite.clone();
    several.baseline.as_mut().unwrap().runs = 5;
    let out = render(&several, plain(Format::Pretty));
    assert!(
        out.contains("\ncompared with baseline `main` (5 runs of one build): 1 regressed"),
        "{out}"
    );
    // A counter that was 0 (no page faults) regressed: the summary says from where.
    let mut from_zero = suite.clone();
    let zeros = [0.0; 10];
    let faults = [16.0; 10];
    let cfg = crate::stats::CompareConfig::for_counter("page-faults");
    from_zero.benchmarks[1].counters[0].change = Some(crate::stats::compare_rounds(
        &zeros.chunks(2).collect::<Vec<_>>(),
        &faults.chunks(2).collect::<Vec<_>>(),
        &cfg,
    ));
    let out = render(&from_zero, plain(Format::Pretty));
    assert!(
        out.contains("1 regressed (math/sum/4096 wall-time from 0)"),
        "{out}"
    );
    let colored = render(
        &suite,
        Style {
            format: Format::Pretty,
            color: true,
        },
    );
    assert!(colored.contains("\x1b[31m+50.0%"), "{colored}");
}

#[test]
fn json_format_prints_only_at_the_end() {
    let suite = synthetic_suite();
    let mut r = TerminalReporter::new(plain(Format::Json));
    assert_eq!(r.bench_done(&suite.benchmarks[0]), "");
    let out = r.finish(&suite);
    assert!(crate::model::json::from_json(&out).is_ok());
    assert!(out.ends_with("}\n"));
}

#[test]
fn reporter_prints_a_header_when_the_group_changes() {
    let suite = synthetic_suite();
    let mut r = TerminalReporter::new(plain(Format::Pretty));
    let first = r.bench_done(&suite.benchmarks[0]);
    assert!(first.starts_with("\nmath\n  math/fib_20\n"), "{first}");
    let second = r.bench_done(&suite.benchmarks[1]);
    // On 4 threads: its heading says what the figures are, once.
    assert!(
        second.starts_with(
            "  math/sum/4096  on 4 threads (counters summed over the threads; wall-time per \
             thread)\n    wall-time "
        ),
        "{second}"
    );
    assert_eq!(second.matches("threads").count(), 2, "{second}");
    let third = r.bench_done(&suite.benchmarks[2]);
    assert!(third.starts_with("\nio\n  io/boom"), "{third}");
    // The terse format has no headers.
    let mut r = TerminalReporter::new(plain(Format::Terse));
    assert!(r
        .bench_done(&suite.benchmarks[0])
        .starts_with("math/fib_20  "));
}

#[test]
fn a_figure_calibration_took_below_zero_reads_as_below_resolution() {
    let mut suite = synthetic_suite();
    let b = &mut suite.benchmarks[0];
    let wall = b
        .counters
        .iter_mut()
        .find(|c| c.name == "wall-time")
        .unwrap();
    let e = wall.estimate.as_mut().unwrap();
    (e.point, e.ci_low, e.ci_high) = (-0.0055, -0.0102, 0.0021);
    for format in [Format::Pretty, Format::Terse] {
        let out = render_line(b, plain(format));
        assert!(out.contains("0 ns (below resolution)"), "{out}");
        assert!(!out.contains("-0.0055"), "{out}");
    }
}

#[test]
fn degenerate_results_do_not_panic() {
    let mut suite = synthetic_suite();
    let b = &mut suite.benchmarks[0];
    for c in &mut b.counters {
        if let Some(e) = c.estimate.as_mut() {
            e.mean = f64::NAN;
            e.slope = Some(f64::INFINITY);
            e.ci_low = f64::NEG_INFINITY;
            e.ci_high = 0.0;
        }
    }
    b.throughput = Some(Throughput::Elements(u64::MAX));
    b.outcome = Outcome::Measured;
    let out = render_line(b, plain(Format::Pretty));
    assert!(out.contains("n/a"), "{out}");
    let empty = Benchmark {
        throughput: Some(Throughput::Bytes(1)),
        ..Benchmark::new("", "", "", None, Outcome::Measured)
    };
    for format in [Format::Pretty, Format::Terse, Format::Json] {
        let _ = render_line(&empty, plain(format));
    }
    assert!(render_line(&empty, plain(Format::Pretty)).contains("(no counters)"));
    let tested = Benchmark {
        outcome: Outcome::Tested,
        counters: vec![CounterResult {
            name: "wall-time".into(),
            unit: "ns".into(),
            source: Source::Clock,
            multiplexed: false,
            per_iteration: vec![],
            iterations: vec![],
            rounds: vec![],
            overhead: 0.0,
            estimate: None,
            change: None,
        }],
        ..empty
    };
    assert!(render_line(&tested, plain(Format::Pretty)).contains("ok (ran once)"));
    let suite = Report {
        benchmarks: vec![],
        ..synthetic_suite()
    };
    assert_eq!(
        render(&suite, plain(Format::Pretty)),
        "\n0 benchmarks: 0 measured\n"
    );
}
