//! The JSON report of DESIGN.md section 3.3: [`to_json`] writes it, [`from_json`] reads back what
//! `compare` and baselines need ([`ReportFile`]).
//!
//! The document is versioned ([`SCHEMA_VERSION`]) and described by
//! `perfbench/schema/report-v1.schema.json` (JSON Schema draft 2020-12); a test checks real
//! output against that file. Within one version, fields may be added but none is removed or
//! changes meaning, so the reader ignores members it does not know.
//!
//! ```json
//! {
//!   "schema_version": 1,
//!   "perfbench_version": "0.1.0",
//!   "suite": "demo",
//!   "machine": { "cpu": "...", "arch": "x86_64", "kernel": "6.1.0", "cpus": 2,
//!                "pmus": ["cpu", "software"], "core_pmus": ["cpu"], "perf_event_paranoid": 2,
//!                "sources": { "instructions": "rdpmc", "wall-time": "clock" } },
//!   "config": { "sample_size": 100, "warm_up_time": 0.3, "measurement_time": 1.5,
//!               "sampling": "flat", "counters": ["instructions", "wall-time"],
//!               "confidence": 0.95, "resamples": 10000 },
//!   "benchmarks": [ {
//!     "id": "math/fib_20", "group": "math", "name": "fib_20", "params": null,
//!     "throughput": null, "outcome": "measured", "error": null,
//!     "counters": {
//!       "instructions": { "unit": "count", "source": "rdpmc", "multiplexed": false,
//!                         "per_iteration": [54731.0, ...], "iterations": [812, ...],
//!                         "overhead": 41.0,
//!                         "estimate": { "point": 54731.0, "mean": 54731.0, "median": ...,
//!                                       "stddev": ..., "mad": ...,
//!                                       "ci_low": ..., "ci_high": ..., "confidence": 0.95,
//!                                       "min": ..., "max": ..., "slope": null, "r_squared": null,
//!                                       "outliers": { "low_severe": 0, "low_mild": 0, "normal": 100,
//!                                                     "high_mild": 0, "high_severe": 0 },
//!                                       "excluded": 0 } } },
//!     "derived": { "ipc": { "per_sample": [...], "estimate": { ... } } }
//!   } ]
//! }
//! ```
//!
//! # Conventions
//! - Objects keyed by name (`counters`, `derived`, `machine.sources`) keep the order of the
//!   result's vectors (the order the user asked for). A repeated name keeps its first entry.
//! - `params` is `null` without `args`; `throughput` is `{"bytes": N}`, `{"elements": N}` or
//!   `null`; `outcome` is `measured`, `tested`, `panicked` or `failed`, and `error` holds the
//!   message of the last two (`null` otherwise).
//! - `estimate` is `null` when a counter has no finite sample. `slope` and `r_squared` are `null`
//!   without linear sampling.
//! - **Non-finite numbers**: JSON has no NaN or infinity. Any non-finite float (a per-iteration
//!   value, `overhead`, an estimate field) is written as `null`, as serde_json does, so the file
//!   is always valid JSON; the schema allows `null` wherever a float goes, and [`from_json`]
//!   reads such a `null` back as NaN (as `None` for the optional `slope` and `r_squared`). The
//!   statistics never produce NaN, so in practice only raw per-iteration values and `overhead`
//!   can be `null`.

use std::fmt;

use super::value::{self, Value};
use crate::counters::Source;
use crate::harness::entry::Throughput;
use crate::harness::result::{
    BenchResult, CounterResult, DerivedResult, MachineInfo, Outcome, RunConfig, SuiteResult,
};
use crate::stats::{Estimate, OutlierCounts};

/// The version of the document [`to_json`] writes and [`from_json`] reads.
pub const SCHEMA_VERSION: u64 = 1;

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

/// The JSON report of a suite, pretty-printed (two-space indentation, arrays of numbers on one
/// line), without a trailing newline. Always valid JSON, whatever the floats hold.
pub fn to_json(suite: &SuiteResult) -> String {
    suite_value(suite).to_pretty()
}

fn s(x: &str) -> Value {
    Value::String(x.to_owned())
}

fn uint(x: usize) -> Value {
    Value::UInt(x as u64)
}

fn strings(xs: &[String]) -> Value {
    Value::Array(xs.iter().map(|x| s(x)).collect())
}

/// An object from named entries in order, keeping the first of a repeated name.
fn keyed(entries: impl IntoIterator<Item = (String, Value)>) -> Value {
    let mut members: Vec<(String, Value)> = Vec::new();
    for (k, v) in entries {
        if !members.iter().any(|(seen, _)| *seen == k) {
            members.push((k, v));
        }
    }
    Value::Object(members)
}

fn obj(members: Vec<(&str, Value)>) -> Value {
    Value::Object(
        members
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
    )
}

