//! The `perfbench` command-line tool.
//!
//! - `perfbench doctor [--counters LIST]`: what this machine can count, through which source,
//!   and why not.
//! - `perfbench list`: the events this machine offers.
//! - `perfbench compare BASE NEW`: two reports or baseline directories, counter by counter;
//!   `perfbench compare REPORT`: the comparison a report recorded as it ran (`--paired`).
//! - `perfbench export REPORT --format bmf`: Bencher Metric Format JSON.
//! - `perfbench report RESULT... --html DIR`: the HTML report of reports .
//! - `perfbench flame FOLDED [-o SVG]`: the flame graph of folded stacks (a profiled
//!   benchmark's `stacks.folded`).
//! - `perfbench ab OLD_EXE NEW_EXE [FILTER]... [FLAGS]`: a paired run of two builds of a bench
//!   executable (see `perfbench_analysis::runner::paired`).
//! - `perfbench run-suite --suite NAME --exe PATH -- ARGS...`: started by a benchmark binary
//!   to analyse and report its run (see
//!   `perfbench::runner::stream`); not for people.
//!
//! Exit codes: 0 success, 1 a regression with `compare --fail-on-regression`, 2 usage or
//! environment error (an unreadable or invalid report among them).

mod bmf;
mod compare;
mod flame;
#[cfg(test)]
mod tests;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use perfbench::events::{self, Sysfs};
use perfbench_analysis::doctor::{self, Machine};
use perfbench_analysis::model::file;
use perfbench_analysis::verdict::Settings;

const HELP: &str = "\
Benchmarks that read hardware performance counters

Usage: perfbench <COMMAND>

