//! The benchmark harness: registration ([`entry`]), the [`Bencher`] a benchmark drives, the
//! measuring engine ([`sampler`]) and pinning to one core type ([`affinity`]). It produces the
//! [`model`](crate::model) types; the [`runner`](crate::runner) drives it and hands the results
//! to the reports.

pub mod affinity;
pub mod bencher;
pub mod entry;
pub mod sampler;
pub mod simulate;

pub use bencher::{BatchSize, Bencher, Meter};
pub use entry::{Entry, Options, Throughput};
