//! Baselines as a user of the bench binary sees them: `--save-baseline`, `--baseline`,
//! `--baseline-lenient`, `--discard-baseline`, `--fail-on-regression` and the comparison with
//! the previous run, run in-process with real command lines.
//!
//! The benchmark touches a number of fresh pages per iteration that the test sets: page faults
//! are exact counts, so "the code changed" and "it did not" give deterministic verdicts on any
//! machine, PMU or not. The gated benchmarks measure nothing else: wall time moves by more than
//! its 25% threshold between two short runs on a busy machine, which would make the gate flaky. One `#[test]` drives the scenarios in order, in a temporary output
//! directory (`CARGO_TARGET_DIR`).

use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

use perfbench::runner::{self, cli};
use perfbench::sys::AnonMapping;
use perfbench::{perfbench, Bencher};
use perfbench_analysis::model::json::from_json;
use perfbench_analysis::model::{Report, Verdict};

/// Pages touched per iteration by `pages`.
static PAGES: AtomicUsize = AtomicUsize::new(4);

#[perfbench(counters = ["page-faults"], sample_size = 10, measurement_time = 0.05, warm_up_time = 0.01)]
fn pages(b: &mut Bencher) {
    let n = PAGES.load(Ordering::Relaxed);
    b.iter_batched(
        || AnonMapping::new(n).expect("mmap"),
        |mut m| {
            m.touch_every_page();
            m
        },
    );
}

/// The same body with a wide threshold of its own for page faults.
#[perfbench(counters = ["page-faults"], thresholds = ["page-faults=150"], sample_size = 10, measurement_time = 0.05, warm_up_time = 0.01)]
fn tolerant(b: &mut Bencher) {
    pages(b);
}

/// Throughput from the argument, in the attribute: each argument its own.
#[perfbench(args = [64, 65536], throughput = bytes(len), counters = ["wall-time"], sample_size = 10, measurement_time = 0.05, warm_up_time = 0.01)]
fn by_len(b: &mut Bencher, len: usize) {
    let v = vec![1u8; len];
    b.iter(|| v.iter().map(|&x| u64::from(x)).sum::<u64>());
}

const COUNTS: [u32; 2] = [3, 5];

/// The same without a bencher, and with `args = EXPR`.
#[perfbench(args = COUNTS, throughput = elements(n * 2), counters = ["wall-time"], sample_size = 10, measurement_time = 0.05, warm_up_time = 0.01)]
fn doubled(n: u32) -> u32 {
    n.rotate_left(3)
}

/// Throughput set from the body, per argument.
#[perfbench(args = [64, 4096], counters = ["wall-time"], throughput = elements(1), sample_size = 10, measurement_time = 0.05, warm_up_time = 0.01)]
fn per_arg(b: &mut Bencher, n: u64) {
    if n > 64 {
        b.throughput(perfbench::Throughput::Bytes(n));
    }
    b.iter(|| std::hint::black_box(n).count_ones());
}

#[perfbench(counters = ["page-faults"], sample_size = 10, measurement_time = 0.05, warm_up_time = 0.01)]
fn other(b: &mut Bencher) {
    b.iter(|| std::hint::black_box(7u64).pow(2));
}

const SUITE: &str = "baselines";

fn run(args: &[&str]) -> ExitCode {
    let parsed = cli::parse(
        SUITE,
        ["baselines", "--bench", "--format", "terse"]
            .into_iter()
            .chain(args.iter().copied()),
    )
    .expect("valid command line");
    runner::run(SUITE, &parsed)
}

fn read(path: &Path) -> Report {
    from_json(&std::fs::read_to_string(path).expect("report written")).expect("report reads")
}

fn verdict(report: &Report, id: &str, counter: &str) -> Option<Verdict> {
    report
        .bench(id)?
        .counter(counter)?
        .change
        .map(|c| c.verdict)
}

