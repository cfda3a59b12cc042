//! Outlier classification with Tukey's fences, labelled as criterion labels them.
//!
//! Outliers are counted and reported, and stay in the per-iteration values and the descriptive
//! statistics. Only the headline estimate and its interval leave the severe ones out (see
//! [`Estimate`](super::Estimate) for why), and the report says how many.

use super::univariate::Percentiles;

/// Where a value falls relative to [`Tukey`]'s fences.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Label {
    /// Below `q1 - 3 * iqr`.
    LowSevere,
    /// Below `q1 - 1.5 * iqr` (and not severe).
    LowMild,
    /// Within the inner fences (also the label of a NaN, which no fence can place).
    NotAnOutlier,
    /// Above `q3 + 1.5 * iqr` (and not severe).
    HighMild,
    /// Above `q3 + 3 * iqr`.
    HighSevere,
}

impl Label {
    /// Whether the value is outside the inner fences.
    ///
    /// ```
    /// use perfbench_analysis::stats::outliers::Label;
    ///
    /// assert!(Label::HighMild.is_outlier() && !Label::NotAnOutlier.is_outlier());
    /// ```
    pub fn is_outlier(self) -> bool {
        self != Label::NotAnOutlier
    }

    /// Whether the value is outside the outer fences.
    ///
    /// ```
    /// use perfbench_analysis::stats::outliers::Label;
    ///
    /// assert!(Label::LowSevere.is_severe() && !Label::LowMild.is_severe());
    /// ```
    pub fn is_severe(self) -> bool {
        matches!(self, Label::LowSevere | Label::HighSevere)
    }
}

/// Tukey's fences of a sample: inner fences at 1.5 and outer fences at 3 interquartile ranges
/// beyond the quartiles (quartiles by linear interpolation, see [`Percentiles::at`]).
///
/// With an interquartile range of 0 (e.g. constant data) every fence sits on a quartile, so a
/// single value that differs from the bulk is a severe outlier.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tukey {
    /// `q1 - 3 * iqr`.
    pub low_severe: f64,
    /// `q1 - 1.5 * iqr`.
    pub low_mild: f64,
    /// `q3 + 1.5 * iqr`.
    pub high_mild: f64,
    /// `q3 + 3 * iqr`.
    pub high_severe: f64,
}

impl Tukey {
    /// The fences of the sample whose percentiles are given.
    ///
    /// ```
    /// use perfbench_analysis::stats::{outliers::Label, Sample, Tukey};
    ///
    /// // Quartiles 2 and 4: inner fences at -1 and 7, outer fences at -4 and 10.
    /// let data = [1.0, 2.0, 3.0, 4.0, 5.0];
    /// let tukey = Tukey::new(&Sample::new(&data).unwrap().percentiles());
    /// assert_eq!(tukey.classify(8.0), Label::HighMild);
    /// assert_eq!(tukey.classify(11.0), Label::HighSevere);
    /// ```
    pub fn new(percentiles: &Percentiles) -> Self {
        let (q1, _, q3) = percentiles.quartiles();
        let iqr = q3 - q1;
        Tukey {
            low_severe: q1 - 3.0 * iqr,
            low_mild: q1 - 1.5 * iqr,
            high_mild: q3 + 1.5 * iqr,
            high_severe: q3 + 3.0 * iqr,
        }
    }

    /// The label of one value.
    ///
    /// ```
    /// use perfbench_analysis::stats::{outliers::Label, Sample, Tukey};
    ///
    /// let tukey = Tukey::new(&Sample::new(&[1.0, 2.0, 3.0, 4.0, 5.0]).unwrap().percentiles());
    /// assert_eq!(tukey.classify(3.0), Label::NotAnOutlier);
    /// assert_eq!(tukey.classify(-2.0), Label::LowMild);
    /// assert_eq!(tukey.classify(f64::NAN), Label::NotAnOutlier);
    /// ```
    pub fn classify(&self, x: f64) -> Label {
        if x < self.low_severe {
            Label::LowSevere
        } else if x > self.high_severe {
            Label::HighSevere
        } else if x < self.low_mild {
            Label::LowMild
        } else if x > self.high_mild {
            Label::HighMild
        } else {
            Label::NotAnOutlier
        }
    }

    /// How many of `values` fall under each label.
    ///
    /// ```
    /// use perfbench_analysis::stats::{Sample, Tukey};
    ///
    /// let tukey = Tukey::new(&Sample::new(&[1.0, 2.0, 3.0, 4.0, 5.0]).unwrap().percentiles());
    /// let counts = tukey.count(&[3.0, 8.0, 11.0, -5.0]);
    /// assert_eq!((counts.normal, counts.high_mild, counts.high_severe, counts.low_severe), (1, 1, 1, 1));
    /// ```
    pub fn count(&self, values: &[f64]) -> OutlierCounts {
        let mut counts = OutlierCounts::default();
        for &x in values {
            counts.add(self.classify(x));
        }
        counts
    }
}

