//! The benchmark binary's command line, libtest-compatible (the guide: docs/command-line.md).
//!
//! `cargo bench` passes `--bench`; `cargo test --benches` passes neither `--bench` nor
//! `--test`, and then every body runs once as a smoke test (as criterion does).

use std::ffi::OsString;
use std::path::PathBuf;

pub use crate::options::Format;

/// What the binary was asked to do.
#[derive(Clone, Debug, PartialEq)]
pub struct Args {
    /// The command line these were parsed from, without the program's name: what the
    /// `perfbench` tool is given to analyse the run with.
    pub line: Vec<OsString>,
    /// Substrings (or, with `exact`, whole ids) selecting benchmarks: a benchmark runs when
    /// any of them matches (all run when there is none), as with libtest.
    pub filters: Vec<String>,
    /// `--exact`.
    pub exact: bool,
    /// `--perfbench-select=ID`, repeatable (not in `--help`): exactly these ids are selected,
    /// whatever `filters` say. A front end with its own filter syntax (perfbench-criterion's
    /// regular expressions) resolves the filters to ids once, in the benchmark binary, and
    /// passes them on this way, so that the `perfbench` tool, which parses the same line,
    /// selects the same benchmarks without knowing that syntax.
    pub select: Option<Vec<String>>,
    /// `--perfbench-criterion` (not in `--help`): the line is a criterion suite's, whose
    /// options keep criterion's meaning where it differs: `--noise-threshold` is a fraction
    /// (`0.05`), not a percentage.
    pub criterion: bool,
    /// `--list`.
    pub list: bool,
    /// Smoke-test mode: each body runs once (`--test`, or no `--bench`).
    pub test: bool,
    /// `--counters`.
    pub counters: Option<String>,
    /// `--json PATH`.
    pub json: Option<PathBuf>,
    /// `--quick`.
    pub quick: bool,
    /// `--sample-size N`.
    pub sample_size: Option<u32>,
    /// `--rounds N`.
    pub rounds: Option<u32>,
    /// `--warm-up-time S`.
    pub warm_up_time: Option<f64>,
    /// `--measurement-time S`.
    pub measurement_time: Option<f64>,
    /// `--precision PCT`, as a fraction (`0.01` for `--precision 1`); `Some(0.0)` turns the
    /// stopping rule off.
    pub precision: Option<f64>,
    /// `--sampling linear`.
    pub linear: bool,
    /// `--format`.
    pub format: Format,
    /// `--ignored`: run only ignored benchmarks.
    pub ignored: bool,
    /// `--include-ignored`.
    pub include_ignored: bool,
    /// `--save-baseline NAME`: also keep this run as baseline NAME.
    pub save_baseline: Option<String>,
    /// `--baseline NAME` (`lenient: false`) or `--baseline-lenient NAME` (`true`): compare with
    /// that saved baseline instead of the previous run.
    pub baseline: Option<BaselineArg>,
    /// `--discard-baseline`: do not keep this run as the previous run.
    pub discard_baseline: bool,
    /// `--noise-threshold PCT` and `--threshold COUNTER=PCT`.
    pub thresholds: crate::options::Settings,
    /// `--fail-on-regression`: exit 1 when any counter regressed.
    pub fail_on_regression: bool,
    /// `--no-confirm`: report a regression as this run measured it, without measuring the
    /// regressed benchmarks again in fresh processes first (the tool's `runner::confirm`), nor
    /// pairing what they leave undecided (`runner::undecided`).
    pub no_confirm: bool,
    /// `--perfbench-only=ID`, repeatable (not in `--help`): of the benchmarks the rest of the
    /// line selects, only these run. The `perfbench` tool adds it, with the line it was given,
    /// when it measures regressed benchmarks again to confirm their regression.
    pub only: Option<Vec<String>>,
    /// `--perfbench-stream PATH` (not in `--help`): measure the selected benchmarks and send
    /// them to the `perfbench` tool listening on the Unix socket `PATH`, which started this
    /// process to confirm a regression, instead of starting a tool.
    pub stream_to: Option<PathBuf>,
    /// `--paired NAME`: run baseline NAME's saved executable and this one alternately, and
    /// judge the paired differences (the tool's `runner::paired`).
    pub paired: Option<String>,
    /// `--null-control`: with `--paired` (or `perfbench ab`), also pair the new build with a
    /// second copy of itself, and refuse a verdict that this null comparison would also give.
    pub null_control: bool,
    /// `--worker-timeout SECONDS`: how long a paired run waits for a worker's answer.
    pub worker_timeout: Option<f64>,
    /// `--perfbench-worker SUITE` (not in `--help`): serve a paired run's driver on standard
    /// input and output instead of running anything, naming the suite SUITE (the driver's
    /// name for it, so both builds give their benchmarks the same ids whatever their files
    /// are called).
    pub worker: Option<String>,
    /// `--simulate`: run each benchmark under Valgrind's Callgrind and report exact simulated
    /// counts (the tool's `runner::simulate`).
    pub simulate: bool,
    /// `--perfbench-simulated DIR` (not in `--help`): this process runs under Callgrind for a
    /// `--simulate` run; its dumps and its result go to DIR.
    pub simulated: Option<PathBuf>,
    /// `--perfbench-describe` (not in `--help`): print the selected benchmarks (ids, options) as
    /// one line of JSON for the `perfbench` tool ([`crate::runner::stream`]) and exit.
    pub describe: bool,
    /// `--profile`: sample the measured region of each selected benchmark into
    /// `target/perfbench/profile/<id>/perf.data` (feature `profile`).
    pub profile: bool,
    /// `--profile-counter NAME`: the event that triggers a sample (default: `cycles` where
    /// there is a PMU, else `cpu-clock`).
    pub profile_counter: Option<String>,
    /// `--profile-frequency HZ`: samples per second of the event's time (default 4000).
    pub profile_frequency: Option<u64>,
    /// `--branch-filter LIST`: with `--profile`, also sample branch stacks of these kinds
    /// (`perf record -j` names: `any`, `any_call`, `any_ret`, `ind_call`, `cond`, ... `u`, `k`).
    pub branch_filter: Option<String>,
}

