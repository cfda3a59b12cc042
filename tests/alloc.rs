//! The allocation counters as a user gets them: this test binary installs
//! `perfbench::CountingAlloc` as its global allocator, its benchmarks allocate known amounts,
//! and the JSON report must read exactly those amounts per iteration, in every sample, with the
//! counters on by default; and one allocation more per iteration fails the gate against a
//! saved baseline, every time. One `#[test]` drives both, in a temporary output directory
//! (`CARGO_TARGET_DIR`).

use std::hint::black_box;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

use perfbench::{perfbench, BatchSize, Bencher};
use perfbench_analysis::model::{Benchmark, Verdict};

mod in_process;
use in_process::Suite;

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

/// Every sample of `counter` read exactly `expected` per iteration, from the allocator, and
/// its estimate is that value with no spread.
fn exact(b: &Benchmark, counter: &str, expected: f64) {
    let c = in_process::exact(b, counter, expected);
    assert_eq!(c.source.as_str(), "allocator");
    let e = c.estimate.as_ref().expect("an estimate");
    assert_eq!((e.point, e.stddev), (expected, 0.0), "{}: {counter}", b.id);
}

#[test]
fn allocation_counters() {
    let suite = Suite::new("alloc");
    read_exactly_what_the_body_allocates(&suite);
    one_allocation_more_fails_the_gate(&suite);
}

fn one_allocation_more_fails_the_gate(suite: &Suite) {
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
    assert_eq!(suite.run(&save), ExitCode::SUCCESS);
    // Unchanged: passes.
    assert_eq!(suite.run(&gate), ExitCode::SUCCESS);
    // 101 allocations where the baseline made 100 (+1%): fails, every time.
    ALLOCS.store(101, Ordering::Relaxed);
    for attempt in 0..3 {
        assert_eq!(suite.run(&gate), ExitCode::from(1), "attempt {attempt}");
    }
    let change = suite
        .latest()
        .bench("alloc/gated")
        .and_then(|b| b.counter("alloc-count"))
        .and_then(|c| c.change)
        .expect("alloc-count compared with the baseline");
    assert_eq!(change.verdict, Verdict::Regressed, "{change:?}");
}

fn read_exactly_what_the_body_allocates(suite: &Suite) {
    let report = suite.measure();
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
