//! perfbench-analysis: what the `perfbench` tool does with a benchmark binary's samples.
//!
//! Benchmark binaries (the `perfbench` crate) measure and hand their raw samples to the tool
//! (`perfbench-cli`), which is built on this crate: the statistics, the data model of a run
//! (which is also the JSON report), comparisons with the previous run or a baseline, saved
//! baselines, the run history, and the terminal, JSON and HTML reports. A benchmark build
//! never compiles it.
//!
//! A user's own tool reads a run's report with the [`model`]:
//!
//! ```no_run
//! let report = perfbench_analysis::model::file::load("target/perfbench/quickstart.json".as_ref())?;
//! for bench in &report.benchmarks {
//!     for counter in &bench.counters {
//!         if let (Some(e), Some(change)) = (counter.estimate, counter.change) {
//!             println!("{} {}: {:.1} ({})", bench.id, counter.name, e.point, change.verdict);
//!         }
//!     }
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Module map
//!
//! - [`doctor`]: what this machine can count, and why not (`perfbench doctor`).
//! - [`stats`]: estimates, intervals, outliers and change detection.
//! - [`model`]: the data model of a run, which is also the JSON report.
//! - [`verdict`]: how one counter changed between two runs, and its thresholds.
//! - [`baseline`]: saved baselines and the previous run on disk, locked and written atomically.
//! - [`history`]: the figures of the last runs of one build, which widen its intervals.
//! - [`report`]: what results look like: terminal, libtest lines, HTML.
//! - [`runner`]: the runs the tool analyses (streamed, paired, simulated).
//!
//! Each module imports only from those above it in this list, and from the `perfbench` crate's
//! measuring layers below them all.
#![warn(missing_docs)]

pub mod baseline;
pub mod doctor;
pub mod history;
mod json_fields;
pub mod model;
pub mod report;
pub mod runner;
#[cfg(any(test, feature = "testing"))]
#[doc(hidden)] // the JSON Schema checks of the tests (feature `testing`)
pub mod schema_validator;
pub mod stats;
pub mod verdict;
