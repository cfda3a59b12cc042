//! criterion's API on perfbench's engine.
//!
//! A criterion suite switches with one line of `Cargo.toml`, and no change to its bench files:
//!
//! ```toml
//! [dev-dependencies]
//! criterion = { package = "perfbench-criterion", version = "0.1" }
//! ```
//!
//! `cargo bench` then measures every `bench_function` and `bench_with_input` with perfbench:
//! every counter the machine has (through the user-page fast path where the kernel allows
//! it), rounds, intervals, the verdict against the previous run or a baseline, the JSON and
//! HTML reports under `target/perfbench/`, and every flag of a `#[perfbench]` suite
//! (`--save-baseline`, `--baseline`, `--fail-on-regression`, `--simulate`, `--paired`,
//! `--counters`, `--list`, filters; `--profile` with the `profile` feature);
//! `cargo test --benches` runs every body once.
//!
//! ```no_run
//! use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
//! # mod criterion { pub use perfbench_criterion::*; }
//!
//! fn fib(n: u64) -> u64 {
//!     if n < 2 { n } else { fib(n - 1) + fib(n - 2) }
//! }
//!
//! fn benches(c: &mut Criterion) {
//!     c.bench_function("fib 20", |b| b.iter(|| fib(black_box(20))));
//!     let mut group = c.benchmark_group("sum");
//!     for n in [64u64, 4096] {
//!         let v: Vec<u64> = (0..n).collect();
//!         group.throughput(Throughput::Elements(n));
//!         group.bench_with_input(BenchmarkId::from_parameter(n), &v, |b, v| {
//!             b.iter(|| v.iter().sum::<u64>())
//!         });
//!     }
//!     group.finish();
//! }
//!
//! criterion_group!(suite, benches);
//! criterion_main!(suite);
//! ```
//!
//! The ids are criterion's (`fib 20`, `sum/64`), and the command line's filters are regular
//! expressions as criterion's are (`cargo bench -- '^sum/'`), so habits carry over. What
//! differs, and the settings that have no meaning here (plots, resamples, confidence levels),
//! are listed in the guide's migration page; every one of them is accepted, none is a compile
//! error.
//!
//! How it runs: `criterion_main!` first learns the benchmarks' ids and settings from a child
//! process of the binary, in which every group runs with the benchmarks' closures unrun; then
//! it runs every group once, as criterion does, and perfbench measures each benchmark in all
//! its rounds where `bench_function` defines it. Code in a target function outside the
//! closures (building inputs, setting a global subscriber) runs once per process, never inside
//! a measurement.

mod args;
mod async_bencher;
pub mod async_executor;
mod bencher;
mod benchmark;
mod criterion;
mod engine;
mod group;
pub mod measurement;
pub mod profiler;
mod settings;

pub use async_bencher::AsyncBencher;
pub use bencher::Bencher;
#[allow(deprecated)]
pub use benchmark::{Benchmark, BenchmarkDefinition, Fun, ParameterizedBenchmark};
pub use criterion::Criterion;
pub use group::{BenchmarkGroup, BenchmarkId, IntoBenchmarkId};
pub use settings::{
    AxisScale, BatchSize, PlotConfiguration, PlottingBackend, SamplingMode, Throughput,
};
pub use std::hint::black_box;

/// What the macros expand to; not for people.
#[doc(hidden)]
pub mod __private {
    pub use crate::engine::{group, main};
}

/// Defines a group of benchmark targets: a function `NAME` that runs each target (a
/// `fn(&mut Criterion)`) with the configuration, as criterion's macro does.
///
/// ```no_run
/// use std::time::Duration;
/// use criterion::{criterion_group, criterion_main, Criterion};
/// # mod criterion { pub use perfbench_criterion::*; }
///
/// fn quick(c: &mut Criterion) {
///     c.bench_function("add", |b| b.iter(|| 2 + 2));
/// }
///
/// criterion_group!(plain, quick);
/// criterion_group! {
///     name = configured;
///     config = Criterion::default().sample_size(50).measurement_time(Duration::from_secs(2));
///     targets = quick
/// }
/// criterion_main!(plain, configured);
/// ```
#[macro_export]
macro_rules! criterion_group {
    (name = $name:ident; config = $config:expr; targets = $( $target:path ),+ $(,)*) => {
        /// A group of benchmark targets (`criterion_group!`).
        pub fn $name() {
            $crate::__private::group($name, || $config, &[$($target),+]);
        }
    };
    ($name:ident, $( $target:path ),+ $(,)*) => {
        $crate::criterion_group! {
            name = $name;
            config = $crate::Criterion::default();
            targets = $( $target ),+
        }
    };
}

/// Defines `main`: finds the benchmarks of the groups, then runs them with perfbench's
/// runner (the command line is `cargo bench`'s, as for a `#[perfbench]` suite).
///
/// See [`criterion_group!`] for an example.
#[macro_export]
macro_rules! criterion_main {
    ( $( $group:path ),+ $(,)* ) => {
        fn main() -> ::std::process::ExitCode {
            $crate::__private::main(&[$($group),+])
        }
    };
}
