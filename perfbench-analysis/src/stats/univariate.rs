//! Statistics of one sample: location, spread and percentiles.
//!
//! A [`Sample`] is a validated view of the per-iteration values of one counter: non-empty and
//! all finite, so every statistic below is a plain `f64` that is never NaN. Validation happens
//! once, in [`Sample::new`]; the top-level [`estimate`](super::estimate) and
//! [`compare()`](super::compare()) discard non-finite values before building one.
//!
//! Exactly-constant data gives exactly the constant back (mean, median, percentiles) and exactly
//! zero spread (stddev, MAD): the mean is accumulated as offsets from the first value, which are
//! all exactly zero for constant data.

/// The factor that makes the MAD a consistent estimator of the standard deviation for normal
/// data: `1 / Phi^-1(3/4)`, rounded as criterion and R's `mad()` do.
pub const MAD_SCALE: f64 = 1.4826;

/// A non-empty slice of finite values: one value per sample, each already divided by the
/// sample's iteration count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample<'a> {
    data: &'a [f64],
}

impl<'a> Sample<'a> {
    /// Validates `data`: `None` when it is empty or holds a NaN or an infinity.
    ///
    /// ```
    /// use perfbench_analysis::stats::Sample;
    ///
    /// assert!(Sample::new(&[1.0, 2.0]).is_some());
    /// assert!(Sample::new(&[]).is_none());
    /// assert!(Sample::new(&[1.0, f64::NAN]).is_none());
    /// ```
    pub fn new(data: &'a [f64]) -> Option<Self> {
        if data.is_empty() || !data.iter().all(|x| x.is_finite()) {
            return None;
        }
        Some(Sample { data })
    }

    /// The values, in their original order.
    ///
    /// ```
    /// use perfbench_analysis::stats::Sample;
    ///
    /// let s = Sample::new(&[3.0, 1.0, 2.0]).unwrap();
    /// assert_eq!(s.as_slice(), [3.0, 1.0, 2.0]);
    /// ```
    pub fn as_slice(&self) -> &'a [f64] {
        self.data
    }

    /// The arithmetic mean.
    ///
    /// Computed as `x[0] + sum(x[i] - x[0]) / n`, which is exact for constant data and loses
    /// less precision than a plain sum when values share a large offset.
    ///
    /// ```
    /// use perfbench_analysis::stats::Sample;
    ///
    /// assert_eq!(Sample::new(&[1.0, 2.0, 6.0]).unwrap().mean(), 3.0);
    /// assert_eq!(Sample::new(&[1e16 + 1.0; 3]).unwrap().mean(), 1e16 + 1.0); // exact for constant data
    /// ```
    pub fn mean(&self) -> f64 {
        mean_of(self.data)
    }

    /// The sample variance, with Bessel's correction (divides by `n - 1`); 0 for a single
    /// value.
    ///
    /// ```
    /// use perfbench_analysis::stats::Sample;
    ///
    /// assert_eq!(Sample::new(&[1.0, 2.0, 3.0]).unwrap().variance(), 1.0);
    /// assert_eq!(Sample::new(&[5.0]).unwrap().variance(), 0.0);
    /// ```
    pub fn variance(&self) -> f64 {
        let n = self.data.len();
        if n < 2 {
            return 0.0;
        }
        let mean = self.mean();
        let sum_sq: f64 = self.data.iter().map(|&x| (x - mean) * (x - mean)).sum();
        sum_sq / (n - 1) as f64
    }

    /// The sample standard deviation (`sqrt` of [`variance`](Self::variance), `n - 1`
    /// denominator); 0 for a single value.
    ///
    /// ```
    /// use perfbench_analysis::stats::Sample;
    ///
    /// assert_eq!(Sample::new(&[2.0, 4.0, 6.0]).unwrap().stddev(), 2.0);
    /// ```
    pub fn stddev(&self) -> f64 {
        self.variance().sqrt()
    }

    /// The smallest value.
    ///
    /// ```
    /// use perfbench_analysis::stats::Sample;
    ///
    /// assert_eq!(Sample::new(&[3.0, 1.0, 2.0]).unwrap().min(), 1.0);
    /// ```
    pub fn min(&self) -> f64 {
        self.data.iter().copied().fold(f64::INFINITY, f64::min)
    }

    /// The largest value.
    ///
    /// ```
    /// use perfbench_analysis::stats::Sample;
    ///
    /// assert_eq!(Sample::new(&[3.0, 1.0, 2.0]).unwrap().max(), 3.0);
    /// ```
    pub fn max(&self) -> f64 {
        self.data.iter().copied().fold(f64::NEG_INFINITY, f64::max)
    }

    /// The median (the 50th percentile, see [`Percentiles::at`]).
    ///
    /// ```
    /// use perfbench_analysis::stats::Sample;
    ///
    /// assert_eq!(Sample::new(&[4.0, 1.0, 3.0, 2.0]).unwrap().median(), 2.5);
    /// ```
    pub fn median(&self) -> f64 {
        self.percentiles().median()
    }

    /// The median absolute deviation from the median, scaled by [`MAD_SCALE`] (1.4826) so that
    /// it estimates the standard deviation of normal data, as criterion reports it.
    ///
    /// ```
    /// use perfbench_analysis::stats::{univariate::MAD_SCALE, Sample};
    ///
    /// // Deviations from the median 3: 2, 1, 0, 1, 97; their median is 1.
    /// let s = Sample::new(&[1.0, 2.0, 3.0, 4.0, 100.0]).unwrap();
    /// assert_eq!(s.mad(), MAD_SCALE);
    /// ```
    pub fn mad(&self) -> f64 {
        self.percentiles().mad()
    }

    /// The sorted values, to read percentiles from.
    ///
    /// ```
    /// use perfbench_analysis::stats::Sample;
    ///
    /// let p = Sample::new(&[3.0, 1.0, 2.0]).unwrap().percentiles();
    /// assert_eq!(p.sorted(), [1.0, 2.0, 3.0]);
    /// ```
    pub fn percentiles(&self) -> Percentiles {
        Percentiles::from_unsorted(self.data.to_vec())
    }
}

