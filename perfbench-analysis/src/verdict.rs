//! How one counter changed between two runs, and the thresholds that judge it: what a
//! benchmark run does for each counter when it is compared with the previous run or a baseline
//! (`--baseline`, `--threshold`, `--noise-threshold`).
//!
//! [`counter_change`] checks that the two sides can be compared (same unit, both counted or
//! both simulated, finite samples) and judges them with [`stats::compare_rounds`]: a regression
//! needs a significant difference whose whole interval lies beyond the counter's threshold (see
//! [`crate::stats::change`] for the rule and [`Settings`]
//! for the thresholds).
//!
//! Comparing whole runs file by file (`perfbench compare BASE NEW`, with its text, Markdown,
//! JSON and HTML outputs) is the `perfbench` tool's, built on this; its result, the comparison
//! document ([`Comparison`]), is defined here with the other documents perfbench writes, so
//! that its JSON schema is generated from the types with the report's.
//!
//! It owns the judgement of a counter's change and its thresholds; it reads no file (the
//! baselines are [`crate::baseline`]'s) and prints nothing (the reports do).

use serde_derive::Serialize;

use crate::model::{Change, CounterResult, Source, Verdict};
use crate::stats::{self, CompareConfig};

pub use perfbench::options::{parse_percent, parse_threshold, Settings};

/// What the command line's thresholds ([`Settings`], parsed by the measuring crate) mean for
/// each counter's comparison.
pub trait CompareSettings {
    /// The comparison settings for the counter `name`.
    fn config_for(&self, name: &str) -> CompareConfig;
    /// The comparison settings for counter `c`: as [`CompareSettings::config_for`] its name,
    /// except that every simulated counter ([`Source::Callgrind`]) is exact.
    fn config_for_counter(&self, c: &CounterResult) -> CompareConfig;
}

impl CompareSettings for Settings {
    /// The comparison settings for the counter `name`.
    ///
    /// ```
    /// use perfbench_analysis::verdict::{CompareSettings, Settings};
    ///
    /// let settings = Settings {
    ///     noise_threshold: Some(0.05),
    ///     thresholds: vec![("wall-time".into(), 0.10)],
    /// };
    /// assert_eq!(settings.config_for("wall-time").threshold, 0.10); // `--threshold` wins
    /// assert_eq!(settings.config_for("cycles").threshold, 0.05);
    /// assert!(settings.config_for("context-switches").threshold.is_infinite()); // never flagged
    /// assert_eq!(Settings::default().config_for("instructions").threshold, 0.005);
    /// ```
    fn config_for(&self, name: &str) -> CompareConfig {
        config_for_kind(self, name, stats::CounterKind::of(name))
    }

    /// The comparison settings for counter `c`: as [`Settings::config_for`] its name, except
    /// that every simulated counter ([`Source::Callgrind`]) is exact (the simulator counts the
    /// same every time).
    ///
    /// ```
    /// use perfbench_analysis::verdict::{CompareSettings, Settings};
    /// # use perfbench_analysis::model::{CounterResult, Source};
    /// # fn counter(name: &str, unit: &str, source: Source, values: &[f64]) -> CounterResult {
    /// #     CounterResult {
    /// #         name: name.into(), unit: unit.into(), source, multiplexed: false,
    /// #         per_iteration: values.to_vec(), iterations: vec![1000; values.len()],
    /// #         rounds: Vec::new(), overhead: 0.0, estimate: None, change: None,
    /// #     }
    /// # }
    /// let simulated = counter("L1-misses", "count", Source::Callgrind, &[3.0]);
    /// let measured = counter("L1-misses", "count", Source::Read, &[3.0]);
    /// let settings = Settings::default();
    /// assert_eq!(settings.config_for_counter(&simulated).min_step, 0.5); // exact: one count counts
    /// assert!(settings.config_for_counter(&measured).min_step.is_infinite());
    /// ```
    fn config_for_counter(&self, c: &CounterResult) -> CompareConfig {
        let kind = match c.source {
            Source::Callgrind => stats::CounterKind::Exact,
            _ => stats::CounterKind::of(&c.name),
        };
        config_for_kind(self, &c.name, kind)
    }
}

