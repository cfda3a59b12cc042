//! The data model of a run: what a suite measured, as plain Rust types that are also the JSON
//! report (the guide's docs/json-report.md, and the schema in `schema/`, generated from these
//! types by a test). The harness produces a [`Report`]; the terminal, the JSON file, baselines,
//! `perfbench compare` and the other renderers consume one. This module imports only the
//! vocabulary beneath it ([`Source`], [`Estimate`], [`Change`]) and nothing that measures,
//! compares or renders.
//!
//! [`json`] writes and reads the document ([`json::to_json`], [`json::from_json`]; non-finite
//! floats are `null`, integers exact), and [`file`](mod@file) loads it from disk with the checks a
//! file from a user needs ([`file::load`]) and writes it atomically ([`file::write_atomic`]).
//! Within one [`SCHEMA_VERSION`] fields may be added, none removed or changed in meaning; a newer
//! `schema_version` is an error. A user's own tool can read reports with these types:
//!
//! ```no_run
//! let text = std::fs::read_to_string("target/perfbench/quickstart.json")?;
//! let report = perfbench_analysis::model::json::from_json(&text)?;
//! for b in &report.benchmarks {
//!     if let Some(e) = b.counter("wall-time").and_then(|c| c.estimate) {
//!         println!("{}: {:.1} ns", b.id, e.point);
//!     }
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod file;
mod flame;
pub mod json;

use std::collections::BTreeMap;

use serde_derive::{Deserialize, Serialize};

use crate::json_fields::{keyed, nullable, Keyed};

pub use crate::stats::{Change, Estimate, Method, OutlierCounts, Verdict};
pub use flame::{Flame, FlameStack, FOLDED_SEMICOLON};
pub use perfbench::counters::Source;
pub use perfbench::harness::entry::Throughput;
pub use perfbench::harness::raw::Outcome;

/// The version of the document this perfbench writes, and the newest it reads.
pub const SCHEMA_VERSION: u64 = 1;

/// The JSON report a perfbench benchmark binary writes to `target/perfbench/<suite>.json` (and
/// `--json PATH`); baselines are the same document, with the earlier runs of their build
/// ([`Report::earlier_runs`]). Within one schema version fields may be
/// added but none is removed or changes meaning; readers ignore members they do not know.
/// Floats are `null` when not finite (JSON has no NaN or infinity).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[cfg_attr(test, schemars(title = "perfbench report"))]
pub struct Report {
    /// The document's version ([`SCHEMA_VERSION`] when written by this perfbench).
    pub schema_version: u64,
    /// The perfbench version that wrote it.
    pub perfbench_version: String,
    /// The suite's name (the bench target's name).
    pub suite: String,
    /// Where it ran.
    pub machine: Machine,
    /// How it sampled.
    #[serde(default)]
    pub config: Config,
    /// One entry per benchmark run, in run order.
    pub benchmarks: Vec<Benchmark>,
    /// What the run was compared with, when it was (each counter's `change` holds the result).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<BaselineRef>,
    /// The benchmark executable that ran, where its metadata read: which runs are of one
    /// build ([`Report::keep_earlier_runs`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<Build>,
    /// Earlier runs of the same build, newest first: kept with a saved baseline; in a run's own
    /// report, the fresh processes that measured its regressed benchmarks (and near misses)
    /// again to confirm the regression (only those benchmarks). Each counter's round figures,
    /// which a comparison with this document pools with its own (see [`EarlierRun`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub earlier_runs: Vec<EarlierRun>,
}

/// The most runs of one build a baseline keeps: its own and up to nine earlier ones.
pub const BASELINE_RUNS: usize = 10;

/// Which executable made a run: the file's size, modification time and inode. Two runs with
/// the same are runs of one build (the same code); a rebuild changes at least the time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Build {
    /// Its size in bytes.
    pub len: u64,
    /// Its modification time, nanoseconds since the Unix epoch.
    pub modified_ns: u64,
    /// Its inode number.
    pub inode: u64,
}

impl Build {
    /// The executable at `path`, or `None` where its metadata does not read.
    ///
    /// ```
    /// use perfbench_analysis::model::Build;
    ///
    /// let me = Build::of(&std::env::current_exe()?).unwrap();
    /// assert!(me.len > 0);
    /// assert_eq!(Build::of(&std::env::current_exe()?), Some(me));
    /// assert_eq!(Build::of("/no/such/file".as_ref()), None);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn of(path: &std::path::Path) -> Option<Build> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(path).ok()?;
        let modified = m
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?;
        Some(Build {
            len: m.len(),
            modified_ns: u64::try_from(modified.as_nanos()).unwrap_or(u64::MAX),
            inode: m.ino(),
        })
    }
}

