//! What a run produces: per benchmark, per counter, the per-iteration values of every sample and
//! their statistics. The reports (terminal, JSON) render these; nothing here does I/O.

use crate::counters::Source;
use crate::harness::entry::Throughput;
use crate::stats::Estimate;

/// One counter of one benchmark.
#[derive(Clone, Debug, PartialEq)]
pub struct CounterResult {
    /// The counter's name as the user wrote it (`instructions`, `cycles:u`, `wall-time`).
    pub name: String,
    /// `ns` for time-like counters, `count` otherwise.
    pub unit: &'static str,
    /// How the values were read. When some readings of a fast-path group fell back to
    /// `read(2)`, this is still the group's fast-path source; see `fast_fallbacks`.
    pub source: Source,
    /// Some sample's group was multiplexed: its counts are scaled estimates.
    pub multiplexed: bool,
    /// Per-iteration value of each sample (bracket overhead subtracted, divided by
    /// `iterations`).
    pub per_iteration: Vec<f64>,
    /// Iterations in each sample.
    pub iterations: Vec<u64>,
    /// The bracket overhead that was subtracted, per sample (not per iteration).
    pub overhead: f64,
    /// Statistics of `per_iteration` (`None` when there are no samples).
    pub estimate: Option<Estimate>,
}

/// A metric computed from other counters (e.g. `ipc` = instructions / cycles).
#[derive(Clone, Debug, PartialEq)]
pub struct DerivedResult {
    /// `ipc`, `branch-miss-rate`, `cache-miss-rate`.
    pub name: String,
    /// Per-sample values.
    pub per_sample: Vec<f64>,
    /// Statistics of `per_sample`.
    pub estimate: Option<Estimate>,
}

/// How a benchmark ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Measured.
    Measured,
    /// The benchmark panicked; the message.
    Panicked(String),
    /// The benchmark could not be measured (a counter failed mid-run); the error.
    Failed(String),
    /// Ran once as a smoke test (`--test`).
    Tested,
}

/// One benchmark's result.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchResult {
    /// `group/name` or `group/name/params`: unique within a suite.
    pub id: String,
    /// The group (the `group` option, or the module path below the crate).
    pub group: String,
    /// The function's name (or the `name` option).
    pub name: String,
    /// The argument, for benchmarks with `args`.
    pub params: Option<String>,
    /// Declared throughput per iteration.
    pub throughput: Option<Throughput>,
    /// Counters, in the order requested.
    pub counters: Vec<CounterResult>,
    /// Derived metrics.
    pub derived: Vec<DerivedResult>,
    /// How it ended.
    pub outcome: Outcome,
}

impl BenchResult {
    /// The counter named `name`.
    pub fn counter(&self, name: &str) -> Option<&CounterResult> {
        self.counters.iter().find(|c| c.name == name)
    }
}

/// The sampling settings a run used.
#[derive(Clone, Debug, PartialEq)]
pub struct RunConfig {
    /// Samples per benchmark.
    pub sample_size: u32,
    /// Warm-up seconds.
    pub warm_up_time: f64,
    /// Target measurement seconds.
    pub measurement_time: f64,
    /// `flat` (same iterations in every sample) or `linear` (1n, 2n, 3n, ...).
    pub sampling: &'static str,
    /// Counters requested (names).
    pub counters: Vec<String>,
    /// Confidence level of the intervals.
    pub confidence: f64,
    /// Bootstrap resamples.
    pub resamples: usize,
}

/// Facts about the machine a suite ran on.
#[derive(Clone, Debug, PartialEq)]
pub struct MachineInfo {
    /// CPU model.
    pub cpu: String,
    /// Architecture (`x86_64`, `aarch64`).
    pub arch: String,
    /// Kernel release.
    pub kernel: String,
    /// Online CPUs.
    pub cpus: usize,
    /// Every PMU in sysfs.
    pub pmus: Vec<String>,
    /// The CPU PMUs (empty: no hardware counters).
    pub core_pmus: Vec<String>,
    /// `perf_event_paranoid`.
    pub paranoid: Option<i32>,
    /// Each counter's access path, by name.
    pub sources: Vec<(String, Source)>,
}

/// A whole run of one benchmark binary.
#[derive(Clone, Debug, PartialEq)]
pub struct SuiteResult {
    /// The suite's name (the bench target's name).
    pub suite: String,
    /// perfbench's version.
    pub perfbench_version: &'static str,
    /// Where it ran.
    pub machine: MachineInfo,
    /// How it sampled.
    pub config: RunConfig,
    /// One entry per benchmark run.
    pub benchmarks: Vec<BenchResult>,
}
