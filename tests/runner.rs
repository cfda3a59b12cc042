//! The runner as a user sees it: benchmarks registered in this test binary are run in-process
//! with real command lines, and the JSON report they write is read back.
//!
//! One `#[test]` drives every scenario in turn, so no two measurements share the machine's two
//! cores with each other.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;

use perfbench::runner::{self, cli};
use perfbench::sys::AnonMapping;
use perfbench::{perfbench, Bencher};
use perfbench_analysis::model::json::from_json;
use perfbench_analysis::model::{Benchmark, Outcome, Report};

const PAGES: [usize; 3] = [1, 16, 64];

/// Touches K fresh pages per iteration; mapping and unmapping are outside the bracket.
#[perfbench(args = [1, 16, 64], counters = ["page-faults", "task-clock", "context-switches", "wall-time"], sample_size = 20, measurement_time = 0.2, warm_up_time = 0.05)]
fn touch_pages(b: &mut Bencher, pages: usize) {
    b.iter_batched(
        || AnonMapping::new(pages).expect("mmap"),
        |mut m| {
            m.touch_every_page();
            m
        },
    );
}

/// The same through `iter_batched_ref`: the mapping is made and unmapped outside the bracket.
#[perfbench(counters = ["page-faults", "wall-time"], sample_size = 20, measurement_time = 0.2, warm_up_time = 0.05)]
fn touch_pages_ref(b: &mut Bencher) {
    b.iter_batched_ref(
        || AnonMapping::new(16).expect("mmap"),
        |m| m.touch_every_page(),
    );
}

/// Nothing at all: calibration must bring every counter to ~0.
#[perfbench(counters = ["page-faults", "context-switches", "wall-time"], sample_size = 50, measurement_time = 0.3, warm_up_time = 0.05)]
fn empty(b: &mut Bencher) {
    b.iter(|| ());
}

#[perfbench(sample_size = 10, measurement_time = 0.05, warm_up_time = 0.01)]
fn panics() {
    panic!("deliberate panic in a benchmark");
}

#[perfbench(sample_size = 10, measurement_time = 0.05, warm_up_time = 0.01)]
fn after_the_panic(b: &mut Bencher) {
    b.iter(|| std::hint::black_box(3u64).pow(3));
}

#[perfbench(ignore)]
fn ignored_one() {}

/// Which benchmark functions ran, in order (the rounds scenario).
static CALLS: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());

fn called(name: &'static str) -> usize {
    let mut calls = CALLS.lock().unwrap_or_else(|e| e.into_inner());
    calls.push(name);
    calls.iter().filter(|n| **n == name).count()
}

/// Two pages per iteration, in every round.
#[perfbench(counters = ["page-faults", "wall-time"], sample_size = 12, measurement_time = 0.06, warm_up_time = 0.01)]
fn round_a(b: &mut Bencher) {
    called("a");
    b.iter_batched(
        || AnonMapping::new(2).expect("mmap"),
        |mut m| {
            m.touch_every_page();
            m
        },
    );
}

#[perfbench(counters = ["wall-time"], sample_size = 12, measurement_time = 0.03, warm_up_time = 0.01)]
fn round_b(b: &mut Bencher) {
    called("b");
    b.iter(|| std::hint::black_box(7u64).pow(3));
}

/// Measures in its first round only, then panics.
#[perfbench(counters = ["wall-time"], sample_size = 12, measurement_time = 0.03, warm_up_time = 0.01)]
fn round_panics_later(b: &mut Bencher) {
    if called("p") == 2 {
        panic!("deliberate panic in round 2");
    }
    b.iter(|| std::hint::black_box(5u64).pow(3));
}

/// Measures in its first round only, then never calls `iter`.
#[perfbench(counters = ["wall-time"], sample_size = 12, measurement_time = 0.03, warm_up_time = 0.01)]
fn round_forgets_later(b: &mut Bencher) {
    if called("f") == 1 {
        b.iter(|| std::hint::black_box(5u64).pow(3));
    }
}

fn suite() -> &'static str {
    "runner"
}

