//! perfbench: benchmarks that read performance counters in-process.
//!
//! Counters are read through the kernel's user-page fast path (x86 `rdpmc`, arm64 `mrs`) where
//! the machine allows it, through `read(2)` of the counter group otherwise, and wall time and
//! software counters are always available. Every counter reports which [`Source`] served it.
//!
//! # Start here
//!
//! A bench target (`[[bench]] name = "quickstart"`, `harness = false` in `Cargo.toml`, and
//! `perfbench` under `[dev-dependencies]`) marks functions with [`#[perfbench]`](perfbench)
//! and ends with [`main!`]. `cargo bench` measures them; `cargo test --benches` runs each body
//! once (this example, run as a doc test, does the same):
//!
//! ```
//! use perfbench::{black_box, perfbench, Bencher};
//!
//! #[perfbench]
//! fn fib_20() -> u64 {
//!     fib(black_box(20))
//! }
//!
//! #[perfbench(args = [64, 4096], throughput = bytes(len))]
//! fn checksum(b: &mut Bencher, len: usize) {
//!     let data = vec![7u8; len]; // setup: not measured
//!     b.iter(|| data.iter().map(|&x| u64::from(x)).sum::<u64>());
//! }
//!
//! fn fib(n: u64) -> u64 {
//!     if n < 2 { n } else { fib(n - 1) + fib(n - 2) }
//! }
//!
//! perfbench::main!();
//! ```
//!
//! The attribute's options (`args`, `types`, `counters`, `throughput`, thresholds, sampling)
//! are documented one by one at [`perfbench`](macro@perfbench); the command line with
//! `cargo bench -- --help`; what a run writes (`target/perfbench/*.json`, the HTML report,
//! baselines) in the `perfbench-analysis` crate, whose report model reads it back.
//!
//! The counters without the harness ([`counters`]), here the page faults of filling a fresh
//! megabyte, a software event every Linux machine counts:
//!
//! ```
//! use perfbench::counters::{Counters, GroupOptions, Reading};
//! use perfbench::events::{parse_list, Sysfs};
//!
//! let events = parse_list("page-faults", &Sysfs::system())?;
//! let mut counters = Counters::open(&events, &GroupOptions::default())?;
//! let group = &mut counters.groups_mut()[0];
//! let mut reading = Reading::with_len(group.len());
//! group.reset()?;
//! group.enable()?;
//! let filled = std::hint::black_box(vec![1u8; 1 << 20]); // fresh pages, each written once
//! group.disable()?;
//! let source = group.read(&mut reading)?; // rdpmc / mrs where allowed, else read(2)
//! let faults = reading.scaled(0).unwrap_or(0.0);
//! assert!(faults >= 1.0 && faults <= 300.0, "{faults} page faults via {source}");
//! # drop(filled);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! What a run writes (`target/perfbench/*.json`, the HTML report, baselines) is read back by
//! the `perfbench-analysis` crate's report model, for a user's own tools; `perfbench compare
//! BASE NEW` does that for CI.
//!
//! # Who analyses
//!
//! A benchmark binary compiles the measurement layers only and hands each measured benchmark's
//! raw samples to the `perfbench` tool of its own version (the `perfbench-cli` crate), which
//! computes the statistics, compares, prints and writes the reports (`perfbench-analysis`):
//! a clean benchmark build compiles no statistics, serde or report
//! code. Nothing needs installing: a binary that finds no tool of its version builds one, once
//! per version, into a cache shared by every project on the machine (`~/.cache/perfbench`).
//! `--list` and `--test` need no tool. Features only add capabilities:
//!
//! - `profile`: `--profile`, sampling the measured region into perf.data files.
//! - `criterion`: perfbench counters as criterion 0.8 measurements.
//! - `serde`, `schema`: serde impls and JSON schemas of the types a report carries (for
//!   `perfbench-analysis`).
//!
//! Guides: `docs/counters.md` (enabling counters: `perf_event_paranoid`, `perf_user_access`,
//! the x86 `rdpmc` setting, containers, VMs, hybrid CPUs), `docs/reading-results.md` and
//! `docs/ci.md` in the repository.
//!
//! # Module map
//!
//! The API is the attribute, [`main!`], [`Bencher`], [`BatchSize`], [`Throughput`],
//! [`black_box`], and the counters and events library: [`events`] (perf-style event names <->
//! `perf_event_attr`, sysfs PMUs), [`machine`] (facts about this machine, and why
//! `perf_event_open` refused an event), [`counters`] (counter groups, the user-page reader, the
//! fallback chain) and, with its feature, `criterion` (perfbench counters as criterion 0.8
//! measurements).
//!
//! The other modules are hidden from these pages: `pub` for the tool's crates
//! (`perfbench-analysis`, `perfbench-cli`) and the repository's tests, they are not API and
//! change in any release. In layer order: `sorting` (the crate's sorts, compiled once), `rng`
//! (the statistics' seeded generator), `sys` (the raw kernel interface, the only home of FFI),
//! `profile` (feature `profile`: sampling the measured region into perf.data), `units` (values
//! scaled for people), `options` (values of the command line several layers share), `harness`
//! (registration, the measuring engine and its raw samples), `protocol` (the messages between
//! a benchmark binary and the tool: typed, versioned, written by hand and, with the `serde`
//! feature, read strictly), `runner` (the benchmark binary behind [`main!`]: the command line,
//! runs, the client of the tool). Each imports only from those before it and the public
//! modules below `harness`, so data flows one way: registration -> measure -> (the tool)
//! analyse -> compare -> report.
#![warn(missing_docs)]

pub mod counters;
#[cfg(feature = "criterion")]
pub mod criterion;
pub mod events;
#[doc(hidden)] // the measuring engine: `Bencher`, `BatchSize` and `Throughput` are re-exported
pub mod harness;
pub mod machine;
#[doc(hidden)] // values of the command line several layers share (for the tool)
pub mod options;
#[cfg(feature = "profile")]
#[doc(hidden)] // `--profile`'s sampling and perf.data files
pub mod profile;
#[doc(hidden)] // the messages between a benchmark binary and the tool (for the tool)
pub mod protocol;
#[doc(hidden)] // the statistics' seeded generator (for the tool, and tests)
pub mod rng;
#[doc(hidden)] // the benchmark binary behind `main!`, and what the tool shares of it
pub mod runner;
#[doc(hidden)] // the crate's sorts, compiled once (for the tool too)
pub mod sorting;
#[doc(hidden)] // the raw kernel interface (for the tool, and tests)
pub mod sys;
#[doc(hidden)] // values scaled for people (for the tool's reports)
pub mod units;

/// What the `#[perfbench]` attribute's generated code refers to. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::harness::entry::{
        throughput_count, Entry, EntryType, Options, Throughput, BENCHMARKS,
    };
    pub use linkme;
}

pub use counters::alloc::CountingAlloc;
pub use counters::{Counters, Source};
pub use events::Event;
pub use harness::entry::Throughput;
pub use harness::{BatchSize, Bencher};
pub use perfbench_macros::perfbench;
pub use std::hint::black_box;

/// Defines `fn main()` for a benchmark binary (`harness = false`): runs every `#[perfbench]`
/// function registered in the program, with perfbench's command line (`cargo bench -- --help`).
///
/// ```no_run
/// use perfbench::perfbench;
///
/// #[perfbench]
/// fn nothing() {}
///
/// perfbench::main!();
/// ```
#[macro_export]
macro_rules! main {
    () => {
        fn main() -> ::std::process::ExitCode {
            $crate::runner::main()
        }
    };
}
