//! Bootstrap confidence intervals (percentile method) with a seeded, reproducible generator.
//!
//! A statistic is recomputed on `resamples` resamples drawn with replacement from the sample;
//! the interval at confidence `c` runs from the `(1 - c) / 2` to the `(1 + c) / 2` percentile of
//! those values. The same data, configuration and seed always give the same interval.
//!
//! Exactly-constant data resamples to itself, so its interval is `[v, v]`.

use super::median_bootstrap::{median_distribution, quantile, MAX_EXACT};
use super::rng::Rng;
use super::univariate::{mean_of, median_in_place, Percentiles, Sample};
use super::StatsConfig;
use perfbench::sorting::sort_f64;

/// A two-sided confidence interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConfidenceInterval {
    /// The lower bound.
    pub low: f64,
    /// The upper bound (`>= low`).
    pub high: f64,
    /// The confidence level in `[0, 1]`, e.g. 0.95.
    pub confidence: f64,
}

impl ConfidenceInterval {
    /// The percentile-method interval of a bootstrap distribution: `None` when it holds no
    /// finite value. Non-finite values are ignored; `confidence` is sanitized as
    /// [`StatsConfig::confidence`] documents.
    ///
    /// ```
    /// use perfbench_analysis::stats::ConfidenceInterval;
    ///
    /// let resampled_means: Vec<f64> = (0..=100).map(f64::from).collect();
    /// let ci = ConfidenceInterval::from_distribution(resampled_means, 0.9).unwrap();
    /// assert!((ci.low - 5.0).abs() < 1e-9 && (ci.high - 95.0).abs() < 1e-9);
    /// assert!(ConfidenceInterval::from_distribution(vec![f64::NAN], 0.9).is_none());
    /// ```
    pub fn from_distribution(distribution: Vec<f64>, confidence: f64) -> Option<Self> {
        let confidence = sanitize_confidence(confidence);
        let mut finite = distribution;
        finite.retain(|x| x.is_finite());
        if finite.is_empty() {
            return None;
        }
        let percentiles = Percentiles::from_unsorted(finite);
        Some(ConfidenceInterval {
            low: percentiles.at(50.0 * (1.0 - confidence)),
            high: percentiles.at(50.0 * (1.0 + confidence)),
            confidence,
        })
    }

    /// The interval `[point, point]`: what zero resamples give.
    pub(crate) fn point(point: f64, confidence: f64) -> Self {
        ConfidenceInterval {
            low: point,
            high: point,
            confidence: sanitize_confidence(confidence),
        }
    }

    /// Whether `x` lies in the closed interval.
    ///
    /// ```
    /// use perfbench_analysis::stats::ConfidenceInterval;
    ///
    /// let ci = ConfidenceInterval { low: 1.0, high: 2.0, confidence: 0.95 };
    /// assert!(ci.contains(1.0) && ci.contains(2.0) && !ci.contains(2.5));
    /// ```
    pub fn contains(&self, x: f64) -> bool {
        self.low <= x && x <= self.high
    }
}

/// A confidence level in `[0, 1]`: NaN becomes [`DEFAULT_CONFIDENCE`](super::DEFAULT_CONFIDENCE),
/// anything else is clamped.
pub(crate) fn sanitize_confidence(confidence: f64) -> f64 {
    if confidence.is_nan() {
        super::DEFAULT_CONFIDENCE
    } else {
        confidence.clamp(0.0, 1.0)
    }
}

/// The values of `statistic` on `resamples` resamples of `sample` (drawn with replacement, same
/// size as the sample), in draw order. The statistic may reorder the resample it is given.
///
/// ```
/// use perfbench_analysis::stats::{bootstrap::distribution, Sample};
///
/// let sample = Sample::new(&[1.0, 2.0, 3.0, 4.0]).unwrap();
/// let maxima = distribution(sample, 1000, 42, |r| r.iter().copied().fold(f64::MIN, f64::max));
/// assert_eq!(maxima.len(), 1000);
/// assert!(maxima.iter().all(|&m| [1.0, 2.0, 3.0, 4.0].contains(&m)));
/// assert_eq!(maxima, distribution(sample, 1000, 42, |r| r.iter().copied().fold(f64::MIN, f64::max)));
/// ```
pub fn distribution<F>(
    sample: Sample<'_>,
    resamples: usize,
    seed: u64,
    mut statistic: F,
) -> Vec<f64>
where
    F: FnMut(&mut [f64]) -> f64,
{
    let data = sample.as_slice();
    let mut rng = Rng::new(seed);
    let mut buffer = vec![0.0; data.len()];
    (0..resamples)
        .map(|_| {
            resample_into(&mut rng, data, &mut buffer);
            statistic(&mut buffer)
        })
        .collect()
}

