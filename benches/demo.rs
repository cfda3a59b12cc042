//! The example from the harness issue as a user writes it (its helpers `fib` and `shuffled`
//! come from `support/`).
//! `cargo bench --bench demo`
use perfbench::{black_box, perfbench, Bencher};

mod support;
use support::{fib, shuffled};

#[perfbench]
fn fib_20() -> u64 {
    fib(black_box(20))
}

#[perfbench(args = [64, 1024, 16384])]
fn sum(b: &mut Bencher, n: usize) {
    let v: Vec<u64> = (0..n as u64).collect();
    b.iter(|| v.iter().sum::<u64>());
}

#[perfbench(counters = ["instructions", "branch-misses", "wall-time"])]
fn sort(b: &mut Bencher) {
    b.iter_batched(|| shuffled(1000), |mut v| v.sort_unstable());
}

perfbench::main!();
