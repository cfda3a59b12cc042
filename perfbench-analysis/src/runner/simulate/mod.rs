//! `--simulate`: every benchmark measured under Valgrind's Callgrind, with exact simulated
//! counts, through the same statistics, baselines, comparisons and reports as counted runs.
//!
//! The driver starts one child per benchmark (the bench executable with the hidden
//! `--perfbench-simulated DIR`), up to one per core, under `valgrind --tool=callgrind` with the
//! cache model pinned ([`CACHE_OPTIONS`]), no address-space randomisation, an empty environment and
//! no gdbserver. The child runs its benchmark once per round, dumping each measured region to a
//! file of its own (see [`harness::simulate`](perfbench::harness::simulate) for the sample's
//! arithmetic), and writes `result.json`; the driver reads the dumps with
//! [`Dump::parse`](perfbench::counters::callgrind::Dump::parse) and hands the results on like any
//! run's. Callgrind keeps each function's costs apart per call path (`--separate-callers`), and
//! `call_paths` makes the benchmark's flame ([`model::Flame`]) from them. The dumps stay in
//! `target/perfbench/simulate/<suite>/`. The guide's docs/simulate.md explains why each of these
//! is pinned.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

mod call_paths;

use super::analyse::{failed_result, result_of, Description};
use super::derived_metrics;
use crate::model::{self, Benchmark, Config, CounterResult, Outcome, Report, Sampling};
use crate::stats::{self, StatsConfig};
use call_paths::{PathCosts, Paths, SEPARATE_CALLERS};
use perfbench::counters::callgrind::{self, find_valgrind, which, Dump, Simulated, Valgrind};
use perfbench::counters::Source;
use perfbench::events::AllocCounter;
use perfbench::harness::simulate::{Region, SimSample, DUMP_FILE};
use perfbench::runner::cli::Args;
use perfbench::runner::output_dir;
use perfbench::runner::progress::Progress;

pub use perfbench::runner::sim_child::DEFAULT_ROUNDS;

/// Rounds per benchmark with `--quick`.
pub const QUICK_ROUNDS: u32 = 3;
use perfbench::protocol::sim;

/// Callgrind's options for the simulated caches: 32 KiB 8-way L1 instruction and data caches
/// and an 8 MiB 16-way last level, 64-byte lines, whatever the host has (Callgrind would copy
/// the host's), so simulated misses compare across machines.
pub const CACHE_OPTIONS: [&str; 3] = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64"];

/// Callgrind's other options.
const VALGRIND_OPTIONS: [&str; 6] = [
    "-q",
    "--tool=callgrind",
    "--collect-atstart=no",
    "--cache-sim=yes",
    "--branch-sim=yes",
    "--vgdb=no",
];

/// The counters of a simulated run: `--counters`, checked to be simulated ones.
fn parse_counters(list: &str) -> Result<Vec<&'static Simulated>, String> {
    let offered = || {
        callgrind::COUNTERS
            .iter()
            .map(|c| c.name)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out: Vec<&'static Simulated> = Vec::new();
    let mut allocs = 0;
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        match callgrind::counter(name) {
            Some(c) if !out.contains(&c) => out.push(c),
            Some(_) => {}
            // The allocation counters are counted under Callgrind too ([`alloc_names`]).
            None if AllocCounter::from_name(name).is_some() => allocs += 1,
            None => {
                return Err(format!(
                    "--counters: `{name}` is not simulated; with --simulate the counters are {}",
                    offered()
                ))
            }
        }
    }
    if out.is_empty() && allocs == 0 {
        return Err(format!(
            "--counters: no counter given; with --simulate the counters are {}",
            offered()
        ));
    }
    Ok(out)
}

/// The allocation counters a list names, in its order.
fn alloc_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<AllocCounter> {
    let mut out = Vec::new();
    for a in names
        .into_iter()
        .filter_map(|n| AllocCounter::from_name(n.trim()))
    {
        if !out.contains(&a) {
            out.push(a);
        }
    }
    out
}

