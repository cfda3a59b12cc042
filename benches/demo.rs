//! The example from the harness issue, exactly as a user writes it.
//! `cargo bench --bench demo`
use perfbench::{black_box, perfbench, Bencher};

fn fib(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        fib(n - 1) + fib(n - 2)
    }
}

/// A deterministic shuffle (xorshift), so every sample sorts the same kind of input.
fn shuffled(n: u32) -> Vec<u32> {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut v: Vec<u32> = (0..n).collect();
    for i in (1..v.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.swap(i, (x % (i as u64 + 1)) as usize);
    }
    v
}

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
