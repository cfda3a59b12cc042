//! Threaded bodies (`#[perfbench(threads = [...])]`, `Bencher::iter_threads`): one benchmark
//! per thread count, ids ending in the count, the body run on N threads at once in every
//! sample. This test binary installs perfbench's counting allocator and each call allocates
//! one box: the counters, summed over the threads, must read exactly N per iteration in every
//! sample, and the software counters and wall time must be there for every thread count.

use std::hint::black_box;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use perfbench::{perfbench, Bencher};

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
    assert_eq!(suite.run(&[]), ExitCode::SUCCESS);
}
