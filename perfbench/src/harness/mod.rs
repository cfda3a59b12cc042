//! The benchmark harness: registration ([`entry`]), the [`Bencher`] a benchmark drives, the
//! measuring engine ([`sampler`]) and pinning to one core type ([`affinity`]). It produces raw
//! samples ([`raw`]), which the tool's analysis (`perfbench-analysis`) turns into the report's
//! types; the [`runner`](crate::runner) drives it and hands the results on.
//!
//! It owns how a body is measured (brackets, calibration, the sample plan, rounds); it reads
//! counters through [`counters`](crate::counters) and never chooses them, parses a command
//! line, computes a statistic or writes a file.

pub mod affinity;
pub mod bencher;
pub mod entry;
pub mod executor;
pub mod quiet;
pub mod raw;
pub mod sampler;
pub mod simulate;
pub mod threads;

pub use bencher::{BatchSize, Bencher, Meter};
pub use entry::{Entry, Options, Throughput};
