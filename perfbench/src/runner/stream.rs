//! A lean benchmark binary's run (perfbench built without the `analysis` feature): the binary
//! measures, the installed `perfbench` tool analyses.
//!
//! A lean build compiles the measurement layers only (registration, counters, the harness and
//! this client): no statistics, no serde, no reports, which is what keeps a clean benchmark
//! build small. `cargo bench` then runs the binary, which
//! 1. selects the benchmarks and checks the counters as any run does (a bad `--counters` is
//!    refused here, before anything starts);
//! 2. starts the tool, `perfbench run-suite --suite SUITE --exe THIS_BINARY -- ARGS...` (its own
//!    command line after `--`), the one of this library's version: installed, or built once
//!    per version into a cache shared by every project (`runner::provision`);
//! 3. measures every benchmark in this process, exactly as a full build does, and sends each
//!    result to the tool as soon as it has it; the tool compares it, and answers with the text
//!    to print, which the binary prints between its progress lines;
//! 4. closes the pipe; the tool writes the report files, the baseline and the HTML report as a
//!    full build would (under the same `target/perfbench`), and sends the summary; the binary
//!    prints it and exits with the tool's exit code.
//!
//! Where no tool can be had (see `runner::provision`), the binary measures all the same and
//! prints each counter's median with a distribution-free 95% interval (`estimates_only`),
//! then one line that says why the comparison, the report files and the baseline are missing
//! and how to get them.
//!
//! `--list` and `--test` (smoke tests, `cargo test --benches`) need no tool. `--test --json PATH`
//! sends the smoke test's outcomes the same way, and the tool writes the report. `--paired` and
//! `--simulate`, which the tool drives itself, are handed over whole (`hand_over`: this
//! process becomes `perfbench run-suite`, which starts this binary as paired workers
//! ([`super::worker`]) or under Callgrind, after asking it for its benchmarks with the hidden
//! `--perfbench-describe`). `--profile` samples inside the benchmark binary and needs the
//! `profile` feature.
//!
//! # Protocol (version [`PROTOCOL`])
//! Binary to tool, on the tool's standard input, one JSON object per line, written by hand
//! ([`crate::harness::raw`]): first `{"perfbench_stream": 1, "perfbench": "0.1.0", "counters":
//! [...], "benchmarks": [{"id": ..., "group": ..., "name": ..., "params": ..., "throughput":
//! ..., "counters": [...] | null, "thresholds": [["wall-time", 0.1], ...]}, ...]}` (the default
//! counters, and the selected benchmarks with what the analysis needs of their attribute; also
//! what `--perfbench-describe` prints), then one benchmark of the JSON report per line, with its
//! samples and no estimates
//! ([`RawBenchmark::to_json`](crate::harness::raw::RawBenchmark::to_json)), then
//! `{"perfbench_end": true}`. An input that ends without that line (the binary crashed or was
//! killed) is an error: the tool writes nothing. Tool to binary, on the tool's standard output:
//! frames, each `LENGTH\n` and then `LENGTH` bytes of text to print: one once the tool is ready
//! (after it took the suite's lock and loaded the baseline), one after each benchmark, then any
//! number until the tool exits. The tool's standard error is the binary's. A tool that refuses
//! the run (another version, a missing baseline) says why on standard error and exits before
//! its first frame. The tool reads the lines with the report's own serde types.

// A full build (feature `analysis`) analyses in its own process and never starts the tool; it
// compiles the client all the same, so that the workspace's checks cover it.
#![cfg_attr(feature = "analysis", allow(dead_code))]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitCode, Stdio};

use super::cli::Args;
use super::provision::{self, Missing};
use super::{Counted, Planned, RunPlan};
use crate::events::Sysfs;
use crate::harness::raw::{self, push_f64, push_list, push_str, push_throughput, RawBenchmark};
use crate::machine::Machine;

/// The version of the protocol between a lean benchmark binary and the tool.
pub const PROTOCOL: u32 = 1;

/// The last line of a run that ended as it should: the tool writes nothing for a run whose
/// input ends without it (a benchmark binary that crashed or was killed).
const END_LINE: &str = "{\"perfbench_end\":true}";

pub use super::provision::TOOL_VAR;

