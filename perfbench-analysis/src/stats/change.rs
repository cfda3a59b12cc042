//! Change detection: did a counter regress, improve, or stay within noise? This module holds the
//! vocabulary ([`Change`], [`Verdict`], [`CounterKind`] and its default thresholds,
//! [`CompareConfig`]) and [`compare`], the rule for runs **without rounds**; runs measured in
//! rounds are judged by [`compare_rounds`](super::compare_rounds), which falls back to
//! [`compare`] when a side has fewer than three rounds. Larger values are worse: every counter is
//! a cost.
//!
//! [`compare`] needs both: the p-value of Welch's t-test on the two means ([`ttest`]) below
//! [`CompareConfig::significance`], and the whole bootstrap interval of the ratio of means beyond
//! `1 ± threshold` ([`CompareConfig::for_counter`]). Non-finite values and each side's severe
//! outliers are dropped first. An empty side gives `ratio: None` and [`Verdict::Unchanged`]; a
//! single value or equal constant sides give p = 1, unequal constant ones p = 0; a baseline mean
//! `<= 0` gives no ratio, and a significant difference is classified by its sign alone; a
//! bootstrap resample of the baseline that is not positive leaves the ratio without an interval,
//! and the point ratio is held against the threshold. The guide's docs/measuring.md ("The
//! verdict") explains why.

use super::bootstrap::{self, ConfidenceInterval};
use super::ttest;
use super::univariate::{mean_of, Sample};
use super::{DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, DEFAULT_SEED};
use serde_derive::{Deserialize, Serialize};
use std::fmt;

/// The outcome of a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Significantly larger, by more than the threshold.
    Regressed,
    /// Significantly smaller, by more than the threshold.
    Improved,
    /// Not significant, or within the threshold.
    Unchanged,
}

impl Verdict {
    /// `"regressed"`, `"improved"` or `"unchanged"`, as the JSON report spells it.
    ///
    /// ```
    /// use perfbench_analysis::stats::Verdict;
    ///
    /// assert_eq!(Verdict::Regressed.as_str(), "regressed");
    /// assert_eq!(Verdict::Unchanged.to_string(), "unchanged");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Regressed => "regressed",
            Verdict::Improved => "improved",
            Verdict::Unchanged => "unchanged",
        }
    }

    /// Whether the figure changed: regressed or improved.
    ///
    /// ```
    /// use perfbench_analysis::stats::Verdict;
    ///
    /// assert!(Verdict::Regressed.is_change() && Verdict::Improved.is_change());
    /// assert!(!Verdict::Unchanged.is_change());
    /// ```
    pub fn is_change(self) -> bool {
        matches!(self, Verdict::Regressed | Verdict::Improved)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How much a counter is expected to move between two runs of unchanged code, which sets its
/// default threshold ([`CounterKind::threshold`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CounterKind {
    /// Counts fixed by the program: `instructions`, `branches`, `*-instructions`,
    /// `inst_retired*`, `br_inst_retired*`, `br_retired`, the fault counters
    /// (`page-faults`, `minor-faults`, ...) and the allocation counters (`alloc-count`,
    /// `alloc-bytes`, `dealloc-count`, `realloc-count`, `alloc-peak-bytes`).
    Exact,
    /// Core clock cycles: `cycles`, `cpu-cycles`, `ref-cycles`, `stalled-cycles-*`, anything
    /// else with `cycles` in its name, and `cpu_clk_unhalted*`.
    Cycles,
    /// Time: `wall-time`, `task-clock`, `cpu-clock`, `duration_time`, and names ending in
    /// `-clock`, `-time` or `_time`.
    Time,
    /// What the rest of the machine does to the benchmark, not what its code does:
    /// `context-switches` (`cs`), `cpu-migrations` (`migrations`) and `cgroup-switches`.
    /// Reported, never flagged by default (see [`CounterKind::threshold`]).
    Environment,
    /// Everything else: cache and branch misses, references, raw events.
    Other,
}

