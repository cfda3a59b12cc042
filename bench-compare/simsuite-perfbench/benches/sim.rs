//! bench-compare/simulate.sh's workloads on perfbench (`cargo bench -- --simulate`). Each body
//! is written as the matching gungraun benchmark's in ../gungraun-suite/benches/sim.rs:
//! `black_box(work(black_box(input)))`, with the input made outside the measurement.
use perfbench::{perfbench, Bencher};
use simsuite_perfbench as w;
use std::hint::black_box;

/// Nothing: perfbench calibrates its bracket away, so this reads 0 per iteration.
#[perfbench]
fn empty(b: &mut Bencher) {
    b.iter(|| ());
}

/// A constant through `black_box`.
#[perfbench]
fn constant(b: &mut Bencher) {
    b.iter(|| black_box(42u64));
}

#[perfbench]
fn fib_20(b: &mut Bencher) {
    b.iter(|| black_box(w::fib(black_box(20))));
}

/// The sorted vector is handed back: dropping it is outside the bracket.
#[perfbench(throughput = elements(1000))]
fn sort_1000(b: &mut Bencher) {
    b.iter_batched(|| w::shuffled(1000), |v| black_box(w::sort(black_box(v))));
}

/// The 4 KiB input is borrowed: dropping it is outside the bracket.
#[perfbench(throughput = bytes(4096))]
fn fnv1a_4k(b: &mut Bencher) {
    b.iter_batched_ref(
        || w::bytes(4096),
        |data| black_box(w::fnv1a(black_box(&data[..]))),
    );
}

#[perfbench(throughput = bytes(4096))]
fn siphash_4k(b: &mut Bencher) {
    b.iter_batched_ref(
        || w::bytes(4096),
        |data| black_box(w::siphash(black_box(&data[..]))),
    );
}

/// A borrowed `'static` text: nothing to drop in either tool.
#[perfbench]
fn parse_csv(b: &mut Bencher) {
    let text = w::csv_static();
    b.iter(|| black_box(w::parse_csv(black_box(text))));
}

perfbench::main!();