/// The values of `statistic` on `resamples` pairs of resamples, one of `a` and one of `b`,
/// drawn independently with replacement from the same generator.
///
/// ```
/// use perfbench_analysis::stats::{bootstrap::two_sample_distribution, Sample};
///
/// let a = Sample::new(&[10.0, 11.0, 12.0]).unwrap();
/// let b = Sample::new(&[20.0, 22.0, 24.0]).unwrap();
/// let mean = |x: &[f64]| x.iter().sum::<f64>() / x.len() as f64;
/// let ratios = two_sample_distribution(a, b, 500, 7, |ra, rb| mean(rb) / mean(ra));
/// assert!(ratios.iter().all(|&r| (20.0 / 12.0..=24.0 / 10.0).contains(&r)));
/// ```
pub fn two_sample_distribution<F>(
    a: Sample<'_>,
    b: Sample<'_>,
    resamples: usize,
    seed: u64,
    mut statistic: F,
) -> Vec<f64>
where
    F: FnMut(&mut [f64], &mut [f64]) -> f64,
{
    let mut rng = Rng::new(seed);
    let mut buffer_a = vec![0.0; a.as_slice().len()];
    let mut buffer_b = vec![0.0; b.as_slice().len()];
    (0..resamples)
        .map(|_| {
            resample_into(&mut rng, a.as_slice(), &mut buffer_a);
            resample_into(&mut rng, b.as_slice(), &mut buffer_b);
            statistic(&mut buffer_a, &mut buffer_b)
        })
        .collect()
}

fn resample_into(rng: &mut Rng, data: &[f64], buffer: &mut [f64]) {
    for slot in buffer.iter_mut() {
        *slot = data[rng.below(data.len())];
    }
}