impl CounterKind {
    /// The kind of a counter, from its perf-style name. PMU prefixes (`cpu_core/instructions/`)
    /// and modifiers (`cycles:u`) are ignored; matching is case-insensitive; unknown names and
    /// raw events (`r01c2`, `cpu/event=0x3c/`) are [`CounterKind::Other`].
    ///
    /// ```
    /// use perfbench_analysis::stats::CounterKind;
    ///
    /// assert_eq!(CounterKind::of("cpu_core/instructions/u"), CounterKind::Exact);
    /// assert_eq!(CounterKind::of("alloc-count"), CounterKind::Exact);
    /// assert_eq!(CounterKind::of("cycles:u"), CounterKind::Cycles);
    /// assert_eq!(CounterKind::of("wall-time"), CounterKind::Time);
    /// assert_eq!(CounterKind::of("cs"), CounterKind::Environment);
    /// assert_eq!(CounterKind::of("L1-dcache-load-misses"), CounterKind::Other);
    /// ```
    pub fn of(name: &str) -> Self {
        let name = event_name(name);
        let name = name.as_str();
        let exact = matches!(
            name,
            "instructions"
                | "branches"
                | "br_retired"
                | "page-faults"
                | "faults"
                | "minor-faults"
                | "major-faults"
                | "alignment-faults"
                | "emulation-faults"
                | "alloc-count"
                | "alloc-bytes"
                | "dealloc-count"
                | "realloc-count"
                | "alloc-peak-bytes"
        ) || name.ends_with("-instructions")
            || name.starts_with("inst_retired")
            || name.starts_with("br_inst_retired");
        if exact {
            CounterKind::Exact
        } else if matches!(
            name,
            "context-switches" | "cs" | "cpu-migrations" | "migrations" | "cgroup-switches"
        ) {
            CounterKind::Environment
        } else if name.contains("cycles") || name.starts_with("cpu_clk_unhalted") {
            CounterKind::Cycles
        } else if matches!(name, "wall-time" | "duration_time")
            || name.ends_with("-clock")
            || name.ends_with("-time")
            || name.ends_with("_time")
        {
            CounterKind::Time
        } else {
            CounterKind::Other
        }
    }

    /// The default relative threshold of runs measured in rounds (see
    /// [`CompareConfig::threshold`] and [`compare_rounds`](super::compare_rounds)), which
    /// grows with the spread of a benchmark's rounds:
    ///
    /// - [`Exact`](Self::Exact): 0.5%; and a change of one count per iteration counts at any
    ///   size ([`CompareConfig::min_step`]). Identical counts never move.
    /// - [`Cycles`](Self::Cycles) and [`Time`](Self::Time): 8%. The floor of a steady
    ///   computation repeated within 1% between neighbouring runs here, but drifted by 5% over
    ///   a quarter of an hour: at 5%, 4% of the pairs of unchanged runs were flagged, at 8%
    ///   none. A benchmark whose rounds spread more gets a wider threshold from its own rounds
    ///   ([`CompareConfig::noise_factor`]).
    /// - [`Environment`](Self::Environment): infinite, so never flagged unless a threshold is
    ///   given for the counter. These count the neighbours and the scheduler: on this project's
    ///   shared VM an unchanged benchmark's context-switch rate (a few per 10,000 iterations)
    ///   moved between 0.03x and 4.5x from one run to the next.
    /// - [`Other`](Self::Other): 10%. Misses depend on what else runs.
    ///
    /// ```
    /// use perfbench_analysis::stats::CounterKind;
    ///
    /// assert_eq!(CounterKind::of("instructions").threshold(), 0.005);
    /// assert_eq!(CounterKind::of("wall-time").threshold(), 0.08);
    /// assert!(CounterKind::of("context-switches").threshold().is_infinite());
    /// ```
    pub fn threshold(self) -> f64 {
        match self {
            CounterKind::Exact => 0.005,
            CounterKind::Cycles | CounterKind::Time => 0.08,
            CounterKind::Environment => f64::INFINITY,
            CounterKind::Other => 0.10,
        }
    }

    /// The default threshold of a paired run ([`compare_paired`](super::compare_paired), see
    /// [`CompareConfig::paired_threshold`]): the two builds alternate sample by sample, so the
    /// drift of the machine that the other thresholds absorb cancels.
    ///
    /// - [`Exact`](Self::Exact): 0.5%, and one count per iteration, as always.
    /// - [`Cycles`](Self::Cycles) and [`Time`](Self::Time): 0.5%. Over 20 rounds of fresh
    ///   processes a paired run's interval of the change in time was about ±0.2% wide on the
    ///   project's shared VM, and bit-identical builds were never flagged at 0.5% (60 runs):
    ///   a threshold of 1% hid most 1% changes whose whole interval lay above 1.007.
    /// - [`Environment`](Self::Environment): infinite.
    /// - [`Other`](Self::Other): 5%.
    ///
    /// ```
    /// use perfbench_analysis::stats::CounterKind;
    ///
    /// assert_eq!(CounterKind::Time.paired_threshold(), 0.005);
    /// assert_eq!(CounterKind::Other.paired_threshold(), 0.05);
    /// ```
    pub fn paired_threshold(self) -> f64 {
        match self {
            CounterKind::Exact | CounterKind::Cycles | CounterKind::Time => 0.005,
            CounterKind::Environment => f64::INFINITY,
            CounterKind::Other => 0.05,
        }
    }