/// Runs `chosen` in this lean binary and has the `perfbench` tool analyse them (see the
/// module's documentation).
pub(crate) fn run(suite: &str, args: &Args, chosen: &[Planned]) -> ExitCode {
    let (tool, exe) = match tool_and_exe() {
        Ok(x) => x,
        Err(Unstarted::NoTool(missing)) => return estimates_only(args, chosen, &missing),
        Err(Unstarted::Exit(code)) => return code,
    };
    let sysfs = Sysfs::system();
    let counted = match prepare(args, chosen, &sysfs) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let counters: Vec<&str> = counted
        .cli_events
        .as_ref()
        .unwrap_or(&counted.defaults)
        .iter()
        .map(|e| e.name.as_str())
        .collect();
    let mut tool_run = match ToolRun::start(&tool, &exe, suite, &hello(&counters, chosen)) {
        Ok(t) => t,
        Err(code) => return code,
    };
    counted.measure(chosen, &sysfs, &RunPlan::of(args), &mut |_, raw, bar| {
        let answer = tool_run
            .send(&raw.to_json())
            .ok()
            .and_then(|()| tool_run.frame());
        match answer {
            Some(text) => bar.suspend(|| print_now(&text)),
            None => {
                bar.finish_and_clear();
                eprintln!("error: the perfbench tool stopped during the run");
                // Never a success: the run was not analysed.
                std::process::exit(tool_run.exit_code().max(2));
            }
        }
    });
    tool_run.finish()
}

/// Hands the whole run to the tool (`--paired`, `--simulate`, which the tool drives itself:
/// it starts this binary as paired workers or under Callgrind): replaces this process with
/// `perfbench run-suite`. Returns only when that cannot be done.
pub(crate) fn hand_over(suite: &str) -> ExitCode {
    use std::os::unix::process::CommandExt;
    let (tool, exe) = match tool_and_exe() {
        Ok(x) => x,
        Err(why) => return refuse(why),
    };
    let e = tool_command(&tool, suite, &exe).exec();
    eprintln!(
        "error: cannot start the perfbench tool {}: {e}",
        tool.display()
    );
    ExitCode::from(2)
}

/// `--test --json PATH` of a lean binary: the tool writes the report of the smoke test's
/// `results` (the outcomes of `chosen`). False, after the tool or this says why, when it is not
/// written.
pub(crate) fn smoke_report(suite: &str, chosen: &[Planned], results: &[RawBenchmark]) -> bool {
    let started = tool_and_exe()
        .map_err(refuse)
        .and_then(|(tool, exe)| ToolRun::start(&tool, &exe, suite, &hello(&[], chosen)));
    let Ok(mut tool_run) = started else {
        return false;
    };
    for r in results {
        if tool_run.send(&r.to_json()).is_err() {
            break;
        }
    }
    tool_run.finish() == ExitCode::SUCCESS
}

/// The counters of the run, checked; or, after saying what is wrong with them, exit code 2.
fn prepare(args: &Args, chosen: &[Planned], sysfs: &Sysfs) -> Result<Counted, ExitCode> {
    Counted::prepare(args, chosen, sysfs, Machine::cached()).map_err(|e| {
        eprintln!("{e}");
        ExitCode::from(2)
    })
}

/// Why the tool was not started for this run.
enum Unstarted {
    /// No tool of this version can be had.
    NoTool(Missing),
    /// Something else, already said: the exit code.
    Exit(ExitCode),
}

/// The tool and this binary's path; or why they are not both there.
fn tool_and_exe() -> Result<(PathBuf, PathBuf), Unstarted> {
    let tool = provision::tool().map_err(Unstarted::NoTool)?;
    match std::env::current_exe() {
        Ok(exe) => Ok((tool, exe)),
        Err(e) => {
            eprintln!("error: cannot find this benchmark binary's path: {e}");
            Err(Unstarted::Exit(ExitCode::from(2)))
        }
    }
}

/// The exit code of a run that needs the tool and has none, after saying why.
fn refuse(why: Unstarted) -> ExitCode {
    match why {
        Unstarted::Exit(code) => code,
        Unstarted::NoTool(Missing(why)) => {
            eprintln!("error: this run needs the `perfbench` tool: {why}");
            ExitCode::from(2)
        }
    }
}

