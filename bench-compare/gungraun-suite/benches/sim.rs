//! bench-compare/simulate.sh's workloads on gungraun 0.20, as its guide writes library
//! benchmarks: inputs from `setup`/`args` (made before the measured call), bodies
//! `black_box(work(black_box(input)))`, the same as ../simsuite-perfbench/benches/sim.rs.
//! gungraun counts one call of each function below (Callgrind's `--toggle-collect` on the
//! function in its wrapper module): its entry and exit, the body, and the drop of any owned
//! argument the body does not hand back.
use gungraun::prelude::*;
use gungraun_suite as w;
use std::hint::black_box;

// Nothing: the count is gungraun's fixed cost for a call.
#[library_benchmark]
fn empty() {}

// A constant through `black_box`.
#[library_benchmark]
fn constant() -> u64 {
    black_box(42u64)
}

#[library_benchmark]
fn fib_20() -> u64 {
    black_box(w::fib(black_box(20)))
}

// The sorted vector is returned (dropped by gungraun after the measured call).
#[library_benchmark]
#[bench::shuffled(args = (1000), setup = w::shuffled)]
fn sort_1000(v: Vec<u32>) -> Vec<u32> {
    black_box(w::sort(black_box(v)))
}

// The 4 KiB input is owned by the benchmark: dropping it is inside the measured call.
#[library_benchmark]
#[bench::bytes(args = (4096), setup = w::bytes)]
fn fnv1a_4k(data: Vec<u8>) -> u64 {
    black_box(w::fnv1a(black_box(&data[..])))
}

#[library_benchmark]
#[bench::bytes(args = (4096), setup = w::bytes)]
fn siphash_4k(data: Vec<u8>) -> u64 {
    black_box(w::siphash(black_box(&data[..])))
}

// A borrowed `'static` text: nothing to drop.
#[library_benchmark]
#[bench::text(setup = w::csv_static)]
fn parse_csv(text: &'static str) -> Option<w::CsvSummary> {
    black_box(w::parse_csv(black_box(text)))
}

library_benchmark_group!(
    name = sim,
    benchmarks = [empty, constant, fib_20, sort_1000, fnv1a_4k, siphash_4k, parse_csv]
);

main!(library_benchmark_groups = sim);
