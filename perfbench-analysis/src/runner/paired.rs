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

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitCode, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::{derived_metrics, machine_info, run_config};
use crate::baseline::Store;
use crate::compare::CompareSettings as _;
use crate::model::{self, Benchmark, CounterResult, Outcome, Report, Throughput, Verdict};
use crate::report;
use crate::stats::{self, StatsConfig};
use perfbench::machine::Machine;
use perfbench::runner::cli::{Args, Format};
use perfbench::runner::{output_dir, secs_to_ns, selected_id};
use perfbench::sys;

pub use perfbench::protocol::worker::VERSION as PROTOCOL;
use perfbench::protocol::worker::{self as wire, Answer, Request};
pub use perfbench::runner::worker::WORKER_EXE_VAR;

/// Rounds of a paired run by default (`--rounds`): each round is one observation of the
/// verdict's t-test, and a round's processes and allocations are what the verdict must see
/// vary, so a paired run takes twice a plain run's rounds (the same samples, fewer per round).
pub const PAIRED_ROUNDS: u32 = 2 * perfbench::runner::DEFAULT_ROUNDS;

/// Rounds of a paired run with `--quick`.
pub const PAIRED_QUICK_ROUNDS: u32 = 2 * perfbench::runner::QUICK_ROUNDS;

/// How long the driver waits for a worker's answer by default (`--worker-timeout`).
pub const DEFAULT_WORKER_TIMEOUT_S: f64 = 120.0;

// ---------------------------------------------------------------------------------------------
// The driver.

/// One side of a paired run: a worker process and its pipes.
struct Worker {
    /// `base`, `new` or `null`, for messages.
    label: &'static str,
    exe: PathBuf,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<std::io::Result<String>>,
    /// The last lines the worker wrote to standard error.
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// Closed (disconnected) when the reader of standard error has read to its end.
    stderr_read: Receiver<()>,
    timeout: Duration,
}

/// How long a broken worker's message waits for the end of its standard error: a process the
/// worker started may hold the pipe open after the worker is gone.
const STDERR_END_WAIT: Duration = Duration::from_secs(2);

/// Lines of a worker's standard error kept for messages.
const STDERR_LINES: usize = 12;

impl Worker {
    /// Starts the build `exe` from its copy `run_from` (see [`Driver::spawn`]), telling it
    /// where the build itself lies (`PERFBENCH_WORKER_EXE`).
    fn spawn(
        label: &'static str,
        exe: &Path,
        run_from: &Path,
        suite: &str,
        timeout: Duration,
    ) -> Result<Worker, String> {
        let mut child = Command::new(run_from)
            .args(["--bench", "--perfbench-worker", suite])
            .env(WORKER_EXE_VAR, exe)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start the {label} build {}: {e}", exe.display()))?;
        let (tx, lines) = mpsc::channel();
        let stdout = child.stdout.take().expect("piped");
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let end = line.is_err();
                if tx.send(line).is_err() || end {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let tail = Arc::clone(&stderr);
        let err = child.stderr.take().expect("piped");
        let (read_all, stderr_read) = mpsc::channel::<()>();
        std::thread::spawn(move || {
            // Dropped at the end: the receiver sees the channel disconnect.
            let _read_all = read_all;
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
                if t.len() == STDERR_LINES {
                    t.pop_front();
                }
                t.push_back(line);
            }
        });
        Ok(Worker {
            label,
            exe: exe.to_owned(),
            stdin: child.stdin.take(),
            child,
            lines,
            stderr,
            stderr_read,
            timeout,
        })
    }

    fn name(&self) -> String {
        format!("the {} build ({})", self.label, self.exe.display())
    }