fn suite_value(suite: &SuiteResult) -> Value {
    obj(vec![
        ("schema_version", Value::UInt(SCHEMA_VERSION)),
        ("perfbench_version", s(suite.perfbench_version)),
        ("suite", s(&suite.suite)),
        ("machine", machine_value(&suite.machine)),
        ("config", config_value(&suite.config)),
        (
            "benchmarks",
            Value::Array(suite.benchmarks.iter().map(bench_value).collect()),
        ),
    ])
}

fn machine_value(m: &MachineInfo) -> Value {
    obj(vec![
        ("cpu", s(&m.cpu)),
        ("arch", s(&m.arch)),
        ("kernel", s(&m.kernel)),
        ("cpus", uint(m.cpus)),
        ("pmus", strings(&m.pmus)),
        ("core_pmus", strings(&m.core_pmus)),
        (
            "perf_event_paranoid",
            m.paranoid.map_or(Value::Null, |p| Value::Int(i64::from(p))),
        ),
        (
            "sources",
            keyed(
                m.sources
                    .iter()
                    .map(|(name, src)| (name.clone(), s(src.as_str()))),
            ),
        ),
    ])
}

fn config_value(c: &RunConfig) -> Value {
    obj(vec![
        ("sample_size", Value::UInt(u64::from(c.sample_size))),
        ("warm_up_time", Value::Float(c.warm_up_time)),
        ("measurement_time", Value::Float(c.measurement_time)),
        ("sampling", s(c.sampling)),
        ("counters", strings(&c.counters)),
        ("confidence", Value::Float(c.confidence)),
        ("resamples", uint(c.resamples)),
    ])
}

/// `measured`, `tested`, `panicked` or `failed`, and the message of the last two.
fn outcome_parts(o: &Outcome) -> (&'static str, Option<&str>) {
    match o {
        Outcome::Measured => ("measured", None),
        Outcome::Tested => ("tested", None),
        Outcome::Panicked(msg) => ("panicked", Some(msg)),
        Outcome::Failed(msg) => ("failed", Some(msg)),
    }
}

fn bench_value(b: &BenchResult) -> Value {
    let (outcome, error) = outcome_parts(&b.outcome);
    obj(vec![
        ("id", s(&b.id)),
        ("group", s(&b.group)),
        ("name", s(&b.name)),
        ("params", Value::opt_str(b.params.as_deref())),
        (
            "throughput",
            match b.throughput {
                None => Value::Null,
                Some(Throughput::Bytes(n)) => obj(vec![("bytes", Value::UInt(n))]),
                Some(Throughput::Elements(n)) => obj(vec![("elements", Value::UInt(n))]),
            },
        ),
        ("outcome", s(outcome)),
        ("error", Value::opt_str(error)),
        (
            "counters",
            keyed(
                b.counters
                    .iter()
                    .map(|c| (c.name.clone(), counter_value(c))),
            ),
        ),
        (
            "derived",
            keyed(b.derived.iter().map(|d| (d.name.clone(), derived_value(d)))),
        ),
    ])
}

fn floats(xs: &[f64]) -> Value {
    Value::Array(xs.iter().map(|&x| Value::Float(x)).collect())
}

fn counter_value(c: &CounterResult) -> Value {
    obj(vec![
        ("unit", s(c.unit)),
        ("source", s(c.source.as_str())),
        ("multiplexed", Value::Bool(c.multiplexed)),
        ("per_iteration", floats(&c.per_iteration)),
        (
            "iterations",
            Value::Array(c.iterations.iter().map(|&n| Value::UInt(n)).collect()),
        ),
        ("overhead", Value::Float(c.overhead)),
        ("estimate", estimate_value(c.estimate.as_ref())),
    ])
}

fn derived_value(d: &DerivedResult) -> Value {
    obj(vec![
        ("per_sample", floats(&d.per_sample)),
        ("estimate", estimate_value(d.estimate.as_ref())),
    ])
}

