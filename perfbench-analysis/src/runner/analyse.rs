//! The analysis half of a run: estimates, the comparison with the previous run or a baseline,
//! the run history, the terminal and JSON reports, baselines and the HTML report. Its results
//! come from a benchmark binary over a pipe ([`super::stream`]) or from Callgrind children
//! (`--simulate`): the same analysis for both.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::compared::{add_changes, reference, thresholds};
use super::stream::{self, Hello};
use super::{confirm, paired, save, simulate, undecided};
use crate::baseline::Store;
use crate::history::{Build, History};
use crate::model::{self, Benchmark, Config, CounterResult, Derived, Outcome, Report, Sampling};
use crate::report;
use crate::stats::{self, StatsConfig};
use perfbench::events::Event;
use perfbench::machine::Machine;
use perfbench::runner::cli::{Args, Format};
use perfbench::runner::output_dir;
use perfbench::runner::progress::Progress;

/// What the analysis needs of a selected benchmark: its identity and its attribute's options
/// that outlive the measurement (throughput, counters for `--simulate`, thresholds), as the
/// benchmark binary describes it ([`super::stream`]).
pub(crate) use perfbench::protocol::stream::Description;

/// The result of `c` without counters.
pub(crate) fn result_of(c: &Description, outcome: Outcome) -> Benchmark {
    Benchmark {
        throughput: c.throughput,
        ..Benchmark::new(&c.id, &c.group, &c.name, c.params.as_deref(), outcome)
    }
}

/// The result of `c` when it could not be measured.
pub(crate) fn failed_result(c: &Description, error: String) -> Benchmark {
    Benchmark {
        error: Some(error),
        ..result_of(c, Outcome::Failed)
    }
}

/// Where a run's results come from.
enum Origin<'a> {
    /// Under Callgrind, a child process per benchmark (`--simulate`).
    Simulated {
        sim: simulate::Simulate,
        chosen: &'a [Description],
    },
    /// Measured by a benchmark binary, which reads what to print from `output`; `suite`
    /// starts it again to confirm a regression ([`confirm`]).
    Streamed {
        input: &'a mut dyn BufRead,
        output: &'a mut dyn Write,
        suite: &'a StreamedSuite,
    },
}

/// What `perfbench run-suite` hands over: a benchmark binary's run to analyse.
#[derive(Debug)]
pub struct StreamedSuite {
    /// The suite's name.
    pub suite: String,
    /// The benchmark binary (for the output directory, the run history and saved baselines).
    pub exe: PathBuf,
    /// Its command line (without the program), as it was given.
    pub args: Vec<std::ffi::OsString>,
}

/// Analyses the run of a benchmark binary, which
/// measures and writes its results to `input` and prints what it reads from `output` (the
/// protocol of `perfbench::protocol::stream`); `args` is its command line. The run's files are written as
/// `target/perfbench` beside the binary. The `perfbench` tool's `run-suite`.
pub fn run_streamed(
    suite: &StreamedSuite,
    args: &Args,
    input: &mut dyn BufRead,
    output: &mut dyn Write,
) -> ExitCode {
    // Set once per process: the tool serves one benchmark binary.
    perfbench::runner::set_bench_exe(suite.exe.clone());
    // Runs the tool drives itself (the binary handed them over and is gone).
    if let Some(name) = &args.paired {
        return paired::paired_with_baseline(&suite.suite, name, args);
    }
    if args.simulate {
        return simulate_for(suite, args);
    }
    let hello = match stream::read_hello(input) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let Hello {
        counters, chosen, ..
    } = hello;
    if args.test {
        return smoke_streamed(&suite.suite, args, input, output);
    }
    let config = config_of(args, counters);
    let origin = Origin::Streamed {
        input,
        output,
        suite,
    };
    analysed_run(&suite.suite, args, &chosen, config, origin)
}

