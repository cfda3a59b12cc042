//! fib(20), sum of 4096 u64, sort of 1000 shuffled u32, SipHash of 1 KiB, a copy of 64 KiB: the
//! same bodies as
//! ../../perfbench-suite/benches/suite.rs, written the way a criterion user writes them.
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use std::hint::black_box;

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

fn benches(c: &mut Criterion) {
    c.bench_function("fib_20", |b| b.iter(|| fib(black_box(20))));
    let v: Vec<u64> = (0..4096).collect();
    c.bench_function("sum_4096", |b| {
        b.iter(|| black_box(&v).iter().sum::<u64>())
    });
    c.bench_function("sort_1000", |b| {
        b.iter_batched(|| shuffled(1000), |mut v| v.sort_unstable(), BatchSize::SmallInput)
    });
    let data: Vec<u8> = (0..1024u32).map(|i| i as u8).collect();
    c.bench_function("hash_1k", |b| {
        b.iter(|| {
            use std::hash::{DefaultHasher, Hasher};
            let mut h = DefaultHasher::new();
            h.write(black_box(&data));
            h.finish()
        })
    });
    let src = vec![7u8; 65536];
    let mut dst = vec![0u8; 65536];
    c.bench_function("copy_64k", |b| {
        b.iter(|| {
            dst.copy_from_slice(black_box(&src));
            black_box(&mut dst);
        })
    });
}

criterion_group!(suite, benches);
criterion_main!(suite);