    /// The default threshold of [`compare`] on samples, for reports without rounds (see
    /// [`CompareConfig::samples_threshold`]):
    ///
    /// - [`Exact`](Self::Exact): 0.5%, as with rounds.
    /// - [`Cycles`](Self::Cycles): 10%.
    /// - [`Time`](Self::Time): 25%. Samples cannot see the drift between runs: on this
    ///   project's shared VM the same code measured 34 to 45 us from run to run (1.32x). In a
    ///   simulation of that (run means uniform within +-14%, 5% lognormal noise, 2% preemption
    ///   spikes, 30 samples per run, 1,000 pairs) thresholds of 10/15/20/25% gave
    ///   28/12/3.8/0.7% false alarms.
    /// - [`Environment`](Self::Environment): infinite.
    /// - [`Other`](Self::Other): 10%.
    ///
    /// ```
    /// use perfbench_analysis::stats::CounterKind;
    ///
    /// assert_eq!(CounterKind::Time.samples_threshold(), 0.25);
    /// assert_eq!(CounterKind::Exact.samples_threshold(), 0.005);
    /// ```
    pub fn samples_threshold(self) -> f64 {
        match self {
            CounterKind::Exact => 0.005,
            CounterKind::Cycles => 0.10,
            CounterKind::Time => 0.25,
            CounterKind::Environment => f64::INFINITY,
            CounterKind::Other => 0.10,
        }
    }
}

/// The bare event name of a perf-style counter name, lower case: `cpu_core/Instructions/u`
/// -> `instructions`, `cycles:u` -> `cycles`, `cpu/event=0x3c,umask=0/` -> `event=0x3c`.
fn event_name(name: &str) -> String {
    let lower = name.trim().to_ascii_lowercase();
    let inner = match lower.split('/').nth(1) {
        Some(inner) if !inner.is_empty() => inner,
        _ => lower.as_str(),
    };
    let inner = inner.split(',').next().unwrap_or_default();
    inner.split(':').next().unwrap_or_default().to_string()
}

/// Settings of [`compare`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompareConfig {
    /// The smallest relative change that counts (0.05 means 5%), with rounds
    /// ([`compare_rounds`](super::compare_rounds)): regressed only if the floor ratio lies
    /// above `1 + threshold` (or the threshold grown with the rounds' spread), improved only if
    /// it lies below `1 - threshold`. A NaN or infinite threshold never flags anything.
    pub threshold: f64,
    /// The threshold of [`compare`] on samples (no rounds): regressed only if the whole
    /// confidence interval of the ratio of means lies above `1 + samples_threshold`, improved
    /// only if below `1 - samples_threshold`. Wider by default than `threshold` for time,
    /// since samples cannot see the drift of the machine ([`CounterKind::samples_threshold`]).
    pub samples_threshold: f64,
    /// The threshold of a paired run ([`compare_paired`](super::compare_paired)): regressed
    /// only if the whole interval of the paired ratio lies above `1 + paired_threshold`
    /// ([`CounterKind::paired_threshold`]).
    pub paired_threshold: f64,
    /// The p-value must be below this for any verdict but unchanged (e.g. 0.05). A NaN
    /// significance never flags anything.
    pub significance: f64,
    /// The confidence level of the ratio's interval, in `[0, 1]` (NaN means 0.95).
    pub confidence: f64,
    /// Bootstrap resamples for the ratio's interval; 0 gives the point ratio as the interval.
    pub resamples: usize,
    /// Seed of the bootstrap generator; the same inputs and seed give the same result.
    pub seed: u64,
    /// With rounds ([`compare_rounds`](super::compare_rounds)): the threshold grows to this
    /// many times the robust spread of the round figures, for benchmarks whose rounds show
    /// that they move more than the threshold allows for. Used by [`Spread::Level`] (the
    /// default) and [`Spread::Iqr`]; [`Spread::LowQuarter`] carries its own factor.
    pub noise_factor: f64,
    /// With rounds: how the spread of the round figures that grows the threshold is measured.
    /// [`Spread::Level`] by default.
    pub spread: Spread,
    /// With rounds: a difference of the floors of at least this much per iteration is a
    /// change whatever the threshold (0.5 for exact counters: one more instruction per
    /// iteration; infinite, so never, for the others).
    pub min_step: f64,
}

