//! Reports of a benchmark run: what results look like. [`terminal`] prints a run as it goes;
//! [`libtest`] writes libtest's `bench:` lines; [`html`] writes the HTML report; [`flame`]
//! draws a simulated benchmark's flame graphs; [`units`] scales values for people.
//!
//! This module renders [`model`](crate::model) types; it measures nothing, computes no
//! statistics (they come in the results) and prints nothing itself: the functions return
//! strings and the caller decides where they go. The JSON report itself is
//! [`model::json`](crate::model::json). What only the `perfbench` tool shows (comparisons of
//! two runs as text, Markdown, JSON or HTML; Bencher Metric Format) is rendered in the tool,
//! so that benchmark builds do not compile it.

pub mod flame;
pub mod html;
pub mod libtest;
pub mod terminal;

/// Unit scaling, shared with the harness's notes (it lives below both: [`perfbench::units`]).
pub use perfbench::units;

use crate::model::Benchmark;

/// What a threaded benchmark's figures are, as the terminal and the HTML report say it beside
/// the benchmark: `on 4 threads (counters summed over the threads; wall-time per thread)`.
/// `None` for a body on one thread (its figures read as any other benchmark's) and for one
/// that is not threaded.
///
/// ```
/// use perfbench_analysis::model::{Benchmark, Outcome};
/// use perfbench_analysis::report::threads_note;
///
/// let mut b = Benchmark::new("g/mutex/4", "g", "mutex", Some("4"), Outcome::Measured);
/// assert_eq!(threads_note(&b), None);
/// b.threads = Some(4);
/// assert_eq!(
///     threads_note(&b).as_deref(),
///     Some("on 4 threads (counters summed over the threads; wall-time per thread)")
/// );
/// b.threads = Some(1);
/// assert_eq!(threads_note(&b), None);
/// ```
pub fn threads_note(b: &Benchmark) -> Option<String> {
    b.threads
        .and_then(perfbench::harness::threads::figures_note)
}
