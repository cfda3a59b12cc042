//! `perfbench compare` and `perfbench export` as a user runs them: exit codes, the three formats,
//! and every kind of bad input, each a clear message naming the file, exit 2, nothing changed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use perfbench_analysis::model::json::to_json;
use perfbench_analysis::model::{
    Benchmark, Config, CounterResult, Machine, Outcome, Report, Sampling, Source,
};
use perfbench_analysis::stats::{estimate, StatsConfig};

const BIN: &str = env!("CARGO_BIN_EXE_perfbench");

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run perfbench")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn counter(name: &str, unit: &str, values: Vec<f64>) -> CounterResult {
    let cfg = StatsConfig {
        resamples: 200,
        ..StatsConfig::default()
    };
    CounterResult {
        name: name.into(),
        unit: unit.into(),
        source: if name == "wall-time" {
            Source::Clock
        } else {
            Source::Read
        },
        multiplexed: false,
        estimate: estimate(&values, None, &cfg),
        iterations: vec![1000; values.len()],
        rounds: vec![],
        per_iteration: values,
        overhead: 0.0,
        change: None,
    }
}

/// A suite of two benchmarks; `slow` multiplies `parse`'s wall time.
fn report(suite: &str, slow: f64) -> Report {
    let noisy = |base: f64| -> Vec<f64> {
        (0..30)
            .map(|i| base * (1.0 + f64::from(i % 7) / 1000.0))
            .collect()
    };
    let parse = Benchmark {
        counters: vec![
            counter(
                "wall-time",
                "ns",
                noisy(1000.0).iter().map(|x| x * slow).collect(),
            ),
            counter("page-faults", "count", vec![0.0; 30]),
        ],
        ..Benchmark::new("json/parse", "json", "parse", None, Outcome::Measured)
    };
    let emit = Benchmark {
        counters: vec![counter("wall-time", "ns", noisy(500.0))],
        ..Benchmark::new("json/emit", "json", "emit", None, Outcome::Measured)
    };
    Report::new(
        suite,
        Machine {
            cpu: "Test CPU".into(),
            arch: "x86_64".into(),
            kernel: "6.1.0".into(),
            cpus: 2,
            ..Machine::default()
        },
        Config {
            sampling: Sampling::Flat,
            ..Config::default()
        },
        vec![parse, emit],
    )
}

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "perfbench-compare-cli-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(path: &Path, report: &Report) -> String {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let text = to_json(report);
    std::fs::write(path, &text).unwrap();
    text
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn unchanged_code_exits_0_and_a_regression_exits_1_only_when_asked() {
    let dir = scratch("verdicts");
    let (base, same, slow) = (
        dir.join("base.json"),
        dir.join("same.json"),
        dir.join("slow.json"),
    );
    write(&base, &report("demo", 1.0));
    write(&same, &report("demo", 1.0));
    write(&slow, &report("demo", 2.0));

    let o = run(&["compare", s(&base), s(&same), "--fail-on-regression"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).ends_with("0 regressed, 0 improved, 3 unchanged, 0 added, 0 removed\n"),
        "{}",
        stdout(&o)
    );

    let o = run(&["compare", s(&base), s(&slow)]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "no --fail-on-regression: {}",
        stderr(&o)
    );
    let text = stdout(&o);
    assert!(
        text.contains("  regressed\n    json/parse  wall-time  1.00 µs -> 2.01 µs  +100%"),
        "{text}"
    );

    let o = run(&[
        "compare",
        s(&base),
        s(&slow),
        "--fail-on-regression",
        "--format",
        "markdown",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let md = stdout(&o);
    assert!(md.starts_with("### perfbench: :x: 1 regression\n"), "{md}");
    assert!(
        md.contains("| `json/parse` | wall-time | 1.00 µs | 2.01 µs | 2.000 (+100%) |"),
        "{md}"
    );
    assert!(
        md.contains("<details><summary>2 unchanged</summary>"),
        "{md}"
    );

    // A wide enough threshold for that counter, and the regression is within it.
    let o = run(&[
        "compare",
        s(&base),
        s(&slow),
        "--fail-on-regression",
        "--threshold",
        "wall-time=150",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));

    let o = run(&["compare", s(&base), s(&slow), "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(doc["summary"]["regressed"], 1);
    assert_eq!(
        doc["suites"][0]["benchmarks"][0]["counters"][0]["change"]["verdict"],
        "regressed"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn baseline_directories_match_suites_by_name() {
    let dir = scratch("dirs");
    let (main, branch) = (dir.join("baselines/main"), dir.join("perfbench"));
    write(&main.join("demo.json"), &report("demo", 1.0));
    write(&main.join("other.json"), &report("other", 1.0));
    write(&branch.join("demo.json"), &report("demo", 2.0));
    write(&branch.join("third.json"), &report("third", 1.0));
    std::fs::create_dir_all(branch.join("baselines/main")).unwrap();
    let o = run(&["compare", s(&main), s(&branch), "--fail-on-regression"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("\ndemo\n  regressed\n"), "{text}");
    assert!(
        text.contains("\nthird (only in NEW)\n  added: json/parse, json/emit\n"),
        "{text}"
    );
    assert!(
        text.contains("\nother (only in BASE)\n  removed: json/parse, json/emit\n"),
        "{text}"
    );
    // A file against a directory: its suite is looked up there.
    let o = run(&["compare", s(&main), s(&branch.join("demo.json"))]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stdout(&o).contains("other"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn different_machines_warn() {
    let dir = scratch("machines");
    let (a, b) = (dir.join("a.json"), dir.join("b.json"));
    write(&a, &report("demo", 1.0));
    let mut other = report("demo", 1.0);
    other.machine.cpu = "Another CPU".into();
    write(&b, &other);
    for format in ["text", "markdown", "json"] {
        let o = run(&["compare", s(&a), s(&b), "--format", format]);
        assert_eq!(o.status.code(), Some(0));
        assert!(
            stdout(&o).contains(r#"cpu: \"Test CPU\" vs \"Another CPU\""#)
                || stdout(&o).contains(r#"cpu: "Test CPU" vs "Another CPU""#),
            "{format}: {}",
            stdout(&o)
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs `compare GOOD BAD` and `compare BAD GOOD`: exit 2, a message naming the file and
/// containing `expect`, nothing on stdout, and BAD unchanged.
fn rejects(bad: &Path, good: &Path, expect: &str) {
    let before = std::fs::read(bad).ok();
    for args in [[s(good), s(bad)], [s(bad), s(good)]] {
        let o = run(&["compare", args[0], args[1], "--fail-on-regression"]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(stdout(&o).is_empty(), "{}", stdout(&o));
        assert!(err.starts_with("error: "), "{err}");
        assert!(err.contains(s(bad)), "names the file: {err}");
        assert!(err.contains(expect), "{expect:?} in {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    assert_eq!(std::fs::read(bad).ok(), before, "left as it was");
}

#[test]
fn bad_input_is_a_clear_error_that_names_the_file() {
    let dir = scratch("bad");
    let good = dir.join("good.json");
    let text = write(&good, &report("demo", 1.0));
    let file = |name: &str, bytes: &[u8]| {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    };
    rejects(
        &file("truncated.json", &text.as_bytes()[..text.len() / 2]),
        &good,
        "not valid JSON (line ",
    );
    rejects(
        &file("truncated.json", &text.as_bytes()[..text.len() / 2]),
        &good,
        "truncated",
    );
    rejects(&file("empty.json", b""), &good, "the document is empty");
    rejects(
        &file(
            "newer.json",
            text.replacen("\"schema_version\": 1", "\"schema_version\": 2", 1)
                .as_bytes(),
        ),
        &good,
        "unsupported report schema_version 2",
    );
    rejects(
        &file("array.json", b"[1, 2, 3]"),
        &good,
        "expected a JSON object (a perfbench report), found an array",
    );
    rejects(
        &file("binary.json", b"{\"a\": \"\xff\xfe\"}"),
        &good,
        "not UTF-8 text (invalid byte at line 1, column 8)",
    );
    let deep = format!(
        "{{\"schema_version\": 1, \"benchmarks\": {}{}}}",
        "[".repeat(50_000),
        "]".repeat(50_000)
    );
    rejects(&file("deep.json", deep.as_bytes()), &good, "benchmarks[0]");
    rejects(
        &file("field.json", text.replacen("\"unit\": \"ns\"", "\"unit\": 7", 1).as_bytes()),
        &good,
        "benchmarks[0].counters.wall-time.unit: invalid type: integer `7`, expected a string (line ",
    );
    rejects(&dir.join("missing.json"), &good, "no such file");
    // Another tool's JSON (criterion's estimates.json) is not a report.
    let foreign = br#"{"mean": {"point_estimate": 25673.1, "standard_error": 12.0}}"#;
    rejects(
        &file("estimates.json", foreign),
        &good,
        "missing field `schema_version`: not a perfbench report",
    );
    let huge = dir.join("huge.json");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(300 << 20)
        .unwrap();
    rejects(&huge, &good, "larger than a report may be (256 MiB)");
    let other = dir.join("other.json");
    write(&other, &report("other", 1.0));
    rejects(&other, &good, "of suite `other`");
    let empty_dir = dir.join("nothing");
    std::fs::create_dir_all(&empty_dir).unwrap();
    rejects(&empty_dir, &good, "no report (*.json) in this directory");
    // A directory named like a report inside a baseline directory is not taken for one.
    let baseline = dir.join("baseline");
    std::fs::create_dir_all(baseline.join("demo.json")).unwrap();
    rejects(&baseline, &good, "no report (*.json) in this directory");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn usage_errors_exit_2_with_the_usage_line() {
    let dir = scratch("usage");
    let good = dir.join("good.json");
    write(&good, &report("demo", 1.0));
    for (args, expect) in [
        (vec!["compare"], "needs two reports"),
        (
            vec!["compare", s(&good), s(&good), s(&good)],
            "unexpected argument",
        ),
        (
            vec!["compare", s(&good), s(&good), "--threshold", "wall-time"],
            "is not COUNTER=PCT",
        ),
        (
            vec!["compare", s(&good), s(&good), "--noise-threshold", "-3"],
            "not a percentage",
        ),
        (
            vec!["compare", s(&good), s(&good), "--format", "html"],
            "expected `text`, `markdown` or `json`",
        ),
        (
            vec![
                "compare",
                s(&good),
                s(&good),
                "--format",
                "json",
                "--format",
                "text",
            ],
            "more than once",
        ),
        (vec!["export", s(&good)], "--format bmf is required"),
        (
            vec!["export", s(&good), "--format", "csv"],
            "expected `bmf`",
        ),
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = stderr(&o);
        assert!(err.contains(expect), "{args:?}: {err}");
        assert!(err.contains("Usage: perfbench"), "{args:?}: {err}");
    }
    let o = run(&["compare", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("--fail-on-regression"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn export_writes_bencher_metric_format() {
    let dir = scratch("export");
    let good = dir.join("good.json");
    write(&good, &report("demo", 1.0));
    let o = run(&["export", s(&good), "--format", "bmf"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let latency = &doc["json/parse"]["latency"];
    assert!(latency["value"].as_f64().unwrap() > 1000.0);
    assert!(latency["lower_value"].as_f64() <= latency["value"].as_f64());
    assert!(latency["upper_value"].as_f64() >= latency["value"].as_f64());
    assert_eq!(doc["json/parse"]["page-faults"]["value"], 0.0);
    let o = run(&["export", s(&dir.join("missing.json")), "--format", "bmf"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("missing.json: no such file"));
    let o = run(&["export", s(&dir), "--format", "bmf"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("is a directory, not a report file"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A report that was compared as it ran (`--paired`) shows its own recorded changes: the paired
/// verdict, which no pair of reports could recompute.
#[test]
fn a_report_shows_the_comparison_it_recorded() {
    use perfbench_analysis::model::{BaselineRef, Change, Method, Verdict};
    let dir = scratch("recorded");
    let path = dir.join("paired.json");
    let mut r = report("demo", 1.0);
    r.baseline = Some(BaselineRef {
        name: "main".into(),
        perfbench_version: "0.1.0".into(),
        machine: r.machine.clone(),
        warnings: vec![],
        runs: 1,
        build: None,
    });
    let change = |ratio: f64, verdict: Verdict| Change {
        baseline: 1000.0,
        ratio: Some(ratio),
        ci_low: Some(ratio - 0.005),
        ci_high: Some(ratio + 0.005),
        p_value: 0.001,
        threshold: 0.01,
        verdict,
        method: Method::Paired,
    };
    r.benchmarks[0].counters[0].change = Some(change(1.021, Verdict::Regressed));
    r.benchmarks[1].counters[0].change = Some(change(1.001, Verdict::Unchanged));
    write(&path, &r);

    let o = run(&[
        "compare",
        s(&path),
        "--format",
        "markdown",
        "--fail-on-regression",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let md = stdout(&o);
    assert!(md.contains(":x: 1 regression"), "{md}");
    assert!(md.contains("(paired run)"), "{md}");
    assert!(md.contains("(`main` -> `"), "{md}");
    assert!(
        md.contains("| `json/parse` | wall-time | 1.00 µs | 1.02 µs | 1.021 (+2.1%) | [+1.6% +2.6%] | 1% | **regressed** |"),
        "{md}"
    );
    // page-faults recorded nothing: not comparable, said so.
    assert!(md.contains("no change recorded for this counter"), "{md}");
    let o = run(&["compare", s(&path)]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stdout(&o).contains("json/parse  wall-time"),
        "{}",
        stdout(&o)
    );

    // A report that was never compared says what to give instead.
    let plain = dir.join("plain.json");
    write(&plain, &report("demo", 1.0));
    let o = run(&["compare", s(&plain)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("carries no comparison"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("plain.json"), "{}", stderr(&o));
    // Thresholds cannot re-judge a recorded comparison.
    let o = run(&["compare", s(&path), "--noise-threshold", "5"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("recorded comparison"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compare_and_report_write_html_pages() {
    let dir = scratch("html");
    let (base, slow) = (dir.join("base.json"), dir.join("slow.json"));
    write(&base, &report("demo", 1.0));
    write(&slow, &report("demo", 2.0));

    // compare --html: the text on stdout as before, the pages in DIR, the exit code unchanged.
    let pages = dir.join("cmp");
    let o = run(&[
        "compare",
        s(&base),
        s(&slow),
        "--fail-on-regression",
        "--html",
        s(&pages),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stdout(&o).contains("json/parse  wall-time"));
    let index = std::fs::read_to_string(pages.join("index.html")).unwrap();
    assert!(
        index.contains("<h3 class=\"regressed\">regressed (1)</h3>"),
        "{index}"
    );
    assert!(index.contains("href=\"demo/000-json_parse.html\""));
    let parse = std::fs::read_to_string(pages.join("demo/000-json_parse.html")).unwrap();
    assert!(parse.contains("overlaid with 30 values of BASE"));

    // report --html: one report, then a directory of reports (every suite in it).
    let out = dir.join("rep");
    let o = run(&["report", s(&slow), "--html", s(&out)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), s(&out.join("index.html")));
    assert!(out.join("demo/001-json_emit.html").is_file());
    let both = dir.join("both");
    write(&both.join("demo.json"), &report("demo", 1.0));
    write(&both.join("other.json"), &report("other", 1.0));
    let out2 = dir.join("rep2");
    let o = run(&["report", "--html", s(&out2), s(&both)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let index = std::fs::read_to_string(out2.join("index.html")).unwrap();
    assert!(index.contains("Suite demo") && index.contains("Suite other"));
    assert!(out2.join("other/000-json_parse.html").is_file());

    // Bad input: a clear message naming the file, exit 2, nothing written.
    let out3 = dir.join("rep3");
    let missing = dir.join("missing.json");
    let o = run(&["report", s(&missing), "--html", s(&out3)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(s(&missing)), "{}", stderr(&o));
    assert!(!out3.exists());
    let o = run(&["report", s(&slow), s(&base), "--html", s(&out3)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("are both reports of suite `demo`"),
        "{}",
        stderr(&o)
    );
    let o = run(&["report", s(&slow)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--html DIR is required"),
        "{}",
        stderr(&o)
    );
    // A file where the directory should be: the pages cannot be written.
    let blocker = dir.join("blocker");
    std::fs::write(&blocker, "x").unwrap();
    let o = run(&["report", s(&slow), "--html", s(&blocker)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("cannot write the HTML pages"),
        "{}",
        stderr(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A baseline that holds earlier runs of its build (saved several times) is judged by the
/// fastest of them: a run 10% slower than it is a regression although it is within the
/// threshold of the baseline's own (slow) run.
#[test]
fn a_baseline_of_several_runs_is_judged_by_its_fastest() {
    let dir = scratch("runs");
    let in_rounds = |cost: f64| -> Report {
        let mut r = report("demo", 1.0);
        let c = &mut r.benchmarks[0].counters[0];
        c.per_iteration = (0..30)
            .map(|i| cost * (1.0 + f64::from(i % 3) / 100.0))
            .collect();
        c.rounds = vec![3; 10];
        r
    };
    // The saved run sat 5% slow; an earlier run of the same build did not.
    let mut base = in_rounds(1050.0);
    let (one, several, new) = (
        dir.join("one/demo.json"),
        dir.join("several/demo.json"),
        dir.join("new/demo.json"),
    );
    write(&one, &base);
    let mut earlier = perfbench_analysis::model::EarlierRun::default();
    earlier.benchmarks.insert(
        "json/parse".into(),
        [("wall-time".to_owned(), vec![1000.0; 10])].into(),
    );
    base.earlier_runs = vec![earlier];
    write(&several, &base);
    write(&new, &in_rounds(1100.0));

    let o = run(&["compare", s(&one), s(&new), "--fail-on-regression"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let o = run(&["compare", s(&several), s(&new), "--fail-on-regression"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("json/parse  wall-time  1.00 µs -> 1.10 µs  +10.0%"),
        "{}",
        stdout(&o)
    );
    assert!(
        stdout(&o).contains("\n  BASE: 2 runs of one build (floor: the fastest), NEW: 1 run\n"),
        "{}",
        stdout(&o)
    );
    let o = run(&["compare", s(&one), s(&new)]);
    assert!(!stdout(&o).contains("BASE:"), "{}", stdout(&o));
    // The directories too (a baseline as `--save-baseline` leaves it), and the other formats.
    let (several, new) = (dir.join("several"), dir.join("new"));
    let o = run(&["compare", s(&several), s(&new), "--format", "markdown"]);
    assert!(stdout(&o).contains("regression"), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("- BASE: 2 runs of one build (floor: the fastest), NEW: 1 run.\n"),
        "{}",
        stdout(&o)
    );
    let o = run(&["compare", s(&several), s(&new), "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        (
            &doc["suites"][0]["base_runs"],
            &doc["suites"][0]["new_runs"]
        ),
        (&serde_json::json!(2), &serde_json::json!(1))
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