fn estimate_value(e: Option<&Estimate>) -> Value {
    let Some(e) = e else {
        return Value::Null;
    };
    let o = &e.outliers;
    obj(vec![
        ("point", Value::Float(e.point)),
        ("mean", Value::Float(e.mean)),
        ("median", Value::Float(e.median)),
        ("stddev", Value::Float(e.stddev)),
        ("mad", Value::Float(e.mad)),
        ("ci_low", Value::Float(e.ci_low)),
        ("ci_high", Value::Float(e.ci_high)),
        ("confidence", Value::Float(e.confidence)),
        ("min", Value::Float(e.min)),
        ("max", Value::Float(e.max)),
        ("slope", Value::opt_float(e.slope)),
        ("r_squared", Value::opt_float(e.r_squared)),
        (
            "outliers",
            obj(vec![
                ("low_severe", uint(o.low_severe)),
                ("low_mild", uint(o.low_mild)),
                ("normal", uint(o.normal)),
                ("high_mild", uint(o.high_mild)),
                ("high_severe", uint(o.high_severe)),
            ]),
        ),
        ("excluded", uint(e.excluded)),
    ])
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

/// Why a report could not be read. The message names the problem and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReportError {
    /// The text is not JSON (truncated, or not a report at all).
    Syntax {
        /// 1-based line of the problem.
        line: usize,
        /// 1-based column (in characters).
        column: usize,
        /// What was expected or found.
        message: String,
    },
    /// A report of a schema version this perfbench does not read.
    UnsupportedVersion {
        /// The `schema_version` found, as written.
        found: String,
    },
    /// A field is missing or has the wrong type.
    Field {
        /// Where, e.g. `benchmarks[2] (math/fib).counters.cycles.estimate`.
        path: String,
        /// What is wrong, e.g. ``missing field `mean` ``.
        problem: String,
    },
}

impl fmt::Display for ReportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReportError::Syntax {
                line,
                column,
                message,
            } => write!(
                f,
                "not valid JSON (line {line}, column {column}): {message}"
            ),
            ReportError::UnsupportedVersion { found } => write!(
                f,
                "unsupported report schema_version {found}: this perfbench ({}) reads version \
                 {SCHEMA_VERSION}; re-run the benchmarks or use a matching perfbench",
                env!("CARGO_PKG_VERSION")
            ),
            ReportError::Field { path, problem } if path.is_empty() => f.write_str(problem),
            ReportError::Field { path, problem } => write!(f, "{path}: {problem}"),
        }
    }
}

impl std::error::Error for ReportError {}

/// A report read back from JSON: what `compare` and baselines need.
#[derive(Clone, Debug, PartialEq)]
pub struct ReportFile {
    /// The document's schema version ([`SCHEMA_VERSION`]).
    pub schema_version: u64,
    /// The perfbench version that wrote it.
    pub perfbench_version: String,
    /// The suite's name.
    pub suite: String,
    /// Where it ran.
    pub machine: ReportMachine,
    /// The benchmarks, in file order.
    pub benchmarks: Vec<ReportBench>,
}

impl ReportFile {
    /// The benchmark with this id.
    pub fn bench(&self, id: &str) -> Option<&ReportBench> {
        self.benchmarks.iter().find(|b| b.id == id)
    }
}

/// The machine facts a comparison may warn about when they differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportMachine {
    /// CPU model.
    pub cpu: String,
    /// Architecture.
    pub arch: String,
    /// Kernel release.
    pub kernel: String,
}

/// One benchmark of a [`ReportFile`].
#[derive(Clone, Debug, PartialEq)]
pub struct ReportBench {
    /// `group/name[/params]`, unique within the suite.
    pub id: String,
    /// The group.
    pub group: String,
    /// The function's name.
    pub name: String,
    /// The argument, for benchmarks with `args`.
    pub params: Option<String>,
    /// How it ended (only [`Outcome::Measured`] has values to compare).
    pub outcome: Outcome,
    /// Counters, in file order.
    pub counters: Vec<ReportCounter>,
    /// Derived metrics, in file order.
    pub derived: Vec<ReportDerived>,
}

impl ReportBench {
    /// The counter named `name`.
    pub fn counter(&self, name: &str) -> Option<&ReportCounter> {
        self.counters.iter().find(|c| c.name == name)
    }
}

/// One counter of a [`ReportBench`].
#[derive(Clone, Debug, PartialEq)]
pub struct ReportCounter {
    /// The counter's name (its key in `counters`).
    pub name: String,
    /// `ns` or `count`.
    pub unit: String,
    /// How it was read.
    pub source: Source,
    /// Some sample was multiplexed (scaled).
    pub multiplexed: bool,
    /// Per-iteration value of each sample (`null` in the file reads as NaN).
    pub per_iteration: Vec<f64>,
    /// Iterations in each sample.
    pub iterations: Vec<u64>,
    /// Statistics of `per_iteration`, `None` when the file has `null`.
    pub estimate: Option<Estimate>,
}

/// One derived metric of a [`ReportBench`].
#[derive(Clone, Debug, PartialEq)]
pub struct ReportDerived {
    /// `ipc`, `branch-miss-rate`, ...
    pub name: String,
    /// Per-sample values (`null` reads as NaN).
    pub per_sample: Vec<f64>,
    /// Their statistics.
    pub estimate: Option<Estimate>,
}

