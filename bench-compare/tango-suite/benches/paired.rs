//! paired-suite's three workloads for `bench-compare/tango.sh`, written for tango-bench 0.9:
//! pure computation, a memory scan and sorting. Built with `PAIRED_SLOWDOWN=0.020000` in the
//! environment, each does 2% more work: the knob is read at compile time, so every slowdown is
//! a different build whose code is the same (only the knob's bytes differ; slowdown 0 is the
//! base build again, bit for bit).
//!
//! The benchmarks are named like perfbench's ids (`paired/compute`, ...) so the two tables
//! line up.
use std::hint::black_box;
use tango_bench::{benchmark_fn, tango_benchmarks, IntoBenchmarks};

/// The build's slowdown as `PAIRED_SLOWDOWN` gave it at build time (tango.sh writes it with a
/// fixed width, `0.020000`, and the base build as `0.000000`).
const KNOB: &str = match option_env!("PAIRED_SLOWDOWN") {
    Some(s) => s,
    None => "0.000000",
};

/// The build's slowdown. Parsed at run time from data the compiler cannot see through, so the
/// builds differ only in those bytes of data, not in their code or its layout.
fn slowdown() -> f64 {
    black_box(KNOB).parse().unwrap_or(0.0)
}

/// `n` grown by the build's slowdown.
fn scaled(n: u64) -> u64 {
    (n as f64 * (1.0 + slowdown())).round() as u64
}

/// 200 shuffled `u32`, the shuffle seeded by `seed` (the same shuffles as paired-suite's).
fn shuffled(seed: u64) -> Vec<u32> {
    let mut x = 0x2545_f491_4f6c_dd1d ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut v: Vec<u32> = (0..200).collect();
    for i in (1..v.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.swap(i, (x % (i as u64 + 1)) as usize);
    }
    v
}

fn benchmarks() -> impl IntoBenchmarks {
    [
        // A multiply-add chain: CPU only, about 20k dependent operations.
        benchmark_fn("paired/compute", |b| {
            let n = scaled(20_000);
            b.iter(move || {
                let mut x = 1u64;
                for i in 0..black_box(n) {
                    x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i);
                }
                x
            })
        }),
        // A sum over 512 KiB of `u64`: memory bandwidth. The Vec is built in the sampler
        // factory, i.e. once per run, outside the measurement.
        benchmark_fn("paired/memory", |b| {
            let v: Vec<u64> = (0..scaled(64 * 1024)).collect();
            b.iter(move || black_box(&v).iter().sum::<u64>())
        }),
        // Sorting 100 arrays of 200 shuffled `u32` (more arrays in a slower build: a 2% slower
        // build sorts 102). tango 0.9 has no per-iteration or batched setup: the only setup
        // outside the measurement is the sampler factory (this closure), which runs once per
        // run (`Benchmark::prepare_state`, called by the worker before estimating and before
        // measuring). So the shuffles are made there, once, and every iteration first copies
        // them into buffers allocated there too (a `copy_from_slice` per array: no allocation,
        // no shuffling in the measurement), then sorts the copies. The copy (80 KB, a few
        // percent of the sorting's time) is measured; it grows with the knob exactly as the
        // sorting does (one copy per array), so the relative slowdown is the same.
        benchmark_fn("paired/sort", |b| {
            let arrays = scaled(100);
            let pristine: Vec<Vec<u32>> = (0..arrays).map(shuffled).collect();
            let mut work: Vec<Vec<u32>> = pristine.clone();
            b.iter(move || {
                for (w, p) in work.iter_mut().zip(black_box(&pristine)) {
                    w.copy_from_slice(p);
                    w.sort_unstable();
                }
                black_box(&work);
            })
        }),
    ]
}

tango_benchmarks!(benchmarks());