/// One earlier run of the same build, as a comparison needs it: per benchmark id and counter
/// name, the run's round figures (each round's smallest per-iteration value,
/// [`crate::stats::rounds::round_figures`]), in the order taken.
///
/// Why keep them: on a shared machine a run can spend its whole life a few percent slower than
/// the next (a memory scan here took one of two levels 4.6% apart from run to run), and one
/// run cannot show that. A baseline saved from several runs of one build has its floor from
/// the fastest of them, so that a later run is not measured against a slow state of the
/// baseline ([`crate::stats::rounds::compare_runs`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct EarlierRun {
    /// Benchmark id -> counter name -> round figures.
    pub benchmarks: BTreeMap<String, BTreeMap<String, Vec<f64>>>,
}

impl EarlierRun {
    /// The round figures of every measured counter of `report`'s own run.
    pub fn of(report: &Report) -> EarlierRun {
        EarlierRun::of_benchmarks(&report.benchmarks)
    }

    /// The round figures of every measured counter of `benchmarks`.
    pub fn of_benchmarks(benchmarks: &[Benchmark]) -> EarlierRun {
        let benchmarks = benchmarks
            .iter()
            .filter(|b| b.outcome == Outcome::Measured)
            .map(|b| {
                let counters = b
                    .counters
                    .iter()
                    .map(|c| {
                        let figures = crate::stats::rounds::round_figures(&c.round_values());
                        (c.name.clone(), figures)
                    })
                    .filter(|(_, f)| !f.is_empty())
                    .collect();
                (b.id.clone(), counters)
            })
            .collect();
        EarlierRun { benchmarks }
    }
}

/// The reference a run was compared with: a saved baseline or the previous run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct BaselineRef {
    /// The baseline's name (`--baseline NAME`), or `previous run`.
    pub name: String,
    /// The perfbench version that wrote it.
    pub perfbench_version: String,
    /// The machine it ran on.
    pub machine: Machine,
    /// Why its counts may differ for reasons other than the code
    /// ([`Machine::differences`]); empty when the machines agree.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// How many runs of one build it holds (its own and its earlier ones,
    /// [`Report::runs`]).
    #[serde(default = "one_run")]
    pub runs: u32,
    /// The build the baseline's report names ([`Report::build`]), so that `perfbench compare`
    /// can tell the baseline this run was judged against: where that is the BASE it is given,
    /// the changes a paired run settled in this run stand (no pair of reports recomputes them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<Build>,
}

/// A reference written before it could hold several runs held one.
fn one_run() -> u32 {
    1
}

impl Report {
    /// A report of this perfbench's schema version and version.
    ///
    /// ```
    /// use perfbench_analysis::model::{Benchmark, Config, Machine, Outcome, Report, SCHEMA_VERSION};
    ///
    /// let fib = Benchmark::new("quickstart/fib", "quickstart", "fib", None, Outcome::Tested);
    /// let report = Report::new("quickstart", Machine::default(), Config::default(), vec![fib]);
    /// assert_eq!(report.schema_version, SCHEMA_VERSION);
    /// assert_eq!(report.perfbench_version, env!("CARGO_PKG_VERSION"));
    /// ```
    pub fn new(suite: &str, machine: Machine, config: Config, benchmarks: Vec<Benchmark>) -> Self {
        Report {
            schema_version: SCHEMA_VERSION,
            perfbench_version: env!("CARGO_PKG_VERSION").to_owned(),
            suite: suite.to_owned(),
            machine,
            config,
            benchmarks,
            baseline: None,
            build: None,
            earlier_runs: Vec::new(),
        }
    }

    /// How many runs the document holds: its own and its [`earlier_runs`](Report::earlier_runs).
    pub fn runs(&self) -> usize {
        1 + self.earlier_runs.len()
    }

