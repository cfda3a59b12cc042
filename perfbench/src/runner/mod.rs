//! The runner behind `perfbench::main!()`: selects benchmarks, chooses counters, runs each
//! benchmark (a panic is reported and the suite goes on), and has the `perfbench` tool analyse
//! and report them ([`stream`]: the binary measures and the tool analyses; `--paired` and
//! `--simulate` it hands over whole, and the tool then starts this binary as a paired worker
//! ([`worker`]) or under Callgrind).
//!
//! Exit codes: 0 success; 1 a benchmark panicked or failed, or a counter regressed with
//! `--fail-on-regression`; 2 usage or environment error.
//!
//! Its parts: `registry` (which benchmarks the suite has), `select` (which a run selects),
//! `measure` (a streamed run's counters and rounds), `smoke` (`--test`), and a module per way
//! of running ([`stream`], [`worker`], [`sim_child`], `profile`); this module picks the way.
//! It measures through the harness and computes no statistics (the tool does).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub mod cli;

#[cfg(feature = "profile")]
pub mod profile;

#[doc(hidden)] // the progress line, which the tool draws too
pub mod progress;

mod provision;

#[doc(hidden)] // the process under Callgrind, whose results the tool reads
pub mod sim_child;

pub mod stream;

pub mod worker;

mod measure;
mod registry;
mod select;
mod smoke;

pub use measure::*;
pub use registry::*;
pub use select::*;
use smoke::*;

use crate::counters::{CounterError, Counters, GroupOptions};
use crate::events::{self, Event, Sysfs};
use crate::harness::affinity;
use crate::harness::bencher::Bencher;
use crate::harness::entry::{self, Entry, EntryType};
use crate::harness::raw::{Outcome, RawBenchmark};
use crate::harness::sampler::{Plan, Sampler};
use crate::harness::Throughput;
use crate::machine::Machine;
use crate::sys;

use cli::Args;

use progress::Progress;

/// Rounds per benchmark by default (`--rounds`): enough round figures for the comparison to
/// see the spread between stretches of the run (see `stats::compare_rounds` in perfbench-analysis).
pub const DEFAULT_ROUNDS: u32 = 10;

/// Rounds per benchmark with `--quick`.
pub const QUICK_ROUNDS: u32 = 5;

/// Warm-up seconds per benchmark by default with a fixed plan (`--warm-up-time`; `--precision 0`,
/// linear sampling, paired runs).
pub const DEFAULT_WARM_UP_TIME: f64 = 0.3;

/// Warm-up seconds per benchmark by default where the stopping rule applies: half before the
/// first round (which also times the body for the plan), the other half shared by the later
/// rounds, each rewarming the caches after the other benchmarks' rounds.
pub const SETTLING_WARM_UP_TIME: f64 = 0.05;

/// [`SETTLING_WARM_UP_TIME`] with `--quick`.
pub const QUICK_SETTLING_WARM_UP_TIME: f64 = 0.02;

/// The stopping rule's target by default (`--precision 1`): see
/// [`settle`](crate::harness::sampler::settle).
pub const DEFAULT_PRECISION: f64 = 0.01;

/// The stopping rule's target with `--quick` (`--precision 3`).
pub const QUICK_PRECISION: f64 = 0.03;

/// The most rounds a benchmark takes where the stopping rule applies, as a multiple of its
/// planned rounds (the measurement time caps them too).
pub const MAX_ROUND_FACTOR: u32 = 5;

/// Measurement seconds per benchmark, over all its rounds, by default (`--measurement-time`):
/// the most it takes where the stopping rule applies.
pub const DEFAULT_MEASUREMENT_TIME: f64 = 1.5;

/// Counters measured by default where a CPU PMU exists.
pub const DEFAULT_HARDWARE: &[&str] = &[
    "instructions",
    "cycles",
    "branches",
    "branch-misses",
    "wall-time",
];

