//! The runner behind `perfbench::main!()`: selects benchmarks, chooses counters, runs each
//! benchmark (a panic is reported and the suite goes on), and has the `perfbench` tool analyse
//! and report them ([`stream`]: the binary measures and the tool analyses; `--paired` and
//! `--simulate` it hands over whole, and the tool then starts this binary as a paired worker
//! ([`worker`]) or under Callgrind).
//!
//! Exit codes: 0 success; 1 a benchmark panicked or failed, or a counter regressed with
//! `--fail-on-regression`; 2 usage or environment error.

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

/// Warm-up seconds per benchmark by default (`--warm-up-time`).
pub const DEFAULT_WARM_UP_TIME: f64 = 0.3;

/// Measurement seconds per benchmark, over all its rounds, by default (`--measurement-time`).
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

/// One benchmark to run: an entry and, with `types`, one of its types and, with `args`, one of
/// its arguments.
#[derive(Clone, Debug)]
pub struct Job {
    /// The registered function.
    pub entry: &'static Entry,
    /// With `types`: the type (`u8`, `Vec<u8>`).
    pub type_name: Option<&'static str>,
    /// Runs it (the type's runner with `types`, else the entry's).
    pub run: fn(&mut Bencher, usize),
    /// Which argument (0 without `args`).
    pub arg: usize,
    /// `group/name[/params]`.
    pub id: String,
    /// The group.
    pub group: String,
    /// What follows the name in the id: the argument's text (`64`), the type (`u8`), or both
    /// (`u8/64`); `None` without `args` and `types`.
    pub params: Option<String>,
}

/// Every registered benchmark, expanded per type then per argument (`sort/u8/64`,
/// `sort/u8/1024`, `sort/u64/64`, ...), in registration order.
///
/// ```
/// use perfbench::{perfbench, runner::planned, Bencher};
///
/// #[perfbench(args = [8, 64])]
/// fn fill(b: &mut Bencher, n: usize) {
///     b.iter(|| vec![0u8; n]);
/// }
///
/// #[perfbench(group = "hashing", types = [u32, u64])]
/// fn hash<T: Default + std::hash::Hash>() -> u64 {
///     use std::hash::{BuildHasher, RandomState};
///     RandomState::new().hash_one(T::default())
/// }
/// # fn main() {
/// let ids: Vec<String> = planned("suite").into_iter().map(|p| p.id).collect();
/// assert_eq!(ids, ["suite/fill/8", "suite/fill/64", "hashing/hash/u32", "hashing/hash/u64"]);
/// # }
/// ```
pub fn planned(suite: &str) -> Vec<Job> {
    if let Some((registered, _)) = REGISTERED.get() {
        return registered.clone();
    }
    let mut out = Vec::new();
    for e in entry::registered() {
        let group = e
            .group
            .map(str::to_owned)
            .unwrap_or_else(|| default_group(e.module_path, suite));
        // `None`: not generic, one benchmark per argument.
        let types: Vec<Option<&'static EntryType>> = if e.types.is_empty() {
            vec![None]
        } else {
            e.types.iter().map(Some).collect()
        };
        // `None`: no `args`, one benchmark per type.
        let args: Vec<Option<String>> = if e.has_args() {
            e.arg_texts().into_iter().map(Some).collect()
        } else {
            vec![None]
        };
        for ty in types {
            let (type_name, run) = match ty {
                Some(t) => (Some(t.name), t.run),
                None => (None, e.run),
            };
            for (i, a) in args.iter().enumerate() {
                let params = match (type_name, a) {
                    (Some(t), Some(a)) => Some(format!("{t}/{a}")),
                    (Some(t), None) => Some(t.to_owned()),
                    (None, a) => a.clone(),
                };
                let id = match &params {
                    Some(p) => format!("{group}/{}/{p}", e.name),
                    None => format!("{group}/{}", e.name),
                };
                out.push(Job {
                    entry: e,
                    type_name,
                    run,
                    arg: i,
                    id,
                    group: group.clone(),
                    params,
                });
            }
        }
    }
    out
}

/// Benchmarks registered at run time, which [`planned`] returns instead of the `#[perfbench]`
/// functions once set ([`register`], [`register_driven`]), and the suite's driver if it has one.
static REGISTERED: std::sync::OnceLock<(Vec<Job>, Option<Drive>)> = std::sync::OnceLock::new();