/// Reads a report written by [`to_json`].
///
/// Checks `schema_version` first (a different version is
/// [`ReportError::UnsupportedVersion`], whatever else the file holds), then the fields of
/// [`ReportFile`]; members it does not use (`config`, `machine.pmus`, ...) are ignored, as are
/// unknown ones. Never panics.
pub fn from_json(text: &str) -> Result<ReportFile, ReportError> {
    // A byte-order mark, as some editors write, is not part of the document.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let root = value::parse(text).map_err(|e| ReportError::Syntax {
        line: e.line,
        column: e.column,
        message: e.message,
    })?;
    let root = Node {
        v: &root,
        path: String::new(),
    };
    if !matches!(root.v, Value::Object(_)) {
        return Err(root.wrong("an object (a perfbench report)"));
    }
    let schema_version = match root.v.get("schema_version") {
        None => {
            return Err(ReportError::Field {
                path: String::new(),
                problem: "missing field `schema_version`: not a perfbench report".to_owned(),
            })
        }
        Some(Value::UInt(SCHEMA_VERSION)) => SCHEMA_VERSION,
        Some(other) => {
            return Err(ReportError::UnsupportedVersion {
                found: other.to_pretty(),
            })
        }
    };
    let machine = root.field("machine")?;
    Ok(ReportFile {
        schema_version,
        perfbench_version: root.field("perfbench_version")?.string()?,
        suite: root.field("suite")?.string()?,
        machine: ReportMachine {
            cpu: machine.field("cpu")?.string()?,
            arch: machine.field("arch")?.string()?,
            kernel: machine.field("kernel")?.string()?,
        },
        benchmarks: root
            .field("benchmarks")?
            .items()?
            .iter()
            .map(read_bench)
            .collect::<Result<_, _>>()?,
    })
}

/// A value and where it sits in the document, for error messages.
struct Node<'a> {
    v: &'a Value,
    path: String,
}

impl<'a> Node<'a> {
    fn child(&self, segment: &str, v: &'a Value) -> Node<'a> {
        let path = if self.path.is_empty() {
            segment.to_owned()
        } else if segment.starts_with('[') {
            format!("{}{segment}", self.path)
        } else {
            format!("{}.{segment}", self.path)
        };
        Node { v, path }
    }

    fn error(&self, problem: String) -> ReportError {
        ReportError::Field {
            path: self.path.clone(),
            problem,
        }
    }

    fn wrong(&self, expected: &str) -> ReportError {
        self.error(format!("expected {expected}, found {}", self.v.kind()))
    }

    fn field(&self, key: &str) -> Result<Node<'a>, ReportError> {
        match self.v {
            Value::Object(_) => match self.v.get(key) {
                Some(v) => Ok(self.child(key, v)),
                None => Err(self.error(format!("missing field `{key}`"))),
            },
            _ => Err(self.wrong("an object")),
        }
    }

    fn optional(&self, key: &str) -> Option<Node<'a>> {
        self.v
            .get(key)
            .filter(|v| **v != Value::Null)
            .map(|v| self.child(key, v))
    }

    fn string(&self) -> Result<String, ReportError> {
        match self.v {
            Value::String(s) => Ok(s.clone()),
            _ => Err(self.wrong("a string")),
        }
    }

    fn opt_string(&self) -> Result<Option<String>, ReportError> {
        match self.v {
            Value::Null => Ok(None),
            _ => self.string().map(Some),
        }
    }

    fn bool(&self) -> Result<bool, ReportError> {
        match self.v {
            Value::Bool(b) => Ok(*b),
            _ => Err(self.wrong("true or false")),
        }
    }

    /// A number, or `null` read as NaN (how non-finite floats are written).
    fn float(&self) -> Result<f64, ReportError> {
        match self.v {
            Value::Null => Ok(f64::NAN),
            v => v.as_f64().ok_or_else(|| self.wrong("a number")),
        }
    }

    /// A non-negative integer (`3` or `3.0`).
    fn uint(&self) -> Result<u64, ReportError> {
        match *self.v {
            Value::UInt(u) => Ok(u),
            Value::Float(x) if x >= 0.0 && x.fract() == 0.0 && x < u64::MAX as f64 => Ok(x as u64),
            _ => Err(self.wrong("a non-negative integer")),
        }
    }

    fn items(&self) -> Result<Vec<Node<'a>>, ReportError> {
        match self.v {
            Value::Array(items) => Ok(items
                .iter()
                .enumerate()
                .map(|(i, v)| self.child(&format!("[{i}]"), v))
                .collect()),
            _ => Err(self.wrong("an array")),
        }
    }

    fn members(&self) -> Result<Vec<(&'a str, Node<'a>)>, ReportError> {
        match self.v {
            Value::Object(members) => Ok(members
                .iter()
                .map(|(k, v)| (k.as_str(), self.child(k, v)))
                .collect()),
            _ => Err(self.wrong("an object")),
        }
    }
}

