//! Three workloads for `bench-compare/paired.sh`: pure computation, a memory scan and sorting.
//! Built with `PAIRED_SLOWDOWN=0.02` in the environment, each does 2% more work: the knob is
//! read at compile time, so every slowdown is a different build (whose code is the same: only
//! the knob's bytes differ). (Sorting grows by whole
//! arrays of one size, not by a longer array: a longer shuffle is a different input, which a
//! pattern-aware sort may finish much faster or slower.)
use perfbench::{black_box, perfbench, Bencher};

/// The build's slowdown as `PAIRED_SLOWDOWN` gave it at build time (paired.sh writes it with a
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

/// A multiply-add chain: CPU only, about 20k dependent operations.
#[perfbench]
fn compute(b: &mut Bencher) {
    let n = scaled(20_000);
    b.iter(|| {
        let mut x = 1u64;
        for i in 0..black_box(n) {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i);
        }
        x
    });
}

/// A sum over 512 KiB of `u64`: memory bandwidth.
#[perfbench]
fn memory(b: &mut Bencher) {
    let v: Vec<u64> = (0..scaled(64 * 1024)).collect();
    b.iter(|| black_box(&v).iter().sum::<u64>());
}

/// 200 shuffled `u32`, the shuffle seeded by `seed`.
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

/// Sorting 100 arrays of 200 shuffled `u32` (more arrays in a slower build, each as costly as
/// the others: a 2% slower build sorts 102); the shuffles are not measured.
#[perfbench]
fn sort(b: &mut Bencher) {
    let arrays = scaled(100);
    b.iter_batched(
        || (0..arrays).map(shuffled).collect::<Vec<_>>(),
        |mut arrays| {
            for v in &mut arrays {
                v.sort_unstable();
            }
            arrays
        },
    );
}

perfbench::main!();