impl Default for CompareConfig {
    /// The settings for [`CounterKind::Other`]: threshold 10%, significance 0.05, confidence
    /// 0.95, [`DEFAULT_RESAMPLES`], [`DEFAULT_SEED`].
    fn default() -> Self {
        CompareConfig::for_kind(CounterKind::Other)
    }
}

impl CompareConfig {
    /// The default settings for a counter, by its perf-style name (see [`CounterKind::of`] and
    /// [`CounterKind::threshold`]).
    ///
    /// ```
    /// use perfbench_analysis::stats::CompareConfig;
    ///
    /// let cfg = CompareConfig::for_counter("instructions");
    /// assert_eq!((cfg.threshold, cfg.min_step), (0.005, 0.5));
    /// let time = CompareConfig::for_counter("task-clock");
    /// assert!(time.min_step.is_infinite());
    /// ```
    pub fn for_counter(name: &str) -> Self {
        CompareConfig::for_kind(CounterKind::of(name))
    }

    /// The default settings for a kind of counter: its threshold, significance 0.05,
    /// confidence 0.95, [`DEFAULT_RESAMPLES`], [`DEFAULT_SEED`].
    ///
    /// ```
    /// use perfbench_analysis::stats::{CompareConfig, CounterKind};
    ///
    /// let cfg = CompareConfig { threshold: 0.02, ..CompareConfig::for_kind(CounterKind::Cycles) };
    /// assert_eq!((cfg.threshold, cfg.significance), (0.02, 0.05));
    /// ```
    pub fn for_kind(kind: CounterKind) -> Self {
        CompareConfig {
            threshold: kind.threshold(),
            samples_threshold: kind.samples_threshold(),
            paired_threshold: kind.paired_threshold(),
            significance: 0.05,
            confidence: DEFAULT_CONFIDENCE,
            resamples: DEFAULT_RESAMPLES,
            seed: DEFAULT_SEED,
            noise_factor: NOISE_FACTOR,
            spread: Spread::default(),
            min_step: if kind == CounterKind::Exact {
                0.5
            } else {
                f64::INFINITY
            },
        }
    }
}

/// The default [`CompareConfig::noise_factor`].
pub const NOISE_FACTOR: f64 = 0.5;

