//! Reports: what a run looks like on the terminal ([`terminal`]), the versioned JSON document
//! that CI and `compare` read ([`json`]), the unit scaling they share ([`units`]), and writing
//! files atomically ([`write_atomic`]).
//!
//! This module renders [`SuiteResult`](crate::harness::result::SuiteResult)s; it measures
//! nothing, computes no statistics (they come in the results) and prints nothing itself: the
//! functions return strings and the runner decides where they go.
//!
//! JSON is written and parsed by a small in-crate model (`value`), not serde: objects keep
//! their insertion order (counters in the order asked for), non-finite floats become `null`,
//! and downstream builds compile no serialisation framework.

mod file;
pub mod json;
pub mod terminal;
pub mod units;
mod value;

#[cfg(test)]
mod schema_tests;

pub use file::write_atomic;