/// The baseline to compare with, from `--baseline NAME` or `--baseline-lenient NAME`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BaselineArg {
    /// The baseline's name.
    pub name: String,
    /// A benchmark missing from the baseline is reported as new (lenient) or is an error.
    pub lenient: bool,
}

impl Args {
    /// The command line asks for what only the analysis does: a baseline to save or to compare
    /// with, a JSON report at a path, or a verdict that fails the run.
    pub(crate) fn asks_for_the_tool(&self) -> bool {
        self.save_baseline.is_some()
            || self.baseline.is_some()
            || self.json.is_some()
            || self.fail_on_regression
    }
}

/// Flags and their one-line help, in `--help` order: `(flag, value name, help)`.
const OPTIONS: &[(&str, &str, &str)] = &[
    ("exact", "", "FILTER must equal the id"),
    (
        "list",
        "",
        "List benchmarks (`ID: benchmark`) and run nothing",
    ),
    ("bench", "", "Measure (cargo bench passes this)"),
    ("test", "", "Run each body once as a smoke test"),
    (
        "counters",
        "LIST",
        "Counters to measure, perf-style names (e.g. instructions,cycles:u,wall-time)",
    ),
    ("json", "PATH", "Also write the JSON report to PATH"),
    ("quick", "", "Fewer samples and rounds, a looser --precision, a shorter cap"),
    ("sample-size", "N", "Samples per benchmark (2 to 100000)"),
    (
        "rounds",
        "N",
        "Rounds the samples are split into, interleaved over the run (1 to 1000; default 10, 5 with --quick; the fewest where --precision applies)",
    ),
    ("warm-up-time", "SECONDS", "Warm-up time per benchmark"),
    (
        "measurement-time",
        "SECONDS",
        "Most measurement time per benchmark (all of it with --precision 0 or linear sampling)",
    ),
    (
        "precision",
        "PCT",
        "Stop a benchmark once its figures have settled to PCT% (default 1, 3 with --quick; 0: \
         always measure for the whole measurement time)",
    ),
    (
        "sampling",
        "flat|linear",
        "Iterations per sample: the same for all (flat) or growing (linear)",
    ),
    (
        "format",
        "pretty|terse|json|bencher",
        "Terminal output style",
    ),
    (
        "save-baseline",
        "NAME",
        "Also keep this run as baseline NAME (target/perfbench/baselines/NAME/); from the same \
         build, added to NAME's runs (up to 10)",
    ),
    (
        "baseline",
        "NAME",
        "Compare with baseline NAME (a benchmark missing from it is an error)",
    ),
    (
        "baseline-lenient",
        "NAME",
        "Compare with baseline NAME (a benchmark missing from it is new)",
    ),
    (
        "discard-baseline",
        "",
        "Do not keep this run as the previous run (the default comparison)",
    ),
    (
        "noise-threshold",
        "PCT",
        "The change below which no counter is flagged (default: per kind of counter)",
    ),
    (
        "threshold",
        "COUNTER=PCT",
        "The same for one counter (repeatable)",
    ),
    (
        "fail-on-regression",
        "",
        "Exit 1 when any counter regressed",
    ),
    (
        "no-confirm",
        "",
        "Report a regression as this run measured it (default, against a saved baseline: a regressed benchmark, or one slower by more than half the threshold, is measured again in up to four fresh processes, and judged over all; one faster, in a fresh process of the baseline's build; what they leave unchanged or confirm, once more as a paired run)",
    ),
    (
        "paired",
        "NAME",
        "Run baseline NAME's saved build and this one alternately; judge the paired differences",
    ),
    (
        "null-control",
        "",
        "With --paired: also pair this build with itself; no verdict where that one is flagged",
    ),
    (
        "worker-timeout",
        "SECONDS",
        "With --paired: how long to wait for a build's answer (default 120)",
    ),
    (
        "simulate",
        "",
        "Run under Valgrind's Callgrind: exact simulated counts (instructions, branches, misses)",
    ),
    (
        "profile",
        "",
        "Sample the measured region into target/perfbench/profile/ID/perf.data (feature `profile`)",
    ),
    (
        "profile-counter",
        "NAME",
        "With --profile: the event that triggers a sample (default cycles, or cpu-clock without a PMU)",
    ),
    (
        "profile-frequency",
        "HZ",
        "With --profile: samples per second (default 4000)",
    ),
    (
        "branch-filter",
        "LIST",
        "With --profile: also sample branch stacks (any,any_call,any_ret,ind_call,cond,...,u,k)",
    ),
    (
        "output-format",
        "bencher",
        "libtest `bench:` lines, as criterion prints them (same as --format bencher)",
    ),
    ("ignored", "", "Run only benchmarks marked `ignore`"),
    ("include-ignored", "", "Run benchmarks marked `ignore` too"),
];

