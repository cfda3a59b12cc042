//! A benchmark binary's run: the binary measures, the `perfbench` tool analyses. The binary
//! selects the benchmarks and checks the counters, starts the tool of its own version (`perfbench
//! run-suite --suite SUITE --exe THIS_BINARY -- ARGS...`; found or built by `runner::provision`),
//! measures every benchmark in this process and sends each result as soon as it has it, prints
//! what the tool answers, and exits with the tool's exit code once the tool has written the
//! reports. Without a tool it prints each counter's median with a distribution-free 95% interval
//! (`estimates_only`) and says why the rest is missing. `--list` and `--test` need no tool;
//! `--paired` and `--simulate` are handed over whole (`hand_over`: this process becomes
//! `perfbench run-suite`, which starts this binary as paired workers ([`super::worker`]) or under
//! Callgrind). With `--perfbench-stream SOCKET` the tool started this process, to measure
//! benchmarks whose regression it confirms: the run goes to the tool listening on that Unix
//! socket, and nothing is printed. The messages are typed in [`crate::protocol::stream`].

use std::io::{BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};

use super::cli::Args;
use super::provision::{self, Missing};
use super::{Job, RunCounters, RunPlan};
use crate::events::Sysfs;
use crate::harness::raw::RawBenchmark;
use crate::machine::Machine;
use crate::protocol::{
    self,
    stream::{encode_benchmark, read_frame, Description, Hello, END},
};

pub use super::provision::TOOL_VAR;

/// Runs `chosen` in this binary and has the `perfbench` tool analyse them (see the
/// module's documentation).
pub(crate) fn run(suite: &str, args: &Args, chosen: &[Job]) -> ExitCode {
    if let Some(socket) = &args.stream_to {
        return serve(socket, args, chosen);
    }
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
    let hello = hello(&counter_names(&counted), chosen);
    let tool_run = match ToolRun::start(&tool, &exe, suite, args, &hello) {
        Ok(t) => t,
        Err(code) => return code,
    };
    measure_for(tool_run, &counted, chosen, args, &sysfs)
}

/// `--perfbench-stream PATH`: the tool that started this process, to measure regressed
/// benchmarks again (`runner::confirm` in the tool), listens on the Unix socket `PATH`. The run
/// goes there as it goes to a tool this binary starts; the tool answers with nothing to print.
fn serve(socket: &Path, args: &Args, chosen: &[Job]) -> ExitCode {
    let sysfs = Sysfs::system();
    let counted = match prepare(args, chosen, &sysfs) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let hello = hello(&counter_names(&counted), chosen);
    match ToolRun::connect(socket, &hello) {
        Ok(tool_run) => measure_for(tool_run, &counted, chosen, args, &sysfs),
        Err(code) => code,
    }
}

/// The names of the run's default counters, for the first line.
fn counter_names(counted: &RunCounters) -> Vec<&str> {
    counted
        .cli_events
        .as_ref()
        .unwrap_or(&counted.defaults)
        .iter()
        .map(|e| e.name.as_str())
        .collect()
}