/// The default simulated counters.
fn default_counters() -> Vec<&'static Simulated> {
    callgrind::COUNTERS.iter().filter(|c| c.default).collect()
}

/// A simulated run, ready to start.
#[derive(Debug)]
pub struct Simulate {
    valgrind: Valgrind,
    /// `setarch`, to turn address-space randomisation off.
    setarch: Option<PathBuf>,
    /// `--counters`: the simulated ones, and the allocation counters it names.
    cli: Option<(Vec<&'static Simulated>, Vec<AllocCounter>)>,
    rounds: u32,
}

impl Simulate {
    /// Checks that this build and machine can simulate (the target has client requests,
    /// Valgrind is installed and recent enough) and that `--counters` names simulated
    /// counters. The error says what to do.
    ///
    /// ```
    /// use perfbench::runner::cli;
    /// use perfbench_analysis::runner::simulate::Simulate;
    ///
    /// let args = cli::parse("suite", ["suite", "--bench", "--simulate"]).unwrap();
    /// match Simulate::prepare(&args) {
    ///     Ok(sim) => println!("simulating {:?} with {}", sim.config().counters, sim.simulator().version),
    ///     Err(why) => println!("{why}"), // no Valgrind here: says how to install it
    /// }
    /// let typo = cli::parse("suite", ["suite", "--bench", "--simulate", "--counters", "instrs"]).unwrap();
    /// assert!(Simulate::prepare(&typo).is_err());
    /// ```
    pub fn prepare(args: &Args) -> Result<Simulate, String> {
        if !callgrind::SUPPORTED {
            return Err(format!(
                "--simulate needs an x86_64 or aarch64 build (Valgrind's client requests); this \
                 one is {}",
                std::env::consts::ARCH
            ));
        }
        let valgrind = find_valgrind().map_err(|e| format!("--simulate: {e}"))?;
        let cli = match args.counters.as_deref() {
            Some(list) => Some((parse_counters(list)?, alloc_names(list.split(',')))),
            None => None,
        };
        let setarch = which("setarch");
        if setarch.is_none() {
            eprintln!(
                "note: `setarch` (util-linux) is not on PATH: address-space randomisation stays \
                 on under Valgrind, and counts may differ between runs"
            );
        }
        Ok(Simulate {
            valgrind,
            setarch,
            cli,
            rounds: args.rounds.unwrap_or(if args.quick {
                QUICK_ROUNDS
            } else {
                DEFAULT_ROUNDS
            }),
        })
    }

    /// The run's settings, for the report: one sample per round, no times.
    ///
    /// See [`Simulate::prepare`].
    pub fn config(&self) -> Config {
        Config {
            sample_size: self.rounds,
            warm_up_time: 0.0,
            measurement_time: 0.0,
            sampling: Sampling::Flat,
            counters: match &self.cli {
                Some((sim, allocs)) => sim
                    .iter()
                    .map(|c| c.name)
                    .chain(allocs.iter().map(|a| a.name()))
                    .map(str::to_owned)
                    .collect(),
                None => default_counters()
                    .iter()
                    .map(|c| c.name.to_owned())
                    .collect(),
            },
            confidence: stats::DEFAULT_CONFIDENCE,
            resamples: stats::DEFAULT_RESAMPLES,
            rounds: self.rounds,
            precision: None,
        }
    }

    /// The simulator, for the machine fingerprint.
    ///
    /// See [`Simulate::prepare`].
    pub fn simulator(&self) -> model::Simulator {
        model::Simulator {
            tool: "callgrind".to_owned(),
            version: self.valgrind.version.clone(),
            cache: CACHE_OPTIONS
                .iter()
                .map(|o| o.trim_start_matches("--"))
                .collect::<Vec<_>>()
                .join(" "),
        }
    }