/// A run without the tool: measures `chosen` and prints each counter's median and its
/// distribution-free 95% interval, then why the rest (changes, report files, baseline) is
/// missing. Exit 0, or 1 when a benchmark panicked or failed, or 2 when the command line asked
/// for what only the tool does (a baseline, a verdict, report files): it was not done.
fn estimates_only(args: &Args, chosen: &[Planned], missing: &Missing) -> ExitCode {
    let sysfs = Sysfs::system();
    let counted = match prepare(args, chosen, &sysfs) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let mut failed = false;
    counted.measure(chosen, &sysfs, &RunPlan::of(args), &mut |_, raw, bar| {
        failed |= raw.error.is_some();
        bar.suspend(|| print_now(&estimates_text(raw)));
    });
    eprintln!(
        "note: estimates only (medians and their 95% intervals): no comparison, report files or          baseline, since {}",
        missing.0
    );
    if args.asks_for_the_tool() {
        eprintln!(
            "error: --save-baseline, --baseline, --json and --fail-on-regression need the tool"
        );
        ExitCode::from(2)
    } else if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// A benchmark's lines without the tool: its id, then each counter's median and interval.
fn estimates_text(raw: &RawBenchmark) -> String {
    use std::fmt::Write as _;
    let mut out = format!(
        "{}
",
        raw.id
    );
    if let Some(e) = &raw.error {
        let _ = writeln!(out, "  {}: {}", raw.outcome.as_str(), e.trim_end());
        return out;
    }
    let width = raw.counters.iter().map(|c| c.name.len()).max().unwrap_or(0);
    for c in &raw.counters {
        let Some((median, low, high)) = median_interval(&c.per_iteration) else {
            continue;
        };
        let (point, interval) = crate::units::format_estimate(median, low, high, &c.unit);
        let _ = writeln!(
            out,
            "  {:width$}  {point:>10}  {interval}  ({} samples)",
            c.name,
            c.per_iteration.len()
        );
    }
    out
}

/// The median of `values` and a distribution-free 95% interval for it: the order statistics
/// `n/2 -+ 1.96 sqrt(n)/2` (the normal approximation of the binomial), clamped to the sample.
/// `None` without a finite value.
fn median_interval(values: &[f64]) -> Option<(f64, f64, f64)> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    };
    let half = 1.96 * (n as f64).sqrt() / 2.0;
    let low = ((n as f64 / 2.0 - half).floor().max(0.0) as usize).min(n - 1);
    let high = ((n as f64 / 2.0 + half).ceil() as usize).min(n - 1);
    Some((median, v[low], v[high]))
}

/// `perfbench run-suite --suite SUITE --exe EXE -- ARGS...`, ARGS this process's own.
fn tool_command(tool: &Path, suite: &str, exe: &Path) -> Command {
    let mut c = Command::new(tool);
    c.arg("run-suite")
        .arg("--suite")
        .arg(suite)
        .arg("--exe")
        .arg(exe)
        .arg("--")
        .args(std::env::args_os().skip(1));
    c
}

/// The first line: the protocol, this library's version, the default counters and the selected
/// benchmarks with what the analysis needs of their attribute (also what
/// `--perfbench-describe` prints).
pub(crate) fn hello(counters: &[&str], chosen: &[Planned]) -> String {
    let mut out = format!(
        "{{\"perfbench_stream\":{PROTOCOL},\"perfbench\":\"{}\",\"counters\":[",
        env!("CARGO_PKG_VERSION")
    );
    push_list(&mut out, counters, |out, name| push_str(out, name));
    out.push_str("],\"benchmarks\":[");
    push_list(&mut out, chosen, |out, p| {
        let o = &p.entry.options;
        push_identity(out, p);
        out.push_str(",\"throughput\":");
        push_throughput(out, o.throughput);
        out.push_str(",\"counters\":");
        match o.counters {
            None => out.push_str("null"),
            Some(names) => {
                out.push('[');
                push_list(out, names, |out, name| push_str(out, name));
                out.push(']');
            }
        }
        out.push_str(",\"thresholds\":[");
        push_list(out, o.thresholds.unwrap_or(&[]), |out, (name, t)| {
            out.push('[');
            push_str(out, name);
            out.push(',');
            push_f64(out, *t);
            out.push(']');
        });
        out.push_str("]}");
    });
    out.push_str("]}");
    out
}

/// `{"id": ..., "group": ..., "name": ..., "params": ...` of benchmark `p` (the object left
/// open for more members).
pub(crate) fn push_identity(out: &mut String, p: &Planned) {
    raw::push_identity(out, &p.id, &p.group, p.entry.name, p.params.as_deref());
}

fn print_now(text: &str) {
    if !text.is_empty() {
        print!("{text}");
        let _ = std::io::stdout().flush();
    }
}