fn config_for_kind(settings: &Settings, name: &str, kind: stats::CounterKind) -> CompareConfig {
    let mut cfg = CompareConfig::for_kind(kind);
    if let Some(t) = settings
        .noise_threshold
        .filter(|_| kind != stats::CounterKind::Environment)
    {
        cfg.threshold = t;
        cfg.samples_threshold = t;
        cfg.paired_threshold = t;
        cfg.min_step = f64::INFINITY;
    }
    if let Some((_, t)) = settings.thresholds.iter().rev().find(|(n, _)| n == name) {
        cfg.threshold = *t;
        cfg.samples_threshold = *t;
        cfg.paired_threshold = *t;
        cfg.min_step = f64::INFINITY;
    }
    cfg
}

/// How counter `new` changed since `base` (the same counter of the same benchmark in two
/// runs), judged with `settings`; or why the two cannot be compared (different units, one side
/// simulated and the other counted on a machine, no finite sample on a side).
///
/// ```
/// use perfbench_analysis::verdict::{counter_change, Settings};
/// use perfbench_analysis::stats::Verdict;
/// # use perfbench_analysis::model::{CounterResult, Source};
/// # fn counter(name: &str, unit: &str, source: Source, values: &[f64]) -> CounterResult {
/// #     CounterResult {
/// #         name: name.into(), unit: unit.into(), source, multiplexed: false,
/// #         per_iteration: values.to_vec(), iterations: vec![1000; values.len()],
/// #         rounds: Vec::new(), overhead: 0.0, estimate: None, change: None,
/// #     }
/// # }
/// let base: Vec<f64> = (0..30).map(|i| 100.0 + f64::from(i % 3)).collect();
/// let slower: Vec<f64> = base.iter().map(|x| x * 1.5).collect();
/// let (b, n) = (
///     counter("wall-time", "ns", Source::Clock, &base),
///     counter("wall-time", "ns", Source::Clock, &slower),
/// );
/// let change = counter_change(&b, &n, &Settings::default()).unwrap();
/// assert_eq!(change.verdict, Verdict::Regressed);
///
/// let simulated = counter("wall-time", "ns", Source::Callgrind, &base);
/// assert!(counter_change(&simulated, &n, &Settings::default()).is_err()); // not comparable
/// ```
pub fn counter_change(
    base: &CounterResult,
    new: &CounterResult,
    settings: &Settings,
) -> Result<Change, String> {
    counter_change_over_runs(base, &[], new, &[], settings)
}