    /// The counters of benchmark `p`: `--counters`, else the simulated ones its attribute's
    /// `counters` names (when it names any), else the defaults.
    fn counters_for(&self, p: &Description) -> Vec<&'static Simulated> {
        if let Some((cli, _)) = &self.cli {
            return cli.clone();
        }
        let own: Vec<&'static Simulated> = p
            .counters
            .as_deref()
            .unwrap_or(&[])
            .iter()
            .filter_map(|n| callgrind::counter(n))
            .collect();
        if own.is_empty() {
            default_counters()
        } else {
            own
        }
    }

    /// The allocation counters of benchmark `p`, where its binary counts allocations: those
    /// `--counters` names, else those its attribute's `counters` names when it names any
    /// counter, else all of them.
    fn allocs_for(&self, p: &Description) -> Vec<AllocCounter> {
        if let Some((_, allocs)) = &self.cli {
            return allocs.clone();
        }
        match p.counters.as_deref() {
            Some(names) if !names.is_empty() => alloc_names(names.iter().map(String::as_str)),
            _ => AllocCounter::ALL.to_vec(),
        }
    }

    /// Measures every benchmark of `chosen`, one child process each, as many at once as there
    /// are cores; `finished` gets the results in `chosen`'s order, each as soon as it and those
    /// before it are done.
    pub(crate) fn measure(
        &self,
        suite: &str,
        chosen: &[Description],
        bar: &Progress,
        finished: &mut dyn FnMut(&Description, &mut Benchmark, &Progress),
    ) -> Vec<Benchmark> {
        let work = output_dir().join("simulate").join(suite);
        let exe = perfbench::runner::bench_exe().ok_or("no path");
        let prepared = std::fs::remove_dir_all(&work)
            .or_else(|e| match e.kind() {
                std::io::ErrorKind::NotFound => Ok(()),
                _ => Err(e),
            })
            .and_then(|()| std::fs::create_dir_all(&work))
            .map_err(|e| format!("cannot prepare {}: {e}", work.display()))
            .and_then(|()| exe.map_err(|e| format!("cannot find this executable: {e}")));
        let exe = match prepared {
            Ok(exe) => exe,
            Err(e) => {
                return chosen
                    .iter()
                    .map(|p| {
                        let mut r = failed_result(p, e.clone());
                        finished(p, &mut r, bar);
                        r
                    })
                    .collect();
            }
        };
        let jobs = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, chosen.len().max(1));
        let next = AtomicUsize::new(0);
        let mut done: Vec<Option<Benchmark>> = vec![None; chosen.len()];
        bar.set_message(format!("simulating under Callgrind ({jobs} at a time)"));
        std::thread::scope(|scope| {
            let (tx, rx) = mpsc::channel();
            for _ in 0..jobs {
                let tx = tx.clone();
                let (next, exe, work) = (&next, &exe, &work);
                scope.spawn(move || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(p) = chosen.get(i) else { break };
                    let dir = work.join(format!("b{i:05}"));
                    if tx.send((i, self.run_one(exe, &dir, p))).is_err() {
                        break;
                    }
                });
            }
            drop(tx);
            let mut shown = 0;
            for (i, r) in rx {
                done[i] = Some(r);
                bar.advance(1);
                while let Some(Some(r)) = done.get_mut(shown) {
                    finished(&chosen[shown], r, bar);
                    shown += 1;
                }
            }
        });
        done.into_iter().flatten().collect()
    }

    /// The command that runs benchmark `id` under Callgrind, its dumps in `dir`.
    fn command(&self, exe: &Path, dir: &Path, id: &str) -> Command {
        let mut cmd = match &self.setarch {
            Some(setarch) => {
                let mut c = Command::new(setarch);
                c.arg(std::env::consts::ARCH)
                    .arg("-R")
                    .arg(&self.valgrind.path);
                c
            }
            None => Command::new(&self.valgrind.path),
        };
        cmd.args(VALGRIND_OPTIONS)
            .args(CACHE_OPTIONS)
            .arg(format!("--separate-callers={SEPARATE_CALLERS}"))
            .arg(format!(
                "--callgrind-out-file={}",
                dir.join(DUMP_FILE).display()
            ))
            .arg(exe)
            .args(["--bench", "--perfbench-simulated"])
            .arg(dir)
            .args(["--rounds", &self.rounds.to_string(), "--exact", id])
            .env_clear()
            .stdin(Stdio::null());
        cmd
    }

    /// Runs benchmark `p` in a child under Callgrind and reads its result.
    fn run_one(&self, exe: &Path, dir: &Path, p: &Description) -> Benchmark {
        let files = std::fs::create_dir_all(dir).and_then(|()| {
            Ok((
                std::fs::File::create(dir.join("stdout"))?,
                std::fs::File::create(dir.join("stderr"))?,
            ))
        });
        let (stdout, stderr) = match files {
            Ok(f) => f,
            Err(e) => return failed_result(p, format!("cannot prepare {}: {e}", dir.display())),
        };
        let status = self
            .command(exe, dir, &p.id)
            .stdout(stdout)
            .stderr(stderr)
            .status();
        let status = match status {
            Ok(s) => s,
            Err(e) => {
                return failed_result(
                    p,
                    format!("cannot start {}: {e}", self.valgrind.path.display()),
                )
            }
        };
        let result = match std::fs::read_to_string(dir.join(sim::FILE)) {
            Ok(text) => match sim::Result::decode(&text) {
                Ok(r) => r,
                Err(e) => return failed_result(p, e.to_string()),
            },
            Err(_) => return failed_result(p, crash_message(status, dir)),
        };
        match result.outcome {
            Outcome::Measured => {}
            Outcome::Panicked => {
                return Benchmark {
                    error: result.error,
                    ..result_of(p, Outcome::Panicked)
                }
            }
            _ => {
                return failed_result(
                    p,
                    result
                        .error
                        .unwrap_or_else(|| "failed under Callgrind".to_owned()),
                )
            }
        }
        let dumps = match read_dumps(dir, &p.id) {
            Ok(d) => d,
            Err(e) => return failed_result(p, e),
        };
        let simulated = self.counters_for(p);
        let mut counters = match counter_results(dir, &result.samples, &dumps.headers, &simulated) {
            Ok(c) => c,
            Err(e) => return failed_result(p, e),
        };
        counters.extend(alloc_results(&result.samples, &self.allocs_for(p)));
        let cfg = StatsConfig::default();
        let counters: Vec<CounterResult> = counters
            .into_iter()
            .map(|c| CounterResult {
                estimate: stats::estimate_rounds(&c.per_iteration, None, &c.rounds, &cfg),
                ..c
            })
            .collect();
        let derived = derived_metrics(&counters, &cfg);
        let flame = match &dumps.costs {
            Ok(costs) => call_paths::flame(&result.samples, costs, &simulated, &dumps.paths),
            Err(e) => {
                eprintln!("note: {}: no flame graph: {e}", p.id);
                None
            }
        };
        Benchmark {
            counters,
            derived,
            flame,
            throughput: result.throughput.or(p.throughput),
            threads: result.threads,
            ..result_of(p, Outcome::Measured)
        }
    }
}

