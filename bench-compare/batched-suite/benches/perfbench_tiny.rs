//! The tiny batched routine of issue 17 with perfbench's default batching (`BatchSize::Auto`).
use perfbench::{perfbench, Bencher};

#[perfbench(counters = ["wall-time"])]
fn push_one(b: &mut Bencher) {
    b.iter_batched(
        || Vec::<u64>::with_capacity(8),
        |mut v| {
            v.push(1);
            v
        },
    );
}

/// The same, one input per bracket (what `iter_batched` did before batching).
#[perfbench(counters = ["wall-time"])]
fn push_one_per_iteration(b: &mut Bencher) {
    b.iter_batched_with(
        || Vec::<u64>::with_capacity(8),
        |mut v| {
            v.push(1);
            v
        },
        perfbench::BatchSize::PerIteration,
    );
}

perfbench::main!();