/// Accepted for libtest and criterion compatibility (criterion's `--noplot`: the HTML report is
/// always written); they change nothing here (and are not in `--help`).
const LIBTEST_FLAGS: &[&str] = &["nocapture", "show-output", "noplot", "verbose", "quiet"];
/// Like [`LIBTEST_FLAGS`], but taking a value: libtest's `--color`, and criterion's statistics
/// and plotting settings, which perfbench's analysis does not have.
const LIBTEST_OPTIONS: &[&str] = &[
    "color",
    "plotting-backend",
    "significance-level",
    "confidence-level",
    "nresamples",
];

/// criterion's options that do what perfbench does another way: refused, with that way.
const CRITERION_REFUSED: &[(&str, &str)] = &[
    (
        "profile-time",
        "criterion's profiler mode: perfbench samples the measured region of each benchmark \
         into a perf.data with `--profile` (feature `profile`)",
    ),
    (
        "load-baseline",
        "criterion's comparison of saved results: compare two saved runs with `perfbench \
         compare target/perfbench/baselines/BASE target/perfbench/baselines/NEW`",
    ),
    (
        "export",
        "criterion's export of a baseline: `perfbench export target/perfbench/SUITE.json \
         --format bmf` writes the Bencher Metric Format",
    ),
];

/// A command line the binary cannot run, or a request for `--help`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CliError {
    kind: ErrorKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum ErrorKind {
    /// `--help` / `-h`: the help text, for stdout.
    Help(String),
    /// A usage error: the message, for stderr.
    Usage(String),
}