/// Why a child left no result: how it ended, and the end of its output.
fn crash_message(status: ExitStatus, dir: &Path) -> String {
    use std::os::unix::process::ExitStatusExt;
    let how = match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(signal)) => format!("was killed by signal {signal}"),
        _ => "ended".to_owned(),
    };
    let mut msg = format!("the process under Callgrind {how} before finishing the benchmark");
    let output = std::fs::read_to_string(dir.join("stderr")).unwrap_or_default();
    // Valgrind's note that it read the host's caches (before taking perfbench's cache model
    // from the command line) says nothing about the crash.
    let lines: Vec<&str> = output
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.contains("using its data for the LL simulation"))
        .collect();
    if !lines.is_empty() {
        msg.push_str("; the end of its output:");
        for line in &lines[lines.len().saturating_sub(8)..] {
            let _ = write!(msg, "\n    {line}");
        }
    }
    msg
}

/// The dumps of one benchmark's regions: each one's header, by its number, and its own costs
/// per call path for the flame graphs (or why they do not read).
struct Dumps {
    headers: HashMap<u32, Dump>,
    paths: Paths,
    costs: Result<HashMap<u32, PathCosts>, String>,
}

/// Every dump in `dir`, by its number (`perfbench-<k>` triggers), of the benchmark `id`. A dump
/// whose header does not parse is an error naming its file.
fn read_dumps(dir: &Path, id: &str) -> Result<Dumps, String> {
    let mut dumps = Dumps {
        headers: HashMap::new(),
        paths: Paths::new(id),
        costs: Ok(HashMap::new()),
    };
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
        let name = entry.file_name();
        let Some(k) = name
            .to_str()
            .and_then(|n| n.strip_prefix(DUMP_FILE))
            .and_then(|n| n.strip_prefix('.'))
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let path = entry.path();
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read Callgrind's dump {}: {e}", path.display()))?;
        let dump =
            Dump::parse(&text).map_err(|e| format!("Callgrind's dump {}: {e}", path.display()))?;
        let wanted = format!("perfbench-{k}");
        if dump.trigger.as_deref() != Some(wanted.as_str()) {
            return Err(format!(
                "Callgrind's dump {} is of {:?}, not of {wanted:?}",
                path.display(),
                dump.trigger.as_deref().unwrap_or("no client request")
            ));
        }
        dumps.headers.insert(k, dump);
        if let Ok(costs) = &mut dumps.costs {
            match call_paths::parse(&text, &mut dumps.paths) {
                Ok(c) => {
                    costs.insert(k, c);
                }
                Err(e) => dumps.costs = Err(format!("Callgrind's dump {}: {e}", path.display())),
            }
        }
    }
    Ok(dumps)
}