/// The mean of a non-empty slice of finite values (0 for an empty slice), shifted by the first
/// value so that constant data is exact. The bootstrap calls this on every resample.
pub(crate) fn mean_of(data: &[f64]) -> f64 {
    let Some(&first) = data.first() else {
        return 0.0;
    };
    let offsets: f64 = data.iter().map(|&x| x - first).sum();
    first + offsets / data.len() as f64
}

/// The median of a non-empty slice of finite values, reordering it in place (0 for an empty
/// slice). Linear time; the bootstrap calls this on every resample.
pub(crate) fn median_in_place(data: &mut [f64]) -> f64 {
    let n = data.len();
    if n == 0 {
        return 0.0;
    }
    let (_, &mut upper, _) = data.select_nth_unstable_by(n / 2, f64::total_cmp);
    if n % 2 == 1 {
        upper
    } else {
        // The lower middle is the largest value of the left part.
        let lower = data[..n / 2]
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        midpoint(lower, upper)
    }
}

/// `(a + b) / 2` without overflow, and exactly `a` when `a == b`.
fn midpoint(a: f64, b: f64) -> f64 {
    a + (b - a) / 2.0
}

/// A sample's values in ascending order, with percentiles by linear interpolation.
#[derive(Debug, Clone, PartialEq)]
pub struct Percentiles {
    sorted: Box<[f64]>,
}

impl Percentiles {
    /// Sorts `values` (in `f64::total_cmp` order). Callers pass finite values.
    pub(crate) fn from_unsorted(mut values: Vec<f64>) -> Self {
        perfbench::sorting::sort_f64(&mut values);
        Percentiles {
            sorted: values.into_boxed_slice(),
        }
    }

    /// The values in ascending order.
    ///
    /// ```
    /// use perfbench_analysis::stats::Sample;
    ///
    /// let p = Sample::new(&[2.0, -1.0, 0.5]).unwrap().percentiles();
    /// assert_eq!(p.sorted(), [-1.0, 0.5, 2.0]);
    /// ```
    pub fn sorted(&self) -> &[f64] {
        &self.sorted
    }

