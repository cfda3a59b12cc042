//! The stopping rule (`--precision`): a benchmark whose figures have settled stops after its
//! planned rounds; one whose figures never settle takes more rounds, up to five times its
//! planned ones, or fewer where the measurement time runs out first; `--precision 0` is a
//! fixed plan. The noisy benchmark times itself (`iter_timed`), so its spread is the test's
//! choice, not the machine's.

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use perfbench::{perfbench, Bencher};

// Not every helper is used here.
#[allow(dead_code)]
mod in_process;
use in_process::Suite;

/// A figure that repeats: 1,000 ns per iteration in every sample.
#[perfbench]
fn steady(b: &mut Bencher) {
    b.iter_timed(|n| Duration::from_nanos(1_000 * n));
}

static DRAWS: AtomicU64 = AtomicU64::new(0x2545_f491_4f6c_dd1d);

/// A figure that never settles to 1%: each sample 1,000 to 3,000 ns per iteration, uniformly
/// (with 2 samples a round, the rounds' means stray about 20% from each other: twice their
/// standard error after 50 rounds is still 5.8%).
#[perfbench]
fn scattered(b: &mut Bencher) {
    b.iter_timed(|n| {
        let mut x = DRAWS.load(Ordering::Relaxed);
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        DRAWS.store(x, Ordering::Relaxed);
        let u = (x >> 11) as f64 / (1u64 << 53) as f64;
        black_box(Duration::from_nanos(
            (n as f64 * 1_000.0 * (1.0 + 2.0 * u)) as u64,
        ))
    });
}

static CALLS: AtomicU64 = AtomicU64::new(0);

/// A machine that runs the code at two speeds in turn: 1,000 ns per iteration in every other
/// round (each round calls the function afresh), 1,100 ns in the others, as when a neighbour
/// comes and goes.
#[perfbench]
fn two_speeds(b: &mut Bencher) {
    let per = if CALLS.fetch_add(1, Ordering::Relaxed).is_multiple_of(2) {
        1_000
    } else {
        1_100
    };
    b.iter_timed(|n| Duration::from_nanos(per * n));
}

fn rounds(report: &perfbench_analysis::model::Report, name: &str) -> usize {
    let b = report
        .benchmarks
        .iter()
        .find(|b| b.name == name)
        .unwrap_or_else(|| panic!("{name} measured"));
    let c = b.counter("wall-time").expect("wall-time");
    assert_eq!(
        c.rounds.iter().map(|&n| n as usize).sum::<usize>(),
        c.per_iteration.len(),
        "{name}: the rounds hold every sample"
    );
    c.rounds.len()
}

#[test]
fn a_benchmark_stops_once_its_figures_have_settled() {
    let suite = Suite::new("stopping");
    // 20 samples in 10 rounds: 2 a round (what the rule judges is the rounds).
    let run = |extra: &[&str]| {
        let mut args = vec!["--bench", "--counters", "wall-time", "--sample-size", "20"];
        if !extra.contains(&"--warm-up-time") {
            args.extend(["--warm-up-time", "0.01"]);
        }
        args.extend_from_slice(extra);
        assert_eq!(suite.run(&args), std::process::ExitCode::SUCCESS);
        suite.latest()
    };

    // The defaults: 1%, 10 rounds at least.
    let report = run(&[]);
    assert_eq!(report.config.precision, Some(0.01));
    assert_eq!(
        rounds(&report, "steady"),
        10,
        "settled after the planned rounds"
    );
    assert_eq!(
        rounds(&report, "scattered"),
        50,
        "never settled: five times the planned rounds"
    );
    // Two speeds: the rounds disagree, so it takes the most rounds; its estimate is the median
    // of the quiet ones.
    assert_eq!(rounds(&report, "two_speeds"), 50, "the rounds disagree");
    assert_quiet(&report, true, 25);

    // A loose target: both settle in their planned rounds. (Not 50%: `scattered`'s draws
    // depend on how many its warm-up took, so on the machine, and the two smallest of ten
    // rounds' floors, each the smaller of two draws, disagree by more than 50% in about 3 runs
    // in 1,000, which then take more rounds; by more than 100% in about 1 in 1,000,000.)
    let report = run(&["--precision", "100"]);
    assert_eq!(report.config.precision, Some(1.0));
    assert_eq!(rounds(&report, "steady"), 10);
    assert_eq!(rounds(&report, "scattered"), 10);

    // Fewer planned rounds: the cap is five times those.
    let report = run(&["--rounds", "4"]);
    assert_eq!(rounds(&report, "steady"), 4);
    assert_eq!(rounds(&report, "scattered"), 20);

    // No measurement time left after the planned rounds: no more rounds. (`iter_timed`'s
    // routine returns at once, but each round still warms up for its share of the warm-up.)
    let report = run(&["--measurement-time", "0", "--warm-up-time", "0.2"]);
    assert_eq!(rounds(&report, "scattered"), 10);

    // A fixed plan: the planned rounds whatever the spread.
    let report = run(&["--precision", "0"]);
    assert_eq!(report.config.precision, None);
    assert_eq!(rounds(&report, "scattered"), 10);
    assert_quiet(&report, false, 5);
}

/// `two_speeds`'s estimate is its quiet rounds' 1,000 ns, its `slower` rounds left out; in the
/// build's `first` run, with an interval as narrow as those rounds (later ones widen it by the
/// run history: `--precision 100` counts every round, 1,050 ns).
fn assert_quiet(report: &perfbench_analysis::model::Report, first: bool, slower: usize) {
    let b = report.benchmarks.iter().find(|b| b.name == "two_speeds");
    let e = b
        .and_then(|b| b.counter("wall-time"))
        .and_then(|c| c.estimate)
        .expect("two_speeds measured");
    assert_eq!(e.disturbed_rounds, slower, "{e:?}");
    assert!((e.point - 1_000.0).abs() < 1.0, "{e:?}");
    assert!(e.ci_low <= e.point && e.point <= e.ci_high, "{e:?}");
    if first {
        assert!(e.ci_high < 1_010.0, "{e:?}");
    }
    assert!(e.median > 1_000.0, "the median of every sample: {e:?}");
}
