//! The benchmark binary's command line (DESIGN 3.1), libtest-compatible.
//!
//! `cargo bench` passes `--bench`; `cargo test --benches` passes neither `--bench` nor
//! `--test`, and then every body runs once as a smoke test (as criterion does).

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{value_parser, Arg, ArgAction, Command};

/// Terminal output style.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A table per group.
    Pretty,
    /// One line per benchmark.
    Terse,
    /// The JSON report on stdout.
    Json,
}

/// What the binary was asked to do.
#[derive(Clone, Debug, PartialEq)]
pub struct Args {
    /// Substring (or, with `exact`, the whole id) selecting benchmarks.
    pub filter: Option<String>,
    /// `--exact`.
    pub exact: bool,
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
    /// `--warm-up-time S`.
    pub warm_up_time: Option<f64>,
    /// `--measurement-time S`.
    pub measurement_time: Option<f64>,
    /// `--sampling linear`.
    pub linear: bool,
    /// `--format`.
    pub format: Format,
    /// `--ignored`: run only ignored benchmarks.
    pub ignored: bool,
    /// `--include-ignored`.
    pub include_ignored: bool,
}

fn command(name: &str) -> Command {
    let seconds = |name: &'static str, help: &'static str| {
        Arg::new(name)
            .long(name)
            .value_name("SECONDS")
            .value_parser(parse_seconds)
            .help(help)
    };
    // clap wants a `'static` name; the command is built once per process.
    let name: &'static str = Box::leak(name.to_owned().into_boxed_str());
    Command::new(name)
        .about("perfbench benchmarks")
        .disable_version_flag(true)
        .arg(
            Arg::new("filter")
                .value_name("FILTER")
                .help("Run benchmarks whose id contains FILTER"),
        )
        .arg(
            Arg::new("exact")
                .long("exact")
                .action(ArgAction::SetTrue)
                .help("FILTER must equal the id"),
        )
        .arg(
            Arg::new("list")
                .long("list")
                .action(ArgAction::SetTrue)
                .help("List benchmarks (`ID: benchmark`) and run nothing"),
        )
        .arg(
            Arg::new("bench")
                .long("bench")
                .action(ArgAction::SetTrue)
                .help("Measure (cargo bench passes this)"),
        )
        .arg(
            Arg::new("test")
                .long("test")
                .action(ArgAction::SetTrue)
                .help("Run each body once as a smoke test"),
        )
        .arg(
            Arg::new("counters")
                .long("counters")
                .value_name("LIST")
                .help(
                    "Counters to measure, perf-style names (e.g. instructions,cycles:u,wall-time)",
                ),
        )
        .arg(
            Arg::new("json")
                .long("json")
                .value_name("PATH")
                .value_parser(value_parser!(PathBuf))
                .help("Also write the JSON report to PATH"),
        )
        .arg(
            Arg::new("quick")
                .long("quick")
                .action(ArgAction::SetTrue)
                .help("Short warm-up and measurement, fewer samples"),
        )
        .arg(
            Arg::new("sample-size")
                .long("sample-size")
                .value_name("N")
                .value_parser(value_parser!(u32).range(2..=100_000))
                .help("Samples per benchmark"),
        )
        .arg(seconds("warm-up-time", "Warm-up time per benchmark"))
        .arg(seconds(
            "measurement-time",
            "Measurement time per benchmark",
        ))
        .arg(
            Arg::new("sampling")
                .long("sampling")
                .value_parser(["flat", "linear"])
                .help("Iterations per sample: the same for all (flat) or growing (linear)"),
        )
        .arg(
            Arg::new("format")
                .long("format")
                .value_parser(["pretty", "terse", "json"])
                .help("Terminal output style"),
        )
        .arg(
            Arg::new("ignored")
                .long("ignored")
                .action(ArgAction::SetTrue)
                .help("Run only benchmarks marked `ignore`"),
        )
        .arg(
            Arg::new("include-ignored")
                .long("include-ignored")
                .action(ArgAction::SetTrue)
                .help("Run benchmarks marked `ignore` too"),
        )
        // Accepted for libtest compatibility; they change nothing here.
        .arg(
            Arg::new("nocapture")
                .long("nocapture")
                .action(ArgAction::SetTrue)
                .hide(true),
        )
        .arg(
            Arg::new("show-output")
                .long("show-output")
                .action(ArgAction::SetTrue)
                .hide(true),
        )
        .arg(Arg::new("color").long("color").hide(true))
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

/// Parses the binary's arguments (`args[0]` is the program).
pub fn parse<I, T>(name: &str, args: I) -> Result<Args, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let m = command(name).try_get_matches_from(args)?;
    let bench = m.get_flag("bench");
    Ok(Args {
        filter: m.get_one::<String>("filter").cloned(),
        exact: m.get_flag("exact"),
        list: m.get_flag("list"),
        test: m.get_flag("test") || !bench,
        counters: m.get_one::<String>("counters").cloned(),
        json: m.get_one::<PathBuf>("json").cloned(),
        quick: m.get_flag("quick"),
        sample_size: m.get_one::<u32>("sample-size").copied(),
        warm_up_time: m.get_one::<f64>("warm-up-time").copied(),
        measurement_time: m.get_one::<f64>("measurement-time").copied(),
        linear: m
            .get_one::<String>("sampling")
            .is_some_and(|s| s == "linear"),
        format: match m.get_one::<String>("format").map(String::as_str) {
            Some("terse") => Format::Terse,
            Some("json") => Format::Json,
            _ => Format::Pretty,
        },
        ignored: m.get_flag("ignored"),
        include_ignored: m.get_flag("include-ignored"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<Args, clap::Error> {
        parse(
            "suite",
            std::iter::once("suite").chain(args.iter().copied()),
        )
    }

    #[test]
    fn cargo_bench_measures_and_cargo_test_smoke_tests() {
        assert!(!p(&["--bench"]).unwrap().test);
        assert!(p(&[]).unwrap().test);
        assert!(p(&["--bench", "--test"]).unwrap().test);
    }

    #[test]
    fn filter_and_flags() {
        let a = p(&[
            "--bench",
            "fib",
            "--exact",
            "--counters",
            "wall-time",
            "--quick",
        ])
        .unwrap();
        assert_eq!(a.filter.as_deref(), Some("fib"));
        assert!(a.exact && a.quick);
        assert_eq!(a.counters.as_deref(), Some("wall-time"));
        let a = p(&["--bench", "--sample-size", "20", "--warm-up-time", "0.5"]).unwrap();
        assert_eq!(a.sample_size, Some(20));
        assert_eq!(a.warm_up_time, Some(0.5));
        assert!(p(&["--bench", "--sampling", "linear"]).unwrap().linear);
        assert_eq!(p(&["--format", "terse"]).unwrap().format, Format::Terse);
    }

    #[test]
    fn unknown_flags_and_bad_values_are_errors_naming_them() {
        let e = p(&["--frobnicate"]).unwrap_err();
        assert!(e.to_string().contains("--frobnicate"), "{e}");
        assert!(p(&["--sample-size", "1"]).is_err());
        let e = p(&["--warm-up-time", "soon"]).unwrap_err();
        assert!(e.to_string().contains("soon"));
        assert!(p(&["--measurement-time", "-1"]).is_err());
        assert!(p(&["--format", "xml"]).is_err());
    }

    #[test]
    fn libtest_flags_are_accepted() {
        assert!(p(&["--nocapture", "--color", "never", "--show-output"]).is_ok());
    }
}