impl CliError {
    fn usage(msg: impl Into<String>) -> CliError {
        CliError {
            kind: ErrorKind::Usage(msg.into()),
        }
    }

    /// `--help` or `-h` was given: [`Display`](std::fmt::Display) is then the help text, to
    /// print on stdout before exiting successfully.
    ///
    /// ```
    /// use perfbench::runner::cli::parse;
    ///
    /// let help = parse("suite", ["suite", "--help"]).unwrap_err();
    /// assert!(help.is_help() && help.to_string().contains("--save-baseline"));
    /// assert!(!parse("suite", ["suite", "--sample-size", "many"]).unwrap_err().is_help());
    /// ```
    pub fn is_help(&self) -> bool {
        matches!(self.kind, ErrorKind::Help(_))
    }
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            ErrorKind::Help(text) => f.write_str(text),
            ErrorKind::Usage(msg) => write!(f, "{msg} (run with --help)"),
        }
    }
}

impl std::error::Error for CliError {}

impl From<lexopt::Error> for CliError {
    fn from(e: lexopt::Error) -> CliError {
        CliError::usage(match e {
            lexopt::Error::MissingValue {
                option: Some(option),
            } => format!("`{option}` needs a value"),
            lexopt::Error::UnexpectedValue { option, value } => format!(
                "`{option}` takes no value (got `{}`)",
                value.to_string_lossy()
            ),
            lexopt::Error::NonUnicodeValue(value) => {
                format!("`{}` is not valid UTF-8", value.to_string_lossy())
            }
            e => e.to_string(),
        })
    }
}

/// The `--help` text.
fn help(name: &str) -> String {
    use std::fmt::Write;
    let flag = |long: &str, value: &str| {
        if value.is_empty() {
            format!("--{long}")
        } else {
            format!("--{long} <{value}>")
        }
    };
    let width = OPTIONS
        .iter()
        .map(|(long, value, _)| flag(long, value).len())
        .max()
        .unwrap_or(0);
    let mut s = format!(
        "perfbench benchmarks\n\n\
         Usage: {name} [OPTIONS] [FILTER]...\n\n\
         Arguments:\n  [FILTER]...  Run benchmarks whose id contains any FILTER\n\n\
         Options:\n"
    );
    for (long, value, text) in OPTIONS {
        let _ = writeln!(s, "      {:width$}  {text}", flag(long, value));
    }
    let _ = writeln!(s, "  -h, {:width$}  Print help", "--help");
    s
}

/// The closest known flag to an unknown `--name`, if it is close enough to be a typo.
fn suggest(name: &str) -> Option<&'static str> {
    OPTIONS
        .iter()
        .map(|(long, _, _)| *long)
        .chain(LIBTEST_FLAGS.iter().chain(LIBTEST_OPTIONS).copied())
        .chain(["help"])
        .map(|long| (edit_distance(name, long), long))
        .filter(|&(d, _)| d <= 2 && d < name.len())
        .min_by_key(|&(d, _)| d)
        .map(|(_, long)| long)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diag + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if v.is_finite() && (0.0..=86_400.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("`{s}` is out of range (0 to 86400 seconds)"))
    }
}

