//! Times the peer suite's 64 KiB copy with no harness: two buffers allocated once, then ten
//! rounds of 100 samples of 100 copies each, timed with `Instant`. Prints the offsets of the
//! buffers within their page (the same in every process: the program allocates nothing else),
//! the median of the ten rounds' medians and each round's median, in ns per copy.
use std::hint::black_box;
use std::time::Instant;

const ROUNDS: usize = 10;
const SAMPLES: usize = 100;
const COPIES: u32 = 100;

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    (v[(n - 1) / 2] + v[n / 2]) / 2.0
}

fn main() {
    let src = vec![7u8; 65536];
    let mut dst = vec![0u8; 65536];
    let mut rounds = Vec::with_capacity(ROUNDS);
    let mut samples = Vec::with_capacity(SAMPLES);
    for _ in 0..ROUNDS {
        samples.clear();
        for _ in 0..SAMPLES {
            let start = Instant::now();
            for _ in 0..COPIES {
                dst.copy_from_slice(black_box(&src));
                black_box(&mut dst);
            }
            samples.push(start.elapsed().as_nanos() as f64 / f64::from(COPIES));
        }
        rounds.push(median(&mut samples));
    }
    let each: Vec<String> = rounds.iter().map(|r| format!("{r:.1}")).collect();
    let level = median(&mut rounds.clone());
    println!(
        "offsets {} {} level {level:.1} rounds {}",
        src.as_ptr() as usize % 4096,
        dst.as_ptr() as usize % 4096,
        each.join(" ")
    );
}