/// How [`compare_rounds`](super::compare_rounds) measures the spread of each run's round
/// figures ([`CompareConfig::spread`]). Each measure is taken on the logarithms of one run's
/// round figures, pooled over the two runs as the root mean square, and multiplied by a
/// factor; the threshold grows to that product when it is larger than
/// [`CompareConfig::threshold`].
///
/// They read different things. The interquartile range of all the rounds is how far the middle
/// half of a run's rounds spread: wide when many rounds were disturbed, whatever the floor did.
/// The default reads it on the floor's level alone: where a run's rounds sit at two levels
/// (its floor's, and one twice as slow a third to a half of the time, as a memory scan's did on
/// the project's VM), the IQR of all of them spans both and grows an 8% threshold to 25-35%,
/// while the rounds at the floor repeat to a percent or two. The lower quarter (25th percentile
/// minus the smallest) is how far above its floor a quarter of the run's rounds already were.
/// The guide (docs/validation.md, "How often the verdict is right here" and "The floor's
/// level") sets them side by side on synthetic and on measured runs.
///
/// ```
/// use perfbench_analysis::stats::{compare_rounds, CompareConfig, Spread, Verdict};
///
/// // A baseline whose rounds came down to its floor once and otherwise sat 15% higher, and a
/// // new run 9% above that floor in every round.
/// let base: [&[f64]; 6] = [&[100.0], &[115.0], &[115.5], &[116.0], &[115.0], &[115.2]];
/// let new: [&[f64]; 6] = [&[109.0], &[109.2], &[109.1], &[109.3], &[109.0], &[109.4]];
/// let level = CompareConfig::for_counter("wall-time");
/// assert_eq!(level.spread, Spread::Level); // the default
/// let low = CompareConfig { spread: Spread::low_quarter(), ..level };
/// // One round is fewer than a quarter: the level is all of them, whose middle rounds agree.
/// // The threshold stays 8%, and 9% is a regression.
/// let by_level = compare_rounds(&base, &new, &level);
/// assert_eq!((by_level.threshold, by_level.verdict), (0.08, Verdict::Regressed));
/// // A quarter of the baseline's rounds sat 14% above its floor: the threshold grows to 9.9%.
/// let by_low = compare_rounds(&base, &new, &low);
/// assert!(by_low.threshold > 0.09 && by_low.verdict == Verdict::Unchanged);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Spread {
    /// [`CompareConfig::noise_factor`] (0.5 by default) times the interquartile range of the
    /// ln round figures.
    Iqr,
    /// `factor` times the lower quarter of the ln round figures: their 25th percentile minus
    /// their smallest. [`Spread::low_quarter`] gives factor [`LOW_QUARTER_FACTOR`] (1).
    ///
    /// Measured on this project's VM (docs/validation.md, "How often the verdict is right here"), it
    /// catches more where many rounds were disturbed but the floor came back round after
    /// round, and it false-alarms where a run's floor never came down while its rounds
    /// wandered (the IQR sees that wandering; the lower quarter sits on the floor): 14 of 110
    /// unchanged pairs of a memory scan in one set of runs, none with the IQR. Hence not the
    /// default.
    LowQuarter {
        /// The multiple of the pooled lower quarter that the threshold grows to.
        factor: f64,
    },
    /// [`CompareConfig::noise_factor`] times the interquartile range of the floor's level
    /// alone: the sorted ln round figures up to the first step between neighbours of more than
    /// 5%, when at least a quarter of the rounds (and three) are below it; the IQR of all of
    /// them otherwise. A run whose rounds sit at two levels, its floor's and one far above,
    /// reads the spread of the floor's level, where the IQR would span both. The default.
    #[default]
    Level,
}

/// The factor of [`Spread::low_quarter`].
pub const LOW_QUARTER_FACTOR: f64 = 1.0;

impl Spread {
    /// [`Spread::LowQuarter`] with factor [`LOW_QUARTER_FACTOR`].
    ///
    /// ```
    /// use perfbench_analysis::stats::Spread;
    ///
    /// assert_eq!(Spread::low_quarter(), Spread::LowQuarter { factor: 1.0 });
    /// ```
    pub const fn low_quarter() -> Self {
        Spread::LowQuarter {
            factor: LOW_QUARTER_FACTOR,
        }
    }
}

/// How the two sides of a [`Change`] were measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// Two runs, one after the other (a baseline saved earlier and a new run): [`compare`].
    #[default]
    Separate,
    /// The two builds measured alternately in one run.
    Paired,
}

/// How a counter changed from a baseline run to a new run.
///
/// In JSON (the `change` object of a report counter and of `perfbench compare --format json`)
/// the fields keep these names; `ratio`, `ci_low` and `ci_high` are `null` when undefined.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Change {
    /// The baseline's figure: its floor (the smallest round figure) when both runs have
    /// rounds ([`compare_rounds`](super::compare_rounds)), else the mean of its values without
    /// severe outliers (0 when the baseline has no finite value).
    #[serde(with = "crate::json_fields::nullable")]
    #[cfg_attr(test, schemars(with = "Option<f64>"))]
    pub baseline: f64,
    /// new / baseline: with rounds, the ratio of the floors; else `mean(new) /
    /// mean(baseline)`. `None` when it is undefined (a figure not positive, or a side empty).
    pub ratio: Option<f64>,
    /// The lower bound of the ratio's confidence interval, a percentile bootstrap with both
    /// runs resampled independently: with rounds, of the floor ratio over rounds; else of the
    /// ratio of means over samples. `None` when the ratio is undefined for the data or for any
    /// resample.
    pub ci_low: Option<f64>,
    /// The upper bound of that interval.
    pub ci_high: Option<f64>,
    /// The two-sided p-value: with rounds, the Mann-Whitney test's on the round figures (1
    /// when all are tied); else Welch's t-test's on the means (1 when a side has fewer than
    /// two values).
    #[serde(with = "crate::json_fields::nullable")]
    #[cfg_attr(test, schemars(with = "Option<f64>"))]
    pub p_value: f64,
    /// The relative threshold the interval was held against: [`CompareConfig::threshold`],
    /// grown with the spread of the rounds when they are compared
    /// ([`CompareConfig::noise_factor`]); `null` in JSON for a counter that is never flagged
    /// (infinite).
    #[serde(with = "crate::json_fields::nullable")]
    #[cfg_attr(test, schemars(with = "Option<f64>"))]
    pub threshold: f64,
    /// The verdict, see the [module documentation](self).
    pub verdict: Verdict,
    /// How the two sides were measured.
    #[serde(default)]
    pub method: Method,
}

