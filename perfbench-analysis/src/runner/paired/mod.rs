//! Paired runs: the baseline build and the new build measured alternately, sample by sample, in
//! one run (`cargo bench -- --paired NAME`, `perfbench ab OLD_EXE NEW_EXE`), the driver's side:
//! [`run`] with the two [`Builds`].
//!
//! Both builds run as workers, the bench executable started with `--bench --perfbench-worker
//! SUITE`, one at a time on one CPU, fresh processes from fresh copies every round
//! ([`PAIRED_ROUNDS`] by default, [`PAIRED_QUICK_ROUNDS`] with `--quick`; a worker finds its
//! build's path in [`WORKER_EXE_VAR`]), sample `k` of every side in one block, in ABBA order.
//! Requests and answers are lines typed in [`perfbench::protocol::worker`] (version
//! [`PROTOCOL`]); a worker's standard output is the protocol's. A worker that does not greet with
//! this version, exits, or does not answer within `--worker-timeout`
//! ([`DEFAULT_WORKER_TIMEOUT_S`]) stops the run with exit code 2: never a verdict. The verdict is
//! [`crate::stats::paired`]'s; the guide's docs/measuring.md ("Paired runs") explains the method.
//!
//! Its parts: `worker` (one build's worker process: its pipe, its timeouts, its last words)
//! and `driver` (the rounds of pairs over the workers, and the samples they give).

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitCode, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::{derived_metrics, machine_info, run_config};

use crate::baseline::Store;
use crate::model::{self, Benchmark, Config, CounterResult, Outcome, Report, Throughput, Verdict};
use crate::report;
use crate::stats::{self, StatsConfig};
use crate::verdict::CompareSettings as _;

use perfbench::machine::Machine;
pub use perfbench::protocol::worker::VERSION as PROTOCOL;
use perfbench::protocol::worker::{self as wire, Answer, Request};
use perfbench::runner::cli::{Args, Format};
pub use perfbench::runner::worker::WORKER_EXE_VAR;
use perfbench::runner::{output_dir, secs_to_ns, selected_id};
use perfbench::sys;

mod driver;
mod worker;

use driver::*;
use worker::*;

/// Rounds of a paired run by default (`--rounds`): each round is one observation of the
/// verdict's t-test, and a round's processes and allocations are what the verdict must see
/// vary, so a paired run takes twice a plain run's rounds (the same samples, fewer per round).
pub const PAIRED_ROUNDS: u32 = 2 * perfbench::runner::DEFAULT_ROUNDS;

/// Rounds of a paired run with `--quick`.
pub const PAIRED_QUICK_ROUNDS: u32 = 2 * perfbench::runner::QUICK_ROUNDS;

/// How far a paired run goes past its planned rounds for a benchmark whose verdict is still
/// open (its interval holds an edge of the threshold, [`crate::stats::paired::undecided`]): up
/// to this many times the plan's rounds, one round at a time, each with the plan's pairs per
/// round; settled benchmarks stop at the plan, and so does one whose interval is so wide that
/// even the cap's rounds would leave it holding both edges ([`crate::stats::paired::futile`]).
/// A memory-bound benchmark whose processes differ by a percent or two needs about four times
/// the rounds to tell a 2% change.
pub const PAIRED_MOST_ROUNDS_FACTOR: u32 = 4;

/// How long the driver waits for a worker's answer by default (`--worker-timeout`).
pub const DEFAULT_WORKER_TIMEOUT_S: f64 = 120.0;

/// Where a paired run's two builds come from, for the report and the messages.
#[derive(Clone, Debug)]
pub struct Builds {
    /// The baseline build's executable.
    pub base: PathBuf,
    /// The new build's executable.
    pub new: PathBuf,
    /// What the report calls the baseline: `NAME` with `--paired NAME`, the path with `ab`.
    pub base_name: String,
    /// `--paired`: also write the suite's latest report under `target/perfbench` (as a plain
    /// run does); `perfbench ab` writes only `--json PATH`.
    pub write_latest: bool,
    /// The suite's name, which gives the benchmarks of functions at the crate root their group;
    /// `None`: the new build's file name without cargo's `-HASH` suffix.
    pub suite: Option<String>,
}

