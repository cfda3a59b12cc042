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

/// `t` such that Student's t with `df` degrees of freedom lies within `+-t` with probability
/// `confidence` (a NaN or out-of-range confidence means 0.95).
pub(crate) fn student_t_quantile_two_sided(confidence: f64, df: f64) -> f64 {
    quantile_two_sided(confidence, 1e6, |t| student_t_two_sided(t, df))
}

/// The `x` in `[0, upper]` whose two-sided tail probability `tail(x)` (falling from 1 to 0) is
/// `1 - confidence`, by bisection (a NaN or out-of-range confidence means 0.95).
pub(crate) fn quantile_two_sided(confidence: f64, upper: f64, tail: impl Fn(f64) -> f64) -> f64 {
    let c = if confidence.is_finite() && confidence > 0.0 && confidence < 1.0 {
        confidence
    } else {
        0.95
    };
    let (mut lo, mut hi) = (0.0_f64, upper);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if tail(mid) > 1.0 - c {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// `P(|T| >= |t|)` for Student's t with `df` degrees of freedom: `I_{df/(df+t^2)}(df/2, 1/2)`.
pub(crate) fn student_t_two_sided(t: f64, df: f64) -> f64 {
    if t.is_nan() || df.is_nan() || df <= 0.0 {
        return 1.0;
    }
    if t.is_infinite() {
        return 0.0;
    }
    let x = df / (df + t * t);
    regularized_incomplete_beta(0.5 * df, 0.5, x).clamp(0.0, 1.0)
}

/// `I_x(a, b)`, the regularized incomplete beta function, for `a, b > 0` (Numerical Recipes'
/// continued fraction with the symmetry switch at the mean).
fn regularized_incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    let front = ln_front.exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_continued_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_continued_fraction(b, a, 1.0 - x) / b
    }
}

/// The continued fraction of the incomplete beta function (modified Lentz).
fn beta_continued_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    const EPS: f64 = 1e-15;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..=1000 {
        let m = f64::from(m);
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        let delta = d * c;
        h *= delta;
        if (delta - 1.0).abs() < EPS {
            break;
        }
    }
    h
}

/// `ln(Gamma(x))` for `x > 0` (Lanczos, g = 7, 9 terms; relative error ~1e-15).
fn ln_gamma(x: f64) -> f64 {
    const COEFFICIENTS: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Gamma(x) Gamma(1 - x) = pi / sin(pi x).
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).abs().ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let t = x + 7.5;
    let mut sum = COEFFICIENTS[0];
    for (i, &c) in COEFFICIENTS.iter().enumerate().skip(1) {
        sum += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn ln_gamma_known_values() {
        assert!(close(ln_gamma(1.0), 0.0, 1e-14));
        assert!(close(ln_gamma(2.0), 0.0, 1e-14));
        assert!(close(ln_gamma(5.0), 24f64.ln(), 1e-13));
        assert!(close(
            ln_gamma(0.5),
            std::f64::consts::PI.sqrt().ln(),
            1e-14
        ));
        assert!(close(ln_gamma(100.0), 359.134_205_369_575_4, 1e-10));
        assert!(close(ln_gamma(0.1), 2.252_712_651_734_206, 1e-13));
    }

    #[test]
    fn student_t_closed_forms() {
        // df = 1 (Cauchy): P(|T| >= t) = 1 - 2 atan(t) / pi.
        for t in [0.0, 0.5, 1.0, 3.0, 40.0] {
            let expect = 1.0 - 2.0 * f64::atan(t) / std::f64::consts::PI;
            assert!(close(student_t_two_sided(t, 1.0), expect, 1e-12), "t = {t}");
        }
        // df = 2: P(|T| >= t) = 1 - t / sqrt(2 + t^2).
        for t in [0.1f64, 2.0, 10.0] {
            let expect = 1.0 - t / (2.0 + t * t).sqrt();
            assert!(close(student_t_two_sided(t, 2.0), expect, 1e-12), "t = {t}");
        }
        // Large df tends to the normal: the 97.5% quantile 1.959964 gives 0.05.
        assert!(close(student_t_two_sided(1.959_964, 1e7), 0.05, 1e-6));
        // Tabulated critical values: t(0.975, 10) = 2.228139, t(0.995, 30) = 2.749996.
        assert!(close(student_t_two_sided(2.228_139, 10.0), 0.05, 1e-6));
        assert!(close(student_t_two_sided(-2.749_996, 30.0), 0.01, 1e-6));
        // Degenerate inputs.
        assert_eq!(student_t_two_sided(f64::INFINITY, 3.0), 0.0);
        assert_eq!(student_t_two_sided(f64::NAN, 3.0), 1.0);
        assert_eq!(student_t_two_sided(1.0, 0.0), 1.0);
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