/// Compares a new run of a counter with a baseline run (per-iteration values, one per sample).
/// See the [module documentation](self) for the rule and for degenerate input.
///
/// ```
/// use perfbench_analysis::stats::{compare, CompareConfig, Method, Verdict};
///
/// let base: Vec<f64> = (0..30).map(|i| 100.0 + f64::from(i % 3)).collect();
/// let slower: Vec<f64> = base.iter().map(|x| x * 1.5).collect();
/// let cfg = CompareConfig::for_counter("wall-time");
/// let change = compare(&base, &slower, &cfg);
/// assert_eq!((change.verdict, change.method), (Verdict::Regressed, Method::Separate));
/// assert!((change.ratio.unwrap() - 1.5).abs() < 1e-9);
/// assert_eq!(compare(&base, &base, &cfg).verdict, Verdict::Unchanged);
/// ```
pub fn compare(base: &[f64], new: &[f64], cfg: &CompareConfig) -> Change {
    // The samples each side's headline figure uses: finite, severe outliers left out.
    let headline =
        |v: &[f64]| -> Vec<f64> { super::headline_samples(v).iter().map(|&i| v[i]).collect() };
    let (base, new) = (headline(base), headline(new));
    let (Some(base), Some(new)) = (Sample::new(&base), Sample::new(&new)) else {
        return Change {
            baseline: Sample::new(&base).map_or(0.0, |s| s.mean()),
            ratio: None,
            ci_low: None,
            ci_high: None,
            p_value: 1.0,
            threshold: cfg.threshold,
            verdict: Verdict::Unchanged,
            method: Method::Separate,
        };
    };
    let (base_mean, new_mean) = (base.mean(), new.mean());
    let p_value = ttest::welch(base, new).map_or(1.0, |w| w.p_value);
    let ratio = Some(new_mean / base_mean).filter(|r| base_mean > 0.0 && r.is_finite());
    let ci = ratio.and_then(|ratio| ratio_ci(base, new, ratio, cfg));

    let upper = 1.0 + cfg.threshold;
    let lower = 1.0 - cfg.threshold;
    // False for a NaN significance, so NaN never flags.
    let significant = p_value < cfg.significance;
    let verdict = if !significant {
        Verdict::Unchanged
    } else if let Some((low, high)) = ci.map(|ci| (ci.low, ci.high)).or(ratio.map(|r| (r, r))) {
        if low > upper {
            Verdict::Regressed
        } else if high < lower {
            Verdict::Improved
        } else {
            Verdict::Unchanged
        }
    } else if cfg.threshold.is_finite() && new_mean > base_mean {
        Verdict::Regressed
    } else if cfg.threshold.is_finite() && new_mean < base_mean {
        Verdict::Improved
    } else {
        Verdict::Unchanged
    };
    Change {
        baseline: base_mean,
        ratio,
        ci_low: ci.map(|ci| ci.low),
        ci_high: ci.map(|ci| ci.high),
        p_value,
        threshold: cfg.threshold,
        verdict,
        method: Method::Separate,
    }
}

/// The bootstrap interval of `mean(new*) / mean(base*)`, or `None` if some resampled baseline
/// mean is not positive (the ratio is then unbounded).
fn ratio_ci(
    base: Sample<'_>,
    new: Sample<'_>,
    ratio: f64,
    cfg: &CompareConfig,
) -> Option<ConfidenceInterval> {
    let mut undefined = false;
    let dist = bootstrap::two_sample_distribution(base, new, cfg.resamples, cfg.seed, |b, n| {
        let denominator = mean_of(b);
        undefined |= denominator <= 0.0;
        mean_of(n) / denominator
    });
    if undefined {
        return None;
    }
    Some(
        ConfidenceInterval::from_distribution(dist, cfg.confidence)
            .unwrap_or_else(|| ConfidenceInterval::point(ratio, cfg.confidence)),
    )
}

#[cfg(test)]
mod tests;