/// Counters measured by default where none exists.
pub const DEFAULT_SOFTWARE: &[&str] =
    &["wall-time", "task-clock", "page-faults", "context-switches"];

/// The suite's name: the benchmark binary's name without cargo's `-HASH` suffix.
///
/// ```
/// // In `target/release/deps/suite-0123456789abcdef`, this is `suite`.
/// println!("{}", perfbench::runner::suite_name());
/// ```
pub fn suite_name() -> String {
    suite_of(bench_exe().as_deref())
}

/// The benchmark executable this process runs for: its own, or, in the `perfbench` tool
/// serving a benchmark binary ([`stream`]), that binary's.
#[doc(hidden)]
pub fn bench_exe() -> Option<PathBuf> {
    match BENCH_EXE.get() {
        Some(exe) => Some(exe.clone()),
        None => std::env::current_exe().ok(),
    }
}

/// Makes `exe` the benchmark executable this process runs for (the `perfbench` tool, when it
/// analyses a benchmark binary's run). The first call wins.
#[doc(hidden)]
pub fn set_bench_exe(exe: PathBuf) {
    let _ = BENCH_EXE.set(exe);
}

/// Set once by the `perfbench` tool when it analyses a benchmark binary's run.
static BENCH_EXE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// The suite a bench executable at `exe` runs: its file name without cargo's `-HASH` suffix
/// (and without an extension, such as the `.exe` of a baseline's saved copy).
///
/// ```
/// use perfbench::runner::suite_of;
/// use std::path::Path;
///
/// assert_eq!(suite_of(Some(Path::new("target/release/deps/parse-0123456789abcdef"))), "parse");
/// assert_eq!(suite_of(Some(Path::new("target/perfbench/baselines/main/parse.exe"))), "parse");
/// assert_eq!(suite_of(Some(Path::new("my-bench"))), "my-bench");
/// assert_eq!(suite_of(None), "bench");
/// ```
pub fn suite_of(exe: Option<&Path>) -> String {
    let stem = exe
        .and_then(Path::file_stem)
        .and_then(|s| s.to_str())
        .unwrap_or("bench")
        .to_owned();
    match stem.rsplit_once('-') {
        Some((name, hash)) if hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()) => {
            name.to_owned()
        }
        _ => stem,
    }
}

/// `target/perfbench`: under `CARGO_TARGET_DIR`, else next to the binary's `target` directory,
/// else `./target`.
///
/// ```
/// let dir = perfbench::runner::output_dir();
/// assert!(dir.ends_with("perfbench"));
/// ```
pub fn output_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(dir).join("perfbench");
    }
    let exe = bench_exe();
    // target/<profile>/deps/<bin> or target/<profile>/examples/<bin>
    let target = exe.as_deref().and_then(|e| {
        e.ancestors()
            .skip(1)
            .find(|a| {
                a.file_name()
                    .is_some_and(|n| n == "deps" || n == "examples")
            })
            .and_then(Path::parent)
            .and_then(Path::parent)
            .map(Path::to_path_buf)
    });
    target
        .unwrap_or_else(|| PathBuf::from("target"))
        .join("perfbench")
}

/// The entry point `perfbench::main!()` expands to.
///
/// What [`main!`](crate::main) expands to, written out:
///
/// ```no_run
/// use perfbench::perfbench;
///
/// #[perfbench]
/// fn nothing() {}
///
/// fn main() -> std::process::ExitCode {
///     perfbench::runner::main()
/// }
/// ```
pub fn main() -> ExitCode {
    let suite = suite_name();
    match parse_line(&suite, std::env::args_os()) {
        Ok(args) => run(&suite, &args),
        Err(code) => code,
    }
}