/// Each counter's samples, from the child's samples and the headers of its dumps in `dir`.
fn counter_results(
    dir: &Path,
    samples: &[SimSample],
    dumps: &HashMap<u32, Dump>,
    counters: &[&'static Simulated],
) -> Result<Vec<CounterResult>, String> {
    if samples.is_empty() {
        return Err("the simulated run took no sample".to_owned());
    }
    for s in samples {
        for r in s.body.iter().chain(&s.empty) {
            if !dumps.contains_key(&r.dump) {
                return Err(format!(
                    "Callgrind wrote no dump {} ({})",
                    r.dump,
                    dir.join(format!("{DUMP_FILE}.{}", r.dump)).display()
                ));
            }
        }
    }
    let n = samples.len();
    Ok(counters
        .iter()
        .map(|c| {
            let count = |r: &perfbench::harness::simulate::Region| c.value(&dumps[&r.dump]);
            // The empty body's region of the first sample: the bracket (and, but for
            // `iter_custom`, the loop) of `n` iterations, per sample as everywhere.
            let overhead = count(&samples[0].empty[0]);
            CounterResult {
                name: c.name.to_owned(),
                unit: "count".to_owned(),
                source: Source::Callgrind,
                multiplexed: false,
                per_iteration: samples.iter().map(|s| s.value(count)).collect(),
                iterations: samples.iter().map(|s| s.n).collect(),
                rounds: vec![1; n],
                overhead,
                estimate: None,
                change: None,
            }
        })
        .collect())
}

/// The allocation counters `allocs` from the regions' counts, where every region has them (the
/// benchmark binary counts allocations): each sample's value as for a simulated counter (the
/// empty body's counts subtracted, the difference of `n` and `2n` iterations over `n`), but
/// `alloc-peak-bytes`, a largest and not a sum: the larger of the body's two regions' peaks.
fn alloc_results(samples: &[SimSample], allocs: &[AllocCounter]) -> Vec<CounterResult> {
    let counted = |s: &SimSample| s.body.iter().chain(&s.empty).all(|r| r.allocs.is_some());
    if samples.is_empty() || !samples.iter().all(counted) {
        return Vec::new();
    }
    let n = samples.len();
    allocs
        .iter()
        .map(|&a| {
            let i = AllocCounter::ALL.iter().position(|&x| x == a).unwrap_or(0);
            let count = |r: &Region| r.allocs.map_or(0, |c| c[i]) as f64;
            let value = |s: &SimSample| {
                if a.is_peak() {
                    count(&s.body[0]).max(count(&s.body[1]))
                } else {
                    s.value(count)
                }
            };
            CounterResult {
                name: a.name().to_owned(),
                unit: a.unit().to_owned(),
                source: Source::Allocator,
                multiplexed: false,
                per_iteration: samples.iter().map(value).collect(),
                iterations: samples.iter().map(|s| s.n).collect(),
                rounds: vec![1; n],
                overhead: if a.is_peak() {
                    0.0
                } else {
                    count(&samples[0].empty[0])
                },
                estimate: None,
                change: None,
            }
        })
        .collect()
}

/// A note when the reference run (`name`: a baseline or the previous run) was counted one way
/// and this run (`simulating` or not) the other: their counters are not compared.
///
/// ```
/// use perfbench_analysis::model::{Config, Machine, Report, Simulator};
/// use perfbench_analysis::runner::simulate::source_note;
///
/// let simulated = Machine { simulator: Some(Simulator::default()), ..Machine::default() };
/// let base = Report::new("suite", simulated, Config::default(), Vec::new());
/// assert!(source_note("main", &base, false).is_some()); // simulated baseline, measured run
/// assert!(source_note("main", &base, true).is_none());
/// ```
pub fn source_note(name: &str, base: &Report, simulating: bool) -> Option<String> {
    let base_simulated = base.machine.simulator.is_some()
        || base
            .benchmarks
            .iter()
            .flat_map(|b| &b.counters)
            .any(|c| c.source == Source::Callgrind);
    let what = if name == "previous run" {
        "the previous run".to_owned()
    } else {
        format!("baseline `{name}`")
    };
    match (base_simulated, simulating) {
        (true, false) => Some(format!(
            "{what} was simulated under Callgrind (--simulate) and this run counts on this \
             machine: no counter is compared with it (add --simulate to compare)"
        )),
        (false, true) => Some(format!(
            "{what} counted on a machine and this run is simulated under Callgrind: no counter \
             is compared with it"
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_must_be_simulated_ones() {
        let c = parse_counters("instructions, branches,instructions").unwrap();
        assert_eq!(
            c.iter().map(|c| c.name).collect::<Vec<_>>(),
            ["instructions", "branches"]
        );
        let e = parse_counters("instructions,wall-time").unwrap_err();
        assert!(e.contains("`wall-time` is not simulated"), "{e}");
        assert!(e.contains("estimated-cycles"), "{e}");
        assert!(parse_counters(" , ").unwrap_err().contains("no counter"));
        let defaults: Vec<&str> = default_counters().iter().map(|c| c.name).collect();
        assert!(defaults.contains(&"instructions") && !defaults.contains(&"L1-dcache-loads"));
    }

    #[test]
    fn a_crash_is_explained_with_the_end_of_its_output() {
        use std::os::unix::process::ExitStatusExt;
        let dir = std::env::temp_dir().join(format!("perfbench-sim-crash-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let lines: String = (1..=20).map(|i| format!("line {i}\n")).collect();
        std::fs::write(dir.join("stderr"), lines).unwrap();
        // Killed by SIGSEGV (raw wait status 11).
        let m = crash_message(ExitStatus::from_raw(11), &dir);
        assert!(m.contains("killed by signal 11"), "{m}");
        assert!(
            m.contains("line 20") && m.contains("line 13") && !m.contains("line 12\n"),
            "{m}"
        );
        let m = crash_message(ExitStatus::from_raw(3 << 8), &dir);
        assert!(m.contains("exited with status 3"), "{m}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn dumps_are_read_by_number_and_bad_ones_named() {
        let dir = std::env::temp_dir().join(format!("perfbench-sim-dumps-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let dump = |k: u32, ir: u64| {
            format!(
                "version: 1\ncreator: callgrind-3.19.0\npart: {k}\n\
                 desc: Trigger: Client Request: perfbench-{k}\n\
                 events: {}\nsummary: {ir}\n\nfn=(1) x\n0 {ir}\ntotals: {ir}\n",
                callgrind::EVENTS.join(" ")
            )
        };
        for (k, ir) in [(1, 100), (2, 190), (3, 20), (4, 30)] {
            std::fs::write(dir.join(format!("cg.out.{k}")), dump(k, ir)).unwrap();
        }
        // The program-termination dump and other files are not regions.
        std::fs::write(dir.join("cg.out"), "version: 1\n").unwrap();
        std::fs::write(dir.join("stderr"), "").unwrap();
        let region = |dump, iterations| perfbench::harness::simulate::Region {
            dump,
            iterations,
            pairs: 1,
            allocs: None,
        };
        let samples = [SimSample {
            n: 10,
            per_pair: false,
            body: [region(1, 10), region(2, 20)],
            empty: [region(3, 10), region(4, 20)],
        }];
        let instructions = callgrind::counter("instructions").unwrap();
        let results = || {
            let dumps = read_dumps(&dir, "suite/bench")?;
            counter_results(&dir, &samples, &dumps.headers, &[instructions])
        };
        let r = results().unwrap();
        // ((190 - 30) - (100 - 20)) / 10
        assert_eq!(r[0].per_iteration, [8.0]);
        // The overhead is per sample, as everywhere: the empty body's region of n iterations.
        assert_eq!(r[0].overhead, 20.0);
        assert_eq!(r[0].source, Source::Callgrind);
        // A missing dump, then a malformed one, then one of another region.
        std::fs::remove_file(dir.join("cg.out.4")).unwrap();
        let e = results().unwrap_err();
        assert!(e.contains("no dump 4"), "{e}");
        let whole = dump(4, 30);
        std::fs::write(dir.join("cg.out.4"), &whole[..whole.len() - 8]).unwrap();
        let e = results().unwrap_err();
        assert!(e.contains("cg.out.4") && e.contains("truncated"), "{e}");
        std::fs::write(dir.join("cg.out.4"), dump(3, 30)).unwrap();
        let e = results().unwrap_err();
        assert!(e.contains("not of \"perfbench-4\""), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn allocation_counts_are_differenced_and_the_peak_is_the_largest() {
        use perfbench::harness::simulate::Region;
        // Body: 3 allocations of 48 bytes per iteration, plus one of 16 per region (a constant);
        // the empty body: one of 16 per region.
        let region = |dump, n: u64, body: bool| Region {
            dump,
            iterations: n,
            pairs: 1,
            allocs: Some(if body {
                [3 * n + 1, 144 * n + 16, 3 * n + 1, 0, 48]
            } else {
                [1, 16, 1, 0, 16]
            }),
        };
        let sample = SimSample {
            n: 8,
            per_pair: false,
            body: [region(1, 8, true), region(2, 16, true)],
            empty: [region(3, 8, false), region(4, 16, false)],
        };
        let r = alloc_results(&[sample], &AllocCounter::ALL);
        let value = |name: &str| r.iter().find(|c| c.name == name).unwrap().per_iteration[0];
        assert_eq!(value("alloc-count"), 3.0);
        assert_eq!(value("alloc-bytes"), 144.0);
        assert_eq!(value("dealloc-count"), 3.0);
        assert_eq!(value("realloc-count"), 0.0);
        assert_eq!(value("alloc-peak-bytes"), 48.0);
        assert!(r.iter().all(|c| c.source == Source::Allocator));
        // A binary that does not count allocations: no allocation counter.
        let mut none = sample;
        none.empty[1].allocs = None;
        assert!(alloc_results(&[none], &AllocCounter::ALL).is_empty());
        // Only those asked for.
        assert_eq!(alloc_results(&[sample], &[AllocCounter::Bytes]).len(), 1);
    }
}