    /// The `p`-th percentile, `p` in percent (0 = min, 50 = median, 100 = max).
    ///
    /// Linear interpolation between closest ranks (rank `p / 100 * (n - 1)`, the default of
    /// numpy, R type 7, and criterion). `p` outside `0..=100` is clamped; a NaN `p` reads as 0.
    /// The result is monotone in `p` and always lies between the two neighbouring values.
    ///
    /// ```
    /// use perfbench_analysis::stats::Sample;
    ///
    /// let p = Sample::new(&[10.0, 20.0, 30.0, 40.0, 50.0]).unwrap().percentiles();
    /// assert_eq!(p.at(50.0), 30.0);
    /// assert_eq!(p.at(12.5), 15.0); // interpolated between 10 and 20
    /// ```
    pub fn at(&self, p: f64) -> f64 {
        perfbench::sorting::percentile_of_sorted(&self.sorted, p)
    }

    /// The median (50th percentile).
    ///
    /// ```
    /// use perfbench_analysis::stats::Sample;
    ///
    /// assert_eq!(Sample::new(&[5.0, 1.0, 3.0]).unwrap().percentiles().median(), 3.0);
    /// ```
    pub fn median(&self) -> f64 {
        self.at(50.0)
    }

    /// The 25th, 50th and 75th percentiles.
    ///
    /// ```
    /// use perfbench_analysis::stats::Sample;
    ///
    /// let p = Sample::new(&[1.0, 2.0, 3.0, 4.0, 5.0]).unwrap().percentiles();
    /// assert_eq!(p.quartiles(), (2.0, 3.0, 4.0));
    /// ```
    pub fn quartiles(&self) -> (f64, f64, f64) {
        (self.at(25.0), self.at(50.0), self.at(75.0))
    }

    /// The interquartile range: 75th minus 25th percentile.
    ///
    /// ```
    /// use perfbench_analysis::stats::Sample;
    ///
    /// assert_eq!(Sample::new(&[1.0, 2.0, 3.0, 4.0, 5.0]).unwrap().percentiles().iqr(), 2.0);
    /// ```
    pub fn iqr(&self) -> f64 {
        self.at(75.0) - self.at(25.0)
    }

    /// The smallest value.
    ///
    /// ```
    /// use perfbench_analysis::stats::Sample;
    ///
    /// assert_eq!(Sample::new(&[2.0, 1.0]).unwrap().percentiles().min(), 1.0);
    /// ```
    pub fn min(&self) -> f64 {
        self.sorted.first().copied().unwrap_or(0.0)
    }

    /// The largest value.
    ///
    /// ```
    /// use perfbench_analysis::stats::Sample;
    ///
    /// assert_eq!(Sample::new(&[2.0, 1.0]).unwrap().percentiles().max(), 2.0);
    /// ```
    pub fn max(&self) -> f64 {
        self.sorted.last().copied().unwrap_or(0.0)
    }

    /// The scaled median absolute deviation (see [`Sample::mad`]).
    ///
    /// ```
    /// use perfbench_analysis::stats::Sample;
    ///
    /// let s = Sample::new(&[1.0, 2.0, 3.0, 4.0, 100.0]).unwrap();
    /// assert_eq!(s.percentiles().mad(), s.mad());
    /// ```
    pub fn mad(&self) -> f64 {
        let median = self.median();
        let mut deviations: Vec<f64> = self.sorted.iter().map(|&x| (x - median).abs()).collect();
        MAD_SCALE * median_in_place(&mut deviations)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::rng::Rng;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
    }

    #[test]
    fn rejects_empty_and_non_finite() {
        assert!(Sample::new(&[]).is_none());
        assert!(Sample::new(&[1.0, f64::NAN]).is_none());
        assert!(Sample::new(&[f64::INFINITY]).is_none());
        assert!(Sample::new(&[f64::NEG_INFINITY, 2.0]).is_none());
    }

