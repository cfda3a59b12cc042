//! Async bodies (`Bencher::to_async`) on each executor perfbench has a feature for: a tokio
//! `Runtime` (current-thread and multi-thread), smol's and the `futures` crate's. This test
//! binary installs perfbench's counting allocator, and every body allocates a known number of
//! boxes per iteration: the allocation counters must read exactly that, in every sample, on
//! every executor, which they do only if the bracket holds the awaited work and the
//! calibration (the same loop over futures that are ready at once) cancels everything else the
//! executor and the `async` machinery do. `iter_batched`'s setup allocates too, uncounted.
//! `async fn` benchmarks with the attribute's `executor` are measured the same way.

use std::hint::black_box;
use std::process::ExitCode;

use perfbench::harness::executor::{FuturesExecutor, SmolExecutor};
use perfbench::{perfbench, Bencher};

// Not every helper is used here.
#[allow(dead_code)]
mod in_process;
use in_process::{exact, Suite};

#[global_allocator]
static ALLOC: perfbench::CountingAlloc = perfbench::CountingAlloc::system();

/// Two boxes made and freed, with an await point between them.
async fn two_boxes() -> usize {
    let a = black_box(Box::new(1u64));
    std::future::ready(()).await;
    let b = black_box(Box::new(2u64));
    (*a + *b) as usize
}

#[perfbench(sample_size = 10, measurement_time = 0.05, warm_up_time = 0.01)]
fn tokio_current_thread(b: &mut Bencher) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    b.to_async(&rt).iter(two_boxes);
}

#[perfbench(sample_size = 10, measurement_time = 0.05, warm_up_time = 0.01)]
fn tokio_multi_thread(b: &mut Bencher) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .build()
        .unwrap();
    b.to_async(&rt).iter(two_boxes);
}

#[perfbench(sample_size = 10, measurement_time = 0.05, warm_up_time = 0.01)]
fn smol(b: &mut Bencher) {
    b.to_async(SmolExecutor).iter(two_boxes);
}

#[perfbench(sample_size = 10, measurement_time = 0.05, warm_up_time = 0.01)]
fn futures(b: &mut Bencher) {
    b.to_async(FuturesExecutor).iter(two_boxes);
}

/// The setup's vector (an allocation) is not counted; the routine's two boxes are.
#[perfbench(sample_size = 10, measurement_time = 0.05, warm_up_time = 0.01)]
fn batched(b: &mut Bencher) {
    b.to_async(FuturesExecutor).iter_batched(
        || vec![0u8; 64],
        // The input comes back with the output, dropped after the bracket with it.
        |v| async move {
            let n = two_boxes().await;
            (v, n)
        },
    );
}

/// As `batched`, the routine borrowing its input.
#[perfbench(sample_size = 10, measurement_time = 0.05, warm_up_time = 0.01)]
fn batched_ref(b: &mut Bencher) {
    b.to_async(SmolExecutor).iter_batched_ref(
        || vec![0u8; 64],
        |v| {
            let len = v.len();
            async move { len + two_boxes().await }
        },
    );
}

/// An `async fn` benchmark: the attribute awaits it on its executor.
#[perfbench(executor = FuturesExecutor, sample_size = 10, measurement_time = 0.05, warm_up_time = 0.01)]
async fn attribute() -> usize {
    two_boxes().await
}

/// With `args`: `k` pairs of boxes, on a tokio runtime the expression builds.
#[perfbench(args = [1, 3], executor = tokio::runtime::Builder::new_current_thread().build().unwrap(), sample_size = 10, measurement_time = 0.05, warm_up_time = 0.01)]
async fn attribute_args(k: usize) -> usize {
    let mut sum = 0;
    for _ in 0..k {
        sum += two_boxes().await;
    }
    sum
}

#[test]
fn async_bodies_count_exactly_what_the_awaited_work_does_on_every_executor() {
    let suite = Suite::new("async_bodies");
    let report = suite.measure();
    for id in [
        "tokio_current_thread",
        "tokio_multi_thread",
        "smol",
        "futures",
        "batched",
        "batched_ref",
        "attribute",
        "attribute_args/1",
    ] {
        let b = report
            .bench(&format!("async_bodies/{id}"))
            .unwrap_or_else(|| panic!("{id} in the report"));
        exact(b, "alloc-count", 2.0);
        exact(b, "alloc-bytes", 16.0);
        exact(b, "dealloc-count", 2.0);
        // The executor's own cost per iteration was measured (the calibration) and subtracted.
        let wall = b.counter("wall-time").expect("wall-time");
        assert!(wall.overhead > 0.0, "{id}: {wall:?}");
        assert!(
            wall.estimate.as_ref().unwrap().point > 0.0,
            "{id}: {wall:?}"
        );
    }
    let three = report.bench("async_bodies/attribute_args/3").unwrap();
    exact(three, "alloc-count", 6.0);
    // Every body once, as `cargo test --benches` runs them.
    assert_eq!(suite.run(&[]), ExitCode::SUCCESS);
}