/// As [`counter_change`], with earlier runs of the same build on either side: each given as
/// its round figures ([`crate::model::Report::earlier_figures`]), pooled with the side's own
/// run by [`stats::rounds::compare_runs`] (a side's floor is the fastest of its runs).
///
/// ```
/// use perfbench_analysis::verdict::{counter_change, counter_change_over_runs, Settings};
/// use perfbench_analysis::stats::Verdict;
/// # use perfbench_analysis::model::{CounterResult, Source};
/// # fn counter(values: &[f64]) -> CounterResult {
/// #     CounterResult {
/// #         name: "wall-time".into(), unit: "ns".into(), source: Source::Clock, multiplexed: false,
/// #         per_iteration: values.to_vec(), iterations: vec![1000; values.len()],
/// #         rounds: vec![2; values.len() / 2], overhead: 0.0, estimate: None, change: None,
/// #     }
/// # }
/// // The saved run sat 5% slow in every round; an earlier run of the same build did not.
/// let base = counter(&[105.0, 107.0, 105.5, 106.0, 105.2, 108.0]);
/// let earlier = [100.0, 100.4, 100.2];
/// let new = counter(&[110.0, 111.0, 110.5, 112.0, 110.2, 111.0]); // 10% slower
/// let settings = Settings::default();
/// assert_eq!(counter_change(&base, &new, &settings)?.verdict, Verdict::Unchanged);
/// let pooled = counter_change_over_runs(&base, &[&earlier], &new, &[], &settings)?;
/// assert_eq!(pooled.baseline, 100.0);
/// assert_eq!(pooled.verdict, Verdict::Regressed);
/// # Ok::<(), String>(())
/// ```
pub fn counter_change_over_runs<'a>(
    base: &'a CounterResult,
    base_earlier: &[&'a [f64]],
    new: &'a CounterResult,
    new_earlier: &[&'a [f64]],
    settings: &Settings,
) -> Result<Change, String> {
    let finite = |c: &CounterResult| c.per_iteration.iter().any(|x| x.is_finite());
    let simulated = |c: &CounterResult| c.source == Source::Callgrind;
    if simulated(base) != simulated(new) {
        Err(format!(
            "simulated counts are not comparable with counted ones: {} vs {}",
            describe_source(base.source),
            describe_source(new.source)
        ))
    } else if base.unit != new.unit {
        Err(format!("units differ: {} vs {}", base.unit, new.unit))
    } else if !finite(base) || !finite(new) {
        Err("no finite sample on one side".to_owned())
    } else {
        let cfg = settings.config_for_counter(new);
        let (b, n) = (
            counter_runs(base, base_earlier),
            counter_runs(new, new_earlier),
        );
        Ok(stats::rounds::compare_runs(
            &as_runs(&b),
            &as_runs(&n),
            &cfg,
        ))
    }
}

/// Counter `c`'s runs as [`stats::rounds::compare_runs`] takes them: its own rounds, then each
/// earlier run's round figures as rounds of one value each (a round's figure is its smallest
/// value, so a one-value round keeps it).
///
/// ```
/// use perfbench_analysis::verdict::counter_runs;
/// # use perfbench_analysis::model::{CounterResult, Source};
/// # let c = CounterResult {
/// #     name: "wall-time".into(), unit: "ns".into(), source: Source::Clock, multiplexed: false,
/// #     per_iteration: vec![10.0, 11.0, 10.5, 12.0], iterations: vec![1000; 4],
/// #     rounds: vec![2, 2], overhead: 0.0, estimate: None, change: None,
/// # };
/// let earlier = [9.5, 9.8];
/// let runs = counter_runs(&c, &[&earlier]);
/// assert_eq!(runs[0], c.round_values());
/// assert_eq!(runs[1], [&[9.5][..], &[9.8][..]]);
/// ```
pub fn counter_runs<'a>(c: &'a CounterResult, earlier: &[&'a [f64]]) -> Vec<Vec<&'a [f64]>> {
    std::iter::once(c.round_values())
        .chain(
            earlier
                .iter()
                .map(|f| f.iter().map(std::slice::from_ref).collect()),
        )
        .collect()
}

/// [`counter_runs`]' runs as slices.
pub fn as_runs<'r>(runs: &'r [Vec<&'r [f64]>]) -> Vec<&'r [&'r [f64]]> {
    runs.iter().map(Vec::as_slice).collect()
}

/// A counter's source for a person: `simulated (callgrind)` or `counted (rdpmc)`.
fn describe_source(source: Source) -> String {
    match source {
        Source::Callgrind => "simulated (callgrind)".to_owned(),
        other => format!("counted ({other})"),
    }
}

/// The version of the comparison document ([`Comparison`] as JSON).
pub const COMPARISON_SCHEMA_VERSION: u64 = 1;

/// Whether a suite, benchmark or counter is on both sides or on one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Presence {
    /// On both sides, and compared.
    Compared,
    /// Only in NEW.
    Added,
    /// Only in BASE.
    Removed,
    /// On both sides but not comparable; `reason` says why.
    NotComparable,
}

/// A headline figure of one side: the figure the change compares and the estimate's interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Figure {
    /// The per-iteration figure the change compares: the floor (the fastest round's smallest
    /// value, see [`stats::rounds`]) when both sides have rounds, else the estimate's
    /// [`point`](crate::model::Estimate::point).
    pub point: f64,
    /// The lower bound of the estimate's confidence interval (of its point, not of the floor).
    pub ci_low: f64,
    /// The upper bound.
    pub ci_high: f64,
}

/// One counter of one benchmark, compared.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct CounterComparison {
    /// The counter's name.
    pub name: String,
    /// `ns` or `count` (NEW's where both have it).
    pub unit: String,
    /// Both sides, one, or not comparable.
    pub presence: Presence,
    /// Why it is not comparable.
    pub reason: Option<String>,
    /// BASE's headline, when it has one.
    pub base: Option<Figure>,
    /// NEW's headline, when it has one.
    pub new: Option<Figure>,
    /// The change and its verdict, when compared.
    pub change: Option<Change>,
}