/// Runs a paired comparison of two builds with the bench command line `args` (filters,
/// counters, sampling, thresholds, `--null-control`, output) and prints it as a plain run
/// prints its comparison. Exit codes as for a bench run: 0, 1 (a regression with
/// `--fail-on-regression`, or a benchmark that failed or panicked), 2 (a build that cannot be
/// driven, or, with `--fail-on-regression`, a verdict the null control refused).
///
/// ```no_run
/// use perfbench::runner::cli;
/// use perfbench_analysis::runner::paired;
///
/// // What `perfbench ab old-exe new-exe --fail-on-regression` does.
/// let builds = paired::Builds {
///     base: "old-exe".into(),
///     new: "new-exe".into(),
///     base_name: "old-exe".into(),
///     write_latest: false,
///     suite: None,
/// };
/// let args = cli::parse("ab", ["ab", "--bench", "--fail-on-regression"]).unwrap();
/// let code = paired::run(&builds, &args);
/// ```
pub fn run(builds: &Builds, args: &Args) -> ExitCode {
    match drive(builds, args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: paired run: {e}");
            ExitCode::from(2)
        }
    }
}

/// The one command that fixes a paired run whose builds speak other protocols: a baseline's
/// saved executable is saved again by this perfbench; `perfbench ab`'s builds are rebuilt.
fn protocol_fix(builds: &Builds) -> String {
    let version = env!("CARGO_PKG_VERSION");
    match (&builds.suite, builds.write_latest) {
        (Some(suite), true) => format!(
            "help: baseline `{0}` was saved by another perfbench; on the baseline's code, with \
             perfbench {version}, save it again: `cargo bench --bench {suite} -- \
             --save-baseline {0}`",
            builds.base_name
        ),
        _ => format!(
            "help: rebuild both executables with perfbench {version} (`cargo bench --no-run` \
             on each version of the code)"
        ),
    }
}

fn drive(builds: &Builds, args: &Args) -> Result<ExitCode, String> {
    let store = Store::new(output_dir());
    let suite = suite_name(builds);
    let _lock = if builds.write_latest {
        store
            .lock(&suite, |path| {
                eprintln!(
                    "note: another run of suite `{suite}` holds {}; waiting for it to finish",
                    path.display()
                )
            })
            .ok()
    } else {
        None
    };
    let paired = pair(builds, args)?;
    let style = report::terminal::Style {
        format: args.format,
        color: report::terminal::color_wanted(),
    };
    let mut reporter = report::terminal::TerminalReporter::new(style);
    for (id, counter, ratio) in &paired.refused {
        eprintln!(
            "note: {id}: {counter}: no verdict: the null control (the new build against \
             itself) moved {} in the same run, so this machine cannot judge it now",
            ratio.map_or("beyond its threshold".to_owned(), |r| {
                format!("by {:+.2}%", (r - 1.0) * 100.0)
            })
        );
    }
    if args.format != Format::Json {
        for r in &paired.results {
            print!("{}", reporter.bench_done(r));
        }
        let _ = std::io::stdout().flush();
    }
    let refusals = paired.refused.len();
    let results = paired.results;
    let base_results = paired.base_results;
    let config = paired.config;
    let machine = Machine::cached();
    let mut suite_result = Report::new(&suite, machine_info(machine, &results), config, results);
    suite_result.baseline = Some(model::BaselineRef {
        name: builds.base_name.clone(),
        perfbench_version: env!("CARGO_PKG_VERSION").to_owned(),
        machine: suite_result.machine.clone(),
        warnings: Vec::new(),
        runs: 1,
        build: None,
    });
    let json = model::json::to_json(&suite_result);
    if args.format == Format::Json {
        println!("{json}");
    } else {
        print!("{}", reporter.finish(&suite_result));
    }
    let latest = (builds.write_latest && !args.discard_baseline).then(|| store.latest_path(&suite));
    for path in latest.into_iter().chain(args.json.clone()) {
        if let Err(e) = model::file::write_atomic(&path, json.as_bytes()) {
            return Err(format!(
                "cannot write the JSON report to {}: {e}",
                path.display()
            ));
        }
    }
    // The baseline build's samples of this run, overlaid on the pages.
    let base_report = Report::new(
        &suite,
        suite_result.machine.clone(),
        suite_result.config.clone(),
        base_results,
    );
    if builds.write_latest && !super::write_html(&suite_result, Some(&base_report), args) {
        return Ok(ExitCode::from(2));
    }
    let (failed, regressed) = super::failed_and_regressed(&suite_result);
    if failed || (args.fail_on_regression && regressed) {
        return Ok(ExitCode::from(1));
    }
    if args.fail_on_regression && refusals > 0 {
        eprintln!(
            "error: the null control refused {refusals} verdict(s): a regression cannot be ruled \
             out on this machine now"
        );
        return Ok(ExitCode::from(2));
    }
    Ok(ExitCode::SUCCESS)
}