/// Measures `chosen`, sending each result to `tool_run` as soon as it is there and printing
/// what the tool answers; then the tool's last frames and its exit code.
fn measure_for(
    mut tool_run: ToolRun,
    counted: &RunCounters,
    chosen: &[Job],
    args: &Args,
    sysfs: &Sysfs,
) -> ExitCode {
    counted.measure(chosen, sysfs, &RunPlan::of(args), &mut |_, raw, bar| {
        let answer = tool_run
            .send(&encode_benchmark(raw))
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
pub(crate) fn hand_over(suite: &str, args: &Args) -> ExitCode {
    use std::os::unix::process::CommandExt;
    let (tool, exe) = match tool_and_exe() {
        Ok(x) => x,
        Err(why) => return refuse(why),
    };
    let e = tool_command(&tool, suite, &exe, args).exec();
    eprintln!(
        "error: cannot start the perfbench tool {}: {e}",
        tool.display()
    );
    ExitCode::from(2)
}

/// `--test --json PATH`: the tool writes the report of the smoke test's
/// `results` (the outcomes of `chosen`). False, after the tool or this says why, when it is not
/// written.
pub(crate) fn smoke_report(
    suite: &str,
    args: &Args,
    chosen: &[Job],
    results: &[RawBenchmark],
) -> bool {
    let started = tool_and_exe()
        .map_err(refuse)
        .and_then(|(tool, exe)| ToolRun::start(&tool, &exe, suite, args, &hello(&[], chosen)));
    let Ok(mut tool_run) = started else {
        return false;
    };
    for r in results {
        if tool_run.send(&encode_benchmark(r)).is_err() {
            break;
        }
    }
    tool_run.finish() == ExitCode::SUCCESS
}

/// The counters of the run, checked; or, after saying what is wrong with them, exit code 2.
fn prepare(args: &Args, chosen: &[Job], sysfs: &Sysfs) -> Result<RunCounters, ExitCode> {
    RunCounters::prepare(args, chosen, sysfs, Machine::cached()).map_err(|e| {
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
fn estimates_only(args: &Args, chosen: &[Job], missing: &Missing) -> ExitCode {
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

/// A benchmark's lines without the tool: its id (and what the figures of a body on several
/// threads are), then each counter's median and interval.
fn estimates_text(raw: &RawBenchmark) -> String {
    use std::fmt::Write as _;
    let mut out = raw.id.clone();
    let threads = raw.threads.and_then(crate::harness::threads::figures_note);
    if let (Some(note), None) = (threads, &raw.error) {
        let _ = write!(out, "  {note}");
    }
    out.push('\n');
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
    crate::sorting::sort_f64(&mut v);
    let n = v.len();
    let median = crate::sorting::percentile_of_sorted(&v, 50.0);
    let half = 1.96 * (n as f64).sqrt() / 2.0;
    let low = ((n as f64 / 2.0 - half).floor().max(0.0) as usize).min(n - 1);
    let high = ((n as f64 / 2.0 + half).ceil() as usize).min(n - 1);
    Some((median, v[low], v[high]))
}

/// `perfbench run-suite --suite SUITE --exe EXE -- ARGS...`, ARGS this process's own.
fn tool_command(tool: &Path, suite: &str, exe: &Path, args: &Args) -> Command {
    let mut c = Command::new(tool);
    c.arg("run-suite")
        .arg("--suite")
        .arg(suite)
        .arg("--exe")
        .arg(exe)
        .arg("--")
        .args(&args.line);
    c
}

/// The first line ([`protocol::stream::Hello`]): this library's version, the default counters
/// and the selected benchmarks with what the analysis needs of their attribute (also what
/// `--perfbench-describe` prints).
pub(crate) fn hello(counters: &[&str], chosen: &[Job]) -> String {
    Hello {
        perfbench: protocol::PERFBENCH.to_owned(),
        counters: counters.iter().map(|&c| c.to_owned()).collect(),
        benchmarks: chosen.iter().map(described).collect(),
    }
    .encode()
}

/// Benchmark `p` as the first line describes it.
fn described(p: &Job) -> Description {
    let o = &p.entry.options;
    Description {
        id: p.id.clone(),
        group: p.group.clone(),
        name: p.entry.name.to_owned(),
        params: p.params.clone(),
        throughput: o.throughput,
        counters: o
            .counters
            .map(|c| c.iter().map(|&n| n.to_owned()).collect()),
        thresholds: o
            .thresholds
            .unwrap_or(&[])
            .iter()
            .map(|&(name, t)| (name.to_owned(), t))
            .collect(),
    }
}

fn print_now(text: &str) {
    if !text.is_empty() {
        print!("{text}");
        let _ = std::io::stdout().flush();
    }
}

/// The tool of this run: started by this process, or (`--perfbench-stream`) the tool that
/// started it, over a Unix socket.
struct ToolRun {
    /// The tool's path, or its socket's, for messages.
    tool: PathBuf,
    /// The tool, when this process started it.
    child: Option<Child>,
    input: Option<Box<dyn Write>>,
    output: BufReader<Box<dyn Read>>,
}

impl ToolRun {
    /// Starts the tool, sends the first line (`hello`) and reads its first frame; or, after
    /// saying why it did not take the run, the exit code.
    fn start(
        tool: &Path,
        exe: &Path,
        suite: &str,
        args: &Args,
        hello: &str,
    ) -> Result<ToolRun, ExitCode> {
        let spawned = tool_command(tool, suite, exe, args)
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
            child: Some(child),
            input: Some(Box::new(input)),
            output: BufReader::new(Box::new(output)),
        };
        if run.send(hello).is_err() || run.frame().is_none() {
            return Err(run.refused());
        }
        Ok(run)
    }

    /// Connects to the tool listening on `socket` (which started this process) and sends the
    /// first line (`hello`), as [`ToolRun::start`] does; or, after saying why, exit code 2.
    fn connect(socket: &Path, hello: &str) -> Result<ToolRun, ExitCode> {
        let connected = UnixStream::connect(socket).and_then(|s| Ok((s.try_clone()?, s)));
        let (input, output) = connected.map_err(|e| {
            eprintln!(
                "error: cannot reach the perfbench tool at {}: {e}",
                socket.display()
            );
            ExitCode::from(2)
        })?;
        let mut run = ToolRun {
            tool: socket.to_path_buf(),
            child: None,
            input: Some(Box::new(input)),
            output: BufReader::new(Box::new(output)),
        };
        if run.send(hello).is_err() || run.frame().is_none() {
            eprintln!(
                "error: the perfbench tool at {} did not take the run",
                socket.display()
            );
            return Err(ExitCode::from(2));
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
        read_frame(&mut self.output)
    }

    /// The tool's exit code, once it exited (2 when it was killed or cannot be waited for); 0
    /// for a tool this process did not start, whose exit is its own.
    fn exit_code(&mut self) -> i32 {
        drop(self.input.take());
        match self.child.as_mut().map(Child::wait) {
            None => 0,
            Some(Ok(status)) => status.code().unwrap_or(2),
            Some(Err(_)) => 2,
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
        let _ = self.send(END);
        drop(self.input.take());
        while let Some(text) = self.frame() {
            print_now(&text);
        }
        ExitCode::from(u8::try_from(self.exit_code()).unwrap_or(2))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counters::Source;
    use crate::harness::raw::{Outcome, RawCounter};

    #[test]
    fn without_the_tool_a_threaded_benchmark_says_what_its_figures_are() {
        let plain = RawBenchmark {
            id: "g/mutex".into(),
            group: "g".into(),
            name: "mutex".into(),
            params: None,
            throughput: None,
            threads: None,
            outcome: Outcome::Measured,
            error: None,
            counters: vec![RawCounter {
                name: "wall-time".into(),
                unit: "ns".into(),
                source: Source::Clock,
                multiplexed: false,
                per_iteration: vec![10.0, 11.0, 12.0],
                iterations: vec![100; 3],
                rounds: Vec::new(),
                overhead: 0.0,
            }],
        };
        let note = crate::harness::threads::figures_note(4).unwrap();
        let text = estimates_text(&plain);
        assert!(text.starts_with("g/mutex\n  wall-time"), "{text}");
        let one = estimates_text(&RawBenchmark {
            threads: Some(1),
            ..plain.clone()
        });
        assert_eq!(one, text);
        let four = RawBenchmark {
            threads: Some(4),
            ..plain
        };
        let text = estimates_text(&four);
        assert!(
            text.starts_with(&format!("g/mutex  {note}\n  wall-time")),
            "{text}"
        );
        // A failure says only what went wrong.
        let failed = estimates_text(&RawBenchmark {
            outcome: Outcome::Panicked,
            error: Some("boom".into()),
            counters: Vec::new(),
            ..four
        });
        assert_eq!(failed, "g/mutex\n  panicked: boom\n");
    }
}