fn read_bench(node: &Node<'_>) -> Result<ReportBench, ReportError> {
    let id = node.field("id")?.string()?;
    // Name the benchmark in every later error: `benchmarks[3] (math/fib).counters...`.
    let node = Node {
        v: node.v,
        path: format!("{} ({id})", node.path),
    };
    let outcome = match node.field("outcome")?.string()?.as_str() {
        "measured" => Outcome::Measured,
        "tested" => Outcome::Tested,
        kind @ ("panicked" | "failed") => {
            let msg = node
                .optional("error")
                .map(|e| e.string())
                .transpose()?
                .unwrap_or_default();
            if kind == "panicked" {
                Outcome::Panicked(msg)
            } else {
                Outcome::Failed(msg)
            }
        }
        other => {
            return Err(node.field("outcome")?.error(format!(
                "unknown outcome `{other}` (expected measured, tested, panicked or failed)"
            )))
        }
    };
    Ok(ReportBench {
        group: node.field("group")?.string()?,
        name: node.field("name")?.string()?,
        params: node.field("params")?.opt_string()?,
        outcome,
        counters: node
            .field("counters")?
            .members()?
            .into_iter()
            .map(|(name, c)| read_counter(name, &c))
            .collect::<Result<_, _>>()?,
        derived: match node.optional("derived") {
            None => Vec::new(),
            Some(d) => d
                .members()?
                .into_iter()
                .map(|(name, d)| {
                    Ok(ReportDerived {
                        name: name.to_owned(),
                        per_sample: floats_of(&d.field("per_sample")?)?,
                        estimate: read_estimate(&d.field("estimate")?)?,
                    })
                })
                .collect::<Result<_, _>>()?,
        },
        id,
    })
}

fn floats_of(node: &Node<'_>) -> Result<Vec<f64>, ReportError> {
    node.items()?.iter().map(Node::float).collect()
}

fn read_counter(name: &str, node: &Node<'_>) -> Result<ReportCounter, ReportError> {
    let source = node.field("source")?;
    Ok(ReportCounter {
        name: name.to_owned(),
        unit: node.field("unit")?.string()?,
        source: match source.string()?.as_str() {
            "rdpmc" => Source::Rdpmc,
            "mrs" => Source::Mrs,
            "read" => Source::Read,
            "clock" => Source::Clock,
            other => {
                return Err(source.error(format!(
                    "unknown source `{other}` (expected rdpmc, mrs, read or clock)"
                )))
            }
        },
        multiplexed: node.field("multiplexed")?.bool()?,
        per_iteration: floats_of(&node.field("per_iteration")?)?,
        iterations: node
            .field("iterations")?
            .items()?
            .iter()
            .map(Node::uint)
            .collect::<Result<_, _>>()?,
        estimate: read_estimate(&node.field("estimate")?)?,
    })
}

