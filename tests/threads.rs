//! Threaded bodies (`#[perfbench(threads = [...])]`, `Bencher::iter_threads`): one benchmark
//! per thread count, ids ending in the count, the body run on N threads at once in every
//! sample. This test binary installs perfbench's counting allocator and each call allocates
//! one box: the counters, summed over the threads, must read exactly N per iteration in every
//! sample, and the software counters and wall time must be there for every thread count. The
//! JSON report records each threaded benchmark's thread count (`threads`) and no count for a
//! plain body, and the HTML report says what the figures of a body on several threads are.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use perfbench::harness::threads::resolve;
use perfbench::{perfbench, Bencher};
use perfbench_analysis::model::Report;
use perfbench_analysis::report::html::bench_file;

// Not every helper is used here.
#[allow(dead_code)]
mod in_process;
use in_process::{exact, Suite};

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

/// One box per call, not threaded.
#[perfbench(sample_size = 10, measurement_time = 0.05, warm_up_time = 0.01)]
fn plain() -> u64 {
    *black_box(Box::new(7u64))
}

/// The same count with an atomic add, through the bencher.
#[perfbench(args = [1, 2], sample_size = 10, measurement_time = 0.05, warm_up_time = 0.01)]
fn atomic(b: &mut Bencher, threads: usize) {
    b.iter_threads(threads, || ATOMIC.fetch_add(1, Ordering::Relaxed));
}

#[test]
fn threaded_bodies_sum_their_counters_over_the_threads() {
    let suite = Suite::new("threads");
    let report = suite.measure();
    let ids: Vec<&str> = report.benchmarks.iter().map(|b| b.id.as_str()).collect();
    for id in [
        "threads/boxed/1",
        "threads/boxed/2",
        "threads/mutex/1",
        "threads/mutex/0",
        "threads/atomic/1",
        "threads/atomic/2",
        "threads/plain",
    ] {
        assert!(ids.contains(&id), "{id} in {ids:?}");
    }
    let bench = |id: &str| report.bench(&format!("threads/{id}")).unwrap();
    // Summed over the threads: N allocations per iteration of N calls.
    for (id, n) in [("boxed/1", 1.0), ("boxed/2", 2.0), ("plain", 1.0)] {
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
    // The report records the resolved thread count of every threaded body, and none for the
    // plain one.
    let all = resolve(0) as u32;
    for (id, threads) in [
        ("boxed/1", Some(1)),
        ("boxed/2", Some(2)),
        ("mutex/1", Some(1)),
        ("mutex/0", Some(all)),
        ("atomic/1", Some(1)),
        ("atomic/2", Some(2)),
        ("plain", None),
    ] {
        assert_eq!(bench(id).threads, threads, "{id}");
    }
    html_says_what_threaded_figures_are(&report);
    // Every body once, as `cargo test --benches` runs them.
    assert_eq!(suite.run(&[]), ExitCode::SUCCESS);
    // The smoke test's report records the thread counts too.
    let smoke = std::env::temp_dir().join(format!(
        "perfbench-threads-smoke-{}.json",
        std::process::id()
    ));
    let path = smoke.to_str().unwrap();
    assert_eq!(suite.run(&["--test", "--json", path]), ExitCode::SUCCESS);
    let text = std::fs::read_to_string(&smoke).unwrap();
    let _ = std::fs::remove_file(&smoke);
    let tested = perfbench_analysis::model::json::from_json(&text).unwrap();
    for b in &report.benchmarks {
        assert_eq!(tested.bench(&b.id).unwrap().threads, b.threads, "{}", b.id);
    }
}

/// The HTML report of the run: beside each benchmark on more than one thread, in the index and
/// on its page, the phrase that says its counters are sums and its wall time one thread's; not
/// beside the others.
fn html_says_what_threaded_figures_are(report: &Report) {
    let target = std::env::var_os("CARGO_TARGET_DIR").expect("the suite's target directory");
    let dir = Path::new(&target).join("perfbench/report");
    let read =
        |p: &Path| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let index = read(&dir.join("index.html"));
    let pages: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .flat_map(|d| {
            std::fs::read_dir(d)
                .unwrap()
                .filter_map(|e| e.ok().map(|e| e.path()))
        })
        .collect();
    let phrase =
        |n: u32| format!("on {n} threads (counters summed over the threads; wall-time per thread)");
    let mut threaded = 0;
    for (i, b) in report.benchmarks.iter().enumerate() {
        let file = bench_file(i, &b.id);
        let page = pages
            .iter()
            .find(|p| p.ends_with(&file))
            .unwrap_or_else(|| panic!("{}: no page {file} in {pages:?}", b.id));
        let page = read(page);
        match b.threads {
            Some(n) if n > 1 => {
                threaded += 1;
                assert_eq!(page.matches(&phrase(n)).count(), 1, "{}", b.id);
            }
            _ => assert!(
                !page.contains("counters summed over the threads"),
                "{}",
                b.id
            ),
        }
    }
    // boxed/2 and atomic/2 at least, each once in the index.
    assert!(threaded >= 2, "{threaded}");
    assert_eq!(
        index.matches("counters summed over the threads").count(),
        threaded,
        "{index}"
    );
    let on_two = report.benchmarks.iter().filter(|b| b.threads == Some(2));
    assert_eq!(index.matches(&phrase(2)).count(), on_two.count(), "{index}");
}
