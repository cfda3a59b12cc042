//! criterion's profiler hook.
//!
//! [`Criterion::with_profiler`](crate::Criterion::with_profiler) accepts a [`Profiler`] so that
//! a suite that installs one (pprof's, for example) compiles; perfbench does not call it.
//! perfbench's own profile mode samples the measured region of every benchmark into a
//! `perf.data`: `cargo bench -- --profile` (with the crate's `profile` feature).

use std::path::Path;

/// A profiler criterion starts and stops around a benchmark in `--profile-time` mode.
pub trait Profiler {
    /// Starts profiling `benchmark_id`, its files under `benchmark_dir`.
    fn start_profiling(&mut self, benchmark_id: &str, benchmark_dir: &Path);
    /// Stops it.
    fn stop_profiling(&mut self, benchmark_id: &str, benchmark_dir: &Path);
}