/// A benchmark binary's command line (`line`, the program's name first) parsed for `suite`;
/// on `--help` or a usage error, printed, and the exit code to end with. What [`main`] does
/// before [`run`], for front ends that parse the line themselves (perfbench-criterion).
#[doc(hidden)]
pub fn parse_line<I, T>(suite: &str, line: I) -> Result<Args, ExitCode>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    match cli::parse(suite, line) {
        Ok(args) => Ok(args),
        Err(e) if e.is_help() => {
            print!("{e}");
            Err(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("error: {e}");
            Err(ExitCode::from(2))
        }
    }
}

/// Runs the suite with parsed arguments.
///
/// ```no_run
/// use perfbench::runner::{cli, run};
///
/// // What `cargo bench -- parse --quick` does in a suite called `parsing`.
/// let args = cli::parse("parsing", ["parsing", "--bench", "parse", "--quick"]).expect("valid flags");
/// let code = run("parsing", &args);
/// ```
pub fn run(suite: &str, args: &Args) -> ExitCode {
    if let Some(name) = &args.worker {
        return worker::serve(name);
    }
    if let Some(dir) = &args.simulated {
        return sim_child::child(suite, dir, args);
    }
    let chosen: Vec<Job> = jobs(suite)
        .into_iter()
        .filter(|p| selected(p, args))
        .collect();
    if args.describe {
        println!("{}", stream::hello(&[], &chosen));
        return ExitCode::SUCCESS;
    }
    if args.list {
        for p in &chosen {
            println!("{}: benchmark", p.id);
        }
        return ExitCode::SUCCESS;
    }
    if args.test {
        return smoke_test(suite, &chosen, args);
    }
    if args.profile {
        return profile_run(&chosen, args);
    }
    // The tool drives these itself: it starts this binary as workers or under Callgrind.
    if args.paired.is_some() || args.simulate {
        return stream::hand_over(suite, args);
    }
    stream::run(suite, args, &chosen)
}

/// `--profile`: sampled in this process ([`profile`], feature `profile`).
#[cfg(feature = "profile")]
fn profile_run(chosen: &[Job], args: &Args) -> ExitCode {
    profile::run(chosen, args, &Sysfs::system(), Machine::cached())
}

/// `--profile` without the feature: refused, with the line that turns it on.
#[cfg(not(feature = "profile"))]
fn profile_run(_chosen: &[Job], _args: &Args) -> ExitCode {
    eprintln!(
        "error: --profile samples in the benchmark binary itself: it needs perfbench's \
         `profile` feature: perfbench = {{ version = \"...\", features = [\"profile\"] }} \
         in [dev-dependencies]"
    );
    ExitCode::from(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_default_to_the_module_below_the_crate() {
        assert_eq!(default_group("demo", "demo"), "demo");
        assert_eq!(default_group("demo::sorting", "demo"), "sorting");
        assert_eq!(default_group("demo::a::b", "demo"), "a::b");
    }

    #[test]
    fn default_counters_follow_the_pmu() {
        let sysfs = Sysfs::system();
        let machine = Machine::probe();
        let (events, note) = default_events(&sysfs, &machine);
        let names: Vec<&str> = events.iter().map(|e| e.name.as_str()).collect();
        if events.iter().any(Event::needs_pmu) {
            assert!(
                names.iter().all(|n| DEFAULT_HARDWARE.contains(n)),
                "{names:?}"
            );
            assert!(names.contains(&"wall-time"));
        } else {
            assert_eq!(names, DEFAULT_SOFTWARE);
            assert!(note.unwrap().contains("doctor"));
        }
    }

    #[test]
    fn unavailable_counters_are_dropped_with_a_reason() {
        let sysfs = Sysfs::system();
        let events = events::parse_list("instructions,wall-time,page-faults", &sysfs).unwrap();
        let (counters, dropped) = open_available(&events).unwrap();
        if Machine::probe().has_cpu_pmu() {
            assert!(dropped.is_empty());
        } else {
            assert_eq!(dropped.len(), 1);
            assert_eq!(dropped[0].0, "instructions");
            assert!(counters.wall_time());
            assert_eq!(counters.groups().len(), 1);
        }
    }
}
