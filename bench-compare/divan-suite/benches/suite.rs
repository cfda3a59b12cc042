//! fib(20), sum of 4096 u64, sort of 1000 shuffled u32, SipHash of 1 KiB, a copy of 64 KiB: the
//! same bodies as
//! ../../perfbench-suite/benches/suite.rs, written the way a divan user writes them.
use divan::{black_box, Bencher};

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

#[divan::bench]
fn fib_20() -> u64 {
    fib(black_box(20))
}

#[divan::bench]
fn sum_4096(bencher: Bencher) {
    let v: Vec<u64> = (0..4096).collect();
    bencher.bench_local(|| black_box(&v).iter().sum::<u64>());
}

/// The shuffled input is made outside the timed region (divan's `with_inputs`), and the sorted
/// vector is dropped outside it too (`bench_local_values` returns it to divan).
#[divan::bench]
fn sort_1000(bencher: Bencher) {
    bencher
        .with_inputs(|| shuffled(1000))
        .bench_local_values(|mut v| {
            v.sort_unstable();
            v
        });
}

#[divan::bench]
fn hash_1k(bencher: Bencher) {
    use std::hash::{DefaultHasher, Hasher};
    let data: Vec<u8> = (0..1024u32).map(|i| i as u8).collect();
    bencher.bench_local(|| {
        let mut h = DefaultHasher::new();
        h.write(black_box(&data));
        h.finish()
    });
}

#[divan::bench]
fn copy_64k(bencher: Bencher) {
    let src = vec![7u8; 65536];
    let mut dst = vec![0u8; 65536];
    bencher.bench_local(|| {
        dst.copy_from_slice(black_box(&src));
        black_box(&mut dst);
    });
}

fn main() {
    divan::main();
}
