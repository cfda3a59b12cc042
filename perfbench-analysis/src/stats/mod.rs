//! Statistics: from the samples of one counter to an [`Estimate`], and from two runs to a
//! [`Change`].
//!
//! This module owns the numbers only. It reads slices of per-iteration values (one value per
//! sample, already divided by the sample's iteration count) and, for linear sampling, the
//! iteration counts; it does no I/O, knows no counters beyond their names
//! ([`CounterKind`]), and does not serialise (the report module maps these types to the JSON of
//! report, whose field names they share).
//!
//! Submodules, one concept each (criterion's `stats` tree is the model):
//! - [`univariate`]: [`Sample`] (mean, median, stddev, MAD, min, max) and [`Percentiles`].
//! - [`outliers`]: Tukey's fences and the criterion labels ([`OutlierCounts`]).
//! - [`bootstrap`]: seeded percentile-bootstrap [`ConfidenceInterval`]s.
//! - [`median_bootstrap`]: the median's bootstrap distribution, exactly (what the median's
//!   interval is drawn from).
//! - [`regression`]: the slope through the origin for linear sampling, with R².
//! - [`ttest`]: Welch's t-test, the p-value of [`compare()`].
//! - [`change`]: change detection with per-counter noise thresholds.
//! - [`rounds`]: change detection between runs measured in rounds, the runner's default, and
//!   between sides of several runs each (a baseline saved from several runs of one build).
//!
//! # Guarantees
//! - Nothing here panics, whatever the input: empty slices, NaN, infinities, a single value,
//!   constant data, mismatched lengths all give `None` or a documented value.
//! - No NaN comes out. Exactly-constant data (instruction counts on an emulated PMU) gives
//!   exactly that value as mean, median and both interval bounds, and exactly 0 spread.
//! - Results are reproducible: the bootstrap uses a seeded generator ([`DEFAULT_SEED`]).

pub mod bootstrap;
pub mod change;
pub(crate) mod dist;
pub mod kde;
pub mod median_bootstrap;
pub mod outliers;
pub mod paired;
pub mod regression;
pub(crate) use perfbench::rng;
mod round_estimate;
pub mod rounds;
#[cfg(test)]
mod simulation;
pub mod ttest;
pub mod univariate;

pub use bootstrap::ConfidenceInterval;
pub use change::{compare, Change, CompareConfig, CounterKind, Method, Spread, Verdict};
pub use outliers::{OutlierCounts, Tukey};
pub use paired::{compare_paired, compare_paired_rounds};
pub use round_estimate::estimate_rounds;
pub use rounds::compare_rounds;
pub use univariate::{Percentiles, Sample};

use serde_derive::{Deserialize, Serialize};

/// The default confidence level of intervals: 0.95.
pub const DEFAULT_CONFIDENCE: f64 = 0.95;

/// The default number of bootstrap resamples: 10,000.
///
/// criterion draws 100,000. The percentile method reads the 2.5th and 97.5th percentiles of the
/// bootstrap distribution; with 10,000 resamples their Monte Carlo error is about
/// `sqrt(0.025 * 0.975 / 10_000)` = 0.16 percentile points, far below the sampling error of a
/// benchmark's 10 to 100 samples, at a tenth of the cost (a few milliseconds per counter for 100
/// samples in a release build on this project's VM).
pub const DEFAULT_RESAMPLES: usize = 10_000;

/// The default bootstrap seed, fixed so that the same samples always give the same report.
pub const DEFAULT_SEED: u64 = 0x7065_7266_6265_6e63; // "perfbenc"

/// Settings of [`estimate`] and of the bootstrap.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StatsConfig {
    /// The confidence level of intervals, in `[0, 1]`; values outside are clamped and NaN means
    /// [`DEFAULT_CONFIDENCE`].
    pub confidence: f64,
    /// The number of bootstrap resamples; 0 makes every interval the point estimate.
    pub resamples: usize,
    /// The seed of the bootstrap generator.
    pub seed: u64,
    /// The headline of flat sampling ([`Estimate::point`]): the mean or the median.
    pub center: Center,
    /// With [`Center::Median`] and rounds: the band of the quiet rounds whose samples the
    /// median is of ([`estimate_rounds`], [`perfbench::harness::quiet`]); `None`: every round.
    pub quiet_band: Option<f64>,
}

