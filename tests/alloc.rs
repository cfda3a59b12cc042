//! The allocation counters as a user gets them: this test binary installs
//! `perfbench::CountingAlloc` as its global allocator, its benchmarks allocate known amounts,
//! and the JSON report must read exactly those amounts per iteration, in every sample, with the
//! counters on by default; and one allocation more per iteration fails the gate against a
//! saved baseline, every time. One `#[test]` drives both, in a temporary output directory
//! (`CARGO_TARGET_DIR`).

use std::hint::black_box;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

use perfbench::runner::{self, cli};
use perfbench::{perfbench, BatchSize, Bencher};
use perfbench_analysis::model::json::from_json;
use perfbench_analysis::model::{Benchmark, Report, Verdict};

#[global_allocator]
static ALLOC: perfbench::CountingAlloc = perfbench::CountingAlloc::system();

/// The bytes of each allocation of [`boxes`].
const B: usize = 48;

/// `k` allocations of `B` bytes per iteration, each freed before the next.
#[perfbench(args = [0, 1, 3, 100], sample_size = 12, measurement_time = 0.05, warm_up_time = 0.01)]
fn boxes(b: &mut Bencher, k: usize) {
    b.iter(|| {
        for _ in 0..k {
            black_box(Box::new([0u8; B]));
        }
    });
}

/// Two allocations (100 and 200 bytes) in the routine; the setup's vector is allocated outside
/// the bracket and dropped outside it with the output.
#[perfbench(sample_size = 12, measurement_time = 0.05, warm_up_time = 0.01)]
fn batched(b: &mut Bencher) {
    b.iter_batched(
        || Vec::<u8>::with_capacity(1000),
        |v| {
            let a = black_box(vec![1u8; 100]);
            let c = black_box(vec![2u8; 200]);
            (v, a.len() + c.len())
        },
    );
}

/// The same with one input per bracket (criterion's `PerIteration`).
#[perfbench(sample_size = 12, measurement_time = 0.05, warm_up_time = 0.01)]
fn per_iteration(b: &mut Bencher) {
    b.iter_batched_with(
        || Vec::<u8>::with_capacity(1000),
        |v| {
            let a = black_box(vec![1u8; 100]);
            let c = black_box(vec![2u8; 200]);
            (v, a.len() + c.len())
        },
        BatchSize::PerIteration,
    );
}

/// One reallocation: a vector of capacity 1 grown to 8 by its second push.
#[perfbench(sample_size = 12, measurement_time = 0.05, warm_up_time = 0.01)]
fn grows(b: &mut Bencher) {
    b.iter(|| {
        let mut v: Vec<u8> = Vec::with_capacity(1);
        v.push(1);
        black_box(&mut v).push(2);
        black_box(v)
    });
}

/// 4 KiB held at once: two 2 KiB buffers alive together, then freed.
#[perfbench(sample_size = 12, measurement_time = 0.05, warm_up_time = 0.01)]
fn peak(b: &mut Bencher) {
    b.iter(|| {
        let x = black_box(vec![0u8; 2048]);
        let y = black_box(vec![0u8; 2048]);
        drop(x);
        let z = black_box(vec![0u8; 1024]);
        (y.len(), z.len())
    });
}

/// Allocations per iteration of [`gated`], which the test sets.
static ALLOCS: AtomicUsize = AtomicUsize::new(100);

/// `ALLOCS` allocations per iteration; the allocation counters only (wall time would move
/// between short runs on a busy machine).
#[perfbench(counters = ["alloc-count", "alloc-bytes"], sample_size = 10, measurement_time = 0.03, warm_up_time = 0.01)]
fn gated(b: &mut Bencher) {
    let k = ALLOCS.load(Ordering::Relaxed);
    b.iter(|| {
        for _ in 0..k {
            black_box(Box::new(7u64));
        }
    });
}

fn run(args: &[&str]) -> ExitCode {
    let parsed = cli::parse(
        "alloc",
        std::iter::once("alloc").chain(args.iter().copied()),
    )
    .expect("valid command line");
    runner::run("alloc", &parsed)
}

fn report() -> Report {
    let path: PathBuf =
        std::env::temp_dir().join(format!("perfbench-alloc-{}.json", std::process::id()));
    let args = ["--bench", "--json", path.to_str().unwrap()];
    assert_eq!(run(&args), ExitCode::SUCCESS);
    let text = std::fs::read_to_string(&path).expect("report written");
    let _ = std::fs::remove_file(&path);
    from_json(&text).expect("report parses")
}

