//! The benchmark harness: registration ([`entry`]), the [`Bencher`] a benchmark drives, the
//! measuring engine ([`sampler`]) and pinning to one core type ([`affinity`]). It produces raw
//! samples ([`raw`]), which the tool's analysis (`perfbench-analysis`) turns into the report's
//! types; the [`runner`](crate::runner) drives it and hands the results on.

pub mod affinity;
pub mod bencher;
pub mod entry;
pub mod raw;
pub mod sampler;
pub mod simulate;

pub use bencher::{BatchSize, Bencher, Meter};
pub use entry::{Entry, Options, Throughput};