/// The tool, started for this run.
struct ToolRun {
    tool: PathBuf,
    child: Child,
    input: Option<ChildStdin>,
    output: BufReader<ChildStdout>,
}

impl ToolRun {
    /// Starts the tool, sends the first line (`hello`) and reads its first frame; or, after
    /// saying why it did not take the run, the exit code.
    fn start(tool: &Path, exe: &Path, suite: &str, hello: &str) -> Result<ToolRun, ExitCode> {
        let spawned = tool_command(tool, suite, exe)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn();
        let mut child = match spawned {
            Ok(c) => c,
            Err(e) => {
                eprintln!(
                    "error: cannot start the perfbench tool {}: {e}",
                    tool.display()
                );
                return Err(ExitCode::from(2));
            }
        };
        let (Some(input), Some(output)) = (child.stdin.take(), child.stdout.take()) else {
            eprintln!("error: no pipes to the perfbench tool");
            return Err(ExitCode::from(2));
        };
        let mut run = ToolRun {
            tool: tool.to_path_buf(),
            child,
            input: Some(input),
            output: BufReader::new(output),
        };
        if run.send(hello).is_err() || run.frame().is_none() {
            return Err(run.refused());
        }
        Ok(run)
    }

    /// Sends one line.
    fn send(&mut self, line: &str) -> std::io::Result<()> {
        let input = self
            .input
            .as_mut()
            .ok_or_else(|| std::io::Error::other("closed"))?;
        input.write_all(line.as_bytes())?;
        input.write_all(b"\n")?;
        input.flush()
    }

    /// The next frame's text; `None` at the end of the tool's output (or on a malformed frame).
    fn frame(&mut self) -> Option<String> {
        let mut len = String::new();
        if self.output.read_line(&mut len).ok()? == 0 {
            return None;
        }
        let len: usize = len.trim_end().parse().ok()?;
        let mut text = vec![0; len];
        self.output.read_exact(&mut text).ok()?;
        Some(String::from_utf8_lossy(&text).into_owned())
    }

    /// The tool's exit code, once it exited (2 when it was killed or cannot be waited for).
    fn exit_code(&mut self) -> i32 {
        drop(self.input.take());
        match self.child.wait() {
            Ok(status) => status.code().unwrap_or(2),
            Err(_) => 2,
        }
    }

    /// The tool refused the run or ended before it started: it said why on standard error.
    fn refused(mut self) -> ExitCode {
        let code = self.exit_code();
        eprintln!(
            "note: the perfbench tool {} ended before the run started (exit code {code})",
            self.tool.display()
        );
        ExitCode::from(u8::try_from(code).unwrap_or(2).max(1))
    }

    /// Ends the input, prints the tool's last frames, and returns its exit code.
    fn finish(mut self) -> ExitCode {
        let _ = self.send(END_LINE);
        drop(self.input.take());
        while let Some(text) = self.frame() {
            print_now(&text);
        }
        ExitCode::from(u8::try_from(self.exit_code()).unwrap_or(2))
    }
}

/// Writes one frame of text for the benchmark binary to print.
#[cfg(feature = "analysis")]
pub(crate) fn send_frame(out: &mut dyn Write, text: &str) -> std::io::Result<()> {
    write!(out, "{}\n{text}", text.len())?;
    out.flush()
}

/// What the first line of a lean binary's run says.
#[cfg(feature = "analysis")]
#[derive(Debug)]
pub(crate) struct Hello {
    /// The default counters of the run.
    pub(crate) counters: Vec<String>,
    /// The selected benchmarks.
    pub(crate) chosen: Vec<super::analyse::Chosen>,
}

