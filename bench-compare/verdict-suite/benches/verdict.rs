//! Three workloads for `bench-compare/verdict.sh`: pure computation, a memory scan and a sort.
//! `PERFBENCH_SLOWDOWN=0.25` makes each do 25% more work (the knob is read once, at run time).
//! The copy of this binary that `--save-baseline` keeps (`<suite>.exe` in the baseline's
//! directory) is the baseline's build: it does the unchanged work whatever the knob says, as the
//! baseline's code would when a run measures it again to confirm a regression (it inherits the
//! run's environment).
use perfbench::{black_box, perfbench, Bencher};
use std::sync::OnceLock;

/// `n` grown by the slowdown the environment asks for (none in the baseline's kept copy).
fn scaled(n: u64) -> u64 {
    static SLOWDOWN: OnceLock<f64> = OnceLock::new();
    let s = *SLOWDOWN.get_or_init(|| {
        let exe = std::env::current_exe().unwrap_or_default();
        if exe.extension().is_some_and(|e| e == "exe") {
            return 0.0;
        }
        std::env::var("PERFBENCH_SLOWDOWN")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0.0)
    });
    (n as f64 * (1.0 + s)).round() as u64
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

/// Sorting shuffled `u32`s; the shuffle is not measured.
#[perfbench]
fn sort(b: &mut Bencher) {
    let n = scaled(2_000) as u32;
    b.iter_batched(
        || {
            let mut x = 0x2545_f491_4f6c_dd1du64;
            let mut v: Vec<u32> = (0..n).collect();
            for i in (1..v.len()).rev() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                v.swap(i, (x % (i as u64 + 1)) as usize);
            }
            v
        },
        |mut v| v.sort_unstable(),
    );
}

perfbench::main!();