/// What [`Estimate::point`] is for flat sampling (linear sampling's is the slope).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Center {
    /// The mean of the samples within the outer fences: what a count costs on average, every
    /// rare event in it (a page fault in 50 samples reads 0.02). The default.
    #[default]
    Mean,
    /// Their median: for time and cycles, which a shared machine's neighbours stretch in many
    /// samples, few of them severe outliers. Their mean moves by several percent from run to
    /// run there while the median stays (docs/validation.md, "The stopping rule").
    Median,
}

impl StatsConfig {
    /// The default settings for counter `name`: the [`Center::Median`] for time and cycles
    /// ([`CounterKind::Time`], [`CounterKind::Cycles`]), of their quiet rounds
    /// ([`DEFAULT_BAND`](perfbench::harness::quiet::DEFAULT_BAND)); the mean of every round
    /// for every other counter.
    ///
    /// ```
    /// use perfbench_analysis::stats::{Center, StatsConfig};
    ///
    /// assert_eq!(StatsConfig::for_counter("wall-time").center, Center::Median);
    /// assert_eq!(StatsConfig::for_counter("cycles:u").center, Center::Median);
    /// assert_eq!(StatsConfig::for_counter("page-faults").center, Center::Mean);
    /// assert_eq!(StatsConfig::for_counter("page-faults").quiet_band, None);
    /// ```
    pub fn for_counter(name: &str) -> StatsConfig {
        match CounterKind::of(name) {
            CounterKind::Time | CounterKind::Cycles => StatsConfig {
                center: Center::Median,
                quiet_band: Some(perfbench::harness::quiet::DEFAULT_BAND),
                ..StatsConfig::default()
            },
            _ => StatsConfig::default(),
        }
    }

    /// These settings with `band` as the quiet rounds' band where they have one
    /// ([`for_counter`](Self::for_counter) gives time and cycles one).
    ///
    /// ```
    /// use perfbench_analysis::stats::StatsConfig;
    ///
    /// assert_eq!(StatsConfig::for_counter("wall-time").with_quiet_band(0.01).quiet_band, Some(0.01));
    /// assert_eq!(StatsConfig::for_counter("page-faults").with_quiet_band(0.01).quiet_band, None);
    /// ```
    pub fn with_quiet_band(self, band: f64) -> StatsConfig {
        StatsConfig {
            quiet_band: self.quiet_band.map(|_| band),
            ..self
        }
    }
}

impl Default for StatsConfig {
    /// [`DEFAULT_CONFIDENCE`], [`DEFAULT_RESAMPLES`], [`DEFAULT_SEED`].
    fn default() -> Self {
        StatsConfig {
            confidence: DEFAULT_CONFIDENCE,
            resamples: DEFAULT_RESAMPLES,
            seed: DEFAULT_SEED,
            center: Center::Mean,
            quiet_band: None,
        }
    }
}