/// Reads and checks the first line.
#[cfg(feature = "analysis")]
pub(crate) fn read_hello(input: &mut dyn BufRead) -> Result<Hello, String> {
    #[derive(serde_derive::Deserialize)]
    struct Wire {
        perfbench_stream: u32,
        perfbench: String,
        counters: Vec<String>,
        benchmarks: Vec<WireBench>,
    }
    #[derive(serde_derive::Deserialize)]
    struct WireBench {
        id: String,
        group: String,
        name: String,
        params: Option<String>,
        throughput: Option<crate::model::Throughput>,
        counters: Option<Vec<String>>,
        thresholds: Vec<(String, f64)>,
    }
    let mut line = String::new();
    match input.read_line(&mut line) {
        Ok(0) => return Err("the benchmark binary sent nothing".into()),
        Ok(_) => {}
        Err(e) => return Err(format!("cannot read from the benchmark binary: {e}")),
    }
    let wire: Wire = serde_json::from_str(&line)
        .map_err(|e| format!("the benchmark binary's first line is not this protocol's: {e}"))?;
    let ours = env!("CARGO_PKG_VERSION");
    if wire.perfbench_stream != PROTOCOL || wire.perfbench != ours {
        return Err(format!(
            "the benchmark binary was built with perfbench {} (protocol {}), and this tool is \
             perfbench {ours} (protocol {PROTOCOL}): run it with the tool of its version, \
             `cargo install perfbench-cli --version ={} --force` (or unset {TOOL_VAR}: the \
             benchmark binary then finds or builds the tool of its version itself)",
            wire.perfbench, wire.perfbench_stream, wire.perfbench
        ));
    }
    Ok(Hello {
        counters: wire.counters,
        chosen: wire
            .benchmarks
            .into_iter()
            .map(|b| super::analyse::Chosen {
                id: b.id,
                group: b.group,
                name: b.name,
                params: b.params,
                throughput: b.throughput,
                counters: b.counters,
                thresholds: b.thresholds,
            })
            .collect(),
    })
}

/// The next benchmark result; `None` at the end of the run ([`END_LINE`]). An input that ends
/// before it is an error: the benchmark binary did not finish its run.
#[cfg(feature = "analysis")]
pub(crate) fn read_benchmark(
    input: &mut dyn BufRead,
) -> Result<Option<crate::model::Benchmark>, String> {
    let mut line = String::new();
    match input.read_line(&mut line) {
        Ok(0) => Err(
            "the benchmark binary ended before its run was over (it crashed or was \
                      killed): no report, baseline or history is written"
                .to_owned(),
        ),
        Ok(_) if line.trim_end() == END_LINE => Ok(None),
        Ok(_) => serde_json::from_str(&line)
            .map(Some)
            .map_err(|e| format!("a result from the benchmark binary does not read: {e}")),
        Err(e) => Err(format!("cannot read from the benchmark binary: {e}")),
    }
}

#[cfg(all(test, feature = "analysis"))]
mod tests {
    use super::*;
    use crate::counters::Source;
    use crate::harness::raw::{Outcome, RawCounter};
    use crate::harness::Throughput;
    use crate::model::Benchmark;

    fn raw(name: &str, values: Vec<f64>) -> RawBenchmark {
        RawBenchmark {
            id: format!("g/{name}/1"),
            group: "g".into(),
            name: name.into(),
            params: Some("1".into()),
            throughput: Some(Throughput::Elements(u64::MAX)),
            outcome: Outcome::Measured,
            error: None,
            counters: vec![
                RawCounter {
                    name: "wall-time".into(),
                    unit: "ns".into(),
                    source: Source::Clock,
                    multiplexed: false,
                    per_iteration: values.clone(),
                    iterations: vec![1, u64::MAX],
                    rounds: vec![1, 1],
                    overhead: f64::NAN,
                },
                RawCounter {
                    name: "cycles:u".into(),
                    unit: "count".into(),
                    source: Source::Rdpmc,
                    multiplexed: true,
                    per_iteration: values.iter().map(|v| v * 3.0).collect(),
                    iterations: vec![7, 7],
                    rounds: Vec::new(),
                    overhead: 12.5,
                },
            ],
        }
    }

    /// The same values, NaN equal to NaN.
    fn same(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
    }

