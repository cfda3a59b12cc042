//! Kernel density estimates: the smooth distribution of a sample that the HTML report plots.
//!
//! A Gaussian kernel with Silverman's rule-of-thumb bandwidth
//! `h = 0.9 * min(s, IQR / 1.34) * n^(-1/5)` (falling back to `s`, then to a small fraction of
//! the values' magnitude when the spread is zero: exact counters repeat one value), evaluated
//! on an even grid. criterion's violin and PDF plots use the same kernel and rule.

use super::univariate::Sample;

/// A density evaluated on a grid.
#[derive(Clone, Debug, PartialEq)]
pub struct Density {
    /// The bandwidth used.
    pub bandwidth: f64,
    /// `(x, density at x)`, `x` ascending and evenly spaced.
    pub points: Vec<(f64, f64)>,
}

/// The bandwidth Silverman's rule gives `sample`; never zero for finite data.
///
/// ```
/// use perfbench_analysis::stats::{kde::bandwidth, Sample};
///
/// assert!(bandwidth(&Sample::new(&[1.0, 2.0, 3.0, 4.0]).unwrap()) > 0.0);
/// assert!(bandwidth(&Sample::new(&[5.0; 10]).unwrap()) > 0.0); // never zero
/// ```
pub fn bandwidth(sample: &Sample<'_>) -> f64 {
    let n = sample.as_slice().len() as f64;
    let s = sample.stddev();
    let iqr = sample.percentiles().iqr() / 1.34;
    let spread = match (s > 0.0, iqr > 0.0) {
        (true, true) => s.min(iqr),
        (true, false) => s,
        (false, true) => iqr,
        // One repeated value: a narrow bump around it.
        (false, false) => (sample.mean().abs() * 1e-3).max(1e-9),
    };
    0.9 * spread * n.powf(-0.2)
}

/// The density of `sample` at `steps` (at least 2) evenly spaced points over `[low, high]`,
/// with the [`bandwidth`] Silverman's rule gives.
///
/// ```
/// use perfbench_analysis::stats::{kde::density, Sample};
///
/// let values: Vec<f64> = (0..100).map(|i| f64::from(i % 10)).collect();
/// let d = density(&Sample::new(&values).unwrap(), -5.0, 14.0, 200);
/// assert_eq!(d.points.len(), 200);
/// let step = 19.0 / 199.0;
/// let area: f64 = d.points.iter().map(|&(_, y)| y * step).sum();
/// assert!((area - 1.0).abs() < 0.02); // a density integrates to 1
/// ```
pub fn density(sample: &Sample<'_>, low: f64, high: f64, steps: usize) -> Density {
    density_with(sample, bandwidth(sample), low, high, steps)
}

/// [`density`] with a given bandwidth `h` (> 0).
///
/// ```
/// use perfbench_analysis::stats::{kde::density_with, Sample};
///
/// let d = density_with(&Sample::new(&[0.0]).unwrap(), 1.0, -1.0, 1.0, 3);
/// let peak = 1.0 / (2.0 * std::f64::consts::PI).sqrt(); // the standard normal at 0
/// assert!((d.points[1].1 - peak).abs() < 1e-12 && d.points[0].1 < peak);
/// ```
pub fn density_with(sample: &Sample<'_>, h: f64, low: f64, high: f64, steps: usize) -> Density {
    let steps = steps.max(2);
    let values = sample.as_slice();
    let norm = 1.0 / (values.len() as f64 * h * (2.0 * std::f64::consts::PI).sqrt());
    let step = (high - low) / (steps - 1) as f64;
    let points = (0..steps)
        .map(|i| {
            let x = low + step * i as f64;
            let sum: f64 = values
                .iter()
                .map(|&v| {
                    let u = (x - v) / h;
                    (-0.5 * u * u).exp()
                })
                .sum();
            (x, sum * norm)
        })
        .collect();
    Density {
        bandwidth: h,
        points,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_density_integrates_to_one_and_peaks_at_the_data() {
        let data: Vec<f64> = (0..200).map(|i| 100.0 + (i % 20) as f64).collect();
        let s = Sample::new(&data).unwrap();
        let h = bandwidth(&s);
        let d = density(&s, 80.0, 140.0, 601);
        let dx = d.points[1].0 - d.points[0].0;
        let area: f64 = d.points.iter().map(|p| p.1 * dx).sum();
        assert!((area - 1.0).abs() < 0.01, "area {area}");
        let peak = d.points.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
        assert!((100.0..=120.0).contains(&peak.0), "peak at {}", peak.0);
        assert!(h > 0.0 && h < 20.0, "bandwidth {h}");
    }

    #[test]
    fn a_repeated_value_still_has_a_finite_narrow_density() {
        let data = [4523.0; 50];
        let s = Sample::new(&data).unwrap();
        let h = bandwidth(&s);
        assert!(h > 0.0 && h < 5.0, "bandwidth {h}");
        let d = density(&s, 4500.0, 4550.0, 101);
        assert!(d.points.iter().all(|p| p.1.is_finite()));
        let peak = d.points.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
        assert!((peak.0 - 4523.0).abs() <= 0.5, "peak at {}", peak.0);
    }
}