/// `--simulate` for a benchmark binary: its benchmarks as it describes them
/// (`--perfbench-describe`), each run under Callgrind as a full build runs them.
fn simulate_for(suite: &StreamedSuite, args: &Args) -> ExitCode {
    let described = std::process::Command::new(&suite.exe)
        .args(&suite.args)
        .arg("--perfbench-describe")
        .stderr(std::process::Stdio::inherit())
        .output();
    let hello = match described {
        Ok(out) if out.status.success() => stream::read_hello(&mut out.stdout.as_slice()),
        Ok(out) => Err(format!(
            "{} --perfbench-describe ended with {}",
            suite.exe.display(),
            out.status
        )),
        Err(e) => Err(format!("cannot run {}: {e}", suite.exe.display())),
    };
    match hello {
        Ok(h) => simulated_run(&suite.suite, args, &h.chosen),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// `--simulate`: each of `chosen` under Callgrind, then the analysis.
fn simulated_run(suite: &str, args: &Args, chosen: &[Description]) -> ExitCode {
    match simulate::Simulate::prepare(args) {
        Ok(sim) => {
            let config = sim.config();
            analysed_run(
                suite,
                args,
                chosen,
                config,
                Origin::Simulated { sim, chosen },
            )
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// `--test --json PATH` for a benchmark binary: the outcomes it sends, written as the report.
fn smoke_streamed(
    suite: &str,
    args: &Args,
    input: &mut dyn BufRead,
    output: &mut dyn Write,
) -> ExitCode {
    if let Err(e) = stream::send_frame(output, "") {
        eprintln!("error: the benchmark binary stopped listening: {e}");
        return ExitCode::from(2);
    }
    let mut results = Vec::new();
    loop {
        match stream::read_benchmark(input) {
            Ok(Some(b)) => results.push(b),
            Ok(None) => break,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    match &args.json {
        Some(path) if !write_smoke(suite, args, results, path) => ExitCode::from(2),
        _ => ExitCode::SUCCESS,
    }
}

/// The analysis of a run whose results come from `origin`: each benchmark compared and printed
/// as soon as it is there, then the summary, the files and the exit code. Each step is a
/// function below, in the order they run.
fn analysed_run(
    suite: &str,
    args: &Args,
    chosen: &[Description],
    config: Config,
    origin: Origin<'_>,
) -> ExitCode {
    let store = Store::new(output_dir());
    // Held until the run's files are written: a second run of the suite waits here.
    let _lock = lock_suite(&store, suite);
    let reference = match reference(&store, suite, args, chosen) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some((name, base)) = &reference {
        if let Some(note) = simulate::source_note(name, base, args.simulate) {
            eprintln!("note: {note}");
        }
    }
    let history_path = store.history_path(suite);
    let build = perfbench::runner::bench_exe().and_then(|e| Build::of(&e));
    let counted = !matches!(origin, Origin::Simulated { .. });
    let mut history = build
        .filter(|_| counted)
        .map(|build| run_history(&history_path, build));
    let style = report::terminal::Style {
        format: args.format,
        color: report::terminal::color_wanted(),
    };
    let mut reporter = report::terminal::TerminalReporter::new(style);
    // Each benchmark is compared as soon as it has its result; what to print of it.
    let mut finished = |r: &mut Benchmark| -> String {
        if let Some(h) = &history {
            h.widen(r);
        }
        if let Some((_, base)) = &reference {
            let own = chosen.iter().find(|c| c.id == r.id);
            add_changes(r, base, &thresholds(own, args), &[], &[]);
        }
        if args.format == Format::Json {
            return String::new();
        }
        let mut text = reporter.bench_done(r);
        if args.format == Format::Pretty {
            let index = chosen.iter().position(|c| c.id == r.id).unwrap_or(0);
            let base = reference.as_ref().and_then(|(_, base)| base.bench(&r.id));
            for (what, file) in flame_graph_files(suite, index, r, base) {
                text.push_str(&format!("    {what}  {}\n", file.display()));
            }
        }
        text
    };
    let linear = config.sampling == Sampling::Linear;
    let band = perfbench::harness::quiet::band(config.precision);
    let again = match origin {
        Origin::Streamed { suite, .. } if !args.no_confirm => Some(suite),
        _ => None,
    };
    let Some((mut results, simulator, mut output)) =
        collect(suite, origin, linear, band, &mut finished)
    else {
        return ExitCode::from(2);
    };
    let mut confirmed = confirm::Again::default();
    let saved = args.baseline.as_ref().zip(reference.as_ref());
    if let (Some(again), Some((b, (_, base)))) = (again, saved) {
        let quiet = args.format == Format::Json;
        let mut say = |text: &str| {
            if let (Some(out), false) = (output.as_mut(), quiet) {
                let _ = stream::send_frame(&mut **out, text);
            }
        };
        let base_exe = store.executable_path(&b.name, suite);
        if base_exe.is_file() {
            let own = |id: &str| chosen.iter().find(|c| c.id == id);
            let judge = |r: &mut Benchmark, new: &[&Benchmark], old: &[&Benchmark]| {
                add_changes(r, base, &thresholds(own(&r.id), args), new, old)
            };
            let asked = undecided::asked(&results);
            confirmed =
                confirm::confirm_changes(again, &base_exe, base, &mut results, &mut say, judge);
            confirm::keep_baseline_runs(&store, &b.name, suite, base, &confirmed.base, &mut say);
            undecided::pair_undecided(
                &asked,
                &again.exe,
                &base_exe,
                &b.name,
                suite,
                args,
                &mut results,
                &mut say,
            );
        }
    }
    // The report lists the benchmarks in the order they were selected, whichever finished first.
    let results = in_chosen_order(results, chosen);
    if let Some(h) = history.as_mut().filter(|_| !args.discard_baseline) {
        keep_in_history(h, &results, &history_path);
    }
    note_widened(&results, args, &history_path);
    let mut report = suite_report(suite, config, results, simulator, reference.as_ref(), build);
    report.add_earlier_runs(confirm::earlier_runs(&confirmed.new));
    let json = model::json::to_json(&report);
    let text = if args.format == Format::Json {
        format!("{json}\n")
    } else {
        reporter.finish(&report)
    };
    match output.as_mut() {
        Some(out) => {
            let _ = stream::send_frame(&mut **out, &text);
        }
        None => {
            print!("{text}");
            let _ = std::io::stdout().flush();
        }
    }
    let written = write_reports(&store, suite, args, &report, &json, reference.as_ref());
    let saved = match &args.save_baseline {
        Some(name) => save::save_baseline(&store, name, suite, args, &report, &json, again),
        None => true,
    };
    if !(written && saved) {
        return ExitCode::from(2);
    }
    let (failed, regressed) = failed_and_regressed(&report);
    if failed || (args.fail_on_regression && regressed) {
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

/// The suite's lock in `store`, after saying that the run waits for another one holding it; or
/// none, after saying why, when it cannot be taken (the run goes on unlocked).
fn lock_suite(store: &Store, suite: &str) -> Option<crate::baseline::SuiteLock> {
    let lock = store.lock(suite, |path| {
        eprintln!(
            "note: another run of suite `{suite}` holds {}; waiting for it to finish",
            path.display()
        )
    });
    lock.map_err(|e| eprintln!("note: cannot lock the suite's files ({e}); running unlocked"))
        .ok()
}

/// The figures of `build`'s last runs (`path`), which widen a counted run's intervals; an
/// empty history, after saying why, when the file cannot be read.
fn run_history(path: &Path, build: Build) -> History {
    History::load(path, build).unwrap_or_else(|(empty, why)| {
        eprintln!("note: starting the run history afresh: {why}");
        empty
    })
}

/// What [`collect`] gathers: the results, the simulator of a simulated run, and the channel
/// of a streamed run for what is printed next.
type Collected<'a> = (
    Vec<Benchmark>,
    Option<model::Simulator>,
    Option<&'a mut dyn Write>,
);

/// Every benchmark's result from `origin`, each passed to `finished` as it comes and what that
/// returns printed (on the terminal for simulated runs; sent back to the benchmark binary,
/// which prints it, for streamed ones); with the simulator and the binary's channel for what
/// is printed next. `None` after saying why when the binary's stream broke.
fn collect<'a>(
    suite: &str,
    origin: Origin<'a>,
    linear: bool,
    band: f64,
    finished: &mut dyn FnMut(&mut Benchmark) -> String,
) -> Option<Collected<'a>> {
    let broke = |e: std::io::Error| {
        eprintln!("error: the benchmark binary stopped listening: {e}");
    };
    match origin {
        Origin::Simulated { sim, chosen } => {
            let bar = Progress::new(chosen.len() as u64);
            let results = sim.measure(suite, chosen, &bar, &mut |_, r, bar| {
                let text = finished(r);
                if !text.is_empty() {
                    bar.suspend(|| {
                        print!("{text}");
                        let _ = std::io::stdout().flush();
                    });
                }
            });
            bar.finish_and_clear();
            Some((results, Some(sim.simulator()), None))
        }
        Origin::Streamed { input, output, .. } => {
            let mut results = Vec::new();
            stream::send_frame(output, "").map_err(broke).ok()?;
            loop {
                let raw = match stream::read_benchmark(input) {
                    Ok(Some(raw)) => raw,
                    Ok(None) => break,
                    Err(e) => {
                        eprintln!("error: {e}");
                        return None;
                    }
                };
                let mut r = analysed(raw, linear, band);
                let text = finished(&mut r);
                stream::send_frame(output, &text).map_err(broke).ok()?;
                results.push(r);
            }
            Some((results, None, Some(output)))
        }
    }
}

/// Adds this run's figures to the build's history and saves it (`path`), saying why not when
/// it cannot.
fn keep_in_history(history: &mut History, results: &[Benchmark], path: &Path) {
    history.record(results);
    if let Err(e) = history.save(path) {
        eprintln!(
            "note: cannot keep this run's figures in {}: {e}",
            path.display()
        );
    }
}

/// Says, unless the output is JSON, that the intervals were widened by the build's earlier
/// runs, and by how many.
fn note_widened(results: &[Benchmark], args: &Args, history_path: &Path) {
    let widened = results
        .iter()
        .flat_map(|b| &b.counters)
        .filter_map(|c| c.estimate.and_then(|e| e.runs))
        .map(|r| r.runs)
        .max();
    if let (Some(runs), false) = (widened, args.format == Format::Json) {
        eprintln!(
            "note: intervals include how far the last {runs} runs of this build strayed from \
             each other ({})",
            history_path.display()
        );
    }
}

/// The run's report: its results, the machine, the reference it was compared with, the build.
fn suite_report(
    suite: &str,
    config: Config,
    results: Vec<Benchmark>,
    simulator: Option<model::Simulator>,
    reference: Option<&(String, Report)>,
    build: Option<Build>,
) -> Report {
    let machine = model::Machine {
        simulator,
        ..machine_info(Machine::cached(), &results)
    };
    let mut report = Report::new(suite, machine, config, results);
    report.baseline = reference.map(|(name, base)| model::BaselineRef {
        warnings: base.machine.differences(&report.machine),
        name: name.clone(),
        perfbench_version: base.perfbench_version.clone(),
        machine: base.machine.clone(),
        runs: u32::try_from(base.runs()).unwrap_or(u32::MAX),
        build: base.build,
    });
    report.build = build;
    report
}

/// Writes the JSON report as the latest run (the next run's reference) unless discarded, to
/// `--json PATH` when asked, and the HTML report. False, after saying why, when one failed.
fn write_reports(
    store: &Store,
    suite: &str,
    args: &Args,
    report: &Report,
    json: &str,
    reference: Option<&(String, Report)>,
) -> bool {
    let mut ok = true;
    let latest = (!args.discard_baseline).then(|| store.latest_path(suite));
    for path in latest.into_iter().chain(args.json.clone()) {
        if let Err(e) = model::file::write_atomic(&path, json.as_bytes()) {
            eprintln!(
                "error: cannot write the JSON report to {}: {e}",
                path.display()
            );
            ok = false;
        }
    }
    ok & write_html(report, reference.map(|(_, b)| b), args)
}

/// `results` in `chosen`'s order (any not chosen last, in their order).
fn in_chosen_order(results: Vec<Benchmark>, chosen: &[Description]) -> Vec<Benchmark> {
    let mut keyed: Vec<(usize, Benchmark)> = results
        .into_iter()
        .map(|b| {
            let at = chosen
                .iter()
                .position(|c| c.id == b.id)
                .unwrap_or(usize::MAX);
            (at, b)
        })
        .collect();
    perfbench::sorting::sort_by(&mut keyed, |a, b| a.0.cmp(&b.0));
    keyed.into_iter().map(|(_, b)| b).collect()
}

/// A measured benchmark's result: its samples with the estimates of every counter and the
/// derived metrics (`linear`: the samples' iteration counts grow linearly, and the estimate is
/// the regression's slope; `band`: the quiet rounds' band of the median of time and cycles,
/// [`perfbench::harness::quiet::band`] of the plan's precision). Estimates it carried are
/// computed afresh.
pub(crate) fn analysed(mut bench: Benchmark, linear: bool, band: f64) -> Benchmark {
    if bench.outcome != Outcome::Measured {
        return bench;
    }
    for c in &mut bench.counters {
        c.estimate = stats::estimate_rounds(
            &c.per_iteration,
            linear.then_some(c.iterations.as_slice()),
            &c.rounds,
            &StatsConfig::for_counter(&c.name).with_quiet_band(band),
        );
    }
    bench.derived = derived_metrics(&bench.counters, &StatsConfig::default());
    bench
}

/// Writes the HTML report of a finished run to `target/perfbench/report/`:
/// this suite's benchmark pages, with `baseline`'s samples overlaid when given, and the index
/// of every suite. False, after saying why, when it cannot be written.
pub(crate) fn write_html(report: &Report, baseline: Option<&Report>, args: &Args) -> bool {
    let reports = output_dir();
    let dir = reports.join("report");
    let input = report::html::SuiteInput { report, baseline };
    match report::html::write_run(&dir, &reports, input) {
        Ok(()) => {
            if args.format != Format::Json {
                eprintln!("HTML report: {}", dir.join("index.html").display());
            }
            // The pretty blocks name each benchmark's; the other formats name the directory.
            let flames = report.benchmarks.iter().any(|b| b.flame.is_some());
            if flames && !matches!(args.format, Format::Json | Format::Pretty) {
                let suite = dir.join(report::html::suite_dir(&report.suite));
                eprintln!(
                    "flame graphs: {}",
                    suite.join(report::html::FLAME_DIR).display()
                );
            }
            true
        }
        Err(e) => {
            eprintln!(
                "error: cannot write the HTML report to {}: {e}",
                dir.display()
            );
            false
        }
    }
}

/// Where the HTML report puts the first flame graph of benchmark `b` at `index` in `suite`
/// (instructions, where it has one), and the first of its changes against `base`, its
/// baseline's run, when it has them; each with what to call it.
fn flame_graph_files(
    suite: &str,
    index: usize,
    b: &Benchmark,
    base: Option<&Benchmark>,
) -> Vec<(&'static str, PathBuf)> {
    let dir = output_dir()
        .join("report")
        .join(report::html::suite_dir(suite));
    let mut files = Vec::new();
    if let Some(counter) = b.flame.as_ref().and_then(|f| f.counters.first()) {
        let file = report::html::flame_file(index, &b.id, counter);
        files.push(("flame graph", dir.join(file)));
    }
    let changed = base.map(|base| report::html::changed_flames(b, base));
    if let Some(counter) = changed.as_deref().and_then(<[&str]>::first) {
        let file = report::html::flame_change_file(index, &b.id, counter);
        files.push(("flame graph of the change", dir.join(file)));
    }
    files
}

/// Whether any benchmark of `report` failed or panicked, and whether any counter regressed:
/// what exit code 1 is for (the regression only with `--fail-on-regression`).
pub(crate) fn failed_and_regressed(report: &Report) -> (bool, bool) {
    let failed = report
        .benchmarks
        .iter()
        .any(|b| matches!(b.outcome, Outcome::Panicked | Outcome::Failed));
    let regressed = report.benchmarks.iter().flat_map(|b| &b.counters).any(|c| {
        c.change
            .is_some_and(|ch| ch.verdict == model::Verdict::Regressed)
    });
    (failed, regressed)
}

pub(crate) fn run_config(args: &Args, events: &[Event]) -> Config {
    config_of(args, events.iter().map(|e| e.name.clone()).collect())
}

/// The run's configuration, measuring `counters` by default.
fn config_of(args: &Args, counters: Vec<String>) -> Config {
    let plan = perfbench::runner::RunPlan::of(args);
    Config {
        sample_size: plan.sample_size,
        warm_up_time: plan.warm_up_time,
        measurement_time: plan.measurement_time,
        sampling: if plan.linear {
            Sampling::Linear
        } else {
            Sampling::Flat
        },
        counters,
        confidence: stats::DEFAULT_CONFIDENCE,
        resamples: stats::DEFAULT_RESAMPLES,
        rounds: plan.rounds,
        precision: plan.precision,
    }
}

/// `ipc` (instructions / cycles), `branch-miss-rate` and `cache-miss-rate`, per sample, where
/// both counters were measured.
pub(crate) fn derived_metrics(counters: &[CounterResult], cfg: &StatsConfig) -> Vec<Derived> {
    let find = |name: &str| {
        counters
            .iter()
            .find(|c| c.name == name || c.name.starts_with(&format!("{name}:")))
    };
    let mut out = Vec::new();
    for (name, num, den) in [
        ("ipc", "instructions", "cycles"),
        ("branch-miss-rate", "branch-misses", "branches"),
        ("cache-miss-rate", "cache-misses", "cache-references"),
    ] {
        if let (Some(n), Some(d)) = (find(num), find(den)) {
            let per_sample: Vec<f64> = n
                .per_iteration
                .iter()
                .zip(&d.per_iteration)
                .filter(|(_, d)| **d > 0.0)
                .map(|(n, d)| n / d)
                .collect();
            let estimate = stats::estimate(&per_sample, None, cfg);
            out.push(Derived {
                name: name.to_owned(),
                per_sample,
                estimate,
            });
        }
    }
    out
}

pub(crate) fn machine_info(m: &Machine, results: &[Benchmark]) -> model::Machine {
    let mut sources: Vec<(String, perfbench::counters::Source)> = Vec::new();
    for c in results.iter().flat_map(|b| &b.counters) {
        if !sources.iter().any(|(n, _)| *n == c.name) {
            sources.push((c.name.clone(), c.source));
        }
    }
    model::Machine {
        cpu: m.cpu_model.clone(),
        arch: m.arch.clone(),
        kernel: m.kernel.clone(),
        cpus: m.cpus,
        pmus: m.pmus.clone(),
        core_pmus: m.core_pmus.clone(),
        paranoid: m.paranoid,
        sources,
        simulator: None,
    }
}

fn write_smoke(suite: &str, args: &Args, results: Vec<Benchmark>, path: &Path) -> bool {
    let machine = machine_info(Machine::cached(), &results);
    let report = Report::new(suite, machine, run_config(args, &[]), results);
    let json = model::json::to_json(&report);
    if let Err(e) = model::file::write_atomic(path, json.as_bytes()) {
        eprintln!(
            "error: cannot write the JSON report to {}: {e}",
            path.display()
        );
        return false;
    }
    true
}