fn parse_precision(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim_end_matches('%')
        .parse()
        .map_err(|_| format!("`{s}` is not a percentage"))?;
    if v.is_finite() && (0.0..=100.0).contains(&v) {
        Ok(v / 100.0)
    } else {
        Err(format!("`{s}` is out of range (0 to 100 percent)"))
    }
}

fn parse_sample_size(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(n) if (2..=100_000).contains(&n) => Ok(n),
        Ok(_) => Err(format!("`{s}` is out of range (2 to 100000 samples)")),
        Err(_) => Err(format!("`{s}` is not a number of samples")),
    }
}

fn parse_rounds(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(n) if (1..=1000).contains(&n) => Ok(n),
        Ok(_) => Err(format!("`{s}` is out of range (1 to 1000 rounds)")),
        Err(_) => Err(format!("`{s}` is not a number of rounds")),
    }
}

/// The next argument, as an option's value in UTF-8.
fn text(parser: &mut lexopt::Parser) -> Result<String, CliError> {
    use lexopt::ValueExt;
    Ok(parser.value()?.string()?)
}

/// Parses the binary's arguments (`args[0]` is the program).
///
/// ```
/// use perfbench::runner::cli::parse;
///
/// // `cargo bench -- sort hash --baseline main` runs `suite --bench sort hash --baseline main`.
/// let args = parse("suite", ["suite", "--bench", "sort", "hash", "--baseline", "main"])?;
/// assert_eq!(args.filters, ["sort", "hash"]);
/// assert_eq!(args.baseline.as_ref().map(|b| b.name.as_str()), Some("main"));
/// assert!(!args.test); // `cargo test --benches` passes no `--bench`: smoke mode
/// assert!(parse("suite", ["suite"])?.test);
/// let bad = parse("suite", ["suite", "--bench", "--frobnicate"]).unwrap_err();
/// assert!(bad.to_string().contains("--frobnicate"));
/// # Ok::<(), perfbench::runner::cli::CliError>(())
/// ```
pub fn parse<I, T>(name: &str, args: I) -> Result<Args, CliError>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    use lexopt::prelude::*;

    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let mut a = Args {
        line: args.iter().skip(1).cloned().collect(),
        filters: Vec::new(),
        exact: false,
        select: None,
        criterion: false,
        list: false,
        test: false,
        counters: None,
        json: None,
        quick: false,
        sample_size: None,
        rounds: None,
        warm_up_time: None,
        measurement_time: None,
        precision: None,
        linear: false,
        format: Format::Pretty,
        ignored: false,
        include_ignored: false,
        save_baseline: None,
        baseline: None,
        discard_baseline: false,
        thresholds: crate::options::Settings::default(),
        fail_on_regression: false,
        no_confirm: false,
        only: None,
        stream_to: None,
        paired: None,
        null_control: false,
        worker_timeout: None,
        worker: None,
        simulate: false,
        simulated: None,
        describe: false,
        profile: false,
        profile_counter: None,
        profile_frequency: None,
        branch_filter: None,
    };
    let mut bench = false;
    let mut noise: Option<(f64, bool)> = None;
    // Every flag and option may be given once (as with clap and libtest's getopts).
    let mut seen: Vec<String> = Vec::new();
    let mut parser = lexopt::Parser::from_iter(args);
    while let Some(arg) = parser.next()? {
        let long = match arg {
            Short('h') | Long("help") => {
                return Err(CliError {
                    kind: ErrorKind::Help(help(name)),
                })
            }
            Value(v) => {
                a.filters.push(v.string()?);
                continue;
            }
            Short(c) => return Err(CliError::usage(format!("unknown option `-{c}`"))),
            Long(long) => long.to_owned(),
        };
        // The options that may repeat.
        if long == "perfbench-select" {
            a.select
                .get_or_insert_with(Vec::new)
                .push(text(&mut parser)?);
            continue;
        }
        if long == "perfbench-only" {
            a.only.get_or_insert_with(Vec::new).push(text(&mut parser)?);
            continue;
        }
        if long == "threshold" {
            let t = crate::options::parse_threshold(&text(&mut parser)?)
                .map_err(|e| CliError::usage(format!("invalid value for `--threshold`: {e}")))?;
            a.thresholds.thresholds.push(t);
            continue;
        }
        if seen.contains(&long) {
            return Err(CliError::usage(format!(
                "`--{long}` was given more than once"
            )));
        }
        let bad = |e: String| CliError::usage(format!("invalid value for `--{long}`: {e}"));
        match long.as_str() {
            "exact" => a.exact = true,
            "list" => a.list = true,
            "bench" => bench = true,
            "test" => a.test = true,
            "quick" => a.quick = true,
            "ignored" => a.ignored = true,
            "include-ignored" => a.include_ignored = true,
            "counters" => a.counters = Some(text(&mut parser)?),
            "json" => a.json = Some(PathBuf::from(parser.value()?)),
            "sample-size" => {
                a.sample_size = Some(parse_sample_size(&text(&mut parser)?).map_err(bad)?)
            }
            "rounds" => a.rounds = Some(parse_rounds(&text(&mut parser)?).map_err(bad)?),
            "warm-up-time" => {
                a.warm_up_time = Some(parse_seconds(&text(&mut parser)?).map_err(bad)?)
            }
            "measurement-time" => {
                a.measurement_time = Some(parse_seconds(&text(&mut parser)?).map_err(bad)?);
            }
            "precision" => a.precision = Some(parse_precision(&text(&mut parser)?).map_err(bad)?),
            "save-baseline" => {
                let name = text(&mut parser)?;
                if !crate::options::valid_name(&name) {
                    return Err(bad(format!(
                        "`{name}` (a baseline name: letters, digits, `-`, `_`, `.`)"
                    )));
                }
                a.save_baseline = Some(name);
            }
            "baseline" | "baseline-lenient" => {
                if a.baseline.is_some() {
                    return Err(CliError::usage(
                        "`--baseline` and `--baseline-lenient` exclude each other".to_owned(),
                    ));
                }
                let name = text(&mut parser)?;
                if !crate::options::valid_name(&name) {
                    return Err(bad(format!(
                        "`{name}` (a baseline name: letters, digits, `-`, `_`, `.`)"
                    )));
                }
                a.baseline = Some(BaselineArg {
                    name,
                    lenient: long == "baseline-lenient",
                });
            }
            "discard-baseline" => a.discard_baseline = true,
            "paired" => {
                let name = text(&mut parser)?;
                if !crate::options::valid_name(&name) {
                    return Err(bad(format!(
                        "`{name}` (a baseline name: letters, digits, `-`, `_`, `.`)"
                    )));
                }
                a.paired = Some(name);
            }
            "null-control" => a.null_control = true,
            "worker-timeout" => {
                a.worker_timeout = Some(parse_seconds(&text(&mut parser)?).map_err(bad)?)
            }
            "perfbench-worker" => a.worker = Some(text(&mut parser)?),
            "simulate" => a.simulate = true,
            "profile" => a.profile = true,
            "profile-counter" => a.profile_counter = Some(text(&mut parser)?),
            "branch-filter" => a.branch_filter = Some(text(&mut parser)?),
            "profile-frequency" => {
                let v = text(&mut parser)?;
                match v.parse::<u64>() {
                    Ok(hz) if (1..=100_000).contains(&hz) => a.profile_frequency = Some(hz),
                    _ => return Err(bad(format!("`{v}` (samples per second, 1 to 100000)"))),
                }
            }
            "perfbench-simulated" => a.simulated = Some(PathBuf::from(parser.value()?)),
            "perfbench-describe" => a.describe = true,
            "perfbench-criterion" => a.criterion = true,
            "fail-on-regression" => a.fail_on_regression = true,
            "no-confirm" => a.no_confirm = true,
            "perfbench-stream" => a.stream_to = Some(PathBuf::from(parser.value()?)),
            "noise-threshold" => {
                let t = text(&mut parser)?;
                let fraction = crate::options::parse_percent(&t).map_err(bad)?;
                // Applied below, once the whole line says whose meaning it has.
                noise = Some((fraction, t.trim().ends_with('%')));
            }
            "sampling" => {
                a.linear = match text(&mut parser)?.as_str() {
                    "flat" => false,
                    "linear" => true,
                    v => return Err(bad(format!("`{v}` (expected `flat` or `linear`)"))),
                };
            }
            "format" | "output-format" => {
                a.format = match text(&mut parser)?.as_str() {
                    "pretty" => Format::Pretty,
                    "terse" => Format::Terse,
                    "json" => Format::Json,
                    "bencher" => Format::Libtest,
                    v => {
                        return Err(bad(format!(
                            "`{v}` (expected `pretty`, `terse`, `json` or `bencher`)"
                        )))
                    }
                };
            }
            l if LIBTEST_FLAGS.contains(&l) => {}
            l if LIBTEST_OPTIONS.contains(&l) => {
                parser.value()?;
            }
            l => {
                if let Some((_, why)) = CRITERION_REFUSED.iter().find(|(flag, _)| *flag == l) {
                    return Err(CliError::usage(format!("`--{l}` is {why}")));
                }
                return Err(CliError::usage(match suggest(l) {
                    Some(s) => format!("unknown option `--{l}` (did you mean `--{s}`?)"),
                    None => format!("unknown option `--{l}`"),
                }));
            }
        }
        seen.push(long);
    }
    if a.paired.is_some() && a.save_baseline.is_some() {
        return Err(CliError::usage(
            "`--paired` and `--save-baseline` exclude each other (save the baseline in a run \
             of its own)"
                .to_owned(),
        ));
    }
    if a.paired.is_some() && a.baseline.is_some() {
        return Err(CliError::usage(
            "`--paired` and `--baseline` exclude each other (a paired run is its own comparison)"
                .to_owned(),
        ));
    }
    if a.simulate && a.paired.is_some() {
        return Err(CliError::usage(
            "`--simulate` and `--paired` exclude each other (simulated counts are exact: compare \
             with a saved baseline, `--simulate --baseline NAME`)"
                .to_owned(),
        ));
    }
    if a.profile {
        for (given, flag) in [
            (a.simulate, "--simulate"),
            (a.paired.is_some(), "--paired"),
            (a.baseline.is_some(), "--baseline"),
            (a.save_baseline.is_some(), "--save-baseline"),
            (a.json.is_some(), "--json"),
        ] {
            if given {
                return Err(CliError::usage(format!(
                    "`--profile` and `{flag}` exclude each other (a profiled run switches the \
                     sampling on and off in every bracket, so its counts are not a measurement \
                     to keep or compare)"
                )));
            }
        }
    } else if a.profile_counter.is_some()
        || a.profile_frequency.is_some()
        || a.branch_filter.is_some()
    {
        return Err(CliError::usage(
            "`--profile-counter`, `--profile-frequency` and `--branch-filter` need `--profile`"
                .to_owned(),
        ));
    }
    a.thresholds.noise_threshold =
        noise.map(|(fraction, percent)| noise_threshold(fraction, percent, a.criterion));
    a.test = a.test || !bench;
    Ok(a)
}

/// `--noise-threshold`'s value as a fraction, from `fraction` (the value read as a percentage:
/// `5` or `2.5%`) and whether it was written with `%`: in a criterion suite's line
/// (`--perfbench-criterion`) a value without `%` is criterion's fraction (`0.05`).
fn noise_threshold(fraction: f64, percent: bool, criterion: bool) -> f64 {
    if criterion && !percent {
        fraction * 100.0
    } else {
        fraction
    }
}

#[cfg(test)]
mod tests;