    /// Keeps `older`'s runs with this one's when both are runs of one build of one suite
    /// (the same [`build`](Report::build), both simulated or both counted): this document's own
    /// earlier runs (processes that confirmed a regression), `older`'s own run, then its earlier
    /// ones, up to [`BASELINE_RUNS`] in all. Returns whether it kept them; a
    /// document of another build, or without one, is left out (another build is other code).
    ///
    /// ```
    /// use perfbench_analysis::model::{Build, Config, Machine, Report, BASELINE_RUNS};
    ///
    /// let run = |build| Report {
    ///     build: Some(build),
    ///     ..Report::new("suite", Machine::default(), Config::default(), Vec::new())
    /// };
    /// let a = Build { len: 1, modified_ns: 2, inode: 3 };
    /// let mut saved = run(a);
    /// for n in 2..=12 {
    ///     let mut next = run(a);
    ///     assert!(next.keep_earlier_runs(&saved));
    ///     assert_eq!(next.runs(), n.min(BASELINE_RUNS));
    ///     saved = next;
    /// }
    /// let mut rebuilt = run(Build { modified_ns: 4, ..a });
    /// assert!(!rebuilt.keep_earlier_runs(&saved));
    /// assert_eq!(rebuilt.runs(), 1);
    /// ```
    pub fn keep_earlier_runs(&mut self, older: &Report) -> bool {
        let same = self.build.is_some()
            && self.build == older.build
            && self.suite == older.suite
            && self.machine.simulator.is_some() == older.machine.simulator.is_some();
        if same {
            // `older`'s runs, then this document's own (processes that confirmed a regression)
            // as the newest.
            let own = std::mem::replace(&mut self.earlier_runs, vec![EarlierRun::of(older)]);
            self.earlier_runs.extend(older.earlier_runs.iter().cloned());
            self.add_earlier_runs(own);
        }
        same
    }

    /// Adds `runs` (newest first) as this document's newest earlier runs, keeping up to
    /// [`BASELINE_RUNS`] runs in all: the oldest go first.
    ///
    /// ```
    /// use perfbench_analysis::model::{Config, EarlierRun, Machine, Report, BASELINE_RUNS};
    ///
    /// let mut report = Report::new("suite", Machine::default(), Config::default(), Vec::new());
    /// report.add_earlier_runs(vec![EarlierRun::default(); 4]);
    /// report.add_earlier_runs(vec![EarlierRun::default(); 8]);
    /// assert_eq!(report.runs(), BASELINE_RUNS);
    /// ```
    pub fn add_earlier_runs(&mut self, runs: impl IntoIterator<Item = EarlierRun>) {
        let mut all: Vec<EarlierRun> = runs.into_iter().collect();
        all.append(&mut self.earlier_runs);
        all.truncate(BASELINE_RUNS - 1);
        self.earlier_runs = all;
    }

    /// The round figures of counter `counter` of benchmark `bench` in each earlier run that
    /// has it, newest first.
    pub fn earlier_figures(&self, bench: &str, counter: &str) -> Vec<&[f64]> {
        self.earlier_runs
            .iter()
            .filter_map(|r| r.benchmarks.get(bench)?.get(counter))
            .map(Vec::as_slice)
            .collect()
    }

    /// The benchmark with this id.
    ///
    /// ```
    /// # use perfbench_analysis::model::{Benchmark, Config, CounterResult, Machine, Outcome, Report, Source};
    /// # use perfbench_analysis::stats::{estimate, StatsConfig};
    /// # fn wall(values: &[f64]) -> CounterResult {
    /// #     CounterResult {
    /// #         name: "wall-time".into(), unit: "ns".into(), source: Source::Clock,
    /// #         multiplexed: false, per_iteration: values.to_vec(), iterations: vec![1000; values.len()],
    /// #         rounds: Vec::new(), overhead: 0.0,
    /// #         estimate: estimate(values, None, &StatsConfig::default()), change: None,
    /// #     }
    /// # }
    /// # let mut fib = Benchmark::new("quickstart/fib", "quickstart", "fib", None, Outcome::Measured);
    /// # fib.counters.push(wall(&[10.0, 10.5, 9.5, 10.0]));
    /// # let report = Report::new("quickstart", Machine::default(), Config::default(), vec![fib]);
    /// let fib = report.bench("quickstart/fib").unwrap();
    /// let e = fib.counter("wall-time").and_then(|c| c.estimate).unwrap();
    /// assert_eq!(e.point, 10.0);
    /// assert!(report.bench("quickstart/nothing").is_none());
    /// ```
    pub fn bench(&self, id: &str) -> Option<&Benchmark> {
        self.benchmarks.iter().find(|b| b.id == id)
    }
}