Commands:
  doctor   Say what this machine can count, through which path, and why not
  list     List the events this machine offers
  compare  Compare two reports (or baseline directories) counter by counter
  export   Convert a report for other tools (Bencher Metric Format)
  report   Render reports as HTML pages
  flame    Draw the flame graph of folded stacks (a profiled benchmark's stacks.folded)
  ab       Run two builds of a bench executable alternately and judge the paired differences
  run-suite  Analyse a benchmark binary's run (the binary starts it)
  help     Print this message or the help of the given subcommand

Options:
  -h, --help     Print help
  -V, --version  Print version
";

const DOCTOR_HELP: &str = "\
Say what this machine can count, through which path, and why not

Usage: perfbench doctor [OPTIONS]

Options:
      --counters <LIST>  Comma-separated counters to try (default: the common ones)
  -h, --help             Print help
";

const LIST_HELP: &str = "\
List the events this machine offers

Usage: perfbench list [OPTIONS]

Options:
      --all   Also list hardware events when no CPU PMU exists
  -h, --help  Print help
";

const COMPARE_HELP: &str = "\
Compare two reports (or baseline directories) counter by counter

Usage: perfbench compare [OPTIONS] <BASE> <NEW>
       perfbench compare [OPTIONS] <REPORT>

Arguments:
  <BASE>    The baseline: a report (target/perfbench/SUITE.json) or a directory of reports
            (target/perfbench/baselines/NAME)
  <NEW>     The run to judge, likewise
  <REPORT>  A report (or directory) that was compared as it ran (against the previous run,
            --baseline NAME or --paired NAME): shows the changes it recorded

Options:
      --threshold <COUNTER=PCT>  The change below which COUNTER is never flagged (repeatable)
      --noise-threshold <PCT>    The same for every counter (default: 0.5% for exact counts,
                                 8% for time and cycles, 10% for misses; without rounds
                                 25% for time)
      --format <FORMAT>          text, markdown or json [default: text]
      --fail-on-regression       Exit 1 when any counter regressed
      --html <DIR>               Also write the comparison as HTML pages in DIR
  -h, --help                     Print help

Exit status: 0 nothing regressed (or no --fail-on-regression), 1 a regression with
--fail-on-regression, 2 an error (an unreadable, invalid or mismatched report).
";

const EXPORT_HELP: &str = "\
Convert a report for other tools

Usage: perfbench export --format bmf <REPORT>

Arguments:
  <REPORT>  A report (target/perfbench/SUITE.json)

Options:
      --format <FORMAT>  bmf: Bencher Metric Format JSON, for `bencher run --adapter json`
  -h, --help             Print help
";

const REPORT_HELP: &str = "\
Render reports as HTML pages

Usage: perfbench report --html <DIR> <RESULT>...

Arguments:
  <RESULT>...  Reports (target/perfbench/SUITE.json) or directories of reports

Options:
      --html <DIR>  Write DIR/index.html and a page per benchmark
  -h, --help        Print help

A report compared with a saved baseline shows that baseline's distributions when it is found
where it was saved (DIR/baselines/NAME/SUITE.json next to the report).
Exit status: 0, 2 an error (an unreadable or invalid report, a page that cannot be written).
";

const AB_HELP: &str = "\
Run two builds of a bench executable alternately and judge the paired differences

Usage: perfbench ab <OLD_EXE> <NEW_EXE> [FILTER]... [OPTIONS]

Arguments:
  <OLD_EXE>    The baseline build: a perfbench bench executable (target/release/deps/NAME-HASH)
  <NEW_EXE>    The build to judge, likewise
  [FILTER]...  Run benchmarks whose id contains any FILTER

Options: those of the bench executables (run one with --help), among them
      --counters <LIST>         Counters to measure
      --sample-size <N>         Pairs of samples (default 100)
      --rounds <N>              Rounds, each in fresh processes of both builds (default 20; up to
                                4x for a benchmark whose verdict is still open)
      --precision 0             Keep to the planned rounds
      --measurement-time <S>    Measurement time of each build (default 3)
      --threshold <COUNTER=PCT> The change below which COUNTER is never flagged (repeatable)
      --null-control            Also pair the new build with itself; no verdict where that is flagged
      --worker-timeout <S>      How long to wait for a build's answer (default 120)
      --json <PATH>             Also write the JSON report to PATH
      --fail-on-regression      Exit 1 when any counter regressed

Exit status: 0, 1 a regression with --fail-on-regression (or a benchmark that failed), 2 an error
(a build that cannot be driven, or a verdict the null control refused with --fail-on-regression).
";

/// `--format` of `perfbench compare`.
#[derive(Clone, Copy)]
enum CompareFormat {
    Text,
    Markdown,
    Json,
}

/// What the command line asks for.
enum Cmd {
    /// Print this text on stdout and exit 0 (`--help`, `--version`).
    Print(&'static str),
    Doctor {
        counters: Option<String>,
    },
    List {
        all: bool,
    },
    Compare {
        /// `None`: NEW's recorded comparison.
        base: Option<PathBuf>,
        new: PathBuf,
        settings: Settings,
        format: CompareFormat,
        fail_on_regression: bool,
        html: Option<PathBuf>,
    },
    Report {
        results: Vec<PathBuf>,
        html: PathBuf,
    },
    Export {
        report: PathBuf,
    },
    Flame(flame::Args),
    Ab {
        builds: perfbench_analysis::runner::paired::Builds,
        args: Box<perfbench::runner::cli::Args>,
    },
    RunSuite {
        suite: perfbench_analysis::runner::StreamedSuite,
        args: Box<perfbench::runner::cli::Args>,
    },
}

/// A usage error: what to print on stderr before exiting with 2.
struct Usage(String);

fn unexpected(arg: lexopt::Arg<'_>, help: &str) -> Usage {
    let arg = match arg {
        lexopt::Arg::Short(c) => format!("unknown option `-{c}`"),
        lexopt::Arg::Long(l) => format!("unknown option `--{l}`"),
        lexopt::Arg::Value(v) => format!("unexpected argument `{}`", v.to_string_lossy()),
    };
    let usage = help.lines().find(|l| l.starts_with("Usage:")).unwrap_or("");
    Usage(format!(
        "error: {arg}\n\n{usage}\n\nFor more information, try '--help'."
    ))
}

fn lexopt_error(e: lexopt::Error) -> Usage {
    Usage(format!("error: {e}\n\nFor more information, try '--help'."))
}

fn subcommand_help(name: &str) -> Option<&'static str> {
    match name {
        "doctor" => Some(DOCTOR_HELP),
        "list" => Some(LIST_HELP),
        "compare" => Some(COMPARE_HELP),
        "export" => Some(EXPORT_HELP),
        "report" => Some(REPORT_HELP),
        "flame" => Some(flame::HELP),
        "ab" => Some(AB_HELP),
        "run-suite" => Some(RUN_SUITE_HELP),
        "help" => Some(HELP),
        _ => None,
    }
}

fn unknown_subcommand(name: &str) -> Usage {
    Usage(format!(
        "error: unrecognized subcommand `{name}` (expected `doctor`, `list`, `compare`, \
         `export`, `report`, `flame`, `ab` or `run-suite`)\n\n\
         Usage: perfbench <COMMAND>\n\nFor more information, try '--help'."
    ))
}

/// The command line the tool was started with.
fn parse_cli() -> Result<Cmd, Usage> {
    parse_args(std::env::args_os().skip(1))
}

/// `args`: the command line without the program name.
fn parse_args(args: impl IntoIterator<Item = std::ffi::OsString>) -> Result<Cmd, Usage> {
    use lexopt::prelude::*;
    let mut p = lexopt::Parser::from_args(args);
    let sub = match p.next().map_err(lexopt_error)? {
        // Like clap's `arg_required_else_help`: the help text, on stderr, is the error.
        None => return Err(Usage(HELP.trim_end().to_owned())),
        Some(Short('h') | Long("help")) => return Ok(Cmd::Print(HELP)),
        Some(Short('V') | Long("version")) => {
            return Ok(Cmd::Print(concat!(
                "perfbench ",
                env!("CARGO_PKG_VERSION"),
                "\n"
            )))
        }
        Some(Value(v)) => v.string().map_err(lexopt_error)?,
        Some(arg) => return Err(unexpected(arg, HELP)),
    };
    match sub.as_str() {
        "help" => match p.next().map_err(lexopt_error)? {
            None => Ok(Cmd::Print(HELP)),
            Some(Value(v)) => {
                let v = v.string().map_err(lexopt_error)?;
                match (subcommand_help(&v), p.next().map_err(lexopt_error)?) {
                    (Some(text), None) => Ok(Cmd::Print(text)),
                    (None, _) => Err(unknown_subcommand(&v)),
                    (Some(_), Some(arg)) => Err(unexpected(arg, HELP)),
                }
            }
            Some(arg) => Err(unexpected(arg, HELP)),
        },
        "doctor" => {
            let mut counters = None;
            while let Some(arg) = p.next().map_err(lexopt_error)? {
                match arg {
                    Short('h') | Long("help") => return Ok(Cmd::Print(DOCTOR_HELP)),
                    Long("counters") if counters.is_none() => {
                        counters = Some(p.value().and_then(|v| v.string()).map_err(lexopt_error)?);
                    }
                    Long("counters") => {
                        return Err(Usage(
                            "error: `--counters` was given more than once\n\n\
                             For more information, try '--help'."
                                .to_owned(),
                        ))
                    }
                    arg => return Err(unexpected(arg, DOCTOR_HELP)),
                }
            }
            Ok(Cmd::Doctor { counters })
        }
        "list" => {
            let mut all = false;
            while let Some(arg) = p.next().map_err(lexopt_error)? {
                match arg {
                    Short('h') | Long("help") => return Ok(Cmd::Print(LIST_HELP)),
                    Long("all") if !all => all = true,
                    Long("all") => {
                        return Err(Usage(
                            "error: `--all` was given more than once\n\n\
                             For more information, try '--help'."
                                .to_owned(),
                        ))
                    }
                    arg => return Err(unexpected(arg, LIST_HELP)),
                }
            }
            Ok(Cmd::List { all })
        }
        "compare" => parse_compare(&mut p),
        "export" => parse_export(&mut p),
        "report" => parse_report(&mut p),
        "flame" => flame::parse(&mut p),
        "ab" => parse_ab(p),
        "run-suite" => parse_run_suite(p),
        other => Err(unknown_subcommand(other)),
    }
}

const RUN_SUITE_HELP: &str = "\
Analyse a benchmark binary's run (the binary starts it)

Usage: perfbench run-suite --suite <NAME> --exe <PATH> -- [ARGS]...

A benchmark binary measures, and starts this command to compare, report and write the run's
files; they talk over its standard input and
output (see perfbench::runner::stream). Not for people.

Arguments:
  [ARGS]...  The benchmark binary's own command line (`cargo bench -- ARGS`)

Options:
      --suite <NAME>  The suite's name
      --exe <PATH>    The benchmark binary
  -h, --help          Print help
";

/// `run-suite --suite NAME --exe PATH -- ARGS...`.
fn parse_run_suite(mut p: lexopt::Parser) -> Result<Cmd, Usage> {
    use lexopt::prelude::*;
    let (mut suite, mut exe) = (None, None);
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    loop {
        match p.next().map_err(lexopt_error)? {
            Some(Short('h') | Long("help")) => return Ok(Cmd::Print(RUN_SUITE_HELP)),
            Some(Long("suite")) => {
                suite = Some(p.value().and_then(|v| v.string()).map_err(lexopt_error)?)
            }
            Some(Long("exe")) => exe = Some(PathBuf::from(p.value().map_err(lexopt_error)?)),
            // Everything after `--` comes as values: the benchmark's command line.
            Some(Value(first)) => {
                rest.push(first);
                rest.extend(p.raw_args().map_err(lexopt_error)?);
                break;
            }
            Some(arg) => return Err(unexpected(arg, RUN_SUITE_HELP)),
            None => break,
        }
    }
    let (Some(suite), Some(exe)) = (suite, exe) else {
        return Err(usage(
            "run-suite needs --suite and --exe".to_owned(),
            RUN_SUITE_HELP,
        ));
    };
    let args = perfbench::runner::cli::parse(
        &suite,
        std::iter::once(exe.clone().into_os_string()).chain(rest.iter().cloned()),
    )
    .map_err(|e| Usage(format!("error: {e}")))?;
    Ok(Cmd::RunSuite {
        suite: perfbench_analysis::runner::StreamedSuite {
            suite,
            exe,
            args: rest,
        },
        args: Box::new(args),
    })
}

fn usage(msg: String, help: &str) -> Usage {
    let usage = help.lines().find(|l| l.starts_with("Usage:")).unwrap_or("");
    Usage(format!(
        "error: {msg}\n\n{usage}\n\nFor more information, try '--help'."
    ))
}

fn parse_compare(p: &mut lexopt::Parser) -> Result<Cmd, Usage> {
    use lexopt::prelude::*;
    let mut paths: Vec<PathBuf> = Vec::new();
    let mut settings = Settings::default();
    let mut format = None;
    let mut fail_on_regression = false;
    let mut html = None;
    while let Some(arg) = p.next().map_err(lexopt_error)? {
        match arg {
            Short('h') | Long("help") => return Ok(Cmd::Print(COMPARE_HELP)),
            Long("html") if html.is_none() => {
                html = Some(PathBuf::from(p.value().map_err(lexopt_error)?));
            }
            Long("threshold") => {
                let v = p.value().and_then(|v| v.string()).map_err(lexopt_error)?;
                let t = perfbench_analysis::verdict::parse_threshold(&v)
                    .map_err(|e| usage(format!("--threshold: {e}"), COMPARE_HELP))?;
                settings.thresholds.push(t);
            }
            Long("noise-threshold") if settings.noise_threshold.is_none() => {
                let v = p.value().and_then(|v| v.string()).map_err(lexopt_error)?;
                let t = perfbench_analysis::verdict::parse_percent(&v)
                    .map_err(|e| usage(format!("--noise-threshold: {e}"), COMPARE_HELP))?;
                settings.noise_threshold = Some(t);
            }
            Long("format") if format.is_none() => {
                let v = p.value().and_then(|v| v.string()).map_err(lexopt_error)?;
                format = Some(match v.as_str() {
                    "text" => CompareFormat::Text,
                    "markdown" | "md" => CompareFormat::Markdown,
                    "json" => CompareFormat::Json,
                    other => {
                        return Err(usage(
                            format!("--format: `{other}` (expected `text`, `markdown` or `json`)"),
                            COMPARE_HELP,
                        ))
                    }
                });
            }
            Long("fail-on-regression") => fail_on_regression = true,
            Long(flag @ ("noise-threshold" | "format" | "html")) => {
                return Err(usage(
                    format!("`--{flag}` was given more than once"),
                    COMPARE_HELP,
                ))
            }
            Value(v) if paths.len() < 2 => paths.push(PathBuf::from(v)),
            arg => return Err(unexpected(arg, COMPARE_HELP)),
        }
    }
    let (base, new) = match <[PathBuf; 2]>::try_from(paths) {
        Ok([base, new]) => (Some(base), new),
        Err(paths) if paths.len() == 1 => {
            if settings != Settings::default() {
                return Err(usage(
                    "thresholds apply to two reports: a recorded comparison keeps the ones it \
                     was made with"
                        .to_owned(),
                    COMPARE_HELP,
                ));
            }
            (None, paths.into_iter().next().unwrap_or_default())
        }
        Err(_) => {
            return Err(usage(
                "compare needs two reports or baseline directories (BASE and NEW), or one \
                 report that was compared as it ran"
                    .to_owned(),
                COMPARE_HELP,
            ))
        }
    };
    Ok(Cmd::Compare {
        base,
        new,
        settings,
        format: format.unwrap_or(CompareFormat::Text),
        fail_on_regression,
        html,
    })
}

fn parse_report(p: &mut lexopt::Parser) -> Result<Cmd, Usage> {
    use lexopt::prelude::*;
    let mut results = Vec::new();
    let mut html = None;
    while let Some(arg) = p.next().map_err(lexopt_error)? {
        match arg {
            Short('h') | Long("help") => return Ok(Cmd::Print(REPORT_HELP)),
            Long("html") if html.is_none() => {
                html = Some(PathBuf::from(p.value().map_err(lexopt_error)?));
            }
            Long("html") => {
                return Err(usage(
                    "`--html` was given more than once".to_owned(),
                    REPORT_HELP,
                ))
            }
            Value(v) => results.push(PathBuf::from(v)),
            arg => return Err(unexpected(arg, REPORT_HELP)),
        }
    }
    let html = html.ok_or_else(|| {
        usage(
            "--html DIR is required (the only format `report` writes)".to_owned(),
            REPORT_HELP,
        )
    })?;
    if results.is_empty() {
        return Err(usage(
            "at least one RESULT report is required".to_owned(),
            REPORT_HELP,
        ));
    }
    Ok(Cmd::Report { results, html })
}

/// `perfbench ab OLD NEW [bench arguments]`: the two executables, then the bench executables'
/// own command line.
fn parse_ab(mut p: lexopt::Parser) -> Result<Cmd, Usage> {
    let rest: Vec<std::ffi::OsString> = p.raw_args().map_err(lexopt_error)?.collect();
    if rest.iter().any(|a| a == "-h" || a == "--help") {
        return Ok(Cmd::Print(AB_HELP));
    }
    let mut rest = rest.into_iter();
    let (Some(old), Some(new)) = (rest.next(), rest.next()) else {
        return Err(usage(
            "ab needs two bench executables: OLD_EXE and NEW_EXE".to_owned(),
            AB_HELP,
        ));
    };
    let bench_args = ["perfbench ab".into(), "--bench".into()]
        .into_iter()
        .chain(rest);
    let args = perfbench::runner::cli::parse("perfbench ab", bench_args)
        .map_err(|e| usage(e.to_string(), AB_HELP))?;
    for (given, flag) in [
        (args.paired.is_some(), "--paired"),
        (args.baseline.is_some(), "--baseline"),
        (args.save_baseline.is_some(), "--save-baseline"),
        (args.list, "--list"),
    ] {
        if given {
            return Err(usage(
                format!("`{flag}` does not apply to `perfbench ab`"),
                AB_HELP,
            ));
        }
    }
    let (old, new) = (PathBuf::from(old), PathBuf::from(new));
    Ok(Cmd::Ab {
        builds: perfbench_analysis::runner::paired::Builds {
            base_name: old.display().to_string(),
            base: old,
            new,
            write_latest: false,
            suite: None,
        },
        args: Box::new(args),
    })
}

fn parse_export(p: &mut lexopt::Parser) -> Result<Cmd, Usage> {
    use lexopt::prelude::*;
    let mut report = None;
    let mut format = None;
    while let Some(arg) = p.next().map_err(lexopt_error)? {
        match arg {
            Short('h') | Long("help") => return Ok(Cmd::Print(EXPORT_HELP)),
            Long("format") if format.is_none() => {
                format = Some(p.value().and_then(|v| v.string()).map_err(lexopt_error)?);
            }
            Value(v) if report.is_none() => report = Some(PathBuf::from(v)),
            arg => return Err(unexpected(arg, EXPORT_HELP)),
        }
    }
    match format.as_deref() {
        Some("bmf") => {}
        Some(other) => {
            return Err(usage(
                format!("--format: `{other}` (expected `bmf`)"),
                EXPORT_HELP,
            ))
        }
        None => return Err(usage("--format bmf is required".to_owned(), EXPORT_HELP)),
    }
    let report =
        report.ok_or_else(|| usage("a REPORT file is required".to_owned(), EXPORT_HELP))?;
    Ok(Cmd::Export { report })
}

/// `perfbench compare`: 0, 1 on a regression with `--fail-on-regression`, 2 on an error.
fn run_compare(
    base: Option<&std::path::Path>,
    new: &std::path::Path,
    settings: &Settings,
    format: CompareFormat,
    fail_on_regression: bool,
    html: Option<&std::path::Path>,
) -> ExitCode {
    let result = match base {
        Some(base) => compare::load_side(base).and_then(|b| {
            let n = compare::load_side(new)?;
            compare::compare(&b, &n, settings).map(|c| (c, Some(b), n))
        }),
        None => compare::load_side(new).and_then(|n| compare::recorded(&n).map(|c| (c, None, n))),
    };
    let (cmp, base_side, new_side) = match result {
        Ok(sides) => sides,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let out = match format {
        CompareFormat::Text => {
            let color = std::io::stdout().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
            compare::render::text(&cmp, color)
        }
        CompareFormat::Markdown => compare::render::markdown(&cmp),
        CompareFormat::Json => compare::render::json(&cmp),
    };
    print!("{out}");
    if let Some(dir) = html {
        if let Err(e) = write_comparison_html(dir, &cmp, base_side.as_ref(), &new_side) {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    }
    if fail_on_regression && cmp.regressed() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn write_comparison_html(
    dir: &std::path::Path,
    cmp: &perfbench_analysis::verdict::Comparison,
    base: Option<&compare::Side>,
    new: &compare::Side,
) -> Result<(), String> {
    compare::html::comparison_site(cmp, base, new)
        .write(dir)
        .map_err(|e| format!("cannot write the HTML pages to {}: {e}", dir.display()))
}

/// `perfbench report RESULT... --html DIR`: 0, or 2 on an error.
fn run_report(results: &[PathBuf], dir: &std::path::Path) -> ExitCode {
    use perfbench_analysis::report::html;
    let mut reports: Vec<(PathBuf, perfbench_analysis::model::Report)> = Vec::new();
    for path in results {
        match compare::load_side(path) {
            Ok(side) => {
                for (file, report) in side.reports {
                    if let Some((other, _)) = reports.iter().find(|(_, r)| r.suite == report.suite)
                    {
                        eprintln!(
                            "error: {} and {} are both reports of suite `{}`: render one at a time",
                            other.display(),
                            file.display(),
                            report.suite
                        );
                        return ExitCode::from(2);
                    }
                    reports.push((file, report));
                }
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let baselines: Vec<Option<perfbench_analysis::model::Report>> = reports
        .iter()
        .map(|(file, r)| html::find_baseline(file, r))
        .collect();
    let inputs: Vec<html::SuiteInput<'_>> = reports
        .iter()
        .zip(&baselines)
        .map(|((_, report), baseline)| html::SuiteInput {
            report,
            baseline: baseline.as_ref(),
        })
        .collect();
    match html::site(&inputs).write(dir) {
        Ok(()) => {
            println!("{}", dir.join("index.html").display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!(
                "error: cannot write the HTML pages to {}: {e}",
                dir.display()
            );
            ExitCode::from(2)
        }
    }
}

fn main() -> ExitCode {
    let cmd = match parse_cli() {
        Ok(cmd) => cmd,
        Err(Usage(msg)) => {
            eprintln!("{msg}");
            return ExitCode::from(2);
        }
    };
    let sysfs = Sysfs::system();
    match cmd {
        Cmd::Doctor { counters } => {
            let list = counters.unwrap_or_else(|| doctor::DOCTOR_COUNTERS.join(","));
            let events = match events::parse_list(&list, &sysfs) {
                Ok(events) => events,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            print!("{}", doctor::diagnose(&events, Machine::probe()));
            ExitCode::SUCCESS
        }
        Cmd::List { all } => {
            let machine = Machine::probe();
            let show_hw = all || machine.has_cpu_pmu();
            for name in events::known_names(&sysfs) {
                let hw = events::parse(&name, &sysfs).is_ok_and(|e| e.needs_pmu());
                if show_hw || !hw {
                    println!("{name}");
                }
            }
            if !show_hw {
                eprintln!(
                    "note: no CPU PMU on this machine, so hardware events are not listed \
                     (`perfbench list --all` lists them anyway; `perfbench doctor` explains)"
                );
            }
            ExitCode::SUCCESS
        }
        Cmd::Compare {
            base,
            new,
            settings,
            format,
            fail_on_regression,
            html,
        } => run_compare(
            base.as_deref(),
            &new,
            &settings,
            format,
            fail_on_regression,
            html.as_deref(),
        ),
        Cmd::Report { results, html } => run_report(&results, &html),
        Cmd::Export { report } => match file::load(&report) {
            Ok(r) => {
                print!("{}", bmf::bmf(&r));
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(2)
            }
        },
        Cmd::Flame(args) => flame::run(&args),
        Cmd::Ab { builds, args } => perfbench_analysis::runner::paired::run(&builds, &args),
        Cmd::RunSuite { suite, args } => {
            let stdin = std::io::stdin();
            let stdout = std::io::stdout();
            perfbench_analysis::runner::run_streamed(
                &suite,
                &args,
                &mut stdin.lock(),
                &mut stdout.lock(),
            )
        }
        Cmd::Print(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
    }
}
