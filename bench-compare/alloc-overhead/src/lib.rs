//! The loop each binary times: `PAIRS` allocations of 32 bytes, each freed at once, repeated
//! `REPEATS` times; prints the median nanoseconds per allocation-and-free pair.

use std::hint::black_box;
use std::time::Instant;

const PAIRS: u32 = 1_000_000;
const REPEATS: usize = 21;

/// Times the loop and prints `NAME NS_PER_PAIR`.
pub fn measure(name: &str) {
    let mut per_pair: Vec<f64> = (0..REPEATS)
        .map(|_| {
            let start = Instant::now();
            for i in 0..PAIRS {
                black_box(Box::new([i; 8]));
            }
            start.elapsed().as_nanos() as f64 / f64::from(PAIRS)
        })
        .collect();
    per_pair.sort_by(f64::total_cmp);
    println!("{name} {:.3}", per_pair[REPEATS / 2]);
}