    /// A message for a worker that stopped answering: what happened, its exit status, and the
    /// end of its standard error. The worker is killed.
    fn broken(&mut self, what: String) -> String {
        let _ = self.child.kill();
        let status = self.child.wait().ok();
        // The reader of standard error collects the last lines until the pipe's end.
        let _ = self.stderr_read.recv_timeout(STDERR_END_WAIT);
        let mut msg = format!("{}: {what}", self.name());
        if let Some(s) = status {
            if what.contains("exited") || what.contains("closed") {
                msg.push_str(&format!(" ({s})"));
            }
        }
        let tail = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        if !tail.is_empty() {
            msg.push_str("; its last lines on standard error:");
            for l in tail.iter() {
                msg.push_str("\n    ");
                msg.push_str(l);
            }
        }
        msg
    }

    fn send(&mut self, request: &Request) -> Result<(), String> {
        let mut line = request.encode();
        line.push('\n');
        let sent = match self.stdin.as_mut() {
            Some(s) => s.write_all(line.as_bytes()).and_then(|()| s.flush()),
            None => Err(std::io::ErrorKind::BrokenPipe.into()),
        };
        sent.map_err(|e| self.broken(format!("exited or closed its input ({e})")))
    }

    /// The next answer.
    fn recv(&mut self, timeout: Duration) -> Result<Answer, String> {
        match self.lines.recv_timeout(timeout) {
            Ok(Ok(line)) => Answer::decode(&line).map_err(|e| {
                self.broken(format!(
                    "answered with something that is not the worker protocol: {} ({})",
                    line.chars().take(200).collect::<String>(),
                    e.problem
                ))
            }),
            Ok(Err(e)) => Err(self.broken(format!("cannot read its answer: {e}"))),
            Err(RecvTimeoutError::Disconnected) => {
                Err(self.broken("exited without answering".to_owned()))
            }
            Err(RecvTimeoutError::Timeout) => Err(self.broken(format!(
                "did not answer within {:.0} s (--worker-timeout); stopped it",
                timeout.as_secs_f64()
            ))),
        }
    }

    /// Sends `request` and reads the answer, waiting up to the timeout and `extra`.
    fn request(&mut self, request: &Request, extra: Duration) -> Result<Answer, String> {
        self.send(request)?;
        self.recv(self.timeout + extra)
    }

