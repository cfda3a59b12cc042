//! Reports: what results look like. [`terminal`] prints a run as it goes; [`comparison`]
//! renders a [`Comparison`](crate::compare::Comparison) as text, Markdown or JSON; [`bencher`]
//! writes libtest's `bench:` lines; [`bmf`] exports Bencher Metric Format; `html` (feature
//! `html`) writes the HTML report; [`units`] scales
//! values for people.
//!
//! This module renders [`model`](crate::model) and [`compare`](crate::compare) types; it
//! measures nothing, computes no statistics (they come in the results) and prints nothing
//! itself: the functions return strings and the caller decides where they go. The JSON report
//! itself is [`model::json`](crate::model::json).

pub mod bencher;
pub mod bmf;
pub mod comparison;
#[cfg(feature = "html")]
pub mod html;
pub mod terminal;

/// Unit scaling, shared with the harness's notes (it lives below both: [`crate::units`]).
pub use crate::units;
