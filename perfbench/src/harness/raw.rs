//! What the measurement produces before any statistics: each benchmark's raw samples
//! ([`RawBenchmark`], [`RawCounter`]). The benchmark binary sends them to the `perfbench`
//! tool ([`crate::protocol::stream::encode_benchmark`]), whose analysis (`perfbench-analysis`)
//! turns each into the report's benchmark: its estimates, derived metrics and changes.

use super::entry::Throughput;
use crate::counters::Source;

/// How a benchmark ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde_derive::Serialize, serde_derive::Deserialize),
    serde(rename_all = "lowercase")
)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Outcome {
    /// Measured: the counters hold values.
    Measured,
    /// Ran once as a smoke test (`--test`).
    Tested,
    /// The benchmark panicked; the benchmark's `error` has the message.
    Panicked,
    /// The benchmark could not be measured (a counter failed); its `error` says why.
    Failed,
}

impl Outcome {
    /// The name used in reports and JSON: `measured`, `tested`, `panicked` or `failed`.
    ///
    /// ```
    /// assert_eq!(perfbench::harness::raw::Outcome::Panicked.as_str(), "panicked");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Measured => "measured",
            Outcome::Tested => "tested",
            Outcome::Panicked => "panicked",
            Outcome::Failed => "failed",
        }
    }
}

/// One counter's samples as measured: per-iteration values with the bracket overhead
/// subtracted, no statistics yet.
#[derive(Clone, Debug, PartialEq)]
pub struct RawCounter {
    /// The counter's name as the user wrote it (`instructions`, `cycles:u`, `wall-time`).
    pub name: String,
    /// `ns` for time-like counters, `count` otherwise.
    pub unit: String,
    /// How the values were read.
    pub source: Source,
    /// Some sample's group was multiplexed: its counts are scaled estimates.
    pub multiplexed: bool,
    /// Per-iteration value of each sample.
    pub per_iteration: Vec<f64>,
    /// Iterations in each sample.
    pub iterations: Vec<u64>,
    /// Samples per round, in the order taken (empty: one round).
    pub rounds: Vec<u32>,
    /// The bracket overhead that was subtracted, per sample.
    pub overhead: f64,
}

/// What a benchmark's `outcome` and `error` say went wrong, for people (`panicked: MESSAGE`,
/// `failed: MESSAGE`); `None` when it was measured or tested.
pub fn failure_text(outcome: Outcome, error: Option<&str>) -> Option<String> {
    let msg = error.unwrap_or("(no message)");
    match outcome {
        Outcome::Panicked => Some(format!("panicked: {msg}")),
        Outcome::Failed => Some(format!("failed: {msg}")),
        Outcome::Measured | Outcome::Tested => None,
    }
}

/// One benchmark as measured (or as it failed): what the harness hands to the analysis.
#[derive(Clone, Debug, PartialEq)]
pub struct RawBenchmark {
    /// `group/name` or `group/name/params`.
    pub id: String,
    /// The group.
    pub group: String,
    /// The function's name (or the `name` option).
    pub name: String,
    /// What follows the name in the id, if anything.
    pub params: Option<String>,
    /// Declared (or set) throughput per iteration.
    pub throughput: Option<Throughput>,
    /// The threads its body ran on at once, for a body that called
    /// [`Bencher::iter_threads`](crate::Bencher::iter_threads) (the resolved count, 1 included):
    /// its counters are then per iteration summed over the threads, its wall time one thread's
    /// per iteration. `None` for every other body.
    pub threads: Option<u32>,
    /// How it ended.
    pub outcome: Outcome,
    /// The message of a panicked or failed benchmark.
    pub error: Option<String>,
    /// Counters, in the order requested (empty unless measured).
    pub counters: Vec<RawCounter>,
}