    /// What a lean binary writes reads back, with the report's own types, as exactly what
    /// was measured: odd names, extreme and non-finite floats, 64-bit counts.
    #[test]
    fn raw_results_read_back_exactly_with_the_reports_types() {
        let mut rng = crate::stats::rng::Rng::new(7);
        let names = [
            "plain",
            "quo\"te",
            "back\\slash",
            "new\nline",
            "tab\tctl\u{1}",
            "é€😀",
            "",
        ];
        for (i, name) in names.iter().enumerate() {
            let mut values: Vec<f64> = (0..50)
                .map(|_| f64::from_bits(rng.next_u64()))
                .filter(|v| v.is_finite())
                .collect();
            values.extend([
                0.1,
                -0.0,
                1e-300,
                f64::MAX,
                f64::MIN_POSITIVE,
                5e-324,
                f64::INFINITY,
            ]);
            let mut r = raw(name, values);
            if i % 2 == 1 {
                r.outcome = Outcome::Panicked;
                r.error = Some(format!("boom \"{name}\""));
                r.throughput = None;
                r.params = None;
            }
            let line = r.to_json();
            assert!(!line.contains('\n'), "one line: {line}");
            let read: Benchmark =
                serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
            let want = Benchmark::from(r.clone());
            assert_eq!(
                (
                    &read.id,
                    &read.group,
                    &read.name,
                    &read.params,
                    read.throughput,
                    read.outcome,
                    &read.error
                ),
                (
                    &want.id,
                    &want.group,
                    &want.name,
                    &want.params,
                    want.throughput,
                    want.outcome,
                    &want.error
                )
            );
            assert_eq!(read.counters.len(), 2);
            for (a, b) in read.counters.iter().zip(&want.counters) {
                assert_eq!(
                    (
                        &a.name,
                        &a.unit,
                        a.source,
                        a.multiplexed,
                        &a.iterations,
                        &a.rounds
                    ),
                    (
                        &b.name,
                        &b.unit,
                        b.source,
                        b.multiplexed,
                        &b.iterations,
                        &b.rounds
                    )
                );
                // Non-finite values are written as null and read as NaN.
                let finite: Vec<f64> = b
                    .per_iteration
                    .iter()
                    .map(|v| if v.is_finite() { *v } else { f64::NAN })
                    .collect();
                assert!(same(&a.per_iteration, &finite), "{name}");
                assert!(same(&[a.overhead], &[b.overhead]));
                assert!(a.estimate.is_none() && a.change.is_none());
            }
        }
    }

    #[test]
    fn a_run_is_over_only_at_its_end_line() {
        let mut input = format!("{END_LINE}\n").into_bytes();
        assert_eq!(read_benchmark(&mut input.as_slice()), Ok(None));
        input.clear();
        let e = read_benchmark(&mut input.as_slice()).unwrap_err();
        assert!(e.contains("ended before its run was over"), "{e}");
    }

    #[test]
    fn the_tool_refuses_another_version_and_names_both() {
        let line =
            "{\"perfbench_stream\":1,\"perfbench\":\"9.9.9\",\"counters\":[],\"benchmarks\":[]}\n";
        let e = read_hello(&mut line.as_bytes()).unwrap_err();
        assert!(
            e.contains("9.9.9") && e.contains(env!("CARGO_PKG_VERSION")),
            "{e}"
        );
        assert!(e.contains("cargo install perfbench"), "{e}");
        let e = read_hello(&mut "not json\n".as_bytes()).unwrap_err();
        assert!(e.contains("not this protocol's"), "{e}");
        assert!(read_hello(&mut "".as_bytes()).is_err());
    }

    #[test]
    fn the_first_line_carries_the_counters_and_the_attributes_thresholds() {
        let ours = format!(
            "{{\"perfbench_stream\":{PROTOCOL},\"perfbench\":\"{}\",\"counters\":[\"wall-time\"],\
             \"benchmarks\":[{{\"id\":\"g/a\",\"group\":\"g\",\"name\":\"a\",\"params\":null,\
             \"throughput\":{{\"bytes\":64}},\"counters\":[\"instructions\"],\
             \"thresholds\":[[\"wall-time\",0.1]]}},{{\"id\":\"g/b/1\",\"group\":\"g\",\
             \"name\":\"b\",\"params\":\"1\",\"throughput\":null,\"counters\":null,\
             \"thresholds\":[]}}]}}\n",
            env!("CARGO_PKG_VERSION")
        );
        let hello = read_hello(&mut ours.as_bytes()).unwrap();
        assert_eq!(hello.counters, ["wall-time"]);
        assert_eq!(hello.chosen.len(), 2);
        let (a, b) = (&hello.chosen[0], &hello.chosen[1]);
        assert_eq!(a.thresholds, [("wall-time".to_owned(), 0.1)]);
        assert_eq!(a.throughput, Some(Throughput::Bytes(64)));
        assert_eq!(
            a.counters.as_deref(),
            Some(&["instructions".to_owned()][..])
        );
        assert!(b.thresholds.is_empty() && b.counters.is_none());
        assert_eq!((b.name.as_str(), b.params.as_deref()), ("b", Some("1")));
    }

    #[test]
    fn frames_carry_any_text() {
        let mut out = Vec::new();
        for text in ["", "one\n", "两\n\n3"] {
            send_frame(&mut out, text).unwrap();
        }
        assert_eq!(out, "0\n4\none\n6\n两\n\n3".as_bytes());
    }
}
