//! The distributions the tests and intervals of [`stats`](super) draw on: Student's t (its
//! two-sided tail and quantile, through the regularized incomplete beta function and
//! `ln Gamma`) and the normal (its tail through `erfc`, its quantile), with the bisection that
//! turns a falling tail into a quantile. Only numbers in and out: what a test computes from
//! samples stays in its own module.

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
pub(crate) fn ln_gamma(x: f64) -> f64 {
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

/// The complementary error function (Numerical Recipes' Chebyshev fit; fractional error below
/// 1.2e-7), so `erfc(z / sqrt 2)` is the two-sided normal tail beyond `z`.
pub(crate) fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// `z` such that a standard normal lies within `+-z` with probability `confidence` (a NaN or
/// out-of-range confidence means 0.95).
pub(crate) fn normal_quantile_two_sided(confidence: f64) -> f64 {
    quantile_two_sided(confidence, 40.0, |z| erfc(z / std::f64::consts::SQRT_2))
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
    fn quantile_matches_the_table() {
        assert!((normal_quantile_two_sided(0.95) - 1.959_964).abs() < 1e-4);
        assert!((normal_quantile_two_sided(0.99) - 2.575_829).abs() < 1e-4);
        assert!((normal_quantile_two_sided(f64::NAN) - 1.959_964).abs() < 1e-4);
    }

    #[test]
    fn erfc_is_the_two_sided_normal_tail() {
        assert!((erfc(1.959_963_985 / std::f64::consts::SQRT_2) - 0.05).abs() < 1e-6);
        assert!((erfc(0.0) - 1.0).abs() < 1e-7);
        assert!((erfc(-1.0) + erfc(1.0) - 2.0).abs() < 1e-7);
    }
}
