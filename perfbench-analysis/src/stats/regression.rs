//! Linear sampling: the least-squares slope of total value against iteration count.
//!
//! With linear sampling, sample `i` runs `x_i` iterations (e.g. `d, 2d, 3d, ...`) and measures a
//! total `y_i`. The per-iteration cost is the slope of the line through the origin that fits
//! those points best, `b = sum(x_i * y_i) / sum(x_i^2)` (criterion's `Slope`). Long samples weigh
//! more than short ones, which damps the noise of the short samples, where timer resolution and
//! read overhead matter most.
//!
//! Inputs are in the JSON report's form: per-iteration values `v_i = y_i / x_i` and iteration
//! counts `x_i`. Then `b = sum(x_i^2 * v_i) / sum(x_i^2)`, a weighted mean of the values that is
//! computed (like [`Sample::mean`]) as offsets from the first value, so constant per-iteration
//! data gives exactly that constant.

use super::bootstrap::ConfidenceInterval;
use super::rng::Rng;
use super::univariate::Sample;
use super::StatsConfig;

/// A line through the origin fitted to (iterations, total) points, with the bootstrap
/// confidence interval of its slope.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinearFit {
    /// The per-iteration cost: the least-squares slope.
    pub slope: f64,
    /// The coefficient of determination `1 - SS_res / SS_tot` of the totals, as criterion
    /// computes it (`SS_tot` around the mean total). 1 is a perfect fit; it can be negative for
    /// a line through the origin that fits worse than a constant. When all totals are equal
    /// (`SS_tot = 0`) it is 1 for a perfect fit and 0 otherwise.
    pub r_squared: f64,
    /// The bootstrap confidence interval of the slope, resampling (iterations, value) pairs.
    pub ci: ConfidenceInterval,
}

/// The least-squares slope through the origin of the totals `values[i] * iterations[i]`
/// against `iterations[i]`.
///
/// `None` when the slices differ in length, a value is not finite, or no sample ran at least
/// one iteration. Samples with zero iterations carry no information and are ignored.
///
/// ```
/// use perfbench_analysis::stats::regression::slope;
///
/// // Per-iteration values of samples of 1n, 2n, 3n iterations costing 7 each.
/// assert_eq!(slope(&[7.0, 7.0, 7.0], &[100, 200, 300]), Some(7.0));
/// assert_eq!(slope(&[7.0], &[0]), None);
/// ```
pub fn slope(values: &[f64], iterations: &[u64]) -> Option<f64> {
    if values.len() != iterations.len() || !values.iter().all(|v| v.is_finite()) {
        return None;
    }
    let points = values.iter().zip(iterations).filter(|&(_, &x)| x > 0);
    weighted_slope(points.map(|(&v, &x)| (v, x as f64)))
}

/// `sum(x^2 * v) / sum(x^2)` over (v, x) pairs, exact for constant `v`; `None` if all `x` are 0
/// or the sums overflow.
fn weighted_slope(points: impl Iterator<Item = (f64, f64)> + Clone) -> Option<f64> {
    let (first, _) = points.clone().find(|&(_, x)| x > 0.0)?;
    let (mut weighted, mut weights) = (0.0, 0.0);
    for (v, x) in points {
        let w = x * x;
        weighted += w * (v - first);
        weights += w;
    }
    Some(first + weighted / weights).filter(|slope| slope.is_finite())
}

/// The coefficient of determination of `slope` for the totals (see [`LinearFit::r_squared`]).
/// `values` and `iterations` are paired; extra elements of the longer slice are ignored.
///
/// ```
/// use perfbench_analysis::stats::regression::r_squared;
///
/// assert_eq!(r_squared(&[7.0, 7.0, 7.0], &[100, 200, 300], 7.0), 1.0);
/// assert!(r_squared(&[7.0, 7.0, 7.0], &[100, 200, 300], 5.0) < 1.0);
/// ```
pub fn r_squared(values: &[f64], iterations: &[u64], slope: f64) -> f64 {
    let points: Vec<(f64, f64)> = values
        .iter()
        .zip(iterations)
        .map(|(&v, &x)| (x as f64, v * x as f64))
        .collect();
    if points.is_empty() {
        return 0.0;
    }
    let ys: Vec<f64> = points.iter().map(|&(_, y)| y).collect();
    let y_mean = super::univariate::mean_of(&ys);
    let (mut ss_res, mut ss_tot) = (0.0, 0.0);
    for &(x, y) in &points {
        ss_res += (y - slope * x) * (y - slope * x);
        ss_tot += (y - y_mean) * (y - y_mean);
    }
    let r2 = if ss_tot > 0.0 {
        1.0 - ss_res / ss_tot
    } else if ss_res == 0.0 {
        1.0
    } else {
        0.0
    };
    if r2.is_nan() {
        0.0
    } else {
        r2
    }
}