fn read_estimate(node: &Node<'_>) -> Result<Option<Estimate>, ReportError> {
    if *node.v == Value::Null {
        return Ok(None);
    }
    let f = |key: &str| node.field(key)?.float();
    let opt = |key: &str| node.optional(key).map(|n| n.float()).transpose();
    let outliers = match node.optional("outliers") {
        None => OutlierCounts::default(),
        Some(o) => {
            let n = |key: &str| -> Result<usize, ReportError> {
                let field = o.field(key)?;
                let v = field.uint()?;
                usize::try_from(v).map_err(|_| field.wrong("a count that fits this machine"))
            };
            OutlierCounts {
                low_severe: n("low_severe")?,
                low_mild: n("low_mild")?,
                normal: n("normal")?,
                high_mild: n("high_mild")?,
                high_severe: n("high_severe")?,
            }
        }
    };
    // `point` and `excluded` are always written; a document without them (written by hand,
    // or by a build before they existed) reads as if no sample had been left out.
    let excluded = match node.optional("excluded") {
        None => 0,
        Some(field) => usize::try_from(field.uint()?)
            .map_err(|_| field.wrong("a count that fits this machine"))?,
    };
    let slope = opt("slope")?;
    let mean = f("mean")?;
    let point = match node.optional("point") {
        Some(field) => field.float()?,
        None => slope.unwrap_or(mean),
    };
    Ok(Some(Estimate {
        point,
        mean,
        median: f("median")?,
        stddev: f("stddev")?,
        mad: f("mad")?,
        ci_low: f("ci_low")?,
        ci_high: f("ci_high")?,
        confidence: f("confidence")?,
        min: f("min")?,
        max: f("max")?,
        slope,
        r_squared: opt("r_squared")?,
        outliers,
        excluded,
    }))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::stats::{self, StatsConfig};

    /// A suite exercising every shape of the document: a measured benchmark with four counters
    /// (one multiplexed) and `ipc`, linear sampling, a parameterised one with throughput, a
    /// panicked and a failed one, a counter without samples, and NaN in the raw values.
    pub(crate) fn synthetic_suite() -> SuiteResult {
        let cfg = StatsConfig {
            resamples: 100,
            ..StatsConfig::default()
        };
        let counter = |name: &str, unit: &'static str, source, values: Vec<f64>| {
            let iterations: Vec<u64> = (1..=values.len() as u64).map(|i| i * 100).collect();
            CounterResult {
                name: name.to_owned(),
                unit,
                source,
                multiplexed: name == "cycles",
                estimate: stats::estimate(&values, Some(&iterations), &cfg),
                per_iteration: values,
                iterations,
                overhead: 41.0,
            }
        };
        let wall: Vec<f64> = (0..20).map(|i| 1200.0 + f64::from(i % 5) * 10.0).collect();
        let mut wall_outlier = wall.clone();
        wall_outlier[3] = 5000.0;
        let instructions = vec![4523.0; 20];
        let cycles: Vec<f64> = (0..20).map(|i| 3800.0 + f64::from(i % 3)).collect();
        let ipc: Vec<f64> = instructions
            .iter()
            .zip(&cycles)
            .map(|(i, c)| i / c)
            .collect();
        let mut misses = vec![0.25; 20];
        misses[7] = f64::NAN;
        let fib = BenchResult {
            id: "math/fib_20".into(),
            group: "math".into(),
            name: "fib_20".into(),
            params: None,
            throughput: None,
            counters: vec![
                counter("wall-time", "ns", Source::Clock, wall_outlier),
                counter("instructions", "count", Source::Rdpmc, instructions),
                counter("cycles", "count", Source::Rdpmc, cycles),
                counter("branch-misses", "count", Source::Read, misses),
                CounterResult {
                    name: "page-faults".into(),
                    unit: "count",
                    source: Source::Read,
                    multiplexed: false,
                    per_iteration: vec![],
                    iterations: vec![],
                    overhead: f64::NAN,
                    estimate: None,
                },
            ],
            derived: vec![DerivedResult {
                name: "ipc".into(),
                estimate: stats::estimate(&ipc, None, &cfg),
                per_sample: ipc,
            }],
            outcome: Outcome::Measured,
        };
        let sum = BenchResult {
            id: "math/sum/4096".into(),
            group: "math".into(),
            name: "sum".into(),
            params: Some("4096".into()),
            throughput: Some(Throughput::Bytes(4096 * 8)),
            counters: vec![counter("wall-time", "ns", Source::Clock, wall)],
            derived: vec![],
            outcome: Outcome::Measured,
        };
        let boom = BenchResult {
            id: "io/boom".into(),
            group: "io".into(),
            name: "boom".into(),
            params: None,
            throughput: Some(Throughput::Elements(10)),
            counters: vec![],
            derived: vec![],
            outcome: Outcome::Panicked("index out of bounds: \"len\" is 3".into()),
        };
        let failed = BenchResult {
            id: "io/gone".into(),
            group: "io".into(),
            name: "gone".into(),
            params: None,
            throughput: None,
            counters: vec![],
            derived: vec![],
            outcome: Outcome::Failed("counter `cycles` failed: ENODEV".into()),
        };
        SuiteResult {
            suite: "demo".into(),
            perfbench_version: "0.1.0",
            machine: MachineInfo {
                cpu: "Test CPU @ 3.0GHz".into(),
                arch: "x86_64".into(),
                kernel: "6.1.0-test".into(),
                cpus: 2,
                pmus: vec!["cpu".into(), "software".into()],
                core_pmus: vec!["cpu".into()],
                paranoid: Some(2),
                sources: vec![
                    ("wall-time".into(), Source::Clock),
                    ("instructions".into(), Source::Rdpmc),
                    ("branch-misses".into(), Source::Read),
                ],
            },
            config: RunConfig {
                sample_size: 20,
                warm_up_time: 0.3,
                measurement_time: 1.5,
                sampling: "linear",
                counters: vec!["wall-time".into(), "instructions".into()],
                confidence: 0.95,
                resamples: 100,
            },
            benchmarks: vec![fib, sum, boom, failed],
        }
    }

    #[test]
    fn round_trip_of_what_compare_needs() {
        let suite = synthetic_suite();
        let text = to_json(&suite);
        let file = from_json(&text).unwrap();
        assert_eq!(file.schema_version, 1);
        assert_eq!(file.suite, "demo");
        assert_eq!(file.perfbench_version, "0.1.0");
        assert_eq!(file.machine.cpu, "Test CPU @ 3.0GHz");
        assert_eq!(file.benchmarks.len(), suite.benchmarks.len());
        for (read, orig) in file.benchmarks.iter().zip(&suite.benchmarks) {
            assert_eq!(read.id, orig.id);
            assert_eq!(read.group, orig.group);
            assert_eq!(read.name, orig.name);
            assert_eq!(read.params, orig.params);
            assert_eq!(read.outcome, orig.outcome);
            assert_eq!(read.counters.len(), orig.counters.len());
            for (rc, oc) in read.counters.iter().zip(&orig.counters) {
                assert_eq!(rc.name, oc.name);
                assert_eq!(rc.unit, oc.unit);
                assert_eq!(rc.source, oc.source);
                assert_eq!(rc.multiplexed, oc.multiplexed);
                assert_eq!(rc.iterations, oc.iterations);
                // NaN reads back as NaN; everything else exactly.
                assert_eq!(rc.per_iteration.len(), oc.per_iteration.len());
                for (a, b) in rc.per_iteration.iter().zip(&oc.per_iteration) {
                    assert!(a == b || (a.is_nan() && b.is_nan()), "{a} != {b}");
                }
                assert_eq!(rc.estimate, oc.estimate);
            }
            for (rd, od) in read.derived.iter().zip(&orig.derived) {
                assert_eq!(rd.name, od.name);
                assert_eq!(rd.per_sample, od.per_sample);
                assert_eq!(rd.estimate, od.estimate);
            }
        }
        let fib = file.bench("math/fib_20").unwrap();
        assert!(fib.counter("instructions").unwrap().estimate.unwrap().slope == Some(4523.0));
        assert!(fib.counter("page-faults").unwrap().estimate.is_none());
    }

    #[test]
    fn keeps_counter_order() {
        let mut suite = synthetic_suite();
        // Reverse alphabetical and "unsorted" on purpose.
        suite.benchmarks[0].counters.reverse();
        let text = to_json(&suite);
        let pos = |needle: &str| text.find(&format!("\"{needle}\": {{")).unwrap();
        assert!(pos("page-faults") < pos("branch-misses"));
        assert!(pos("branch-misses") < pos("cycles"));
        assert!(pos("cycles") < pos("instructions"));
        assert!(pos("instructions") < pos("wall-time"));
        let names: Vec<String> = from_json(&text).unwrap().benchmarks[0]
            .counters
            .iter()
            .map(|c| c.name.clone())
            .collect();
        assert_eq!(
            names,
            [
                "page-faults",
                "branch-misses",
                "cycles",
                "instructions",
                "wall-time"
            ]
        );
        // Top-level order is the document's, not alphabetical.
        assert!(text.find("\"schema_version\"").unwrap() < text.find("\"benchmarks\"").unwrap());
        assert!(text.find("\"suite\"").unwrap() < text.find("\"machine\"").unwrap());
    }

    #[test]
    fn non_finite_numbers_are_null() {
        let mut suite = synthetic_suite();
        let c = &mut suite.benchmarks[0].counters[0];
        c.per_iteration = vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1.0];
        c.overhead = f64::INFINITY;
        if let Some(e) = c.estimate.as_mut() {
            e.mean = f64::NAN;
            e.slope = Some(f64::INFINITY);
        }
        suite.config.warm_up_time = f64::NAN;
        let text = to_json(&suite);
        assert!(!text.contains("NaN") && !text.contains("inf"), "{text}");
        assert!(text.contains("\"per_iteration\": [null, null, null, 1.0]"));
        assert!(text.contains("\"warm_up_time\": null"));
        let back = from_json(&text).unwrap();
        let c = &back.benchmarks[0].counters[0];
        assert!(c.per_iteration[..3].iter().all(|x| x.is_nan()));
        let e = c.estimate.unwrap();
        // `slope` is optional: a non-finite one reads back as "no fit".
        assert!(e.mean.is_nan() && e.slope.is_none());
    }

    #[test]
    fn document_shape() {
        let text = to_json(&synthetic_suite());
        for needle in [
            "\"schema_version\": 1,",
            "\"perf_event_paranoid\": 2,",
            "\"sources\": {\n      \"wall-time\": \"clock\",",
            "\"params\": null,",
            "\"params\": \"4096\",",
            "\"throughput\": {\n        \"bytes\": 32768\n      },",
            "\"throughput\": {\n        \"elements\": 10\n      },",
            "\"outcome\": \"panicked\",\n      \"error\": \"index out of bounds: \\\"len\\\" is 3\"",
            "\"outcome\": \"failed\",",
            "\"outcome\": \"measured\",\n      \"error\": null,",
            "\"estimate\": null",
            "\"multiplexed\": true",
            "\"slope\": 4523.0",
            "\"ipc\": {\n          \"per_sample\": [",
            "\"counters\": {},",
        ] {
            assert!(text.contains(needle), "missing {needle:?} in\n{text}");
        }
        assert!(!text.ends_with('\n'));
    }

    #[test]
    fn repeated_names_keep_the_first() {
        let mut suite = synthetic_suite();
        let mut dup = suite.benchmarks[0].counters[1].clone();
        dup.unit = "other";
        suite.benchmarks[0].counters.push(dup);
        let file = from_json(&to_json(&suite)).unwrap();
        let fib = &file.benchmarks[0];
        assert_eq!(fib.counters.len(), 5);
        assert_eq!(fib.counter("instructions").unwrap().unit, "count");
    }

    fn err(text: &str) -> String {
        from_json(text).unwrap_err().to_string()
    }

    #[test]
    fn malformed_input_is_an_error_that_names_the_problem() {
        let text = to_json(&synthetic_suite());
        // Truncated anywhere: an error, never a panic (and never a partial report).
        for cut in (0..text.len()).step_by(7) {
            if text.is_char_boundary(cut) {
                assert!(from_json(&text[..cut]).is_err(), "cut at {cut}");
            }
        }
        let e = err(&text[..text.len() / 2]);
        assert!(e.starts_with("not valid JSON (line "), "{e}");

        assert!(err("").contains("truncated"));
        assert!(from_json(&format!("\u{feff}{text}")).is_ok());
        assert!(err("[1, 2]").contains("expected an object (a perfbench report), found an array"));
        assert!(err("{}").contains("missing field `schema_version`"));

        let v2 = text.replacen("\"schema_version\": 1", "\"schema_version\": 2", 1);
        let e = err(&v2);
        assert!(e.contains("unsupported report schema_version 2"), "{e}");
        assert!(e.contains("reads version 1"), "{e}");
        assert_eq!(
            from_json(&v2).unwrap_err(),
            ReportError::UnsupportedVersion { found: "2".into() }
        );
        let e = err(&text.replacen("\"schema_version\": 1", "\"schema_version\": \"1\"", 1));
        assert!(e.contains("schema_version \"1\""), "{e}");

        // A benchmark without counters names the benchmark.
        let no_counters = text.replacen(
            "\"counters\": {\n        \"wall-time\"",
            "\"cntrs\": {\n        \"wall-time\"",
            1,
        );
        let e = err(&no_counters);
        assert_eq!(e, "benchmarks[0] (math/fib_20): missing field `counters`");

        let e = err(&text.replacen("\"unit\": \"count\"", "\"unit\": 3", 1));
        assert_eq!(
            e,
            "benchmarks[0] (math/fib_20).counters.instructions.unit: expected a string, found a number"
        );
        let e = err(&text.replacen("\"mean\"", "\"average\"", 1));
        assert_eq!(
            e,
            "benchmarks[0] (math/fib_20).counters.wall-time.estimate: missing field `mean`"
        );
        let e = err(&text.replacen("\"source\": \"rdpmc\"", "\"source\": \"magic\"", 1));
        assert!(
            e.contains("counters.instructions.source: unknown source `magic`"),
            "{e}"
        );
        let e = err(&text.replacen("\"iterations\": [100", "\"iterations\": [-100", 1));
        assert!(
            e.contains("counters.wall-time.iterations[0]: expected a non-negative integer"),
            "{e}"
        );
        let e = err(&text.replacen("\"benchmarks\": [", "\"benchmarks\": [1, ", 1));
        assert_eq!(e, "benchmarks[0]: expected an object, found a number");
    }

    #[test]
    fn tolerates_unknown_fields_and_minimal_documents() {
        let text = r#"{"schema_version": 1, "perfbench_version": "9.9.9", "suite": "s",
            "future": [1, {"x": null}],
            "machine": {"cpu": "c", "arch": "a", "kernel": "k"},
            "benchmarks": [{"id": "g/f", "group": "g", "name": "f", "params": null,
                "outcome": "measured", "counters": {"instructions": {"unit": "count",
                "source": "read", "multiplexed": false, "per_iteration": [1, 2.5, null],
                "iterations": [1, 2, 3.0],
                "estimate": {"mean": 1, "median": 1, "stddev": 0, "mad": 0, "ci_low": 1,
                    "ci_high": 1, "confidence": 0.95, "min": 1, "max": 1}}}}]}"#;
        let file = from_json(text).unwrap();
        let c = &file.benchmarks[0].counters[0];
        assert_eq!(c.iterations, [1, 2, 3]);
        assert_eq!(c.per_iteration[..2], [1.0, 2.5]);
        let e = c.estimate.unwrap();
        assert_eq!((e.slope, e.outliers.total()), (None, 0));
        assert_eq!(
            (e.point, e.excluded),
            (1.0, 0),
            "no point: the mean, nothing left out"
        );
        assert!(file.benchmarks[0].derived.is_empty());
    }
}