#[test]
fn baselines_save_compare_and_gate() {
    let out = std::env::temp_dir().join(format!("perfbench-baselines-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    // This binary has one test, so no other thread reads the environment meanwhile.
    std::env::set_var("CARGO_TARGET_DIR", &out);
    let dir = out.join("perfbench");
    let latest = dir.join("baselines.json");
    let saved = dir.join("baselines/main/baselines.json");

    // The first run has nothing to compare with; it saves baseline `main` of `pages` only.
    PAGES.store(4, Ordering::Relaxed);
    assert_eq!(
        run(&["baselines/pages", "--save-baseline", "main"]),
        ExitCode::SUCCESS
    );
    let first = read(&latest);
    assert!(first.baseline.is_none());
    assert!(first.benchmarks[0]
        .counters
        .iter()
        .all(|c| c.change.is_none()));
    assert_eq!(read(&saved).benchmarks.len(), 1);

    // Unchanged code against the baseline: page faults unchanged, exit 0 with the gate.
    assert_eq!(
        run(&[
            "baselines/pages",
            "--baseline",
            "main",
            "--fail-on-regression"
        ]),
        ExitCode::SUCCESS
    );
    let same = read(&latest);
    assert_eq!(same.baseline.as_ref().unwrap().name, "main");
    assert!(same.baseline.as_ref().unwrap().warnings.is_empty());
    assert_eq!(
        verdict(&same, "baselines/pages", "page-faults"),
        Some(Verdict::Unchanged)
    );

    // Twice the pages: regressed, and exit 1 only with --fail-on-regression.
    PAGES.store(8, Ordering::Relaxed);
    assert_eq!(
        run(&["baselines/pages", "--baseline", "main"]),
        ExitCode::SUCCESS
    );
    assert_eq!(
        run(&[
            "baselines/pages",
            "--baseline",
            "main",
            "--fail-on-regression"
        ]),
        ExitCode::from(1)
    );
    let slower = read(&latest);
    assert_eq!(
        verdict(&slower, "baselines/pages", "page-faults"),
        Some(Verdict::Regressed)
    );
    let change = slower
        .bench("baselines/pages")
        .unwrap()
        .counter("page-faults")
        .unwrap()
        .change
        .unwrap();
    assert!((change.ratio.unwrap() - 2.0).abs() < 0.01, "{change:?}");

    // Without --baseline the run is compared with the previous run (8 pages, as now) ...
    assert_eq!(
        run(&["baselines/pages", "--fail-on-regression"]),
        ExitCode::SUCCESS
    );
    let previous = read(&latest);
    assert_eq!(previous.baseline.as_ref().unwrap().name, "previous run");
    assert_eq!(
        verdict(&previous, "baselines/pages", "page-faults"),
        Some(Verdict::Unchanged)
    );
    // ... and --discard-baseline leaves the previous run as it was.
    PAGES.store(2, Ordering::Relaxed);
    let before = std::fs::read(&latest).unwrap();
    let json = out.join("discarded.json");
    assert_eq!(
        run(&[
            "baselines/pages",
            "--discard-baseline",
            "--json",
            json.to_str().unwrap()
        ]),
        ExitCode::SUCCESS
    );
    assert_eq!(
        std::fs::read(&latest).unwrap(),
        before,
        "the previous run is kept"
    );
    assert_eq!(
        verdict(&read(&json), "baselines/pages", "page-faults"),
        Some(Verdict::Improved)
    );

    // A benchmark the baseline does not have: an error with --baseline, new with -lenient.
    let saved_before = std::fs::read(&saved).unwrap();
    assert_eq!(run(&["--baseline", "main"]), ExitCode::from(2));
    assert_eq!(
        std::fs::read(&latest).unwrap(),
        before,
        "nothing written after the error"
    );
    assert_eq!(run(&["--baseline-lenient", "main"]), ExitCode::SUCCESS);
    let lenient = read(&latest);
    assert!(lenient.bench("baselines/other").unwrap().counters[0]
        .change
        .is_none());
    assert!(verdict(&lenient, "baselines/pages", "page-faults").is_some());

    // Missing, unreadable and newer baselines: exit 2, nothing overwritten; a lenient one that
    // lacks the whole suite leaves all of it new.
    assert_eq!(run(&["--baseline", "nosuch"]), ExitCode::from(2));
    assert_eq!(
        run(&["--baseline-lenient", "nosuch", "--discard-baseline"]),
        ExitCode::SUCCESS
    );
    std::fs::write(&saved, b"{\"schema_version\": 1, \"suite\": ").unwrap();
    let latest_before = std::fs::read(&latest).unwrap();
    assert_eq!(
        run(&["baselines/pages", "--baseline", "main"]),
        ExitCode::from(2)
    );
    assert_eq!(
        std::fs::read(&saved).unwrap(),
        b"{\"schema_version\": 1, \"suite\": "
    );
    assert_eq!(std::fs::read(&latest).unwrap(), latest_before);
    // An unreadable previous run is only a note: the run goes on and replaces it.
    std::fs::write(&latest, b"not json").unwrap();
    assert_eq!(run(&["baselines/pages"]), ExitCode::SUCCESS);
    assert!(read(&latest).baseline.is_none());
    // Save the baseline again over the broken one.
    assert_eq!(
        run(&["baselines/pages", "--save-baseline", "main"]),
        ExitCode::SUCCESS
    );
    assert_ne!(std::fs::read(&saved).unwrap(), saved_before);
    assert_eq!(read(&saved).suite, SUITE);

    // The attribute's threshold (150%) lets twice the page faults pass; the command line's
    // wins over it.
    PAGES.store(4, Ordering::Relaxed);
    assert_eq!(
        run(&["tolerant", "--save-baseline", "tol"]),
        ExitCode::SUCCESS
    );
    PAGES.store(8, Ordering::Relaxed);
    assert_eq!(
        run(&["tolerant", "--baseline", "tol", "--fail-on-regression"]),
        ExitCode::SUCCESS
    );
    let c = read(&latest).benchmarks[0].counters[0].change.unwrap();
    assert_eq!((c.verdict, c.threshold), (Verdict::Unchanged, 1.5));
    assert_eq!(
        run(&[
            "tolerant",
            "--baseline",
            "tol",
            "--fail-on-regression",
            "--threshold",
            "page-faults=10"
        ]),
        ExitCode::from(1)
    );

    // Saving a baseline again from the same build keeps its runs (`--discard-baseline` leaves
    // the previous run alone); comparisons pool them, and say how many there are.
    PAGES.store(4, Ordering::Relaxed);
    let multi = dir.join("baselines/multi/baselines.json");
    for n in 1..=3 {
        assert_eq!(
            run(&[
                "baselines/pages",
                "--save-baseline",
                "multi",
                "--discard-baseline"
            ]),
            ExitCode::SUCCESS
        );
        let saved = read(&multi);
        assert_eq!(saved.runs(), n);
        assert!(saved.build.is_some());
    }
    let saved = read(&multi);
    let earlier = saved.earlier_figures("baselines/pages", "page-faults");
    assert_eq!(earlier.len(), 2);
    assert!(earlier
        .iter()
        .all(|f| f.len() == 10 && f.iter().all(|&x| x >= 4.0)));
    assert_eq!(
        run(&["baselines/pages", "--baseline", "multi"]),
        ExitCode::SUCCESS
    );
    let against = read(&latest);
    assert_eq!(against.baseline.as_ref().map(|b| b.runs), Some(3));
    assert!(
        against.earlier_runs.is_empty(),
        "a run's own report holds one run"
    );
    assert_eq!(
        verdict(&against, "baselines/pages", "page-faults"),
        Some(Verdict::Unchanged)
    );
    PAGES.store(5, Ordering::Relaxed);
    assert_eq!(
        run(&[
            "baselines/pages",
            "--baseline",
            "multi",
            "--fail-on-regression"
        ]),
        ExitCode::from(1)
    );
    PAGES.store(4, Ordering::Relaxed);

    // Several FILTERs select what any of them matches, as libtest; --exact wants whole ids.
    let json = out.join("filters.json");
    let json_arg = json.to_str().unwrap();
    let ids = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["--discard-baseline", "--json", json_arg];
        all.extend_from_slice(args);
        assert_eq!(run(&all), ExitCode::SUCCESS);
        read(&json).benchmarks.into_iter().map(|b| b.id).collect()
    };
    assert_eq!(
        ids(&["other", "toler"]),
        ["baselines/tolerant", "baselines/other"]
    );
    assert_eq!(
        ids(&["--exact", "baselines/other", "other"]),
        ["baselines/other"]
    );

    // `b.throughput(..)` wins over the attribute's, argument by argument.
    assert_eq!(ids(&["per_arg"]).len(), 2);
    let report = read(&json);
    let t = |id: &str| report.bench(id).unwrap().throughput;
    assert_eq!(
        t("baselines/per_arg/64"),
        Some(perfbench::Throughput::Elements(1))
    );
    assert_eq!(
        t("baselines/per_arg/4096"),
        Some(perfbench::Throughput::Bytes(4096))
    );
    assert_eq!(ids(&["by_len", "doubled"]).len(), 4);
    let report = read(&json);
    let t = |id: &str| report.bench(id).unwrap().throughput;
    use perfbench::Throughput::{Bytes, Elements};
    assert_eq!(t("baselines/by_len/64"), Some(Bytes(64)));
    assert_eq!(t("baselines/by_len/65536"), Some(Bytes(65536)));
    assert_eq!(t("baselines/doubled/3"), Some(Elements(6)));
    assert_eq!(t("baselines/doubled/5"), Some(Elements(10)));

    let _ = std::fs::remove_dir_all(&out);
}
