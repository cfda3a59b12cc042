//! Welch's two-sample t-test: are two means different, allowing different variances?
//!
//! [`compare()`](super::compare()) takes its p-value from here. Welch's test is exact for normal
//! data and, by the central limit theorem, accurate for the means of the 10 to 100 skewed
//! samples a benchmark takes. It is deterministic (no resampling noise in the p-value) and
//! handles zero-variance data exactly: equal constants give p = 1, different constants p = 0.
//!
//! It sees only the noise inside the two runs. Drift between runs (frequency, neighbours, cache
//! placement) is invisible to it, which is why a verdict also needs the noise threshold of
//! [`CompareConfig`](super::CompareConfig).

use super::dist::student_t_two_sided;
use super::univariate::Sample;

/// The result of Welch's t-test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WelchTest {
    /// `(mean(b) - mean(a)) / sqrt(var(a) / n_a + var(b) / n_b)`; infinite when both variances
    /// are 0 and the means differ, 0 when both variances are 0 and the means are equal.
    pub t: f64,
    /// The Welch-Satterthwaite degrees of freedom (`n_a + n_b - 2` when both variances are 0).
    pub df: f64,
    /// The two-sided p-value: the probability of a `|t|` at least this large if the means were
    /// equal.
    pub p_value: f64,
}

/// Welch's t-test of `mean(b) - mean(a)`. `None` when either sample has fewer than two values
/// (its variance is unknown).
///
/// ```
/// use perfbench_analysis::stats::{ttest::welch, Sample};
///
/// let a = Sample::new(&[10.0, 11.0, 9.0, 10.0, 10.5, 9.5]).unwrap();
/// let b = Sample::new(&[12.0, 13.0, 11.0, 12.0, 12.5, 11.5]).unwrap();
/// let test = welch(a, b).unwrap();
/// assert!(test.t > 0.0 && test.p_value < 0.001);
/// assert!(welch(a, Sample::new(&[1.0]).unwrap()).is_none());
/// ```
pub fn welch(a: Sample<'_>, b: Sample<'_>) -> Option<WelchTest> {
    let (na, nb) = (a.as_slice().len() as f64, b.as_slice().len() as f64);
    if na < 2.0 || nb < 2.0 {
        return None;
    }
    let diff = b.mean() - a.mean();
    let (sa, sb) = (a.variance() / na, b.variance() / nb);
    let se2 = sa + sb;
    if se2 == 0.0 || !se2.is_finite() {
        let p_value = if diff == 0.0 { 1.0 } else { 0.0 };
        let t = if diff == 0.0 {
            0.0
        } else {
            f64::INFINITY.copysign(diff)
        };
        return Some(WelchTest {
            t,
            df: na + nb - 2.0,
            p_value,
        });
    }
    let t = diff / se2.sqrt();
    let df = se2 * se2 / (sa * sa / (na - 1.0) + sb * sb / (nb - 1.0));
    // If the squares underflow, fall back to the smaller sample's degrees of freedom.
    let df = if df.is_finite() && df > 0.0 {
        df
    } else {
        na.min(nb) - 1.0
    };
    Some(WelchTest {
        t,
        df,
        p_value: student_t_two_sided(t, df),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::dist::ln_gamma;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn welch_known_example() {
        // a = 1..5 (mean 3, var 2.5), b = 2, 4, .., 10 (mean 6, var 10):
        // se^2 = 0.5 + 2 = 2.5, t = 3 / sqrt(2.5), df = 6.25 / (0.0625 + 1) = 5.882353.
        let a = [1.0, 2.0, 3.0, 4.0, 5.0];
        let b = [2.0, 4.0, 6.0, 8.0, 10.0];
        let w = welch(Sample::new(&a).unwrap(), Sample::new(&b).unwrap()).unwrap();
        assert!(close(w.t, 3.0 / 2.5f64.sqrt(), 1e-12));
        assert!(close(w.df, 6.25 / 1.0625, 1e-12));
        // Reference p-value by numerical integration of the t density (see the test below).
        assert!(
            close(w.p_value, integrate_two_sided(w.t, w.df), 1e-7),
            "{w:?}"
        );
        assert!(w.p_value > 0.1 && w.p_value < 0.11, "{w:?}");
    }

    /// `P(|T| >= t)` by Simpson's rule over the t density, an independent check of the
    /// continued fraction.
    fn integrate_two_sided(t: f64, df: f64) -> f64 {
        let density_norm = (ln_gamma((df + 1.0) / 2.0)
            - ln_gamma(df / 2.0)
            - 0.5 * (df * std::f64::consts::PI).ln())
        .exp();
        let f = |x: f64| density_norm * (1.0 + x * x / df).powf(-(df + 1.0) / 2.0);
        let steps = 20_000;
        let h = t.abs() / steps as f64;
        let mut sum = f(0.0) + f(t.abs());
        for i in 1..steps {
            sum += f(i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 };
        }
        1.0 - 2.0 * sum * h / 3.0
    }

    #[test]
    fn welch_matches_integration_on_several_cases() {
        for (t, df) in [(0.3, 3.7), (1.5, 12.2), (2.5, 57.0), (4.0, 8.5)] {
            let p = student_t_two_sided(t, df);
            assert!(close(p, integrate_two_sided(t, df), 1e-8), "t {t} df {df}");
        }
    }

    #[test]
    fn welch_zero_variance_and_small_samples() {
        let s = |d: &'static [f64]| Sample::new(d).unwrap();
        let same = welch(s(&[5.0, 5.0, 5.0]), s(&[5.0, 5.0])).unwrap();
        assert_eq!((same.t, same.p_value), (0.0, 1.0));
        let differ = welch(s(&[5.0, 5.0, 5.0]), s(&[6.0, 6.0])).unwrap();
        assert_eq!((differ.t, differ.p_value), (f64::INFINITY, 0.0));
        let lower = welch(s(&[5.0, 5.0]), s(&[4.0, 4.0])).unwrap();
        assert_eq!(lower.t, f64::NEG_INFINITY);
        // One constant side: df is the other side's n - 1.
        let half = welch(s(&[5.0, 5.0, 5.0]), s(&[6.0, 7.0, 8.0])).unwrap();
        assert!(close(half.df, 2.0, 1e-12) && half.p_value < 0.1);
        assert!(welch(s(&[1.0]), s(&[1.0, 2.0])).is_none());
    }
}
