//! The benchmark harness: registration ([`entry`]), the [`Bencher`] a benchmark drives, and the
//! runner behind `perfbench::main!()`.

pub mod bencher;
pub mod entry;

pub use bencher::Bencher;
pub use entry::{Entry, Options, Throughput};