/// Facts about the machine a suite ran on; [`Machine::differences`] is its fingerprint check.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Machine {
    /// CPU model.
    pub cpu: String,
    /// Architecture (`x86_64`, `aarch64`).
    pub arch: String,
    /// Kernel release.
    pub kernel: String,
    /// Online CPUs.
    #[serde(default)]
    pub cpus: usize,
    /// Every PMU in sysfs.
    #[serde(default)]
    pub pmus: Vec<String>,
    /// The CPU PMUs (empty: no hardware counters).
    #[serde(default)]
    pub core_pmus: Vec<String>,
    /// `/proc/sys/kernel/perf_event_paranoid`.
    #[serde(rename = "perf_event_paranoid", default)]
    pub paranoid: Option<i32>,
    /// Each counter's access path, by counter name.
    #[serde(default, with = "keyed")]
    #[cfg_attr(test, schemars(with = "std::collections::BTreeMap<String, Source>"))]
    pub sources: Vec<(String, Source)>,
    /// The simulator that counted, in a simulated run (`--simulate`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simulator: Option<Simulator>,
}

/// The simulated CPU of a `--simulate` run: counts from two runs compare only when all of this
/// agrees ([`Machine::differences`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Simulator {
    /// The tool: `callgrind`.
    pub tool: String,
    /// Valgrind's version (`3.19.0`).
    pub version: String,
    /// The simulated caches as Callgrind's options give them
    /// (`I1=32768,8,64 D1=32768,8,64 LL=8388608,16,64`: size, associativity, line size).
    pub cache: String,
}

impl Machine {
    /// What makes counts from `self` and `other` not directly comparable: a different CPU
    /// model, architecture, kernel, CPU PMU, simulator (tool, version, cache model), or access
    /// path of a counter both measured. One line
    /// each (`cpu: "A" vs "B"`); empty when the fingerprints agree.
    ///
    /// ```
    /// use perfbench_analysis::model::{Machine, Source};
    ///
    /// let laptop = Machine {
    ///     cpu: "AMD Ryzen 7 7840U".into(),
    ///     core_pmus: vec!["cpu".into()],
    ///     sources: vec![("instructions".into(), Source::Rdpmc)],
    ///     ..Machine::default()
    /// };
    /// let runner = Machine {
    ///     cpu: "AMD EPYC 7763".into(),
    ///     sources: vec![("instructions".into(), Source::Read)],
    ///     ..Machine::default()
    /// };
    /// assert_eq!(
    ///     laptop.differences(&runner),
    ///     [
    ///         r#"cpu: "AMD Ryzen 7 7840U" vs "AMD EPYC 7763""#,
    ///         "PMU: cpu vs none",
    ///         "instructions read via rdpmc vs read",
    ///     ]
    /// );
    /// assert!(laptop.differences(&laptop).is_empty());
    /// ```
    pub fn differences(&self, other: &Machine) -> Vec<String> {
        let mut out = Vec::new();
        for (what, a, b) in [
            ("cpu", &self.cpu, &other.cpu),
            ("arch", &self.arch, &other.arch),
            ("kernel", &self.kernel, &other.kernel),
        ] {
            if a != b {
                out.push(format!("{what}: {a:?} vs {b:?}"));
            }
        }
        if self.core_pmus != other.core_pmus {
            let list = |p: &[String]| match p {
                [] => "none".to_owned(),
                p => p.join(","),
            };
            out.push(format!(
                "PMU: {} vs {}",
                list(&self.core_pmus),
                list(&other.core_pmus)
            ));
        }
        if self.simulator != other.simulator {
            let show = |s: &Option<Simulator>| match s {
                Some(s) => format!("{} {} ({})", s.tool, s.version, s.cache),
                None => "none (measured)".to_owned(),
            };
            out.push(format!(
                "simulator: {} vs {}",
                show(&self.simulator),
                show(&other.simulator)
            ));
        }
        for (name, a) in &self.sources {
            if let Some((_, b)) = other.sources.iter().find(|(n, _)| n == name) {
                if a != b {
                    out.push(format!("{name} read via {a} vs {b}"));
                }
            }
        }
        out
    }
}