/// The new build's name for the suite, for both builds: ids match whatever the files are
/// called.
fn suite_name(builds: &Builds) -> String {
    builds
        .suite
        .clone()
        .unwrap_or_else(|| perfbench::runner::suite_of(Some(&builds.new)))
}

/// What a paired run measured ([`pair`]).
pub(crate) struct Paired {
    /// The run's configuration.
    pub(crate) config: Config,
    /// The new build's benchmarks, each counter's `change` the paired verdict.
    pub(crate) results: Vec<Benchmark>,
    /// The baseline build's side of them (their samples).
    pub(crate) base_results: Vec<Benchmark>,
    /// Per benchmark id, the counters whose verdict the null control refused, with the null
    /// comparison's ratio.
    pub(crate) refused: Vec<(String, String, Option<f64>)>,
}

/// Measures the benchmarks `args` selects in both `builds`, alternately (the [module
/// documentation](self)), and judges them; prints nothing but the notes on benchmarks only one
/// build has and the progress on a terminal.
pub(crate) fn pair(builds: &Builds, args: &Args) -> Result<Paired, String> {
    let timeout = Duration::from_secs_f64(
        args.worker_timeout
            .unwrap_or(DEFAULT_WORKER_TIMEOUT_S)
            .max(0.001),
    );
    // A paired run's plan is fixed (its driver decides every sample): a fixed plan's defaults.
    let fixed = Args {
        precision: Some(0.0),
        ..args.clone()
    };
    let mut config = run_config(&fixed, &[]);
    if args.rounds.is_none() {
        config.rounds = if args.quick {
            PAIRED_QUICK_ROUNDS
        } else {
            PAIRED_ROUNDS
        };
    }
    if args.measurement_time.is_none() {
        // Each side gets twice a plain run's measurement time: the verdict is over rounds, and
        // more rounds need the time to fill them (a paired run of two builds then takes about
        // four times a plain run's, still less than a criterion run's default).
        config.measurement_time *= 2.0;
    }
    config.counters = args
        .counters
        .as_deref()
        .map(|c| c.split(',').map(str::to_owned).collect())
        .unwrap_or_default();
    let mut driver = Driver {
        scratch: std::env::temp_dir().join(format!("perfbench-paired-{}", std::process::id())),
        builds: builds.clone(),
        suite: suite_name(builds),
        timeout,
        sides: Vec::new(),
        args: args.clone(),
        config: config.clone(),
    };
    // Every worker on one CPU (they inherit this thread's mask): which core a process lands on
    // is then the same for both builds, instead of something the scheduler may decide by the
    // order they were started in. Only one of them runs at a time, and this thread waits.
    let allowed = sys::thread_affinity().ok();
    if let Some(&cpu) = allowed.as_deref().and_then(<[u32]>::last) {
        let _ = sys::set_thread_affinity(&[cpu]);
    }
    driver.spawn(0)?;
    let base_ids = list(&mut driver.sides[0])?;
    let new_ids = list(&mut driver.sides[1])?;
    let chosen = |listed: Vec<(ListedBench, bool)>| -> Vec<ListedBench> {
        listed
            .into_iter()
            .filter(|(b, ignore)| selected_id(&b.id, *ignore, args))
            .map(|(b, _)| b)
            .collect()
    };
    let (base_chosen, new_chosen) = (chosen(base_ids), chosen(new_ids));
    let in_base = |id: &str| base_chosen.iter().any(|b| b.id == id);
    for b in new_chosen.iter().filter(|b| !in_base(&b.id)) {
        eprintln!(
            "note: {}: added (only in the new build), not compared",
            b.id
        );
    }
    for b in base_chosen
        .iter()
        .filter(|b| !new_chosen.iter().any(|n| n.id == b.id))
    {
        eprintln!(
            "note: {}: removed (only in the base build), not compared",
            b.id
        );
    }
    let common = new_chosen.iter().filter(|b| in_base(&b.id)).count();
    if common == 0 && !(base_chosen.is_empty() && new_chosen.is_empty()) {
        return Err(format!(
            "the two builds have no selected benchmark in common (base: {}, new: {}): are they \
             builds of the same suite?",
            base_chosen.len(),
            new_chosen.len()
        ));
    }
    if common == 0 {
        eprintln!("note: no benchmark selected");
    }
    let mut benches: Vec<PairedJob> = new_chosen
        .into_iter()
        .filter(|b| in_base(&b.id))
        .map(|listed| PairedJob {
            listed,
            measured: Vec::new(),
            throughput: None,
            threads: Vec::new(),
            plan: SamplePlan::default(),
            pairs_done: 0,
            failed: None,
        })
        .collect();
    // Round r of every benchmark, then round r + 1, each round in fresh processes of both
    // builds: what a process brings with it (where its memory landed, how its code and stack
    // are aligned) then varies from round to round like any other noise, instead of being a
    // bias of one side.
    //
    // After its planned rounds, a benchmark whose verdict is still open (an interval holding
    // an edge of the threshold) goes on, a round at a time, up to `PAIRED_MOST_ROUNDS_FACTOR`
    // times the plan, unless even that many rounds would leave its interval holding both edges
    // (`stats::paired::futile`); `--precision 0` and `--quick` keep the plan. An open
    // benchmark has taken every round so far, so `r` is its rounds; one that stopped is not
    // looked at with its own count, but stays stopped: its data do not change, and a larger
    // count only widens the projection `futile` makes.
    let rounds = config.rounds.max(1) as usize;
    let most = if args.quick || args.precision == Some(0.0) {
        rounds
    } else {
        rounds * PAIRED_MOST_ROUNDS_FACTOR as usize
    };
    for r in 0..most {
        let open: Vec<usize> = (0..benches.len())
            .filter(|&i| {
                benches[i].failed.is_none() && (r < rounds || driver.open(&benches[i], r, most))
            })
            .collect();
        if open.is_empty() {
            break;
        }
        if r > 0 {
            driver.spawn(r)?;
        }
        for i in open {
            let b = &mut benches[i];
            if args.format != Format::Json && std::io::stderr().is_terminal() {
                if r < rounds {
                    eprint!("\r\x1b[2K{}: round {}/{rounds}", b.listed.id, r + 1);
                } else {
                    eprint!(
                        "\r\x1b[2K{}: round {} (undecided, up to {most})",
                        b.listed.id,
                        r + 1
                    );
                }
            }
            driver.bench_round(b, r)?;
        }
    }
    if args.format != Format::Json && std::io::stderr().is_terminal() {
        eprint!("\r\x1b[2K");
    }
    driver.sides.clear();
    if let Some(allowed) = allowed.as_deref() {
        let _ = sys::set_thread_affinity(allowed);
    }
    let mut paired = Paired {
        config,
        results: Vec::new(),
        base_results: Vec::new(),
        refused: Vec::new(),
    };
    for b in benches {
        let id = b.listed.id.clone();
        let done = driver.result(b);
        for (counter, ratio) in done.refused {
            paired.refused.push((id.clone(), counter, ratio));
        }
        paired.results.push(done.result);
        paired.base_results.extend(done.base);
    }
    Ok(paired)
}

/// `--paired NAME` from a bench executable: baseline NAME's saved executable against this one.
pub(crate) fn paired_with_baseline(suite: &str, name: &str, args: &Args) -> ExitCode {
    let store = Store::new(output_dir());
    let base = store.executable_path(name, suite);
    if !base.is_file() {
        eprintln!(
            "error: baseline `{name}` has no saved executable of suite `{suite}` ({} is \
             missing): save it again with `--save-baseline {name}` (which keeps a copy of the \
             bench executable for --paired)",
            base.display()
        );
        return ExitCode::from(2);
    }
    // This executable, or the benchmark binary the tool runs for.
    let Some(new) = perfbench::runner::bench_exe() else {
        eprintln!("error: cannot find the benchmark executable to run it as a worker");
        return ExitCode::from(2);
    };
    run(
        &Builds {
            base,
            new,
            base_name: name.to_owned(),
            write_latest: true,
            suite: Some(suite.to_owned()),
        },
        args,
    )
}

#[cfg(test)]
mod tests;
