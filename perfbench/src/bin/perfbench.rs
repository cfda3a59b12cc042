//! The `perfbench` command-line tool.
//!
//! - `perfbench doctor [--counters LIST]`: what this machine can count, through which source,
//!   and why not.
//! - `perfbench list`: the events this machine offers.
//!
//! Exit codes: 0 success, 2 usage or environment error.

use std::process::ExitCode;

use perfbench::doctor::{self, Machine};
use perfbench::events::{self, Sysfs};

const HELP: &str = "\
Benchmarks that read hardware performance counters

Usage: perfbench <COMMAND>

Commands:
  doctor  Say what this machine can count, through which path, and why not
  list    List the events this machine offers
  help    Print this message or the help of the given subcommand

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
        "help" => Some(HELP),
        _ => None,
    }
}

fn unknown_subcommand(name: &str) -> Usage {
    Usage(format!(
        "error: unrecognized subcommand `{name}` (expected `doctor` or `list`)\n\n\
         Usage: perfbench <COMMAND>\n\nFor more information, try '--help'."
    ))
}

fn parse_cli() -> Result<Cmd, Usage> {
    use lexopt::prelude::*;
    let mut p = lexopt::Parser::from_env();
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
        other => Err(unknown_subcommand(other)),
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
        Cmd::Print(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
    }
}