/// `flat` (the same iterations in every sample) or `linear` (1n, 2n, 3n, ...).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Sampling {
    /// The same number of iterations in every sample.
    #[default]
    Flat,
    /// Sample k runs k times the base count; the estimate is the least-squares slope.
    Linear,
}

/// The sampling settings a run used.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Config {
    /// Samples per benchmark.
    pub sample_size: u32,
    /// Warm-up seconds.
    #[serde(with = "nullable")]
    #[cfg_attr(test, schemars(with = "Option<f64>"))]
    pub warm_up_time: f64,
    /// Measurement seconds: the most each benchmark took where [`precision`](Self::precision)
    /// is set, the time its samples filled otherwise.
    #[serde(with = "nullable")]
    #[cfg_attr(test, schemars(with = "Option<f64>"))]
    pub measurement_time: f64,
    /// How iterations are spread over the samples.
    pub sampling: Sampling,
    /// Counters requested (names).
    pub counters: Vec<String>,
    /// Confidence level of the intervals.
    #[serde(with = "nullable")]
    #[cfg_attr(test, schemars(with = "Option<f64>"))]
    pub confidence: f64,
    /// Bootstrap resamples.
    pub resamples: usize,
    /// Rounds each benchmark's samples were split into (1 in reports written before rounds
    /// existed).
    #[serde(default = "one_round")]
    pub rounds: u32,
    /// The stopping rule's target (`--precision`, a fraction: 0.01 for 1%): each benchmark
    /// took at least `rounds` rounds of `sample_size` samples, and more until its figures had
    /// settled to it, for at most `measurement_time`. `null` (and absent, in reports written
    /// before the rule): a fixed plan, its samples filling `measurement_time`.
    #[serde(default)]
    pub precision: Option<f64>,
}

fn one_round() -> u32 {
    1
}

impl Default for Config {
    /// What a report without `config` is read as: the defaults of a plain `cargo bench`.
    fn default() -> Self {
        Config {
            sample_size: 100,
            warm_up_time: 0.3,
            measurement_time: 1.5,
            sampling: Sampling::Flat,
            counters: Vec::new(),
            confidence: crate::stats::DEFAULT_CONFIDENCE,
            resamples: crate::stats::DEFAULT_RESAMPLES,
            rounds: 1,
            precision: None,
        }
    }
}

/// One benchmark's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Benchmark {
    /// `group/name` or `group/name/params`: unique within a suite.
    pub id: String,
    /// The group (the `group` option, or the module path below the crate).
    pub group: String,
    /// The function's name (or the `name` option).
    pub name: String,
    /// What follows the name in the id: the argument with `args` (`64`), the type with `types`
    /// (`u8`), the type then the argument with both (`u8/64`).
    pub params: Option<String>,
    /// Declared throughput per iteration.
    #[serde(default)]
    pub throughput: Option<Throughput>,
    /// How many threads ran the body at once, for a body that called
    /// [`Bencher::iter_threads`](perfbench::Bencher::iter_threads) (or an attribute's
    /// `threads = [...]`): the resolved count, 1 included. Each counter is then per iteration
    /// summed over the threads (an iteration on 4 threads is 4 calls), and `wall-time` is one
    /// thread's time per iteration while the others run too. Absent for every other body, and
    /// in reports written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<u32>,
    /// How it ended.
    pub outcome: Outcome,
    /// The message of a panicked or failed benchmark.
    #[serde(default)]
    pub error: Option<String>,
    /// Counters, in the order requested.
    #[serde(with = "keyed")]
    #[cfg_attr(
        test,
        schemars(with = "std::collections::BTreeMap<String, CounterResult>")
    )]
    pub counters: Vec<CounterResult>,
    /// Derived metrics.
    #[serde(default, with = "keyed")]
    #[cfg_attr(test, schemars(with = "std::collections::BTreeMap<String, Derived>"))]
    pub derived: Vec<Derived>,
    /// A simulated benchmark's exact costs per call path (`--simulate`), which its flame
    /// graphs draw; absent for counted runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flame: Option<Flame>,
}