impl CounterComparison {
    /// The verdict, when compared.
    ///
    /// ```
    /// use perfbench_analysis::verdict::{CounterComparison, Presence};
    ///
    /// let added = CounterComparison {
    ///     name: "instructions".into(),
    ///     unit: "count".into(),
    ///     presence: Presence::Added,
    ///     reason: None,
    ///     base: None,
    ///     new: None,
    ///     change: None,
    /// };
    /// assert_eq!(added.verdict(), None); // only in NEW: nothing to judge
    /// ```
    pub fn verdict(&self) -> Option<Verdict> {
        self.change.map(|c| c.verdict)
    }
}

/// One benchmark, compared counter by counter.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct BenchComparison {
    /// `group/name[/params]`.
    pub id: String,
    /// Both sides, one, or not comparable (a side panicked or failed).
    pub presence: Presence,
    /// Why it is not comparable.
    pub reason: Option<String>,
    /// Its counters: those of NEW in NEW's order, then those only BASE has.
    pub counters: Vec<CounterComparison>,
}

/// One suite, compared benchmark by benchmark.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct SuiteComparison {
    /// The suite's name.
    pub suite: String,
    /// Both sides or one.
    pub presence: Presence,
    /// Its benchmarks: NEW's in NEW's order, then those only BASE has.
    pub benchmarks: Vec<BenchComparison>,
    /// How many runs of one build BASE's report of the suite holds (more than 1 for a
    /// baseline saved several times, whose floor is the fastest of them; 0 where the suite
    /// is in NEW only).
    pub base_runs: usize,
    /// The same for NEW (0 where the suite is in BASE only).
    pub new_runs: usize,
}

/// How many counters (and benchmarks, for added and removed) ended each way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Summary {
    /// Counters that regressed.
    pub regressed: usize,
    /// Counters that improved.
    pub improved: usize,
    /// Counters compared and unchanged.
    pub unchanged: usize,
    /// Benchmarks (or whole suites' benchmarks) only in NEW.
    pub added: usize,
    /// Benchmarks only in BASE.
    pub removed: usize,
    /// Benchmarks or counters on both sides that could not be compared.
    pub not_comparable: usize,
}

// Written only: perfbench never reads a comparison back, so these types have no `Deserialize`
// (less code in every downstream build).
/// The result of `perfbench compare`. As JSON, the document of
/// `perfbench-analysis/schema/compare-v1.schema.json`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[cfg_attr(test, schemars(title = "perfbench comparison"))]
pub struct Comparison {
    /// [`COMPARISON_SCHEMA_VERSION`].
    pub schema_version: u64,
    /// The perfbench version that compared.
    pub perfbench_version: String,
    /// BASE as given.
    pub base: String,
    /// NEW as given.
    pub new: String,
    /// Lines to show before anything else: machines that differ, suites missing on a side.
    pub warnings: Vec<String>,
    /// Counts over every suite.
    pub summary: Summary,
    /// Each suite.
    pub suites: Vec<SuiteComparison>,
}

impl Comparison {
    /// Whether any counter regressed (what `--fail-on-regression` exits 1 on).
    ///
    /// ```
    /// use perfbench_analysis::verdict::{Comparison, Summary, COMPARISON_SCHEMA_VERSION};
    ///
    /// let mut cmp = Comparison {
    ///     schema_version: COMPARISON_SCHEMA_VERSION,
    ///     perfbench_version: env!("CARGO_PKG_VERSION").into(),
    ///     base: "target/perfbench/baselines/main".into(),
    ///     new: "target/perfbench".into(),
    ///     warnings: Vec::new(),
    ///     summary: Summary { regressed: 0, improved: 1, unchanged: 10, added: 0, removed: 0, not_comparable: 0 },
    ///     suites: Vec::new(),
    /// };
    /// assert!(!cmp.regressed());
    /// cmp.summary.regressed = 1;
    /// assert!(cmp.regressed()); // `perfbench compare --fail-on-regression` exits 1
    /// ```
    pub fn regressed(&self) -> bool {
        self.summary.regressed > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The comparison document's schema file is what the types generate (the `perfbench` tool's
    /// tests check its real output against the file).
    #[test]
    fn the_checked_in_comparison_schema_is_generated_from_the_types() {
        const FILE: &str = "compare-v1.schema.json";
        let schema = crate::model::schema::schema_for::<Comparison>(FILE);
        crate::model::schema::check_schema_file(FILE, &schema);
        crate::model::schema::Validator::new(&schema).assert_well_formed();
    }
}