/// Makes `benchmarks` the suite's benchmarks in place of the `#[perfbench]` functions: for a
/// harness whose benchmarks are found by running code. Each [`Job::run`] is called with
/// its own [`Job::arg`]. The first call wins; `false` when the benchmarks were already set.
///
/// ```
/// use perfbench::harness::entry::{Entry, Options};
/// use perfbench::runner::{planned, register, Job};
/// use perfbench::Bencher;
///
/// fn body(b: &mut Bencher, i: usize) {
///     b.iter(|| i * 2);
/// }
/// let entry: &'static Entry = Box::leak(Box::new(Entry {
///     name: "double", group: Some("found"), module_path: "suite", file: file!(), line: line!(),
///     args: &[], arg_names: None, types: &[], options: Options::DEFAULT, run: body,
/// }));
/// let p = Job {
///     entry, type_name: None, run: body, arg: 7,
///     id: "found/double".into(), group: "found".into(), params: None,
/// };
/// assert!(register(vec![p]));
/// let ids: Vec<String> = planned("suite").into_iter().map(|p| p.id).collect();
/// assert_eq!(ids, ["found/double"]);
/// ```
#[doc(hidden)]
pub fn register(benchmarks: Vec<Job>) -> bool {
    REGISTERED.set((benchmarks, None)).is_ok()
}

/// What a driven suite's driver is given: called with a benchmark's [`Job::arg`] and its
/// body where the suite's code defines the benchmark, it measures the benchmark there (every
/// round of it), or does nothing when the run did not select it.
#[doc(hidden)]
pub type Visit<'a> = dyn FnMut(usize, &mut dyn FnMut(&mut Bencher)) + 'a;

/// A driven suite's driver: runs the suite's code once, calling the visitor for each benchmark
/// as the code defines it.
#[doc(hidden)]
pub type Drive = fn(&mut Visit<'_>);

/// Makes `benchmarks` the suite's benchmarks, measured where the suite's code defines them:
/// for a harness whose benchmarks are closures that live only while the code that defines them
/// runs, such as perfbench-criterion's (`criterion_main!` calls this and then [`main`]). The
/// runner calls `drive` once per process, and `drive` calls the visitor with each benchmark's
/// [`Job::arg`] and body; a benchmark is then measured in all its rounds at once, rather
/// than in rounds interleaved with the others'. [`Job::run`] is not called. A benchmark
/// `drive` does not visit is reported as failed. The first call wins; `false` when the
/// benchmarks were already set.
#[doc(hidden)]
pub fn register_driven(benchmarks: Vec<Job>, drive: Drive) -> bool {
    REGISTERED.set((benchmarks, Some(drive))).is_ok()
}

/// The driver of a suite registered with [`register_driven`].
fn driver() -> Option<Drive> {
    REGISTERED.get().and_then(|(_, d)| *d)
}

/// What [`for_each_body`] calls with each benchmark and its body.
type Each<'p, 'e> = dyn FnMut(&'p Job, &mut dyn FnMut(&mut Bencher)) + 'e;

/// Calls `each` with every benchmark of `chosen` and its body, in `chosen`'s order for a suite
/// of functions, where the code defines them for a driven suite ([`register_driven`]). Returns
/// the benchmarks of `chosen` a driven suite did not define, each with why.
fn for_each_body<'p>(chosen: &'p [Job], each: &mut Each<'p, '_>) -> Vec<(&'p Job, String)> {
    let Some(drive) = driver() else {
        for p in chosen {
            let (run, arg) = (p.run, p.arg);
            each(p, &mut |b| run(b, arg));
        }
        return Vec::new();
    };
    let mut seen = vec![false; chosen.len()];
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        drive(&mut |arg, body| {
            let Some(i) = chosen.iter().position(|p| p.arg == arg) else {
                return;
            };
            if !std::mem::replace(&mut seen[i], true) {
                each(&chosen[i], body);
            }
        });
    }));
    // A panic ends the suite's code: what it had not defined yet, it never will (and what it
    // defined under another id is in the same case).
    let why = match outcome {
        Ok(()) => "the suite's code did not define it when run (it must define the same \
                   benchmarks every time it runs)"
            .to_owned(),
        Err(payload) => format!(
            "the suite's code did not define it when run; it panicked: {}",
            panic_message(payload.as_ref())
        ),
    };
    chosen
        .iter()
        .zip(seen)
        .filter(|(_, seen)| !seen)
        .map(|(p, _)| (p, why.clone()))
        .collect()
}