fn run(args: &[&str]) -> ExitCode {
    let parsed = cli::parse(
        suite(),
        std::iter::once("runner").chain(args.iter().copied()),
    )
    .expect("valid command line");
    runner::run(suite(), &parsed)
}

fn json_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "perfbench-runner-{}-{name}.json",
        std::process::id()
    ))
}

fn read_report(path: &PathBuf) -> Report {
    let text = std::fs::read_to_string(path).expect("report written");
    let _ = std::fs::remove_file(path);
    from_json(&text).expect("report parses")
}

/// Measurements must not share the machine's two cores with each other.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn runner_scenarios() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let affinity = perfbench::sys::thread_affinity().expect("sched_getaffinity");
    listing();
    page_faults_are_exact_per_iteration();
    an_empty_body_reads_zero_page_faults();
    a_panic_is_reported_and_the_suite_goes_on();
    smoke_test_mode_runs_every_body_once();
    rounds_interleave_the_benchmarks_and_keep_their_samples();
    runs_of_one_build_widen_the_interval_from_the_third();
    // Runs leave the thread where it was allowed to run (they pin only on hybrid machines).
    assert_eq!(perfbench::sys::thread_affinity().unwrap(), affinity);
}

/// The bound: an empty body reads at most 1 ns of wall time per iteration after
/// calibration. It holds for optimised code; an unoptimised empty loop costs several ns per
/// iteration and the shared VM's noise scales with it, so no fixed bound is meaningful there.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a timing bound for optimised code: CI runs `cargo test --release --test runner`"
)]
fn an_empty_body_reads_at_most_1ns_of_wall_time() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let wall = measure_empty()
        .counter("wall-time")
        .and_then(|c| c.estimate)
        .expect("wall-time measured");
    assert!(
        wall.median.abs() <= 1.0,
        "empty body: {} ns per iteration after calibration",
        wall.median
    );
}