/// Every sample of `counter` read exactly `expected` per iteration.
fn exact(b: &Benchmark, counter: &str, expected: f64) {
    let c = b
        .counter(counter)
        .unwrap_or_else(|| panic!("{}: {counter} measured by default", b.id));
    assert_eq!(c.source.as_str(), "allocator");
    assert!(!c.per_iteration.is_empty());
    for (i, v) in c.per_iteration.iter().enumerate() {
        assert_eq!(
            *v, expected,
            "{}: {counter}, sample {i}: {:?}",
            b.id, c.per_iteration
        );
    }
    let e = c.estimate.as_ref().expect("an estimate");
    assert_eq!((e.point, e.stddev), (expected, 0.0), "{}: {counter}", b.id);
}

#[test]
fn allocation_counters() {
    let out = std::env::temp_dir().join(format!("perfbench-alloc-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    // This binary has one test, so no other thread reads the environment meanwhile.
    std::env::set_var("CARGO_TARGET_DIR", &out);
    read_exactly_what_the_body_allocates();
    one_allocation_more_fails_the_gate();
    let _ = std::fs::remove_dir_all(&out);
}

fn one_allocation_more_fails_the_gate() {
    let gate = [
        "--bench",
        "alloc/gated",
        "--exact",
        "--baseline",
        "main",
        "--fail-on-regression",
    ];
    ALLOCS.store(100, Ordering::Relaxed);
    let save = [
        "--bench",
        "alloc/gated",
        "--exact",
        "--save-baseline",
        "main",
    ];
    assert_eq!(run(&save), ExitCode::SUCCESS);
    // Unchanged: passes.
    assert_eq!(run(&gate), ExitCode::SUCCESS);
    // 101 allocations where the baseline made 100 (+1%): fails, every time.
    ALLOCS.store(101, Ordering::Relaxed);
    for attempt in 0..3 {
        assert_eq!(run(&gate), ExitCode::from(1), "attempt {attempt}");
    }
    let latest = std::env::var_os("CARGO_TARGET_DIR").unwrap();
    let report: Report = from_json(
        &std::fs::read_to_string(std::path::Path::new(&latest).join("perfbench/alloc.json"))
            .expect("the latest report"),
    )
    .expect("report parses");
    let change = report
        .bench("alloc/gated")
        .and_then(|b| b.counter("alloc-count"))
        .and_then(|c| c.change)
        .expect("alloc-count compared with the baseline");
    assert_eq!(change.verdict, Verdict::Regressed, "{change:?}");
}

fn read_exactly_what_the_body_allocates() {
    let report = report();
    let bench = |id: &str| {
        report
            .bench(&format!("alloc/{id}"))
            .unwrap_or_else(|| panic!("{id} in the report"))
            .clone()
    };
    for k in [0usize, 1, 3, 100] {
        let b = bench(&format!("boxes/{k}"));
        let k = k as f64;
        exact(&b, "alloc-count", k);
        exact(&b, "alloc-bytes", k * B as f64);
        exact(&b, "dealloc-count", k);
        exact(&b, "realloc-count", 0.0);
        exact(&b, "alloc-peak-bytes", if k > 0.0 { B as f64 } else { 0.0 });
        // The other default counters are still there.
        assert!(b.counter("wall-time").is_some());
    }
    for id in ["batched", "per_iteration"] {
        let b = bench(id);
        exact(&b, "alloc-count", 2.0);
        exact(&b, "alloc-bytes", 300.0);
        exact(&b, "dealloc-count", 2.0);
        exact(&b, "alloc-peak-bytes", 300.0);
    }
    let b = bench("grows");
    exact(&b, "alloc-count", 1.0);
    exact(&b, "realloc-count", 1.0);
    exact(&b, "alloc-bytes", 8.0);
    exact(&b, "dealloc-count", 1.0);
    exact(&b, "alloc-peak-bytes", 8.0);
    let b = bench("peak");
    exact(&b, "alloc-count", 3.0);
    exact(&b, "alloc-bytes", 5120.0);
    exact(&b, "alloc-peak-bytes", 4096.0);
}