    #[test]
    fn known_values() {
        // Hand-computed: mean 5, deviations -3 -1 -1 -1 0 0 2 4, sum of squares 32, var 32/7.
        let data = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
        let s = Sample::new(&data).unwrap();
        assert_eq!(s.mean(), 5.0);
        assert!(close(s.variance(), 32.0 / 7.0, 1e-15));
        assert!(close(s.stddev(), (32.0f64 / 7.0).sqrt(), 1e-15));
        assert_eq!(s.median(), 4.5);
        // |x - 4.5| = 2.5 .5 .5 .5 .5 .5 2.5 4.5 -> median 0.5.
        assert!(close(s.mad(), 0.5 * MAD_SCALE, 1e-15));
        assert_eq!((s.min(), s.max()), (2.0, 9.0));
        let p = s.percentiles();
        // rank = p/100 * 7: 25% -> 1.75 -> 4; 75% -> 5.25 -> 5 + .25 * 2 = 5.5; 10% -> .7 -> 3.4
        assert_eq!(p.quartiles(), (4.0, 4.5, 5.5));
        assert!(close(p.at(10.0), 3.4, 1e-15));
        assert_eq!(p.iqr(), 1.5);
        assert_eq!((p.at(0.0), p.at(100.0)), (2.0, 9.0));
        assert_eq!((p.at(-5.0), p.at(250.0), p.at(f64::NAN)), (2.0, 9.0, 2.0));
    }

    #[test]
    fn odd_median_and_median_in_place() {
        let s = Sample::new(&[3.0, 1.0, 2.0]).unwrap();
        assert_eq!(s.median(), 2.0);
        assert_eq!(median_in_place(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median_in_place(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median_in_place(&mut []), 0.0);
    }

    #[test]
    fn single_value() {
        let s = Sample::new(&[42.5]).unwrap();
        assert_eq!(
            (s.mean(), s.median(), s.min(), s.max()),
            (42.5, 42.5, 42.5, 42.5)
        );
        assert_eq!((s.variance(), s.stddev(), s.mad()), (0.0, 0.0, 0.0));
        assert_eq!(s.percentiles().at(37.0), 42.5);
    }

    #[test]
    fn constant_data_is_exact() {
        for v in [0.1, 1.0 / 3.0, 1e-300, 123_456_789.123, -7.7, 0.0] {
            let data = vec![v; 37];
            let s = Sample::new(&data).unwrap();
            assert_eq!(s.mean(), v);
            assert_eq!(s.median(), v);
            assert_eq!(s.stddev(), 0.0);
            assert_eq!(s.mad(), 0.0);
            assert_eq!(s.percentiles().at(2.5), v);
        }
    }

    #[test]
    fn huge_values_do_not_give_nan() {
        let data = [f64::MAX, -f64::MAX, f64::MAX];
        let s = Sample::new(&data).unwrap();
        for x in [s.mean(), s.variance(), s.stddev(), s.median(), s.mad()] {
            assert!(!x.is_nan());
        }
    }

    #[test]
    fn properties_on_random_data() {
        let mut rng = Rng::new(0xdec0de);
        for _ in 0..500 {
            let data = rng.data_set(40);
            let s = Sample::new(&data).unwrap();
            let p = s.percentiles();
            let (min, max, median) = (s.min(), s.max(), s.median());
            assert!(min <= median && median <= max);
            let eps = 1e-12 * (1.0 + min.abs() + max.abs());
            assert!(min - eps <= s.mean() && s.mean() <= max + eps);
            assert_eq!((p.min(), p.max()), (min, max));
            assert!(s.stddev() >= 0.0 && s.mad() >= 0.0);

            // Percentiles are monotone in p.
            let mut last = f64::NEG_INFINITY;
            for i in 0..=200 {
                let v = p.at(i as f64 / 2.0);
                assert!(v >= last, "{data:?}");
                last = v;
            }

            // Shifting by c shifts the location by c and leaves the spread alone.
            let c = rng.uniform(-1e3, 1e3);
            let shifted: Vec<f64> = data.iter().map(|x| x + c).collect();
            let t = Sample::new(&shifted).unwrap();
            let tol = 1e-9 * (1.0 + max.abs() + c.abs());
            assert!((t.mean() - (s.mean() + c)).abs() <= tol);
            assert!((t.median() - (s.median() + c)).abs() <= tol);
            assert!((t.stddev() - s.stddev()).abs() <= tol);

            // Scaling by k scales the spread by |k|.
            let k = rng.uniform(-10.0, 10.0);
            let scaled: Vec<f64> = data.iter().map(|x| x * k).collect();
            let u = Sample::new(&scaled).unwrap();
            assert!(close(u.stddev(), k.abs() * s.stddev(), 1e-9));
            assert!(close(u.mad(), k.abs() * s.mad(), 1e-9));
            assert!(close(u.mean(), k * s.mean(), 1e-9));
        }
    }
}
