//! fib(20), sum of 4096 u64, sort of 1000 shuffled u32, SipHash of 1 KiB, a copy of 64 KiB: the
//! style of benches/quickstart.rs.
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

#[perfbench(throughput = elements(4096))]
fn sum_4096(b: &mut Bencher) {
    let v: Vec<u64> = (0..4096).collect();
    b.iter(|| black_box(&v).iter().sum::<u64>());
}

#[perfbench(throughput = elements(1000))]
fn sort_1000(b: &mut Bencher) {
    b.iter_batched(|| shuffled(1000), |mut v| v.sort_unstable());
}

#[perfbench(throughput = bytes(1024))]
fn hash_1k(b: &mut Bencher) {
    use std::hash::{DefaultHasher, Hasher};
    let data: Vec<u8> = (0..1024u32).map(|i| i as u8).collect();
    b.iter(|| {
        let mut h = DefaultHasher::new();
        h.write(black_box(&data));
        h.finish()
    });
}

#[perfbench(throughput = bytes(65536))]
fn copy_64k(b: &mut Bencher) {
    let src = vec![7u8; 65536];
    let mut dst = vec![0u8; 65536];
    b.iter(|| {
        dst.copy_from_slice(black_box(&src));
        black_box(&mut dst);
    });
}

perfbench::main!();