/// The bootstrap confidence interval of any statistic of `sample`. With `cfg.resamples == 0`
/// the interval is the point estimate itself.
///
/// ```
/// use perfbench_analysis::stats::{bootstrap::ci, Sample, StatsConfig};
///
/// let sample = Sample::new(&[1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
/// let range = |r: &mut [f64]| {
///     let (lo, hi) = r.iter().fold((f64::MAX, f64::MIN), |(l, h), &x| (l.min(x), h.max(x)));
///     hi - lo
/// };
/// let interval = ci(sample, &StatsConfig::default(), range);
/// assert!(0.0 <= interval.low && interval.low <= interval.high && interval.high <= 4.0);
/// let none = StatsConfig { resamples: 0, ..StatsConfig::default() };
/// let point = ci(sample, &none, range);
/// assert_eq!((point.low, point.high), (4.0, 4.0));
/// ```
pub fn ci<F>(sample: Sample<'_>, cfg: &StatsConfig, mut statistic: F) -> ConfidenceInterval
where
    F: FnMut(&mut [f64]) -> f64,
{
    let point = statistic(&mut sample.as_slice().to_vec());
    let dist = distribution(sample, cfg.resamples, cfg.seed, statistic);
    ConfidenceInterval::from_distribution(dist, cfg.confidence)
        .unwrap_or_else(|| ConfidenceInterval::point(point, cfg.confidence))
}

/// The bootstrap confidence interval of the mean.
///
/// ```
/// use perfbench_analysis::stats::{bootstrap::mean_ci, Sample, StatsConfig};
///
/// let values: Vec<f64> = (0..50).map(|i| 100.0 + f64::from(i % 5)).collect();
/// let ci = mean_ci(Sample::new(&values).unwrap(), &StatsConfig::default());
/// assert!(ci.contains(102.0) && ci.high - ci.low < 1.0);
/// assert_eq!(ci, mean_ci(Sample::new(&values).unwrap(), &StatsConfig::default())); // seeded
/// ```
pub fn mean_ci(sample: Sample<'_>, cfg: &StatsConfig) -> ConfidenceInterval {
    ci(sample, cfg, |resample| mean_of(resample))
}

/// The bootstrap confidence interval of the median: the percentiles of its exact bootstrap
/// distribution ([`median_distribution`]: what infinitely many resamples would give, with no
/// Monte Carlo error), the same for any `cfg.resamples` but 0 (the point estimate) and any
/// seed. Samples of more than [`MAX_EXACT`] values are resampled `cfg.resamples` times.
///
/// ```
/// use perfbench_analysis::stats::{bootstrap::median_ci, Sample, StatsConfig};
///
/// let ci = median_ci(Sample::new(&[7.0; 20]).unwrap(), &StatsConfig::default());
/// assert_eq!((ci.low, ci.high), (7.0, 7.0)); // constant data resamples to itself
/// ```
pub fn median_ci(sample: Sample<'_>, cfg: &StatsConfig) -> ConfidenceInterval {
    let data = sample.as_slice();
    if cfg.resamples == 0 || data.len() > MAX_EXACT {
        return ci(sample, cfg, median_in_place);
    }
    let mut sorted = data.to_vec();
    sort_f64(&mut sorted);
    let exact = median_distribution(&sorted);
    let confidence = sanitize_confidence(cfg.confidence);
    match (
        quantile(&exact, (1.0 - confidence) / 2.0),
        quantile(&exact, (1.0 + confidence) / 2.0),
    ) {
        (Some(low), Some(high)) => ConfidenceInterval {
            low,
            high,
            confidence,
        },
        _ => ci(sample, cfg, median_in_place),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(resamples: usize) -> StatsConfig {
        StatsConfig {
            resamples,
            ..StatsConfig::default()
        }
    }

    #[test]
    fn constant_data_gives_a_point_interval() {
        for v in [0.1, 1e9 + 0.3, -2.5] {
            let data = vec![v; 20];
            let s = Sample::new(&data).unwrap();
            let mean = mean_ci(s, &cfg(500));
            assert_eq!((mean.low, mean.high, mean.confidence), (v, v, 0.95));
            let median = median_ci(s, &cfg(500));
            assert_eq!((median.low, median.high), (v, v));
        }
    }

    #[test]
    fn reproducible_and_seed_dependent() {
        let data: Vec<f64> = (0..30).map(|i| f64::from(i * i % 17)).collect();
        let s = Sample::new(&data).unwrap();
        let a = mean_ci(s, &cfg(1000));
        assert_eq!(a, mean_ci(s, &cfg(1000)));
        let other = StatsConfig {
            seed: 1,
            ..cfg(1000)
        };
        assert_ne!(a, mean_ci(s, &other));
    }

    #[test]
    fn the_median_interval_is_exact_whatever_the_resamples_and_seed() {
        let data: Vec<f64> = (0..41).map(|i| f64::from(i * i % 23)).collect();
        let s = Sample::new(&data).unwrap();
        let exact = median_ci(s, &cfg(10));
        let other = StatsConfig {
            seed: 9,
            ..cfg(100_000)
        };
        assert_eq!(exact, median_ci(s, &other));
        // And close to what many resamples draw.
        let drawn = ci(s, &cfg(100_000), median_in_place);
        assert!((exact.low - drawn.low).abs() <= 1.0, "{exact:?} {drawn:?}");
        assert!(
            (exact.high - drawn.high).abs() <= 1.0,
            "{exact:?} {drawn:?}"
        );
        // No resamples: the point, as for every statistic.
        let point = median_ci(s, &cfg(0));
        assert_eq!(point.low, point.high);
    }

    #[test]
    fn mean_interval_matches_the_normal_approximation() {
        // Sample 0..100: mean 49.5, sd 29.01, standard error 2.901. The 95% percentile
        // interval should be close to 49.5 +- 1.96 * 2.901 * sqrt(99/100) = [43.84, 55.16].
        let data: Vec<f64> = (0..100).map(f64::from).collect();
        let ci = mean_ci(Sample::new(&data).unwrap(), &cfg(4000));
        assert!((ci.low - 43.84).abs() < 0.5, "{ci:?}");
        assert!((ci.high - 55.16).abs() < 0.5, "{ci:?}");
        assert!(ci.contains(49.5));
        let median = median_ci(Sample::new(&data).unwrap(), &cfg(2000));
        assert!(median.low < 49.5 && 49.5 < median.high, "{median:?}");
    }

    #[test]
    fn degenerate_configurations() {
        let data = [1.0, 2.0, 3.0, 10.0];
        let s = Sample::new(&data).unwrap();
        let zero = mean_ci(s, &cfg(0));
        assert_eq!((zero.low, zero.high), (4.0, 4.0));
        let nan = mean_ci(
            s,
            &StatsConfig {
                confidence: f64::NAN,
                ..cfg(200)
            },
        );
        assert_eq!(nan.confidence, 0.95);
        let full = mean_ci(
            s,
            &StatsConfig {
                confidence: 7.0,
                ..cfg(200)
            },
        );
        assert_eq!(full.confidence, 1.0);
        assert!(full.low >= 1.0 && full.high <= 10.0);
        let single = mean_ci(Sample::new(&[3.5]).unwrap(), &cfg(100));
        assert_eq!((single.low, single.high), (3.5, 3.5));
        assert_eq!(
            ConfidenceInterval::from_distribution(vec![f64::NAN], 0.9),
            None
        );
    }

    #[test]
    fn low_never_exceeds_high_on_random_data() {
        let mut rng = Rng::new(5);
        for i in 0..100 {
            let data = rng.data_set(30);
            let s = Sample::new(&data).unwrap();
            let c = StatsConfig {
                seed: i,
                confidence: rng.unit(),
                resamples: 50,
                center: crate::stats::Center::Mean,
                quiet_band: None,
            };
            for ci in [mean_ci(s, &c), median_ci(s, &c)] {
                assert!(ci.low <= ci.high, "{ci:?}");
                let eps = 1e-12 * (1.0 + s.min().abs() + s.max().abs());
                assert!(
                    ci.low >= s.min() - eps && ci.high <= s.max() + eps,
                    "{ci:?}"
                );
            }
        }
    }
}
