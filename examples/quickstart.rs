//! The quickstart suite of README's "Writing benchmarks", runnable: a benchmark that returns its
//! result, one benchmark per argument with a throughput (`sum/64`, `sum/4096`), and a fresh
//! input for every iteration with `iter_batched`. Below this header the file is README's
//! `benches/quickstart.rs` verbatim (tests/examples.rs holds them equal): in your own crate it is
//! a bench target, run by `cargo bench`; here it is an example.
//!
//! ```sh
//! cargo run --release --example quickstart -- --bench   # measure, as `cargo bench` does
//! cargo run --release --example quickstart -- --list    # the benchmark ids
//! cargo run --example quickstart                        # each body once, as `cargo test --benches` does
//! ```
//!
//! `sort` asks for `instructions` and `branch-misses`: on a machine without a hardware PMU (most
//! VMs and CI runners) they are left out with a note saying why, and wall time remains.

use perfbench::{black_box, perfbench, Bencher};

fn fib(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        fib(n - 1) + fib(n - 2)
    }
}

#[perfbench]
fn fib_20() -> u64 {
    fib(black_box(20)) // the input through black_box; the result is kept for you
}

#[perfbench(args = [64, 4096], throughput = elements(n))] // sum/64 and sum/4096
fn sum(b: &mut Bencher, n: u64) {
    let v: Vec<u64> = (0..n).collect(); // setup, not measured
    b.iter(|| v.iter().sum::<u64>());
}

#[perfbench(counters = ["instructions", "branch-misses", "wall-time"])]
fn sort(b: &mut Bencher) {
    // A fresh unsorted input for every iteration: making and dropping it is not measured.
    let unsorted = || (0..1000u32).map(|i| i.wrapping_mul(2_654_435_761) % 1000);
    b.iter_batched(|| unsorted().collect::<Vec<_>>(), |mut v| v.sort_unstable());
}

perfbench::main!();
