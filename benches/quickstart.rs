//! The quickstart suite: three small benchmarks with the default counters.
//! `cargo bench --bench quickstart`
use perfbench::{black_box, perfbench, Bencher};

mod support;
use support::{fib, shuffled};

/// Recursive Fibonacci of 20: pure computation, about 20k calls.
#[perfbench]
fn fib_20() -> u64 {
    fib(black_box(20))
}

/// Sum of 4096 `u64`s.
#[perfbench(throughput = elements(4096))]
fn sum_4096(b: &mut Bencher) {
    let v: Vec<u64> = (0..4096).collect();
    b.iter(|| black_box(&v).iter().sum::<u64>());
}

/// Sorting 1000 shuffled `u32`s; making the input is not measured.
#[perfbench(throughput = elements(1000))]
fn sort_1000(b: &mut Bencher) {
    b.iter_batched(|| shuffled(1000), |mut v| v.sort_unstable());
}

perfbench::main!();
