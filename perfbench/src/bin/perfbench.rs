//! The `perfbench` command-line tool.
//!
//! - `perfbench doctor [--counters LIST]`: what this machine can count, through which source,
//!   and why not.
//! - `perfbench list`: the events this machine offers.
//!
//! Exit codes: 0 success, 2 usage or environment error.

use std::process::ExitCode;

use clap::{Arg, ArgAction, Command};
use perfbench::doctor::{self, Machine};
use perfbench::events::{self, Sysfs};

fn cli() -> Command {
    Command::new("perfbench")
        .about("Benchmarks that read hardware performance counters")
        .version(env!("CARGO_PKG_VERSION"))
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommand(
            Command::new("doctor")
                .about("Say what this machine can count, through which path, and why not")
                .arg(
                    Arg::new("counters")
                        .long("counters")
                        .value_name("LIST")
                        .help("Comma-separated counters to try (default: the common ones)"),
                ),
        )
        .subcommand(
            Command::new("list")
                .about("List the events this machine offers")
                .arg(
                    Arg::new("all")
                        .long("all")
                        .action(ArgAction::SetTrue)
                        .help("Also list hardware events when no CPU PMU exists"),
                ),
        )
}

fn main() -> ExitCode {
    let matches = match cli().try_get_matches() {
        Ok(m) => m,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let sysfs = Sysfs::system();
    match matches.subcommand() {
        Some(("doctor", m)) => {
            let list = m
                .get_one::<String>("counters")
                .cloned()
                .unwrap_or_else(|| doctor::DOCTOR_COUNTERS.join(","));
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
        Some(("list", m)) => {
            let machine = Machine::probe();
            let show_hw = m.get_flag("all") || machine.has_cpu_pmu();
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
        _ => ExitCode::from(2),
    }
}
