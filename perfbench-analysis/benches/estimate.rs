//! The analysis's cost per counter: the interval of a median, exact
//! ([`bootstrap::median_ci`], the median's exact bootstrap distribution) against 10,000
//! resamples drawn (what `median_ci` did before it, and what `bootstrap::ci` still does for
//! any statistic), and a whole `estimate_rounds` of a default run's wall time (100 samples in
//! 10 rounds: the headline, its interval widened by the rounds', the spread, the outliers).
//!
//! Run: `cargo bench -p perfbench-analysis --bench estimate` (`-- --quick` for a short run).

use perfbench::{black_box, perfbench, Bencher};
use perfbench_analysis::stats::{bootstrap, estimate_rounds, Center, Sample, StatsConfig};

/// `n` noisy timings (reproducible), as a flat run's samples: a 2% spread and a few slow ones.
fn timings(n: usize) -> Vec<f64> {
    let mut rng = perfbench::rng::Rng::new(n as u64);
    (0..n)
        .map(|i| {
            let slow = if i % 37 == 0 { 1.3 } else { 1.0 };
            1000.0 * slow * (1.0 + 0.02 * rng.unit())
        })
        .collect()
}

fn median(r: &mut [f64]) -> f64 {
    let n = r.len();
    let (_, hi, _) = r.select_nth_unstable_by(n / 2, f64::total_cmp);
    let hi = *hi;
    if n % 2 == 1 {
        hi
    } else {
        let lo = r[..n / 2].iter().copied().fold(f64::MIN, f64::max);
        (lo + hi) / 2.0
    }
}

/// The median's interval from its exact bootstrap distribution.
#[perfbench(args = [100, 500, 2000])]
fn median_ci_exact(b: &mut Bencher, n: usize) {
    let data = timings(n);
    let cfg = StatsConfig::default();
    b.iter(|| bootstrap::median_ci(Sample::new(black_box(&data)).unwrap(), &cfg));
}

/// The same interval from 10,000 resamples.
#[perfbench(args = [100, 500, 2000])]
fn median_ci_resampled(b: &mut Bencher, n: usize) {
    let data = timings(n);
    let cfg = StatsConfig::default();
    b.iter(|| bootstrap::ci(Sample::new(black_box(&data)).unwrap(), &cfg, median));
}

/// The wall time of a default run, as the tool analyses it (its median the headline).
#[perfbench]
fn estimate_rounds_100(b: &mut Bencher) {
    let data = timings(100);
    let cfg = StatsConfig {
        center: Center::Median,
        ..StatsConfig::default()
    };
    b.iter(|| estimate_rounds(black_box(&data), None, &[10; 10], &cfg));
}

perfbench::main!();