    /// Reads the greeting and checks the protocol version; `fix` is the line that ends the
    /// message of a worker of another version ([`protocol_fix`]).
    fn greet(&mut self, fix: &str) -> Result<(), String> {
        let hello = match self.lines.recv_timeout(self.timeout) {
            Ok(Ok(line)) => line,
            Ok(Err(e)) => return Err(self.broken(format!("cannot read its greeting: {e}"))),
            Err(RecvTimeoutError::Disconnected) => {
                return Err(self.broken(
                    "exited before greeting: is it a perfbench bench executable built with a \
                     perfbench that has paired runs?"
                        .to_owned(),
                ))
            }
            Err(RecvTimeoutError::Timeout) => {
                return Err(self.broken(format!(
                    "did not greet within {:.0} s (--worker-timeout)",
                    self.timeout.as_secs_f64()
                )))
            }
        };
        match wire::Hello::decode(&hello) {
            Ok(h) if h.version == PROTOCOL => Ok(()),
            Ok(h) => {
                let broken = self.broken(format!(
                    "speaks worker protocol {} (perfbench {}), this perfbench ({}) speaks \
                     {PROTOCOL}: build both sides with the same perfbench version",
                    h.version,
                    h.perfbench,
                    perfbench::protocol::PERFBENCH,
                ));
                Err(format!("{broken}\n{fix}"))
            }
            Err(_) => Err(self.broken(format!(
                "is not a perfbench worker (its first line: {})",
                hello.chars().take(200).collect::<String>()
            ))),
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        if let Some(mut stdin) = self.stdin.take() {
            let _ = stdin.write_all(format!("{}\n", Request::Quit.encode()).as_bytes());
        }
        // A worker that does not quit promptly is stopped.
        for _ in 0..50 {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A side's answer that reports a failed or panicked benchmark.
fn failure(answer: &Answer) -> Option<(Outcome, String)> {
    match answer {
        Answer::Error { outcome, error } => Some((
            if *outcome == Outcome::Panicked {
                Outcome::Panicked
            } else {
                Outcome::Failed
            },
            error.clone(),
        )),
        _ => None,
    }
}

/// What one paired benchmark gave.
struct PairedBench {
    result: Benchmark,
    /// The baseline build's side of it (its samples, for the HTML report's overlays).
    base: Option<Benchmark>,
    /// Counters whose verdict the null control refused, with the null comparison's ratio.
    refused: Vec<(String, Option<f64>)>,
}

/// The paired run proper: the workers of the current round and the settings.
struct Driver {
    /// Where the round's copies of the executables go (removed when the run ends).
    scratch: PathBuf,
    builds: Builds,
    suite: String,
    timeout: Duration,
    /// The workers of this round: base, new (and null).
    sides: Vec<Worker>,
    args: Args,
    config: model::Config,
}

impl Drop for Driver {
    fn drop(&mut self) {
        // The workers first: they run from the copies.
        self.sides.clear();
        let _ = std::fs::remove_dir_all(&self.scratch);
    }
}

/// A benchmark between the rounds of a paired run.
struct InPair {
    listed: ListedBench,
    /// Each side's samples so far, round by round.
    measured: Vec<Vec<CounterResult>>,
    throughput: Option<Throughput>,
    plan: SamplePlan,
    /// Pairs taken so far (the next pair's index, which sets its order).
    pairs_done: usize,
    /// Why it stopped, when it failed or panicked on a side.
    failed: Option<(Outcome, String)>,
}

impl Driver {
    /// Starts the workers of a round (those of the last round, if any, quit first).
    /// Starts the workers of round `round` (those of the last round quit first), each from a
    /// fresh copy of its build's executable in a scratch directory: two files with the same
    /// bytes still differ in where the kernel put their pages, which moves a memory-bound
    /// benchmark by a percent or two here; a fresh copy every round makes that noise between
    /// rounds, and gives the null side a file of its own.
    fn spawn(&mut self, round: usize) -> Result<(), String> {
        self.sides.clear();
        let _ = std::fs::remove_dir_all(&self.scratch);
        let mut specs: Vec<(&'static str, &Path)> =
            vec![("base", &self.builds.base), ("new", &self.builds.new)];
        if self.args.null_control {
            specs.push(("null", &self.builds.new));
        }
        // Started in the reverse order every other round, as they warm up (see `round`):
        // nothing about being first is the same side's every time.
        let mut order: Vec<usize> = (0..specs.len()).collect();
        if round % 2 == 1 {
            order.reverse();
        }
        let mut started: Vec<Option<Worker>> = (0..specs.len()).map(|_| None).collect();
        for &i in &order {
            let (label, exe) = specs[i];
            let copy = self
                .scratch
                .join(label)
                .join(exe.file_name().unwrap_or_default());
            std::fs::create_dir_all(self.scratch.join(label))
                .and_then(|()| std::fs::copy(exe, &copy).map(drop))
                .map_err(|e| {
                    format!(
                        "cannot copy the {label} build {} to {}: {e}",
                        exe.display(),
                        copy.display()
                    )
                })?;
            started[i] = Some(Worker::spawn(label, exe, &copy, &self.suite, self.timeout)?);
        }
        let mut sides: Vec<Worker> = started.into_iter().flatten().collect();
        let fix = protocol_fix(&self.builds);
        for w in sides.iter_mut() {
            w.greet(&fix)?;
        }
        self.sides = sides;
        Ok(())
    }

    /// Round `r` of benchmark `b`: its share of the pairs, in this round's workers. `Err` only
    /// when a worker broke (the run stops); a benchmark that fails or panics on a side is kept
    /// in `b.failed`.
    fn bench_round(&mut self, b: &mut InPair, r: usize) -> Result<(), String> {
        let rounds = self.config.rounds.max(1) as usize;
        let pairs = (self.config.sample_size.max(2) as usize).max(rounds);
        // As in a plain run: half the warm-up before the first round (which also times the
        // body), the other half shared by the later rounds.
        let warm = secs_to_ns(self.config.warm_up_time);
        let warm_up_ns = match (rounds, r) {
            (1, _) => warm,
            (_, 0) => warm / 2,
            _ => warm / 2 / (rounds as u64 - 1),
        };
        let round_pairs = pairs * (r + 1) / rounds - pairs * r / rounds;
        match self.round(
            &b.listed,
            warm_up_ns,
            &mut b.plan,
            b.pairs_done,
            round_pairs,
        )? {
            Ok(per_side) => {
                if b.measured.len() < per_side.len() {
                    b.measured.resize(per_side.len(), Vec::new());
                }
                for (all, (round, t)) in b.measured.iter_mut().zip(per_side) {
                    merge(all, round);
                    b.throughput = b.throughput.or(t);
                }
            }
            Err(failure) => b.failed = Some(failure),
        }
        b.pairs_done += round_pairs;
        Ok(())
    }

    /// The benchmark's result after its last round: the new build's estimates, each counter's
    /// paired change, and the counters whose verdict the null control refused.
    fn result(&self, b: InPair) -> PairedBench {
        let p = &b.listed;
        let base = Benchmark::new(
            &p.id,
            &p.group,
            &p.name,
            p.params.as_deref(),
            Outcome::Measured,
        );
        if let Some((outcome, error)) = b.failed {
            return PairedBench {
                result: Benchmark {
                    error: Some(error),
                    outcome,
                    ..base
                },
                base: None,
                refused: Vec::new(),
            };
        }
        let cfg = StatsConfig::default();
        let empty = Vec::new();
        let side = |i: usize| b.measured.get(i).unwrap_or(&empty);
        let (old, new) = (side(0), side(1));
        let null = b.measured.get(2);
        let mut refused = Vec::new();
        let counters: Vec<CounterResult> = new
            .iter()
            .map(|c| {
                let mut c = CounterResult {
                    estimate: stats::estimate(&c.per_iteration, None, &cfg),
                    ..c.clone()
                };
                let settings = self.args.thresholds.config_for(&c.name);
                let versus = |other: &CounterResult, mine: &CounterResult| {
                    stats::compare_paired_rounds(
                        &other.round_values(),
                        &mine.round_values(),
                        &settings,
                    )
                };
                c.change = old
                    .iter()
                    .find(|o| o.name == c.name && o.unit == c.unit)
                    .map(|o| versus(o, &c));
                if let Some(n) = null.and_then(|n| n.iter().find(|x| x.name == c.name)) {
                    if let Some(ratio) = null_refusal(&c, n, &settings) {
                        refused.push((c.name.clone(), ratio));
                        c.change = None;
                    }
                }
                c
            })
            .collect();
        let derived = derived_metrics(&counters, &cfg);
        let base_side = Benchmark {
            counters: old
                .iter()
                .map(|c| CounterResult {
                    estimate: stats::estimate(&c.per_iteration, None, &cfg),
                    ..c.clone()
                })
                .collect(),
            ..base.clone()
        };
        PairedBench {
            result: Benchmark {
                counters,
                derived,
                throughput: b.throughput,
                ..base
            },
            base: Some(base_side),
            refused,
        }
    }

    /// One round: every side calls the benchmark function afresh and warms up, then `pairs`
    /// blocks of one sample per side (pair `k0` first, in the alternating order), then every
    /// side finishes. The first round also sizes the samples (`plan`). The inner `Err` is a
    /// benchmark that failed or panicked on a side (the other sides are told to finish).
    #[allow(clippy::type_complexity)]
    fn round(
        &mut self,
        p: &ListedBench,
        warm_up_ns: u64,
        plan: &mut SamplePlan,
        k0: usize,
        pairs: usize,
    ) -> Result<Result<Vec<(Vec<CounterResult>, Option<Throughput>)>, (Outcome, String)>, String>
    {
        let run = Request::Run {
            warm_up_ns,
            counters: self.args.counters.clone(),
            id: p.id.clone(),
        };
        let finish = &Request::Finish;
        let mut ready: Vec<f64> = Vec::new();
        let mut warm: Vec<usize> = Vec::new();
        let mut failed: Option<(Outcome, String)> = None;
        // Warmed up in the order of the round's first pair: the side that warms up last is the
        // first to sample, so neither side's first sample follows the other's warm-up.
        let mut order: Vec<usize> = (0..self.sides.len()).collect();
        if k0 % 2 == 0 {
            order.reverse();
        }
        for i in order {
            let answer = self.sides[i].request(&run, Duration::from_nanos(warm_up_ns))?;
            if let Some((outcome, e)) = failure(&answer) {
                failed = Some((outcome, format!("{} build: {e}", self.sides[i].label)));
                break;
            }
            match answer {
                Answer::Ready(ns) => {
                    ready.push(ns);
                    warm.push(i);
                }
                other => return Err(self.sides[i].broken(format!("answered `run` with {other:?}"))),
            }
        }
        if plan.n == 0 && failed.is_none() {
            let total_pairs = self.config.sample_size.max(2) as f64;
            let slowest = ready.iter().copied().fold(0.01_f64, f64::max);
            // `measurement_time` is each side's: the run takes that times the number of sides.
            let per_sample_ns = self.config.measurement_time * 1e9 / total_pairs;
            plan.n = ((per_sample_ns / slowest).ceil() as u64).max(1);
            // Generous: ten times what a sample should take, on top of the timeout.
            plan.slack = Duration::from_nanos((10.0 * plan.n as f64 * slowest) as u64);
        }
        let sample = Request::Sample(plan.n);
        if failed.is_none() {
            for k in k0..k0 + pairs {
                let order: Vec<usize> = if k % 2 == 0 {
                    (0..self.sides.len()).collect()
                } else {
                    (0..self.sides.len()).rev().collect()
                };
                for i in order {
                    let answer = self.sides[i].request(&sample, plan.slack)?;
                    if let Some((outcome, e)) = failure(&answer) {
                        failed = Some((outcome, format!("{} build: {e}", self.sides[i].label)));
                        // This side has left its benchmark; the others are told to finish.
                        for j in (0..self.sides.len()).filter(|&j| j != i) {
                            self.sides[j].request(finish, plan.slack)?;
                        }
                        return Ok(Err(failed.unwrap_or((Outcome::Failed, String::new()))));
                    }
                    if answer != Answer::Sampled {
                        return Err(
                            self.sides[i].broken(format!("answered `sample` with {answer:?}"))
                        );
                    }
                }
            }
        } else {
            // The sides that got ready are waiting in their benchmark: let them finish.
            for i in warm {
                self.sides[i].request(finish, plan.slack)?;
            }
            return Ok(Err(failed.unwrap_or((Outcome::Failed, String::new()))));
        }
        let mut out = Vec::new();
        let mut failed = None;
        for i in 0..self.sides.len() {
            let answer = self.sides[i].request(finish, plan.slack)?;
            if let Some((outcome, e)) = failure(&answer) {
                failed = failed.or(Some((
                    outcome,
                    format!("{} build: {e}", self.sides[i].label),
                )));
                continue;
            }
            let Answer::Done(raw) = answer else {
                return Err(self.sides[i].broken(format!("answered `finish` with {answer:?}")));
            };
            let done = Benchmark::from(raw);
            out.push((done.counters, done.throughput));
        }
        Ok(match failed {
            Some(f) => Err(f),
            None => Ok(out),
        })
    }
}

/// The null control's objection to a verdict on counter `new`: `Some(ratio)` (the null ratio,
/// when defined) when `new` paired with `null` (a second copy of the new build, measured in the
/// same run) is itself flagged, so a verdict against the baseline cannot be told from the noise
/// of this machine now; `None` when the null comparison is unchanged.
fn null_refusal(
    new: &CounterResult,
    null: &CounterResult,
    settings: &stats::CompareConfig,
) -> Option<Option<f64>> {
    let control = stats::compare_paired_rounds(&new.round_values(), &null.round_values(), settings);
    (control.verdict != Verdict::Unchanged).then_some(control.ratio)
}

/// The iteration count of every sample of a paired benchmark, fixed by its first round.
#[derive(Default)]
struct SamplePlan {
    /// Iterations per sample (0 before the first round has timed the sides).
    n: u64,
    /// How much longer than the worker timeout a sample may take.
    slack: Duration,
}

/// Adds a round's counters to those of the earlier rounds (`rounds` gets the round's length).
fn merge(all: &mut Vec<CounterResult>, round: Vec<CounterResult>) {
    for mut c in round {
        match all.iter_mut().find(|a| a.name == c.name) {
            Some(a) => {
                a.rounds.push(c.per_iteration.len() as u32);
                a.per_iteration.extend(c.per_iteration);
                a.iterations.extend(c.iterations);
                a.multiplexed |= c.multiplexed;
            }
            None => {
                c.rounds = vec![c.per_iteration.len() as u32];
                all.push(c);
            }
        }
    }
}

/// A benchmark as a worker lists it, with its id split as the report wants it.
struct ListedBench {
    id: String,
    group: String,
    name: String,
    params: Option<String>,
}

/// The benchmarks a worker lists, with their `ignore` marks.
fn list(w: &mut Worker) -> Result<Vec<(ListedBench, bool)>, String> {
    let answer = w.request(&Request::List, Duration::ZERO)?;
    let Answer::Benchmarks(items) = answer else {
        return Err(w.broken(format!("answered `list` with {answer:?}")));
    };
    Ok(items
        .into_iter()
        .map(|b| {
            let listed = ListedBench {
                id: b.id,
                group: b.group,
                name: b.name,
                params: b.params,
            };
            (listed, b.ignore)
        })
        .collect())
}

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
    let timeout = Duration::from_secs_f64(
        args.worker_timeout
            .unwrap_or(DEFAULT_WORKER_TIMEOUT_S)
            .max(0.001),
    );
    // The new build's name for the suite, for both builds: ids match whatever the files are
    // called.
    let suite = builds
        .suite
        .clone()
        .unwrap_or_else(|| perfbench::runner::suite_of(Some(&builds.new)));
    let mut config = run_config(args, &[]);
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
        suite: suite.clone(),
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
    let store = Store::new(output_dir());
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
    let mut benches: Vec<InPair> = new_chosen
        .into_iter()
        .filter(|b| in_base(&b.id))
        .map(|listed| InPair {
            listed,
            measured: Vec::new(),
            throughput: None,
            plan: SamplePlan::default(),
            pairs_done: 0,
            failed: None,
        })
        .collect();
    // Round r of every benchmark, then round r + 1, each round in fresh processes of both
    // builds: what a process brings with it (where its memory landed, how its code and stack
    // are aligned) then varies from round to round like any other noise, instead of being a
    // bias of one side.
    let rounds = config.rounds.max(1) as usize;
    for r in 0..rounds {
        if r > 0 {
            driver.spawn(r)?;
        }
        for b in benches.iter_mut().filter(|b| b.failed.is_none()) {
            if args.format != Format::Json && std::io::stderr().is_terminal() {
                eprint!("\r\x1b[2K{}: round {}/{rounds}", b.listed.id, r + 1);
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
    let style = report::terminal::Style {
        format: args.format,
        color: report::terminal::color_wanted(),
    };
    let mut reporter = report::terminal::TerminalReporter::new(style);
    let mut results = Vec::new();
    let mut base_results = Vec::new();
    let mut refusals = 0;
    for b in benches {
        let id = b.listed.id.clone();
        let done = driver.result(b);
        for (counter, ratio) in &done.refused {
            refusals += 1;
            eprintln!(
                "note: {id}: {counter}: no verdict: the null control (the new build against \
                 itself) moved {} in the same run, so this machine cannot judge it now",
                ratio.map_or("beyond its threshold".to_owned(), |r| {
                    format!("by {:+.2}%", (r - 1.0) * 100.0)
                })
            );
        }
        if args.format != Format::Json {
            print!("{}", reporter.bench_done(&done.result));
            let _ = std::io::stdout().flush();
        }
        results.push(done.result);
        base_results.extend(done.base);
    }
    let machine = Machine::cached();
    let mut suite_result = Report::new(&suite, machine_info(machine, &results), config, results);
    suite_result.baseline = Some(model::BaselineRef {
        name: builds.base_name.clone(),
        perfbench_version: env!("CARGO_PKG_VERSION").to_owned(),
        machine: suite_result.machine.clone(),
        warnings: Vec::new(),
        runs: 1,
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
mod tests {
    use super::*;

    #[test]
    fn a_protocol_mismatch_names_the_one_command_that_fixes_it() {
        let mut builds = Builds {
            base: "target/perfbench/baselines/main/quickstart.exe".into(),
            new: "target/release/deps/quickstart-0123".into(),
            base_name: "main".into(),
            write_latest: true,
            suite: Some("quickstart".into()),
        };
        let fix = protocol_fix(&builds);
        assert!(
            fix.ends_with("`cargo bench --bench quickstart -- --save-baseline main`"),
            "{fix}"
        );
        assert!(fix.contains(env!("CARGO_PKG_VERSION")), "{fix}");
        // `perfbench ab`: two executables, rebuilt.
        builds.write_latest = false;
        builds.suite = None;
        assert!(protocol_fix(&builds).contains("rebuild both executables"));
    }

    fn counter(rounds: &[&[f64]]) -> CounterResult {
        CounterResult {
            name: "wall-time".into(),
            unit: "ns".into(),
            source: perfbench::counters::Source::Clock,
            multiplexed: false,
            per_iteration: rounds.concat(),
            iterations: vec![100; rounds.iter().map(|r| r.len()).sum()],
            rounds: rounds.iter().map(|r| r.len() as u32).collect(),
            overhead: 0.0,
            estimate: None,
            change: None,
        }
    }

    #[test]
    fn the_null_control_refuses_when_the_build_differs_from_itself() {
        let settings = stats::CompareConfig::for_counter("wall-time");
        let steady: Vec<f64> = (0..5).map(|i| 100.0 + f64::from(i % 2) * 0.1).collect();
        let slower: Vec<f64> = steady.iter().map(|x| x * 1.2).collect();
        let new = counter(&[steady.as_slice(); 5]);
        // The second copy measured alike: no objection.
        assert_eq!(
            null_refusal(&new, &counter(&[steady.as_slice(); 5]), &settings),
            None
        );
        // The second copy 20% slower in the same run: the machine cannot judge now.
        let refused = null_refusal(&new, &counter(&[slower.as_slice(); 5]), &settings);
        let ratio = refused.expect("refused").expect("a ratio");
        assert!((ratio - 1.2).abs() < 1e-9, "{ratio}");
    }

    #[test]
    fn rounds_merge_in_order() {
        let mut all = Vec::new();
        merge(&mut all, vec![counter(&[&[1.0, 2.0]])]);
        merge(&mut all, vec![counter(&[&[3.0]])]);
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].per_iteration, vec![1.0, 2.0, 3.0]);
        assert_eq!(all[0].rounds, vec![2, 1]);
        assert_eq!(all[0].iterations.len(), 3);
    }

    #[test]
    fn failures_are_read_from_answers() {
        let read = |line: &str| Answer::decode(line).unwrap();
        assert_eq!(failure(&read(r#"{"ready": 3.0}"#)), None);
        assert_eq!(
            failure(&read(r#"{"error": "boom", "outcome": "panicked"}"#)),
            Some((Outcome::Panicked, "boom".to_owned()))
        );
        assert_eq!(
            failure(&read(r#"{"error": "x", "outcome": "failed"}"#)),
            Some((Outcome::Failed, "x".to_owned()))
        );
        // An error without its outcome is not an answer of this protocol.
        assert!(Answer::decode(r#"{"error": "x"}"#).is_err());
    }
}
