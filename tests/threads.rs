//! Threaded bodies (`#[perfbench(threads = [...])]`, `Bencher::iter_threads`): one benchmark
//! per thread count, ids ending in the count, the body run on N threads at once in every
//! sample. This test binary installs perfbench's counting allocator and each call allocates
//! one box: the counters, summed over the threads, must read exactly N per iteration in every
//! sample, and the software counters and wall time must be there for every thread count.

use std::hint::black_box;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use perfbench::runner::{self, cli};
use perfbench::{perfbench, Bencher};
use perfbench_analysis::model::json::from_json;
use perfbench_analysis::model::{Benchmark, Report};

#[global_allocator]
static ALLOC: perfbench::CountingAlloc = perfbench::CountingAlloc::system();

/// One box per call.
#[perfbench(threads = [1, 2], sample_size = 10, measurement_time = 0.05, warm_up_time = 0.01)]
fn boxed() -> u64 {
    *black_box(Box::new(7u64))
}

static LOCKED: Mutex<u64> = Mutex::new(0);
static ATOMIC: AtomicU64 = AtomicU64::new(0);

/// A contended lock, on every available core.
#[perfbench(threads = [1, 0], sample_size = 10, measurement_time = 0.05, warm_up_time = 0.01)]
fn mutex() {
    *LOCKED.lock().unwrap() += 1;
}

/// The same count with an atomic add, through the bencher.
#[perfbench(args = [1, 2], sample_size = 10, measurement_time = 0.05, warm_up_time = 0.01)]
fn atomic(b: &mut Bencher, threads: usize) {
    b.iter_threads(threads, || ATOMIC.fetch_add(1, Ordering::Relaxed));
}

fn run(args: &[&str]) -> ExitCode {
    let parsed = cli::parse(
        "threads",
        std::iter::once("threads").chain(args.iter().copied()),
    )
    .expect("valid command line");
    runner::run("threads", &parsed)
}

fn exact(b: &Benchmark, counter: &str, expected: f64) {
    let c = b
        .counter(counter)
        .unwrap_or_else(|| panic!("{}: {counter} measured", b.id));
    for (i, v) in c.per_iteration.iter().enumerate() {
        assert_eq!(
            *v, expected,
            "{}: {counter}, sample {i}: {:?}",
            b.id, c.per_iteration
        );
    }
}

#[test]
fn threaded_bodies_sum_their_counters_over_the_threads() {
    let out = std::env::temp_dir().join(format!("perfbench-threads-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    // This binary has one test, so no other thread reads the environment meanwhile.
    std::env::set_var("CARGO_TARGET_DIR", &out);
    let json: PathBuf = out.join("threads.json");
    assert_eq!(
        run(&["--bench", "--json", json.to_str().unwrap()]),
        ExitCode::SUCCESS
    );
    let report: Report = from_json(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let ids: Vec<&str> = report.benchmarks.iter().map(|b| b.id.as_str()).collect();
    for id in [
        "threads/boxed/1",
        "threads/boxed/2",
        "threads/mutex/1",
        "threads/mutex/0",
        "threads/atomic/1",
        "threads/atomic/2",
    ] {
        assert!(ids.contains(&id), "{id} in {ids:?}");
    }
    let bench = |id: &str| report.bench(&format!("threads/{id}")).unwrap();
    // Summed over the threads: N allocations per iteration of N calls.
    for (id, n) in [("boxed/1", 1.0), ("boxed/2", 2.0)] {
        exact(bench(id), "alloc-count", n);
        exact(bench(id), "alloc-bytes", 8.0 * n);
        exact(bench(id), "dealloc-count", n);
    }
    for b in &report.benchmarks {
        let wall = b.counter("wall-time").expect("wall-time");
        assert!(
            wall.estimate.as_ref().unwrap().point.is_finite(),
            "{}",
            b.id
        );
        assert!(b.counter("task-clock").is_some(), "{}", b.id);
        exact(b, "realloc-count", 0.0);
    }
    // Every body once, as `cargo test --benches` runs them.
    assert_eq!(run(&[]), ExitCode::SUCCESS);
    let _ = std::fs::remove_dir_all(&out);
}