/// A function at the crate root is grouped under the suite's name; one in `crate::a::b`
/// under `a::b`.
fn default_group(module_path: &str, suite: &str) -> String {
    match module_path.split_once("::") {
        Some((_, rest)) => rest.to_owned(),
        None => suite.to_owned(),
    }
}

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

fn selected(p: &Job, args: &Args) -> bool {
    selected_id(&p.id, p.entry.options.ignore, args)
}

/// Whether the benchmark `id` (marked `ignore` or not) is selected by the filters (or by
/// [`Args::select`], which replaces them) and the `--ignored` / `--include-ignored` flags.
#[doc(hidden)]
pub fn selected_id(id: &str, ignore: bool, args: &Args) -> bool {
    let name_ok = if let Some(select) = &args.select {
        select.iter().any(|s| s == id)
    } else {
        args.filters.is_empty()
            || args.filters.iter().any(|f| {
                if args.exact {
                    id == f
                } else {
                    id.contains(f.as_str())
                }
            })
    };
    let ignore_ok = if args.ignored {
        ignore
    } else {
        args.include_ignored || !ignore
    };
    name_ok && ignore_ok
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
    let args = match cli::parse(&suite, std::env::args_os()) {
        Ok(a) => a,
        Err(e) if e.is_help() => {
            print!("{e}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    run(&suite, &args)
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
    let chosen: Vec<Job> = planned(suite)
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

/// The sampling plan a run gives every benchmark that does not set its own: from `--quick`,
/// `--sample-size`, `--warm-up-time`, `--measurement-time`, `--linear` and `--rounds`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[doc(hidden)] // the tool records it in the report's configuration
pub struct RunPlan {
    /// Samples per benchmark.
    pub sample_size: u32,
    /// Warm-up seconds.
    pub warm_up_time: f64,
    /// Measurement seconds.
    pub measurement_time: f64,
    /// Linear sampling (`--linear`), else flat.
    pub linear: bool,
    /// Rounds per benchmark.
    pub rounds: u32,
}

impl RunPlan {
    /// The plan of the command line `args`.
    pub fn of(args: &Args) -> RunPlan {
        let (sample_size, warm, measure) = if args.quick {
            (30, 0.1, 0.4)
        } else {
            (100, DEFAULT_WARM_UP_TIME, DEFAULT_MEASUREMENT_TIME)
        };
        RunPlan {
            sample_size: args.sample_size.unwrap_or(sample_size),
            warm_up_time: args.warm_up_time.unwrap_or(warm),
            measurement_time: args.measurement_time.unwrap_or(measure),
            linear: args.linear,
            rounds: args.rounds.unwrap_or(if args.quick {
                QUICK_ROUNDS
            } else {
                DEFAULT_ROUNDS
            }),
        }
    }
}

/// A run that reads this machine's counters: the command line's counters, if any, else each
/// benchmark's own (its attribute's, else the machine's defaults).
struct RunCounters {
    /// `--counters`, parsed and checked to open.
    cli_events: Option<Vec<Event>>,
    /// The machine's default counters.
    defaults: Vec<Event>,
    /// Profile mode: the sampling event the measured brackets switch on and off.
    gate: Option<std::sync::Arc<sys::EventFd>>,
}

impl RunCounters {
    /// Checks `--counters` (every counter must open: a bad one is a usage error up front, the
    /// `Err` message to print) and picks the defaults, noting what they lack here.
    fn prepare(
        args: &Args,
        chosen: &[Job],
        sysfs: &Sysfs,
        machine: &Machine,
    ) -> Result<RunCounters, String> {
        let cli_events = match &args.counters {
            None => None,
            Some(list) => match events::parse_list(list, sysfs) {
                Ok(ev) => {
                    if let Err(e) = Counters::open(&ev, &GroupOptions::default()) {
                        return Err(format!(
                            "error: {e}\n(run `perfbench doctor` for this machine's details)"
                        ));
                    }
                    Some(ev)
                }
                Err(e) => return Err(format!("error: --counters: {e}")),
            },
        };
        let (defaults, note) = default_events(sysfs, machine);
        let uses_defaults = chosen.iter().any(|p| p.entry.options.counters.is_none());
        if args.counters.is_none() && uses_defaults {
            if let Some(note) = &note {
                eprintln!("note: {note}");
            }
        }
        Ok(RunCounters {
            cli_events,
            defaults,
            gate: None,
        })
    }

    /// Measures the benchmarks: round r of every benchmark, then round r + 1, so each one is
    /// measured in stretches spread over the whole run (see `harness::sampler`); a driven
    /// suite's ([`register_driven`]) each in all its rounds where its code defines it.
    /// `finished` gets each result as soon as it is there: after its last round, or when it
    /// fails or panics.
    fn measure(
        &self,
        chosen: &[Job],
        sysfs: &Sysfs,
        plan: &RunPlan,
        finished: &mut dyn FnMut(&Job, &RawBenchmark, &Progress),
    ) -> Vec<RawBenchmark> {
        let mut flights: Vec<Measurement<'_>> = chosen
            .iter()
            .map(|p| {
                let mut f =
                    Measurement::new(p, self.cli_events.as_ref(), &self.defaults, sysfs, plan);
                f.gate = self.gate.clone();
                f
            })
            .collect();
        let bar = Progress::new(flights.iter().map(|f| u64::from(f.rounds)).sum());
        // Where the thread may run now; the runner pins it per benchmark on hybrid machines
        // and puts it back afterwards (see `affinity`).
        let allowed = sys::thread_affinity().ok();
        let mut notes: Vec<String> = Vec::new();
        if driver().is_some() {
            let missing = for_each_body(chosen, &mut |p, body| {
                let Some(f) = flights.iter_mut().find(|f| std::ptr::eq(f.p, p)) else {
                    return;
                };
                measure_rounds(f, sysfs, allowed.as_deref(), &bar, &mut notes, body);
                if let Some(r) = f.done.as_ref() {
                    finished(f.p, r, &bar);
                }
                f.printed = true;
                bar.advance(u64::from(f.rounds));
            });
            for (p, why) in missing {
                if let Some(f) = flights.iter_mut().find(|f| std::ptr::eq(f.p, p)) {
                    let r = f.done.insert(raw_failed(p, why));
                    finished(p, r, &bar);
                    f.printed = true;
                }
            }
        } else {
            let max_rounds = flights.iter().map(|f| f.rounds).max().unwrap_or(0);
            for round in 0..max_rounds {
                for f in flights.iter_mut() {
                    if f.printed || round >= f.rounds {
                        continue;
                    }
                    if f.done.is_none() {
                        let (run, arg) = (f.p.run, f.p.arg);
                        let body = &mut |b: &mut Bencher| run(b, arg);
                        measure_round(f, sysfs, allowed.as_deref(), &bar, &mut notes, body);
                        if f.done.is_none() && round + 1 == f.rounds {
                            f.finish();
                        }
                    }
                    let Some(r) = f.done.as_ref() else {
                        bar.advance(1);
                        continue;
                    };
                    finished(f.p, r, &bar);
                    f.printed = true;
                    // This round and the ones it no longer needs.
                    bar.advance(u64::from(f.rounds - round));
                }
            }
        }
        let results = flights.into_iter().filter_map(|f| f.done).collect();
        bar.finish_and_clear();
        results
    }

    /// Measures benchmark `p` in all its rounds with `body`; its result, if it has one (none
    /// when it takes no round).
    #[cfg(feature = "profile")]
    fn measure_body(
        &self,
        p: &Job,
        sysfs: &Sysfs,
        plan: &RunPlan,
        body: &mut dyn FnMut(&mut Bencher),
    ) -> Option<RawBenchmark> {
        let mut f = Measurement::new(p, self.cli_events.as_ref(), &self.defaults, sysfs, plan);
        f.gate = self.gate.clone();
        let bar = Progress::new(u64::from(f.rounds));
        let allowed = sys::thread_affinity().ok();
        measure_rounds(
            &mut f,
            sysfs,
            allowed.as_deref(),
            &bar,
            &mut Vec::new(),
            body,
        );
        bar.finish_and_clear();
        f.done
    }
}

/// Every round of a benchmark, one after the other ([`measure_round`]), until it has its
/// result.
fn measure_rounds(
    f: &mut Measurement<'_>,
    sysfs: &Sysfs,
    allowed: Option<&[u32]>,
    bar: &Progress,
    shown: &mut Vec<String>,
    body: &mut dyn FnMut(&mut Bencher),
) {
    for round in 0..f.rounds {
        if f.done.is_some() {
            break;
        }
        measure_round(f, sysfs, allowed, bar, shown, body);
        if f.done.is_none() && round + 1 == f.rounds {
            f.finish();
        }
    }
}

/// The default counters for this machine, and a note when some are unavailable.
///
/// ```
/// use perfbench::events::Sysfs;
/// use perfbench::machine::Machine;
/// use perfbench::runner::default_events;
///
/// let (events, note) = default_events(&Sysfs::system(), Machine::cached());
/// assert!(events.iter().any(|e| e.name == "wall-time"));
/// if let Some(note) = note {
///     println!("{note}"); // in a VM without a PMU: why there are no hardware counters
/// }
/// ```
pub fn default_events(sysfs: &Sysfs, machine: &Machine) -> (Vec<Event>, Option<String>) {
    let parse = |names: &[&str]| -> Vec<Event> {
        names
            .iter()
            .filter_map(|n| events::parse(n, sysfs).ok())
            .collect()
    };
    let mut notes = Vec::new();
    if machine.has_cpu_pmu() {
        // Keep the hardware events this PMU has (an emulated or small PMU may lack some).
        if let Ok((counters, dropped)) = open_available(&parse(DEFAULT_HARDWARE)) {
            if counters.events().iter().any(Event::needs_pmu) {
                if !dropped.is_empty() {
                    notes.push(format!(
                        "this PMU cannot count {}: left out",
                        dropped_names(&dropped)
                    ));
                }
                return (counters.events().to_vec(), notes.pop());
            }
        }
        notes.push(
            "hardware counters do not open here: measuring wall-time and software counters \
             (--simulate gives exact simulated counts under Valgrind)"
                .to_owned(),
        );
    } else {
        notes.push(
            "no hardware PMU on this machine: measuring wall-time and software counters \
             (--simulate gives exact simulated counts under Valgrind)"
                .to_owned(),
        );
    }
    // Software counters an unprivileged user may not count (context switches happen in the
    // kernel) are left out once, here, rather than noted for every benchmark.
    let software = parse(DEFAULT_SOFTWARE);
    let kept = match open_available(&software) {
        Ok((counters, dropped)) => {
            if !dropped.is_empty() {
                notes.push(format!("{} left out", dropped_names(&dropped)));
            }
            counters.events().to_vec()
        }
        Err(_) => vec![Event::wall_time()],
    };
    notes.push("`perfbench doctor` explains".to_owned());
    (kept, Some(notes.join("; ")))
}

fn dropped_names(dropped: &[(String, CounterError)]) -> String {
    dropped
        .iter()
        .map(|(n, _)| n.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Opens what can be opened of `events`; returns the counters and the events dropped with why.
fn open_available(
    events: &[Event],
) -> Result<(Counters, Vec<(String, CounterError)>), CounterError> {
    let mut wanted = events.to_vec();
    let mut dropped = Vec::new();
    loop {
        match Counters::open(&wanted, &GroupOptions::default()) {
            Ok(c) => return Ok((c, dropped)),
            Err(e @ CounterError::Open { .. }) => {
                let CounterError::Open { event, .. } = &e else {
                    unreachable!()
                };
                let name = event.clone();
                wanted.retain(|w| w.name != name);
                dropped.push((name, e));
                if wanted.is_empty() {
                    wanted.push(Event::wall_time());
                }
            }
            Err(other) => return Err(other),
        }
    }
}

/// A benchmark between its rounds.
struct Measurement<'a> {
    p: &'a Job,
    events: Vec<Event>,
    plan: Plan,
    /// Rounds it takes ([`Plan::round_count`]).
    rounds: u32,
    /// Its samples so far (`None` before the first round).
    sampler: Option<Box<Sampler>>,
    /// What its body set with `Bencher::throughput`, last round's.
    throughput: Option<Throughput>,
    /// Its result, once it has one: measured after its last round, or failed or panicked.
    done: Option<RawBenchmark>,
    /// Whether the result was printed (and compared).
    printed: bool,
    /// Profile mode: the sampling event its brackets switch on and off.
    gate: Option<std::sync::Arc<sys::EventFd>>,
}

impl<'a> Measurement<'a> {
    fn new(
        p: &'a Job,
        cli_events: Option<&Vec<Event>>,
        defaults: &[Event],
        sysfs: &Sysfs,
        run: &RunPlan,
    ) -> Measurement<'a> {
        let o = &p.entry.options;
        let plan = Plan {
            sample_size: o.sample_size.unwrap_or(run.sample_size),
            warm_up_ns: secs_to_ns(o.warm_up_time.unwrap_or(run.warm_up_time)),
            measurement_ns: secs_to_ns(o.measurement_time.unwrap_or(run.measurement_time)),
            linear: run.linear,
            rounds: run.rounds,
        };
        let events = match cli_events {
            Some(ev) => Ok(ev.clone()),
            None => own_events(p, defaults, sysfs),
        };
        let (events, done) = match events {
            Ok(ev) => (ev, None),
            Err(e) => (Vec::new(), Some(raw_failed(p, e))),
        };
        Measurement {
            p,
            events,
            rounds: plan.round_count(),
            plan,
            sampler: None,
            throughput: None,
            done,
            printed: false,
            gate: None,
        }
    }

    /// The result after the last round: the samples of every counter (the analysis computes
    /// the estimates).
    fn finish(&mut self) {
        let p = self.p;
        self.done = Some(match self.sampler.take().and_then(|s| s.into_measured()) {
            Some(counters) => RawBenchmark {
                counters,
                throughput: self.throughput.or(p.entry.options.throughput),
                ..raw_result(p, Outcome::Measured)
            },
            None => raw_failed(p, NEVER_CALLED.to_owned()),
        });
    }
}

const NEVER_CALLED: &str =
    "the benchmark never called Bencher::iter, iter_batched, iter_custom or iter_timed";

/// One round of a benchmark ([`measure_once`]) on the CPUs whose PMU serves the events (see
/// [`affinity`]), then back where the thread may run. Each note is shown once per run
/// (`shown`).
fn measure_round(
    f: &mut Measurement<'_>,
    sysfs: &Sysfs,
    allowed: Option<&[u32]>,
    bar: &Progress,
    shown: &mut Vec<String>,
    body: &mut dyn FnMut(&mut Bencher),
) {
    let Some(allowed) = allowed else {
        let events = f.events.clone();
        return measure_once(f, &events, bar, body);
    };
    let pinning = affinity::plan(&f.events, sysfs, allowed);
    let mut note = pinning.note.clone();
    let mut pinned = false;
    if let Some(cpus) = &pinning.cpus {
        match sys::set_thread_affinity(cpus) {
            Ok(()) => pinned = true,
            Err(e) => {
                note = Some(format!(
                    "could not pin to CPUs {} of {}: {}; its counters may count part-time",
                    affinity::cpu_list(cpus),
                    pinning.pmu.as_deref().unwrap_or("the PMU"),
                    e.description()
                ));
            }
        }
    }
    if let Some(note) = note.filter(|n| !shown.contains(n)) {
        bar.suspend(|| eprintln!("note: {note}"));
        shown.push(note);
    }
    measure_once(f, &pinning.events, bar, body);
    if pinned {
        // Failing to widen the mask again only leaves the thread on the core type the
        // counters need; nothing to report.
        let _ = sys::set_thread_affinity(allowed);
    }
}

/// Opens the counters and runs the benchmark's body once: one round of its samples.
/// Sets `f.done` when it fails or panics.
fn measure_once(
    f: &mut Measurement<'_>,
    events: &[Event],
    bar: &Progress,
    body: &mut dyn FnMut(&mut Bencher),
) {
    let p = f.p;
    let (counters, dropped) = match open_available(events) {
        Ok(x) => x,
        Err(e) => {
            f.done = Some(raw_failed(p, e.to_string()));
            return;
        }
    };
    let sampler = match f.sampler.take() {
        Some(mut s) => {
            s.next_round(counters);
            s
        }
        None => {
            if !dropped.is_empty() {
                let reason = match &dropped[0].1 {
                    CounterError::Open { explanation, .. } => explanation.reason.clone(),
                    other => other.to_string(),
                };
                bar.suspend(|| {
                    eprintln!(
                        "note: {}: not measuring {} here: {reason}",
                        p.id,
                        dropped_names(&dropped)
                    )
                });
            }
            let mut s = Box::new(Sampler::new(counters, f.plan.clone()));
            s.set_profile_gate(f.gate.clone());
            let (id, progress) = (p.id.clone(), bar.clone());
            s.on_progress(move |at| {
                let round = if at.rounds > 1 {
                    format!(" round {}/{}", at.round + 1, at.rounds)
                } else {
                    String::new()
                };
                let pass = if at.passes > 1 {
                    format!(" pass {}/{}", at.pass + 1, at.passes)
                } else {
                    String::new()
                };
                progress.set_message(format!(
                    "{id}{round}{pass}: sample {}/{}",
                    at.sample, at.samples
                ));
            });
            let (id, progress) = (p.id.clone(), bar.clone());
            s.on_note(move |note| progress.suspend(|| eprintln!("note: {id}: {note}")));
            s
        }
    };
    let mut bencher = Bencher::measuring(sampler);
    let outcome = catch_unwind(AssertUnwindSafe(|| body(&mut bencher)));
    if let Err(payload) = outcome {
        f.done = Some(RawBenchmark {
            error: Some(panic_message(payload.as_ref())),
            ..raw_result(p, Outcome::Panicked)
        });
        return;
    }
    f.throughput = bencher.throughput_set().or(f.throughput);
    let Some(sampler) = bencher.into_sampler() else {
        return;
    };
    match sampler.round_result() {
        Ok(true) => f.sampler = Some(sampler),
        Ok(false) => f.done = Some(raw_failed(p, NEVER_CALLED.to_owned())),
        Err(e) => f.done = Some(raw_failed(p, e)),
    }
}

/// The counters of benchmark `p` when the command line names none: its attribute's `counters`,
/// else `defaults`.
fn own_events(p: &Job, defaults: &[Event], sysfs: &Sysfs) -> Result<Vec<Event>, String> {
    match p.entry.options.counters {
        Some(names) => names
            .iter()
            .map(|n| events::parse(n, sysfs))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("counters option: {e}")),
        None => Ok(defaults.to_vec()),
    }
}

#[doc(hidden)]
pub fn secs_to_ns(s: f64) -> u64 {
    (s.max(0.0) * 1e9) as u64
}

/// A failed benchmark's result.
fn raw_failed(p: &Job, error: String) -> RawBenchmark {
    RawBenchmark {
        error: Some(error),
        ..raw_result(p, Outcome::Failed)
    }
}

/// A benchmark's result without counters.
fn raw_result(p: &Job, outcome: Outcome) -> RawBenchmark {
    RawBenchmark {
        id: p.id.clone(),
        group: p.group.clone(),
        name: p.entry.name.to_owned(),
        params: p.params.clone(),
        throughput: p.entry.options.throughput,
        outcome,
        error: None,
        counters: Vec::new(),
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panicked with a non-string payload".to_owned()
    }
}

/// `--test`: every selected body once, libtest-style lines and summary; with `--json PATH`, a
/// report of the outcomes (`tested` or `panicked`, no counters) there, and nowhere else (a smoke
/// test is not the suite's previous run).
fn smoke_test(suite: &str, chosen: &[Job], args: &Args) -> ExitCode {
    println!("\nrunning {} benchmarks as tests", chosen.len());
    let (mut passed, mut failed_n) = (0, 0);
    let mut results = Vec::with_capacity(chosen.len());
    let mut failed = |p: &Job, outcome, message: String, results: &mut Vec<RawBenchmark>| {
        failed_n += 1;
        println!("test {} ... FAILED: {message}", p.id);
        results.push(RawBenchmark {
            error: Some(message),
            ..raw_result(p, outcome)
        });
    };
    let missing = for_each_body(chosen, &mut |p, body| {
        let mut b = Bencher::smoke_test();
        match catch_unwind(AssertUnwindSafe(|| body(&mut b))) {
            Ok(()) => {
                passed += 1;
                println!("test {} ... ok", p.id);
                results.push(raw_result(p, Outcome::Tested));
            }
            Err(payload) => failed(
                p,
                Outcome::Panicked,
                panic_message(payload.as_ref()),
                &mut results,
            ),
        }
    });
    for (p, why) in missing {
        failed(p, Outcome::Failed, why, &mut results);
    }
    if let Some(path) = &args.json {
        // The tool writes it (at `path`, from the command line it is given).
        if !stream::smoke_report(suite, args, chosen, &results) {
            let _ = path;
            return ExitCode::from(2);
        }
    }
    let verdict = if failed_n == 0 { "ok" } else { "FAILED" };
    println!(
        "\ntest result: {verdict}. {passed} passed; {failed_n} failed; 0 ignored; 0 measured; 0 filtered out\n"
    );
    if failed_n == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
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
