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