/// The number of samples under each [`Label`]; the five fields sum to the number of samples.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, serde_derive::Serialize, serde_derive::Deserialize,
)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct OutlierCounts {
    /// Samples below the low outer fence.
    pub low_severe: usize,
    /// Samples between the low outer and inner fences.
    pub low_mild: usize,
    /// Samples within the inner fences.
    pub normal: usize,
    /// Samples between the high inner and outer fences.
    pub high_mild: usize,
    /// Samples above the high outer fence.
    pub high_severe: usize,
}

impl OutlierCounts {
    /// Counts one more sample under `label`.
    ///
    /// ```
    /// use perfbench_analysis::stats::{outliers::Label, OutlierCounts};
    ///
    /// let mut counts = OutlierCounts::default();
    /// counts.add(Label::HighSevere);
    /// counts.add(Label::NotAnOutlier);
    /// assert_eq!((counts.high_severe, counts.normal), (1, 1));
    /// ```
    pub fn add(&mut self, label: Label) {
        let slot = match label {
            Label::LowSevere => &mut self.low_severe,
            Label::LowMild => &mut self.low_mild,
            Label::NotAnOutlier => &mut self.normal,
            Label::HighMild => &mut self.high_mild,
            Label::HighSevere => &mut self.high_severe,
        };
        *slot += 1;
    }

    /// The number of outliers, mild and severe, on both sides.
    ///
    /// ```
    /// use perfbench_analysis::stats::OutlierCounts;
    ///
    /// let counts = OutlierCounts { low_mild: 1, high_severe: 2, normal: 97, ..Default::default() };
    /// assert_eq!(counts.outliers(), 3);
    /// ```
    pub fn outliers(&self) -> usize {
        self.low_severe + self.low_mild + self.high_mild + self.high_severe
    }

    /// The number of samples counted.
    ///
    /// ```
    /// use perfbench_analysis::stats::OutlierCounts;
    ///
    /// let counts = OutlierCounts { low_mild: 1, high_severe: 2, normal: 97, ..Default::default() };
    /// assert_eq!(counts.total(), 100);
    /// ```
    pub fn total(&self) -> usize {
        self.outliers() + self.normal
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::rng::Rng;
    use crate::stats::univariate::Sample;

    fn tukey(data: &[f64]) -> Tukey {
        Tukey::new(&Sample::new(data).unwrap().percentiles())
    }

    #[test]
    fn known_fences_and_labels() {
        // 1..=9: q1 = 3, q3 = 7, iqr = 4 -> fences -9, -3, 13, 19.
        let data: Vec<f64> = (1..=9).map(f64::from).collect();
        let t = tukey(&data);
        assert_eq!(
            (t.low_severe, t.low_mild, t.high_mild, t.high_severe),
            (-9.0, -3.0, 13.0, 19.0)
        );
        assert_eq!(t.classify(-9.5), Label::LowSevere);
        assert_eq!(t.classify(-9.0), Label::LowMild);
        assert_eq!(t.classify(-3.5), Label::LowMild);
        assert_eq!(t.classify(-3.0), Label::NotAnOutlier);
        assert_eq!(t.classify(13.0), Label::NotAnOutlier);
        assert_eq!(t.classify(13.5), Label::HighMild);
        assert_eq!(t.classify(19.0), Label::HighMild);
        assert_eq!(t.classify(19.5), Label::HighSevere);
        assert_eq!(t.classify(f64::NAN), Label::NotAnOutlier);
        assert!(!Label::NotAnOutlier.is_outlier() && Label::HighMild.is_outlier());
    }

    #[test]
    fn counts_of_a_sample_with_outliers() {
        // 60, 100..=119, 135, 200 (n = 23): q1 = rank 5.5 = 104.5, q3 = rank 16.5 = 115.5,
        // iqr = 11, fences 71.5, 88, 132, 148.5: 60 is low severe, 135 high mild, 200 severe.
        let mut data: Vec<f64> = (100..120).map(f64::from).collect();
        data.extend([60.0, 135.0, 200.0]);
        let t = tukey(&data);
        let c = t.count(&data);
        assert_eq!(c.total(), data.len());
        assert_eq!((c.low_severe, c.high_mild, c.high_severe), (1, 1, 1));
        assert_eq!((c.low_mild, c.normal), (0, 20));
        assert_eq!(c.outliers(), 3);
    }

    #[test]
    fn constant_data_has_no_outliers_and_flags_any_deviation() {
        let t = tukey(&[5.0; 10]);
        assert_eq!(t.count(&[5.0; 10]).normal, 10);
        assert_eq!(t.classify(5.0001), Label::HighSevere);
    }

    #[test]
    fn counts_always_sum_to_n() {
        let mut rng = Rng::new(99);
        for _ in 0..300 {
            let data = rng.data_set(60);
            let c = tukey(&data).count(&data);
            assert_eq!(c.total(), data.len());
        }
    }
}