fn measure_empty() -> Benchmark {
    let path = json_path("empty");
    let code = run(&[
        "--bench",
        "runner/empty",
        "--exact",
        "--json",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code, ExitCode::SUCCESS);
    read_report(&path).bench("runner/empty").unwrap().clone()
}

fn listing() {
    let planned = runner::jobs(suite());
    let ids: Vec<&str> = planned.iter().map(|p| p.id.as_str()).collect();
    for id in [
        "runner/touch_pages/1",
        "runner/touch_pages/16",
        "runner/touch_pages/64",
        "runner/empty",
        "runner/panics",
        "runner/ignored_one",
    ] {
        assert!(ids.contains(&id), "{id} registered: {ids:?}");
    }
    assert_eq!(run(&["--list"]), ExitCode::SUCCESS);
}

fn page_faults_are_exact_per_iteration() {
    let path = json_path("pages");
    let code = run(&[
        "--bench",
        "touch_pages",
        "--precision",
        "0",
        "--json",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code, ExitCode::SUCCESS);
    let report = read_report(&path);
    for k in PAGES {
        let b = report
            .bench(&format!("runner/touch_pages/{k}"))
            .expect("benchmark in report");
        let pf = b.counter("page-faults").expect("page-faults measured");
        assert_eq!(pf.per_iteration.len(), 20);
        // Exactly k per iteration: every sample's k * n faults, but for one stray fault at most
        // (see `at_most_one_stray_fault`).
        let stray = at_most_one_stray_fault(pf, k as f64);
        let e = pf.estimate.as_ref().unwrap();
        if stray {
            // One fault more in one sample of n iterations moves the mean by less than 1 / n.
            let n = pf.iterations.iter().min().copied().unwrap_or(1) as f64;
            assert!((e.mean - k as f64).abs() <= 1.0 / n, "{e:?}");
        } else {
            assert_eq!((e.mean, e.stddev), (k as f64, 0.0));
        }
        assert_eq!(b.counter("wall-time").unwrap().source.as_str(), "clock");
        // task-clock shared page-faults' pass (software groups are read in one bracket) and
        // still counts the touching, which takes time.
        let tc = b.counter("task-clock").expect("task-clock measured");
        assert!(tc.estimate.as_ref().unwrap().mean > 0.0, "{tc:?}");
    }
    let by_ref = report
        .bench("runner/touch_pages_ref")
        .expect("iter_batched_ref measured");
    at_most_one_stray_fault(by_ref.counter("page-faults").unwrap(), 16.0);
}

/// Checks that every sample of `pf` read exactly `k` page faults per iteration, except at most
/// one that carries one fault more in its whole sample; returns whether one did. The kernel can
/// take a fault on the process's behalf that no code of the sample caused (a page of the
/// process migrated or reclaimed under it: CI once saw one sample of 50 of an empty body read
/// `1 / n`, right after a build), and that is not the harness's to cancel; a bracket that
/// calibration does not cancel, or a miscount, reads in every sample.
fn at_most_one_stray_fault(pf: &perfbench_analysis::model::CounterResult, k: f64) -> bool {
    assert_eq!(pf.per_iteration.len(), pf.iterations.len());
    let extra: Vec<f64> = pf
        .per_iteration
        .iter()
        .zip(&pf.iterations)
        .map(|(v, n)| (v - k) * *n as f64)
        .collect();
    let stray: Vec<&f64> = extra.iter().filter(|f| f.abs() > 1e-6).collect();
    assert!(
        stray.len() <= 1 && stray.iter().all(|f| (**f - 1.0).abs() < 1e-6),
        "page faults beyond {k} per iteration, per sample: {extra:?}"
    );
    !stray.is_empty()
}

/// Calibration cancels the bracket exactly: every sample of an empty body reads 0 page faults
/// (but for one stray fault at most: [`at_most_one_stray_fault`]).
fn an_empty_body_reads_zero_page_faults() {
    let b = measure_empty();
    let pf = b.counter("page-faults").unwrap();
    at_most_one_stray_fault(pf, 0.0);
}

fn a_panic_is_reported_and_the_suite_goes_on() {
    let path = json_path("panic");
    let code = run(&[
        "--bench",
        "runner/",
        "--json",
        path.to_str().unwrap(),
        "--counters",
        "wall-time",
    ]);
    // A panicking benchmark makes the process exit 1 ...
    assert_eq!(code, ExitCode::from(1));
    let report = read_report(&path);
    let p = report
        .bench("runner/panics")
        .expect("panicked benchmark is in the report");
    assert!(
        p.outcome == Outcome::Panicked
            && p.error.as_deref().is_some_and(|m| m.contains("deliberate"))
    );
    // ... after the rest of the suite ran.
    let after = report
        .bench("runner/after_the_panic")
        .expect("suite went on");
    assert!(after.counter("wall-time").unwrap().estimate.is_some());
    // Ignored benchmarks are skipped unless asked for.
    assert!(report.bench("runner/ignored_one").is_none());
}

fn rounds_interleave_the_benchmarks_and_keep_their_samples() {
    CALLS.lock().unwrap_or_else(|e| e.into_inner()).clear();
    let path = json_path("rounds");
    let code = run(&[
        "--bench",
        "runner/round_",
        "--precision",
        "0",
        "--rounds",
        "3",
        "--json",
        path.to_str().unwrap(),
    ]);
    // A benchmark panicked: exit 1, after the others finished their rounds.
    assert_eq!(code, ExitCode::from(1));
    // Round 1 of each, then round 2 of each still running, then round 3: the one that panicked
    // and the one that failed in round 2 are not called again.
    let calls = CALLS.lock().unwrap_or_else(|e| e.into_inner()).clone();
    assert_eq!(
        calls,
        ["a", "b", "p", "f", "a", "b", "p", "f", "a", "b"],
        "call order"
    );
    let report = read_report(&path);
    assert_eq!(report.config.rounds, 3);
    for id in ["runner/round_a", "runner/round_b"] {
        let b = report.bench(id).unwrap();
        assert_eq!(b.outcome, Outcome::Measured, "{id}");
        for c in &b.counters {
            // 12 samples, every third in each round.
            assert_eq!(c.rounds, [4, 4, 4], "{id} {}", c.name);
            assert_eq!(c.per_iteration.len(), 12);
            assert_eq!(c.iterations.len(), 12);
            assert_eq!(c.round_values().len(), 3);
        }
    }
    // Fresh pages in every round: exactly two faults per iteration in each (but for one stray
    // fault at most: [`at_most_one_stray_fault`]), so every round's floor is exactly 2.
    let faults = report
        .bench("runner/round_a")
        .unwrap()
        .counter("page-faults")
        .unwrap();
    at_most_one_stray_fault(faults, 2.0);
    for round in faults.round_values() {
        assert_eq!(
            round.iter().copied().fold(f64::INFINITY, f64::min),
            2.0,
            "{round:?}"
        );
    }
    let p = report.bench("runner/round_panics_later").unwrap();
    assert_eq!(p.outcome, Outcome::Panicked);
    assert!(p.error.as_deref().unwrap().contains("round 2"));
    let f = report.bench("runner/round_forgets_later").unwrap();
    assert_eq!(f.outcome, Outcome::Failed);
    assert!(f.error.as_deref().unwrap().contains("never called"));
}

/// The run history: the third run of the same build (this test binary) widens its intervals
/// by the spread of the three runs' figures and says so in the JSON; `--discard-baseline` runs
/// leave the history as it was.
fn runs_of_one_build_widen_the_interval_from_the_third() {
    let history =
        perfbench_analysis::baseline::Store::new(runner::output_dir()).history_path(suite());
    let _ = std::fs::remove_file(&history);
    let wall = |extra: &[&str]| {
        let path = json_path("history");
        let args = [
            &["--bench", "runner/round_b", "--exact", "--quick"][..],
            extra,
            &["--json", path.to_str().unwrap()],
        ]
        .concat();
        assert_eq!(run(&args), ExitCode::SUCCESS);
        read_report(&path)
            .bench("runner/round_b")
            .unwrap()
            .counter("wall-time")
            .and_then(|c| c.estimate)
            .expect("wall-time measured")
    };
    let first = [wall(&[]), wall(&[])];
    assert!(first.iter().all(|e| e.runs.is_none()), "{first:?}");
    let third = wall(&[]);
    let runs = third.runs.expect("the third run is widened");
    assert_eq!(runs.runs, 3);
    // Student's t for 2 degrees of freedom: 4.30 standard deviations of the logarithms.
    let half = 4.3 * runs.spread;
    assert!(
        third.ci_low <= third.point * (-half).exp() * 1.001,
        "{third:?}"
    );
    assert!(
        third.ci_high >= third.point * half.exp() * 0.999,
        "{third:?}"
    );
    let kept = std::fs::read(&history).expect("the history is written");
    let discarded = wall(&["--discard-baseline"]);
    assert_eq!(discarded.runs.map(|r| r.runs), Some(4));
    assert_eq!(
        std::fs::read(&history).unwrap(),
        kept,
        "--discard-baseline keeps nothing"
    );
}

fn smoke_test_mode_runs_every_body_once() {
    // `cargo test --benches` passes no --bench: every body runs once; the panic fails it.
    assert_eq!(run(&["after_the_panic"]), ExitCode::SUCCESS);
    assert_eq!(run(&["runner/panics"]), ExitCode::from(1));
    // With --json, a report of the outcomes, and only there.
    let path = std::env::temp_dir().join(format!("perfbench-smoke-{}.json", std::process::id()));
    let p = path.to_str().unwrap();
    assert_eq!(
        run(&["--test", "--json", p, "after_the_panic", "runner/panics"]),
        ExitCode::from(1)
    );
    let report = from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
    std::fs::remove_file(&path).unwrap();
    let ok = report.bench("runner/after_the_panic").unwrap();
    assert_eq!(ok.outcome, Outcome::Tested);
    assert!(ok.counters.is_empty());
    let bad = report.bench("runner/panics").unwrap();
    assert_eq!(bad.outcome, Outcome::Panicked);
    assert!(bad.error.is_some());
}
