//! The benchmark harness: registration ([`entry`]), the [`Bencher`] a benchmark drives, the
//! measuring engine ([`sampler`]), the command line ([`cli`]), results ([`result`]), pinning to
//! one core type ([`affinity`]) and the [`runner`] behind [`main!`](crate::main).

pub mod affinity;
pub mod bencher;
pub mod cli;
pub mod entry;
pub mod result;
pub mod runner;
pub mod sampler;

pub use bencher::{Bencher, Meter};
pub use entry::{Entry, Options, Throughput};