/// The summary of one counter's samples in one run.
///
/// The descriptive statistics (`mean`, `median`, `stddev`, `mad`, `min`, `max`, `outliers`)
/// describe every finite sample. The headline [`point`](Self::point) and its interval
/// (`ci_low`, `ci_high`) leave out the severe outliers, the samples beyond Tukey's outer fences
/// (3 interquartile ranges beyond the quartiles), when they are at most a tenth of the samples
/// ([`MAX_EXCLUDED_SHARE`], [`headline_samples`]), and say how many in
/// [`excluded`](Self::excluded).
///
/// Why: on a shared machine a severe outlier in a time-like counter is a sample during which the
/// benchmark was descheduled or its virtual CPU was stolen. This project's VM shows single
/// 15 ms samples stretched 10x; one such sample in 100 moves a mean by 9% and widens its
/// interval several times over, so the run's figure would be decided by the other tenants. The
/// rule is the one criterion prints ("high severe"), it is symmetric, and it never applies when
/// the interquartile range is 0: counts that are almost always the same value (instructions on
/// an exact PMU, page faults) keep every sample, so a rare real event stays in the figure. Nor
/// does it apply when more than a tenth of the samples are severe: that is a second regime, not
/// an interruption, and the interval must show it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(from = "EstimateFields")]
pub struct Estimate {
    /// The headline per-iteration value, which `ci_low..ci_high` brackets: the least-squares
    /// [`slope`](Self::slope) with linear sampling, otherwise the mean or the median
    /// ([`StatsConfig::center`]: the median for time and cycles, by default), in each case of
    /// the samples within the outer fences.
    #[serde(with = "crate::json_fields::nullable")]
    #[cfg_attr(test, schemars(with = "Option<f64>"))]
    pub point: f64,
    /// The mean of all the per-iteration values.
    #[serde(with = "crate::json_fields::nullable")]
    #[cfg_attr(test, schemars(with = "Option<f64>"))]
    pub mean: f64,
    /// Their median.
    #[serde(with = "crate::json_fields::nullable")]
    #[cfg_attr(test, schemars(with = "Option<f64>"))]
    pub median: f64,
    /// Their sample standard deviation (`n - 1`; 0 for a single value).
    #[serde(with = "crate::json_fields::nullable")]
    #[cfg_attr(test, schemars(with = "Option<f64>"))]
    pub stddev: f64,
    /// Their median absolute deviation, scaled by 1.4826 ([`univariate::MAD_SCALE`]) to
    /// estimate the standard deviation of normal data, as criterion reports it.
    #[serde(with = "crate::json_fields::nullable")]
    #[cfg_attr(test, schemars(with = "Option<f64>"))]
    pub mad: f64,
    /// The lower bound of the bootstrap confidence interval of [`point`](Self::point) (with
    /// rounds, at least as wide as the interval of the rounds' central figure: see [`estimate_rounds`]).
    #[serde(with = "crate::json_fields::nullable")]
    #[cfg_attr(test, schemars(with = "Option<f64>"))]
    pub ci_low: f64,
    /// The upper bound of that interval.
    #[serde(with = "crate::json_fields::nullable")]
    #[cfg_attr(test, schemars(with = "Option<f64>"))]
    pub ci_high: f64,
    /// The confidence level of that interval.
    #[serde(with = "crate::json_fields::nullable")]
    #[cfg_attr(test, schemars(with = "Option<f64>"))]
    pub confidence: f64,
    /// The smallest per-iteration value.
    #[serde(with = "crate::json_fields::nullable")]
    #[cfg_attr(test, schemars(with = "Option<f64>"))]
    pub min: f64,
    /// The largest per-iteration value.
    #[serde(with = "crate::json_fields::nullable")]
    #[cfg_attr(test, schemars(with = "Option<f64>"))]
    pub max: f64,
    /// The least-squares per-iteration cost from linear sampling ([`regression`]), when
    /// iteration counts were given (fitted to the samples within the outer fences).
    pub slope: Option<f64>,
    /// The R² of that fit.
    pub r_squared: Option<f64>,
    /// Tukey outlier counts of the per-iteration values.
    pub outliers: OutlierCounts,
    /// How many samples were left out of [`point`](Self::point) and its interval: the severe
    /// outliers, or none (see [`headline_samples`]).
    pub excluded: usize,
    /// How many rounds were left out of [`point`](Self::point) and its interval as disturbed:
    /// slower than the quiet rounds (see [`estimate_rounds`]). Absent in JSON when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub disturbed_rounds: usize,
    /// When the interval was widened by how far earlier runs of the same build strayed from
    /// each other ([`widen_by_runs`]): those runs and their spread. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs: Option<RunSpread>,
}

/// The spread of one counter's figure across recent runs of the same build, which
/// [`widen_by_runs`] widened an [`Estimate`]'s interval by.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct RunSpread {
    /// How many runs' figures, this run's included.
    pub runs: u32,
    /// The sample standard deviation of their natural logarithms (0.01: runs stray about 1%
    /// from each other).
    pub spread: f64,
}

/// Runs of the same build, this one included, that [`widen_by_runs`] needs before it widens
/// an interval: with fewer, the spread between runs is not measured.
pub const MIN_RUNS_FOR_SPREAD: usize = 3;