/// Fits the slope and bootstraps its confidence interval by resampling (value, iterations)
/// pairs `cfg.resamples` times.
///
/// `None` when the slices differ in length, a value is not finite, or no sample ran at least
/// one iteration (samples with zero iterations are dropped first).
///
/// ```
/// use perfbench_analysis::stats::{regression::fit, StatsConfig};
///
/// let iterations: Vec<u64> = (1..=20).map(|k| k * 50).collect();
/// let values: Vec<f64> = iterations.iter().map(|&n| 4.0 + if n % 100 == 0 { 0.1 } else { -0.1 }).collect();
/// let f = fit(&values, &iterations, &StatsConfig::default()).unwrap();
/// assert!((f.slope - 4.0).abs() < 0.05 && f.ci.contains(f.slope) && f.r_squared > 0.99);
/// ```
pub fn fit(values: &[f64], iterations: &[u64], cfg: &StatsConfig) -> Option<LinearFit> {
    if values.len() != iterations.len() || Sample::new(values).is_none() {
        return None;
    }
    let (kept_values, kept_iterations): (Vec<f64>, Vec<u64>) = values
        .iter()
        .zip(iterations)
        .filter(|&(_, &x)| x > 0)
        .map(|(&v, &x)| (v, x))
        .unzip();
    let points: Vec<(f64, f64)> = kept_values
        .iter()
        .zip(&kept_iterations)
        .map(|(&v, &x)| (v, x as f64))
        .collect();
    let slope = weighted_slope(points.iter().copied())?;
    let r_squared = r_squared(&kept_values, &kept_iterations, slope);

    let mut rng = Rng::new(cfg.seed);
    let mut resample = vec![(0.0, 0.0); points.len()];
    let dist: Vec<f64> = (0..cfg.resamples)
        .map(|_| {
            for slot in resample.iter_mut() {
                *slot = points[rng.below(points.len())];
            }
            // Every kept point has x > 0, so the resample's slope exists.
            weighted_slope(resample.iter().copied()).unwrap_or(slope)
        })
        .collect();
    let ci = ConfidenceInterval::from_distribution(dist, cfg.confidence)
        .unwrap_or_else(|| ConfidenceInterval::point(slope, cfg.confidence));
    Some(LinearFit {
        slope,
        r_squared,
        ci,
    })
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
    fn known_slope_and_r_squared() {
        // Totals 12, 18, 36 at x = 1, 2, 3: slope = (12 + 36 + 108) / 14 = 156 / 14.
        let values = [12.0, 9.0, 12.0];
        let iterations = [1, 2, 3];
        let b = slope(&values, &iterations).unwrap();
        assert!((b - 156.0 / 14.0).abs() < 1e-12);
        // Residuals 12 - b, 18 - 2b, 36 - 3b; mean total 22, SS_tot = 100 + 16 + 196 = 312.
        let ss_res = (12.0 - b).powi(2) + (18.0 - 2.0 * b).powi(2) + (36.0 - 3.0 * b).powi(2);
        let r2 = r_squared(&values, &iterations, b);
        assert!((r2 - (1.0 - ss_res / 312.0)).abs() < 1e-12);
    }

    #[test]
    fn perfect_line_and_constant_values() {
        for v in [0.1, 3.7, 1e6 + 0.01] {
            let values = vec![v; 10];
            let iterations: Vec<u64> = (1..=10).collect();
            let f = fit(&values, &iterations, &cfg(300)).unwrap();
            assert_eq!(f.slope, v);
            assert_eq!((f.ci.low, f.ci.high), (v, v));
            assert_eq!(f.r_squared, 1.0);
        }
        // Flat sampling (equal iterations) with constant values: SS_tot = 0, perfect fit.
        let f = fit(&[2.0; 5], &[100; 5], &cfg(10)).unwrap();
        assert_eq!((f.slope, f.r_squared), (2.0, 1.0));
    }

    #[test]
    fn rejects_bad_input() {
        assert_eq!(slope(&[1.0], &[1, 2]), None);
        assert_eq!(slope(&[], &[]), None);
        assert_eq!(slope(&[1.0, 2.0], &[0, 0]), None);
        assert_eq!(slope(&[f64::NAN], &[1]), None);
        assert!(fit(&[1.0, f64::INFINITY], &[1, 2], &cfg(10)).is_none());
        assert!(fit(&[1.0, 2.0], &[0, 0], &cfg(10)).is_none());
        assert!(fit(&[1.0], &[1, 2], &cfg(10)).is_none());
        assert_eq!(r_squared(&[], &[], 1.0), 0.0);
        assert_eq!(slope(&[1e300, -1e300], &[u64::MAX, u64::MAX]), None);
    }

    #[test]
    fn zero_iteration_samples_are_ignored() {
        let with = fit(&[5.0, 1e9, 5.0], &[1, 0, 3], &cfg(50)).unwrap();
        assert_eq!(with.slope, 5.0);
        assert_eq!((with.ci.low, with.ci.high), (5.0, 5.0));
    }

    #[test]
    fn noisy_linear_data_recovers_the_slope() {
        let mut rng = Rng::new(11);
        let iterations: Vec<u64> = (1..=50).map(|i| i * 10).collect();
        let values: Vec<f64> = iterations
            .iter()
            .map(|&x| (7.0 * x as f64 + 50.0 * rng.normal()) / x as f64)
            .collect();
        let f = fit(&values, &iterations, &cfg(500)).unwrap();
        assert!((f.slope - 7.0).abs() < 0.1, "{f:?}");
        assert!(f.ci.low <= f.slope && f.slope <= f.ci.high, "{f:?}");
        assert!(f.ci.contains(7.0), "{f:?}");
        assert!(f.r_squared > 0.99, "{f:?}");
    }
}