impl Benchmark {
    /// A benchmark with this outcome and no values yet.
    ///
    /// ```
    /// use perfbench_analysis::model::{Benchmark, Outcome};
    ///
    /// let b = Benchmark::new("hashing/fnv/64", "hashing", "fnv", Some("64"), Outcome::Measured);
    /// assert_eq!((b.params.as_deref(), b.counters.len()), (Some("64"), 0));
    /// ```
    pub fn new(id: &str, group: &str, name: &str, params: Option<&str>, outcome: Outcome) -> Self {
        Benchmark {
            id: id.to_owned(),
            group: group.to_owned(),
            name: name.to_owned(),
            params: params.map(str::to_owned),
            throughput: None,
            threads: None,
            outcome,
            error: None,
            counters: Vec::new(),
            derived: Vec::new(),
            flame: None,
        }
    }

    /// The counter named `name`.
    ///
    /// ```
    /// # use perfbench_analysis::model::{Benchmark, Config, CounterResult, Machine, Outcome, Report, Source};
    /// # use perfbench_analysis::stats::{estimate, StatsConfig};
    /// # fn wall(values: &[f64]) -> CounterResult {
    /// #     CounterResult {
    /// #         name: "wall-time".into(), unit: "ns".into(), source: Source::Clock,
    /// #         multiplexed: false, per_iteration: values.to_vec(), iterations: vec![1000; values.len()],
    /// #         rounds: Vec::new(), overhead: 0.0,
    /// #         estimate: estimate(values, None, &StatsConfig::default()), change: None,
    /// #     }
    /// # }
    /// # let mut fib = Benchmark::new("quickstart/fib", "quickstart", "fib", None, Outcome::Measured);
    /// # fib.counters.push(wall(&[10.0, 10.5, 9.5, 10.0]));
    /// # let report = Report::new("quickstart", Machine::default(), Config::default(), vec![fib]);
    /// let fib = &report.benchmarks[0];
    /// assert_eq!(fib.counter("wall-time").map(|c| c.unit.as_str()), Some("ns"));
    /// assert!(fib.counter("instructions").is_none());
    /// ```
    pub fn counter(&self, name: &str) -> Option<&CounterResult> {
        self.counters.iter().find(|c| c.name == name)
    }

    /// `panicked: MESSAGE` or `failed: MESSAGE` for a benchmark that has no values; `None` for
    /// one that was measured or tested.
    ///
    /// ```
    /// use perfbench_analysis::model::{Benchmark, Outcome};
    ///
    /// let mut b = Benchmark::new("g/parse", "g", "parse", None, Outcome::Panicked);
    /// b.error = Some("index out of bounds".into());
    /// assert_eq!(b.failure().as_deref(), Some("panicked: index out of bounds"));
    /// b.outcome = Outcome::Measured;
    /// assert_eq!(b.failure(), None);
    /// ```
    pub fn failure(&self) -> Option<String> {
        perfbench::harness::raw::failure_text(self.outcome, self.error.as_deref())
    }
}

impl From<perfbench::harness::raw::RawBenchmark> for Benchmark {
    /// The result as measured: no estimates, no derived metrics, no changes yet.
    fn from(raw: perfbench::harness::raw::RawBenchmark) -> Benchmark {
        Benchmark {
            id: raw.id,
            group: raw.group,
            name: raw.name,
            params: raw.params,
            throughput: raw.throughput,
            threads: raw.threads,
            outcome: raw.outcome,
            error: raw.error,
            counters: raw.counters.into_iter().map(CounterResult::from).collect(),
            derived: Vec::new(),
            flame: None,
        }
    }
}

impl From<perfbench::harness::raw::RawCounter> for CounterResult {
    /// The samples as measured: no estimate, no change yet.
    fn from(raw: perfbench::harness::raw::RawCounter) -> CounterResult {
        CounterResult {
            name: raw.name,
            unit: raw.unit,
            source: raw.source,
            multiplexed: raw.multiplexed,
            per_iteration: raw.per_iteration,
            iterations: raw.iterations,
            rounds: raw.rounds,
            overhead: raw.overhead,
            estimate: None,
            change: None,
        }
    }
}