/// Widens `e`'s interval to hold `point * exp(+-t * s)`, where `s` is the standard deviation of
/// the logarithms of the figures of `earlier` runs of the same build and of this one, and `t`
/// Student's quantile at `e`'s confidence with one degree of freedom less than those runs:
/// the interval then claims no more certainty than repeated runs show. A run cannot see what
/// stays the same for as long as it lives (on this project's VM, a run's figure can sit a few
/// percent above or below the next one's for its whole life, while its rounds agree with each
/// other); earlier runs of the same code can. Needs at least [`MIN_RUNS_FOR_SPREAD`] runs with
/// positive figures; never narrows; records [`Estimate::runs`].
///
/// ```
/// use perfbench_analysis::stats::{estimate, widen_by_runs, StatsConfig};
///
/// // A run whose samples agree to within 0.2%, after runs that read 2% lower and higher.
/// let values: Vec<f64> = (0..50).map(|i| 100.0 + f64::from(i % 5) * 0.05).collect();
/// let mut e = estimate(&values, None, &StatsConfig::default()).unwrap();
/// let within = (e.ci_low, e.ci_high);
/// widen_by_runs(&mut e, &[98.1]); // one earlier run: not enough to tell
/// assert_eq!((e.ci_low, e.ci_high), within);
/// widen_by_runs(&mut e, &[98.1, 102.2]);
/// let runs = e.runs.unwrap();
/// assert_eq!(runs.runs, 3);
/// assert!(e.ci_low < 98.1 && e.ci_high > 102.2, "{:?}", (e.ci_low, e.ci_high));
/// ```
pub fn widen_by_runs(e: &mut Estimate, earlier: &[f64]) {
    let p = e.point;
    if !(p.is_finite() && p > 0.0) {
        return;
    }
    let logs: Vec<f64> = earlier
        .iter()
        .copied()
        .chain([p])
        .filter(|v| v.is_finite() && *v > 0.0)
        .map(f64::ln)
        .collect();
    let Some(s) = Sample::new(&logs).filter(|_| logs.len() >= MIN_RUNS_FOR_SPREAD) else {
        return;
    };
    let s = s.stddev();
    let t = dist::student_t_quantile_two_sided(e.confidence, logs.len() as f64 - 1.0);
    e.ci_low = e.ci_low.min(p * (-t * s).exp());
    e.ci_high = e.ci_high.max(p * (t * s).exp());
    e.runs = Some(RunSpread {
        runs: logs.len() as u32,
        spread: s,
    });
}

