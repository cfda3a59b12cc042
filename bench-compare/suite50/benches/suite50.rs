//! Fifty benchmarks from the bodies of perfbench's examples, over several sizes each: 4 fib,
//! 6 sums, 4 + 4 sorts, 6 + 6 hashes, 6 copies, 6 fills, 4 + 4 branchy and branchless sums.
use std::hash::{DefaultHasher, Hasher};

use perfbench::{black_box, perfbench, Bencher};

fn fib(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        fib(n - 1) + fib(n - 2)
    }
}

/// Deterministic pseudo-random words (xorshift).
fn words(n: usize) -> Vec<u32> {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u32
        })
        .collect()
}

fn bytes(n: usize) -> Vec<u8> {
    words(n).into_iter().map(|w| w as u8).collect()
}

#[perfbench(args = [5, 10, 15, 20])]
fn fibonacci(n: u64) -> u64 {
    fib(black_box(n))
}

#[perfbench(args = [16, 64, 256, 1024, 4096, 16384], throughput = elements(n))]
fn sum(b: &mut Bencher, n: u64) {
    let v: Vec<u64> = (0..n).collect();
    b.iter(|| black_box(&v).iter().sum::<u64>());
}

#[perfbench(args = [10, 100, 1000, 10000], throughput = elements(n))]
fn sort_unstable(b: &mut Bencher, n: usize) {
    b.iter_batched(|| words(n), |mut v| v.sort_unstable());
}

#[perfbench(args = [10, 100, 1000, 10000], throughput = elements(n))]
fn sort_stable(b: &mut Bencher, n: usize) {
    b.iter_batched(|| words(n), |mut v| v.sort());
}

#[perfbench(args = [16, 64, 256, 1024, 4096, 16384], throughput = bytes(n))]
fn siphash(b: &mut Bencher, n: usize) {
    let data = bytes(n);
    b.iter(|| {
        let mut h = DefaultHasher::new();
        h.write(black_box(&data));
        h.finish()
    });
}

#[perfbench(args = [16, 64, 256, 1024, 4096, 16384], throughput = bytes(n))]
fn fnv1a(b: &mut Bencher, n: usize) {
    let data = bytes(n);
    b.iter(|| {
        black_box(&data).iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| {
            (h ^ u64::from(x)).wrapping_mul(0x100_0000_01b3)
        })
    });
}

#[perfbench(args = [1024, 4096, 16384, 65536, 262144, 1048576], throughput = bytes(n))]
fn copy(b: &mut Bencher, n: usize) {
    let src = bytes(n);
    let mut dst = vec![0u8; n];
    b.iter(|| {
        dst.copy_from_slice(black_box(&src));
        black_box(&mut dst);
    });
}

#[perfbench(args = [1024, 4096, 16384, 65536, 262144, 1048576], throughput = bytes(n))]
fn fill(b: &mut Bencher, n: usize) {
    let mut dst = vec![0u8; n];
    b.iter(|| {
        dst.fill(black_box(7));
        black_box(&mut dst);
    });
}

#[perfbench(args = [256, 1024, 4096, 16384], throughput = bytes(n))]
fn branchy(b: &mut Bencher, n: usize) {
    let data = bytes(n);
    b.iter(|| {
        let mut s = 0u64;
        for &x in black_box(&data) {
            if x >= 128 {
                s += u64::from(x);
            }
        }
        s
    });
}

#[perfbench(args = [256, 1024, 4096, 16384], throughput = bytes(n))]
fn branchless(b: &mut Bencher, n: usize) {
    let data = bytes(n);
    b.iter(|| {
        black_box(&data)
            .iter()
            .map(|&x| u64::from(x) & (0u64.wrapping_sub(u64::from(x >> 7))))
            .sum::<u64>()
    });
}

perfbench::main!();