/// One counter of one benchmark. Its name is its key in the benchmark's `counters` object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct CounterResult {
    /// The counter's name as the user wrote it (`instructions`, `cycles:u`, `wall-time`).
    #[serde(skip)]
    pub name: String,
    /// `ns` for time-like counters, `count` otherwise.
    pub unit: String,
    /// How the values were read.
    pub source: Source,
    /// Some sample's group was multiplexed: its counts are scaled estimates.
    #[serde(default)]
    pub multiplexed: bool,
    /// Per-iteration value of each sample (bracket overhead subtracted, divided by
    /// `iterations`).
    #[serde(with = "nullable::vec")]
    #[cfg_attr(test, schemars(with = "Vec<Option<f64>>"))]
    pub per_iteration: Vec<f64>,
    /// Iterations in each sample.
    pub iterations: Vec<u64>,
    /// Samples per round, in the order taken: `[10, 10, ...]` means samples 0-9 came from the
    /// first round, 10-19 from the second, and so on ([`CounterResult::rounds`] splits them).
    /// Empty (in reports written before rounds existed) means one round of every sample.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rounds: Vec<u32>,
    /// The bracket overhead that was subtracted, per sample (not per iteration).
    #[serde(default = "nullable::nan", with = "nullable")]
    #[cfg_attr(test, schemars(with = "Option<f64>"))]
    pub overhead: f64,
    /// Statistics of `per_iteration` (`None` when there are no finite samples).
    pub estimate: Option<Estimate>,
    /// How the counter changed since a baseline, when the run was compared with one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<Change>,
}

impl CounterResult {
    /// `per_iteration` split into its rounds, in the order taken. One slice of every sample
    /// when `rounds` is empty, or when its sizes do not add up to the samples (a hand-edited
    /// document): the samples are then treated as one round.
    ///
    /// ```
    /// # use perfbench_analysis::model::{Benchmark, Config, CounterResult, Machine, Outcome, Report, Source};
    /// # use perfbench_analysis::stats::{estimate, StatsConfig};
    /// # fn wall(values: &[f64]) -> CounterResult {
    /// #     CounterResult {
    /// #         name: "wall-time".into(), unit: "ns".into(), source: Source::Clock,
    /// #         multiplexed: false, per_iteration: values.to_vec(), iterations: vec![1000; values.len()],
    /// #         rounds: Vec::new(), overhead: 0.0,
    /// #         estimate: estimate(values, None, &StatsConfig::default()), change: None,
    /// #     }
    /// # }
    /// # let mut fib = Benchmark::new("quickstart/fib", "quickstart", "fib", None, Outcome::Measured);
    /// # fib.counters.push(wall(&[10.0, 10.5, 9.5, 10.0]));
    /// # let report = Report::new("quickstart", Machine::default(), Config::default(), vec![fib]);
    /// let mut c = report.benchmarks[0].counters[0].clone();
    /// c.rounds = vec![2, 2];
    /// assert_eq!(c.round_values(), [&[10.0, 10.5][..], &[9.5, 10.0][..]]);
    /// c.rounds = vec![3]; // does not add up to the 4 samples: one round
    /// assert_eq!(c.round_values().len(), 1);
    /// ```
    pub fn round_values(&self) -> Vec<&[f64]> {
        let total: u64 = self.rounds.iter().map(|&n| u64::from(n)).sum();
        if self.rounds.is_empty() || total != self.per_iteration.len() as u64 {
            return vec![&self.per_iteration];
        }
        let mut rest = self.per_iteration.as_slice();
        self.rounds
            .iter()
            .map(|&n| {
                let (head, tail) = rest.split_at(n as usize);
                rest = tail;
                head
            })
            .collect()
    }
}

/// A metric computed from other counters (e.g. `ipc` = instructions / cycles). Its name is its
/// key in the benchmark's `derived` object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Derived {
    /// `ipc`, `branch-miss-rate`, `cache-miss-rate`.
    #[serde(skip)]
    pub name: String,
    /// Per-sample values.
    #[serde(with = "nullable::vec")]
    #[cfg_attr(test, schemars(with = "Vec<Option<f64>>"))]
    pub per_sample: Vec<f64>,
    /// Statistics of `per_sample`.
    pub estimate: Option<Estimate>,
}

/// Types written as the values of an object keyed by their `name` field (which the object's key
/// holds instead).
macro_rules! keyed_by_name {
    ($($t:ty),*) => {$(
        impl Keyed for $t {
            type Value = $t;
            fn key(&self) -> &str {
                &self.name
            }
            fn value(&self) -> &Self {
                self
            }
            fn join(key: String, mut value: Self) -> Self {
                value.name = key;
                value
            }
        }
    )*};
}

keyed_by_name!(CounterResult, Derived);

#[cfg(any(test, feature = "testing"))]
#[doc(hidden)] // synthetic reports for tests (feature `testing`)
pub mod fixtures;
#[cfg(test)]
pub(crate) mod schema;