/// What [`Estimate`] reads from JSON: the fields as written, with `point` and `excluded`
/// optional because the first reports (perfbench 0.1.0 before commit 6eaf29e) did not have them.
#[derive(Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
struct EstimateFields {
    #[serde(default)]
    point: Option<f64>,
    #[serde(deserialize_with = "crate::json_fields::nullable::deserialize")]
    mean: f64,
    #[serde(deserialize_with = "crate::json_fields::nullable::deserialize")]
    median: f64,
    #[serde(deserialize_with = "crate::json_fields::nullable::deserialize")]
    stddev: f64,
    #[serde(deserialize_with = "crate::json_fields::nullable::deserialize")]
    mad: f64,
    #[serde(deserialize_with = "crate::json_fields::nullable::deserialize")]
    ci_low: f64,
    #[serde(deserialize_with = "crate::json_fields::nullable::deserialize")]
    ci_high: f64,
    #[serde(deserialize_with = "crate::json_fields::nullable::deserialize")]
    confidence: f64,
    #[serde(deserialize_with = "crate::json_fields::nullable::deserialize")]
    min: f64,
    #[serde(deserialize_with = "crate::json_fields::nullable::deserialize")]
    max: f64,
    #[serde(default)]
    slope: Option<f64>,
    #[serde(default)]
    r_squared: Option<f64>,
    #[serde(default)]
    outliers: OutlierCounts,
    #[serde(default)]
    excluded: usize,
    #[serde(default)]
    disturbed_rounds: usize,
    #[serde(default)]
    runs: Option<RunSpread>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl From<EstimateFields> for Estimate {
    /// A report without `point` had the slope (linear sampling) or the mean as its headline.
    fn from(f: EstimateFields) -> Self {
        Estimate {
            point: f.point.or(f.slope).unwrap_or(f.mean),
            mean: f.mean,
            median: f.median,
            stddev: f.stddev,
            mad: f.mad,
            ci_low: f.ci_low,
            ci_high: f.ci_high,
            confidence: f.confidence,
            min: f.min,
            max: f.max,
            slope: f.slope,
            r_squared: f.r_squared,
            outliers: f.outliers,
            excluded: f.excluded,
            disturbed_rounds: f.disturbed_rounds,
            runs: f.runs,
        }
    }
}

/// Summarises one counter's samples.
///
/// `values` holds one per-iteration value per sample. Pass `iterations` (the iteration count of
/// each sample) for linear sampling: the estimate then includes the least-squares
/// [`slope`](Estimate::slope), which is also the [`point`](Estimate::point) that
/// `ci_low`/`ci_high` bracket. Samples with zero iterations do not enter the fit; if no sample
/// has any, there is no slope and the point is the mean or the median ([`StatsConfig::center`]). Severe outliers are left out of the
/// point and its interval (see [`Estimate`]).
///
/// Non-finite values (NaN, infinities) are discarded, with their iteration counts. Returns
/// `None` when no finite value remains (including empty input) or when `iterations` has a
/// different length from `values`.
///
/// ```
/// use perfbench_analysis::stats::{estimate, StatsConfig};
///
/// let mut values: Vec<f64> = (0..99).map(|i| 9.0 + f64::from(i % 3)).collect(); // 9, 10, 11
/// values.push(1000.0); // one sample during which the benchmark was descheduled
/// let e = estimate(&values, None, &StatsConfig::default()).unwrap();
/// assert_eq!((e.point, e.excluded, e.max), (10.0, 1, 1000.0)); // left out of the headline only
///
/// // Linear sampling: totals of 5 per iteration plus noise; the point is the slope.
/// let iterations: Vec<u64> = (1..=10).map(|k| k * 100).collect();
/// let per_iteration: Vec<f64> = iterations.iter().map(|&n| 5.0 + 3.0 / n as f64).collect();
/// let e = estimate(&per_iteration, Some(&iterations), &StatsConfig::default()).unwrap();
/// assert!((e.point - 5.0).abs() < 0.01 && e.slope == Some(e.point));
/// assert!(estimate(&[f64::NAN], None, &StatsConfig::default()).is_none());
/// ```
pub fn estimate(values: &[f64], iterations: Option<&[u64]>, cfg: &StatsConfig) -> Option<Estimate> {
    if iterations.is_some_and(|iterations| iterations.len() != values.len()) {
        return None;
    }
    let kept: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    let sample = Sample::new(&kept)?;
    let percentiles = sample.percentiles();
    let tukey = Tukey::new(&percentiles);
    let used = within_fences(values, &percentiles, &tukey);
    // At least the samples between the quartiles remain.
    let used_values: Vec<f64> = used.iter().map(|&i| values[i]).collect();
    let used_sample = Sample::new(&used_values)?;
    let fit = iterations.and_then(|iterations| {
        let used_iterations: Vec<u64> = used.iter().map(|&i| iterations[i]).collect();
        regression::fit(&used_values, &used_iterations, cfg)
    });
    let (point, ci) = match fit {
        Some(fit) => (fit.slope, fit.ci),
        None => match cfg.center {
            Center::Mean => (used_sample.mean(), bootstrap::mean_ci(used_sample, cfg)),
            Center::Median => (used_sample.median(), bootstrap::median_ci(used_sample, cfg)),
        },
    };
    Some(Estimate {
        point,
        mean: sample.mean(),
        median: percentiles.median(),
        stddev: sample.stddev(),
        mad: percentiles.mad(),
        ci_low: ci.low,
        ci_high: ci.high,
        confidence: ci.confidence,
        min: percentiles.min(),
        max: percentiles.max(),
        slope: fit.map(|fit| fit.slope),
        r_squared: fit.map(|fit| fit.r_squared),
        outliers: tukey.count(&kept),
        excluded: kept.len() - used.len(),
        disturbed_rounds: 0,
        runs: None,
    })
}

/// The largest share of the samples that [`headline_samples`] leaves out: a tenth.
///
/// Severe outliers from interruptions are rare (a few in 100 samples here). When more than a
/// tenth of the samples lie beyond the outer fences, the machine changed regime during the run
/// (on this project's VM a neighbour can make the same loop 3x slower for seconds), no sample
/// is dropped, and the interval shows the instability.
pub const MAX_EXCLUDED_SHARE: f64 = 0.1;

/// The indices of the samples that enter a headline figure ([`Estimate::point`], and both sides
/// of [`compare()`]): the finite values, without the severe outliers (beyond Tukey's outer
/// fences) when the interquartile range is above 0 and they are at most
/// [`MAX_EXCLUDED_SHARE`] of the finite values.
///
/// ```
/// use perfbench_analysis::stats::headline_samples;
///
/// let mut values: Vec<f64> = (0..20).map(|i| 10.0 + f64::from(i % 4)).collect();
/// values[7] = 500.0;
/// let kept = headline_samples(&values);
/// assert_eq!(kept.len(), 19);
/// assert!(!kept.contains(&7));
/// assert_eq!(headline_samples(&[1.0, 1.0, 9.0]).len(), 3); // IQR 0: nothing is left out
/// ```
pub fn headline_samples(values: &[f64]) -> Vec<usize> {
    let finite: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    let Some(sample) = Sample::new(&finite) else {
        return Vec::new();
    };
    let percentiles = sample.percentiles();
    within_fences(values, &percentiles, &Tukey::new(&percentiles))
}

/// [`headline_samples`], given the percentiles of the finite values and their fences (which
/// [`estimate`] has already computed).
fn within_fences(values: &[f64], percentiles: &Percentiles, tukey: &Tukey) -> Vec<usize> {
    let finite: Vec<usize> = (0..values.len())
        .filter(|&i| values[i].is_finite())
        .collect();
    if percentiles.iqr() <= 0.0 {
        return finite;
    }
    let inside: Vec<usize> = finite
        .iter()
        .copied()
        .filter(|&i| !tukey.classify(values[i]).is_severe())
        .collect();
    let excluded = finite.len() - inside.len();
    if excluded as f64 <= MAX_EXCLUDED_SHARE * finite.len() as f64 {
        inside
    } else {
        finite
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_that_drift_widen_the_interval_to_their_own() {
        let cfg = StatsConfig::default();
        // Four rounds of 25 samples, each tight around its own level: 100, 102, 98, 104.
        let mut values = Vec::new();
        for (r, level) in [100.0, 102.0, 98.0, 104.0].iter().enumerate() {
            values.extend((0..25).map(|i| level + 0.01 * ((i * 7 + r) % 5) as f64));
        }
        let plain = estimate(&values, None, &cfg).unwrap();
        let rounds = estimate_rounds(&values, None, &[25; 4], &cfg).unwrap();
        assert_eq!(rounds.point, plain.point);
        assert!(plain.ci_high - plain.ci_low < 2.0, "{plain:?}");
        // The round means, 98 to 104, put the mean anywhere from about 99 to 103.
        assert!(
            rounds.ci_low < 100.0 && rounds.ci_high > 102.0,
            "{rounds:?}"
        );
        assert!(rounds.ci_low <= plain.ci_low && rounds.ci_high >= plain.ci_high);
        // Fewer than 3 rounds, or rounds that do not add up: the samples' interval.
        assert_eq!(estimate_rounds(&values, None, &[50, 50], &cfg), Some(plain));
        assert_eq!(estimate_rounds(&values, None, &[25; 3], &cfg), Some(plain));
        // Rounds that agree leave it as it was, up to the bootstrap of their means.
        let flat = vec![7.0; 40];
        let e = estimate_rounds(&flat, None, &[10; 4], &cfg).unwrap();
        assert_eq!((e.ci_low, e.ci_high), (7.0, 7.0));
    }
    use rng::Rng;

    fn quick() -> StatsConfig {
        StatsConfig {
            resamples: 200,
            ..StatsConfig::default()
        }
    }

    #[test]
    fn empty_and_invalid_input() {
        assert_eq!(estimate(&[], None, &quick()), None);
        assert_eq!(estimate(&[f64::NAN, f64::INFINITY], None, &quick()), None);
        assert_eq!(estimate(&[1.0, 2.0], Some(&[1]), &quick()), None);
        assert_eq!(estimate(&[], Some(&[]), &quick()), None);
    }

    #[test]
    fn constant_counts() {
        for iterations in [None, Some(&[10u64, 20, 30, 40, 50][..])] {
            let e = estimate(&[1234.5; 5], iterations, &StatsConfig::default()).unwrap();
            assert_eq!(
                (e.mean, e.median, e.min, e.max),
                (1234.5, 1234.5, 1234.5, 1234.5)
            );
            assert_eq!((e.stddev, e.mad), (0.0, 0.0));
            assert_eq!((e.ci_low, e.ci_high, e.confidence), (1234.5, 1234.5, 0.95));
            assert_eq!(e.slope, iterations.map(|_| 1234.5));
            assert_eq!(e.outliers.normal, 5);
        }
    }

    #[test]
    fn single_value() {
        let e = estimate(&[7.0], None, &quick()).unwrap();
        assert_eq!(
            (e.mean, e.stddev, e.ci_low, e.ci_high),
            (7.0, 0.0, 7.0, 7.0)
        );
        assert_eq!(e.outliers.total(), 1);
    }

    #[test]
    fn known_values_and_nan_dropping() {
        let values = [2.0, 4.0, f64::NAN, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
        let e = estimate(&values, None, &quick()).unwrap();
        assert_eq!((e.mean, e.median, e.min, e.max), (5.0, 4.5, 2.0, 9.0));
        assert!((e.stddev - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        assert!((e.mad - 0.5 * univariate::MAD_SCALE).abs() < 1e-12);
        assert!(e.ci_low < 5.0 && 5.0 < e.ci_high);
        assert_eq!((e.slope, e.r_squared), (None, None));
        assert_eq!(e.outliers.total(), 8);
    }

    #[test]
    fn linear_sampling_reports_the_slope_interval() {
        // The NaN sample is dropped with its 100 iterations; the zero-iteration one leaves
        // the fit but stays in the per-iteration statistics.
        let values = [10.0, 10.5, f64::NAN, 9.5, 10.0, 50.0];
        let iterations = [1, 2, 100, 3, 4, 0];
        let e = estimate(&values, Some(&iterations), &quick()).unwrap();
        let slope = regression::slope(&[10.0, 10.5, 9.5, 10.0], &[1, 2, 3, 4]).unwrap();
        assert_eq!(e.slope, Some(slope));
        assert!(e.ci_low <= slope && slope <= e.ci_high);
        assert_eq!(e.max, 50.0);
        assert_eq!(e.outliers.total(), 5);
        // No iteration anywhere: no slope, interval of the mean.
        let none = estimate(&[1.0, 2.0], Some(&[0, 0]), &quick()).unwrap();
        assert_eq!(none.slope, None);
    }

    #[test]
    fn severe_outliers_stay_out_of_the_point_and_its_interval() {
        // 95 samples near 100 and 5 descheduled ones 10x longer.
        let mut values: Vec<f64> = (0..95).map(|i| 100.0 + f64::from(i % 5) * 0.1).collect();
        values.extend([1000.0; 5]);
        let e = estimate(&values, None, &quick()).unwrap();
        assert_eq!((e.excluded, e.outliers.high_severe), (5, 5));
        assert!((e.point - 100.2).abs() < 1e-9, "{e:?}");
        assert!(e.ci_low <= e.point && e.point <= e.ci_high, "{e:?}");
        assert!(
            e.ci_high < 100.3,
            "the spikes do not widen the interval: {e:?}"
        );
        // Everything else still describes every sample.
        assert!((e.mean - 145.19).abs() < 1e-9, "{e:?}");
        assert_eq!(e.max, 1000.0);
        // Mild outliers stay in.
        let mut mild = values[..95].to_vec();
        mild.push(100.7);
        let e = estimate(&mild, None, &quick()).unwrap();
        assert_eq!((e.excluded, e.outliers.high_mild), (0, 1));
        assert_eq!(e.point, e.mean);
    }

    #[test]
    fn a_second_regime_is_not_left_out() {
        // 80 samples near 560 and 20 near 1640: a neighbour slowed the machine for a fifth of
        // the run. That is no interruption: everything stays in, and the interval is wide.
        let mut values: Vec<f64> = (0..80).map(|i| 560.0 + f64::from(i % 4)).collect();
        values.extend((0..20).map(|i| 1640.0 + f64::from(i % 4)));
        let e = estimate(&values, None, &quick()).unwrap();
        assert_eq!(e.outliers.high_severe, 20);
        assert_eq!(e.excluded, 0);
        assert_eq!(e.point, e.mean);
        assert!(e.ci_high - e.ci_low > 100.0, "{e:?}");
        // Ten in 100 is still an interruption.
        let mut values: Vec<f64> = (0..90).map(|i| 560.0 + f64::from(i % 4)).collect();
        values.extend([5000.0; 10]);
        assert_eq!(estimate(&values, None, &quick()).unwrap().excluded, 10);
        assert_eq!(headline_samples(&values).len(), 90);
        assert_eq!(headline_samples(&[f64::NAN, 1.0]), vec![1]);
        assert!(headline_samples(&[]).is_empty());
    }

    #[test]
    fn an_almost_constant_count_keeps_every_sample() {
        // With an interquartile range of 0 the fences collapse onto the quartiles; a rare real
        // event (two page faults in 100 samples) must still count.
        let mut values = vec![0.0; 98];
        values.extend([1.0, 1.0]);
        let e = estimate(&values, None, &quick()).unwrap();
        assert_eq!(e.excluded, 0);
        assert_eq!(e.outliers.high_severe, 2);
        assert!((e.point - 0.02).abs() < 1e-12 && e.point == e.mean, "{e:?}");
        assert!(e.ci_high > 0.0);
    }

    #[test]
    fn linear_sampling_fits_without_the_severe_outliers() {
        let iterations: Vec<u64> = (1..=20).collect();
        let mut values: Vec<f64> = (0..20).map(|i| 10.0 + f64::from(i % 3) * 0.1).collect();
        values[12] = 100.0;
        let e = estimate(&values, Some(&iterations), &quick()).unwrap();
        assert_eq!(e.excluded, 1);
        let mut kept_values = values.clone();
        let mut kept_iterations = iterations.clone();
        kept_values.remove(12);
        kept_iterations.remove(12);
        let slope = regression::slope(&kept_values, &kept_iterations).unwrap();
        assert_eq!((e.point, e.slope), (slope, Some(slope)));
        assert!(e.ci_high < 11.0, "{e:?}");
    }

    #[test]
    fn properties_on_random_data() {
        let mut rng = Rng::new(2024);
        for i in 0..200 {
            let data = rng.data_set(30);
            let linear: Vec<u64> = (1..=data.len() as u64).collect();
            let iterations = (i % 2 == 0).then_some(&linear[..]);
            let cfg = StatsConfig {
                resamples: 50,
                seed: i,
                ..StatsConfig::default()
            };
            let e = estimate(&data, iterations, &cfg).unwrap();
            assert!(e.ci_low <= e.ci_high, "{e:?}");
            assert!(e.min <= e.median && e.median <= e.max, "{e:?}");
            assert!(e.stddev >= 0.0 && e.mad >= 0.0);
            assert_eq!(e.outliers.total(), data.len());
            let fields = [
                e.mean, e.median, e.stddev, e.mad, e.ci_low, e.ci_high, e.min, e.max,
            ];
            assert!(fields.iter().all(|x| x.is_finite()), "{e:?}");

            let c = rng.uniform(-100.0, 100.0);
            let shifted: Vec<f64> = data.iter().map(|x| x + c).collect();
            let s = estimate(&shifted, iterations, &cfg).unwrap();
            let tol = 1e-9 * (1.0 + e.max.abs() + c.abs());
            assert!((s.mean - (e.mean + c)).abs() <= tol);
            assert!((s.median - (e.median + c)).abs() <= tol);
            assert!((s.stddev - e.stddev).abs() <= tol);
            assert!((s.mad - e.mad).abs() <= tol);
            // The point moves with the data (a slope is not shift-invariant), and outliers
            // cannot be more than half of the samples.
            if iterations.is_none() {
                assert!((s.point - (e.point + c)).abs() <= tol);
                assert!(e.min <= e.point && e.point <= e.max, "{e:?}");
            }
            assert_eq!(s.excluded, e.excluded);
            assert!(2 * e.excluded <= data.len(), "{e:?}");
        }
    }
}
