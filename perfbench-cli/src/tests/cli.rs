//! The tool's command line on odd input: every subcommand with its options and odd values.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

use crate::{parse_args, Cmd};

/// 30,000 command lines drawn from every subcommand, option (plain, `=value`, misspelt) and odd
/// values (empty, negative, huge, NaN, non-UTF-8, option-like): each parses or is refused with
/// a message, never a panic; what parses keeps what the parser promises.
#[test]
fn odd_command_lines_never_panic_and_what_parses_holds() {
    let subcommands = [
        "doctor",
        "list",
        "compare",
        "export",
        "report",
        "flame",
        "ab",
        "run-suite",
        "help",
        "",
        "comapre",
    ];
    let options = [
        "counters",
        "suite",
        "exe",
        "all",
        "threshold",
        "noise-threshold",
        "format",
        "fail-on-regression",
        "html",
        "help",
        "version",
        "sample-size",
        "rounds",
        "null-control",
        "paired",
        "baseline",
        "save-baseline",
        "list",
        "json",
        "output",
        "title",
        "subtitle",
        "count-name",
        "",
    ];
    let values = [
        "",
        "0",
        "-1",
        "5",
        "150",
        "1e309",
        "NaN",
        "inf",
        "a.json",
        "dir/",
        "text",
        "markdown",
        "md",
        "json",
        "bmf",
        "instructions=2",
        "wall-time=-3",
        "x=",
        "=5",
        "-",
        "--",
        "-h",
        "-V",
        "doctor",
        "é",
    ];
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n as u64) as usize
    };
    let (mut parsed, mut refused) = (0, 0);
    for _ in 0..30_000 {
        let mut line = Vec::new();
        if next(8) > 0 {
            line.push(OsString::from(subcommands[next(subcommands.len())]));
        }
        for _ in 0..next(7) {
            let v = values[next(values.len())];
            let o = options[next(options.len())];
            line.push(match next(6) {
                0 | 1 => OsString::from(format!("--{o}")),
                2 => OsString::from(format!("--{o}={v}")),
                3 | 4 => OsString::from(v),
                _ => OsString::from_vec(vec![b'-', b'-', 0xff, next(256) as u8]),
            });
        }
        let ctx = format!("{line:?}");
        match parse_args(line) {
            Ok(cmd) => {
                parsed += 1;
                match cmd {
                    Cmd::Print(text) => assert!(!text.trim().is_empty(), "{ctx}"),
                    Cmd::Compare { base, settings, .. } => {
                        // A recorded comparison (one report) keeps its own thresholds.
                        if base.is_none() {
                            assert!(settings == Default::default(), "{ctx}");
                        }
                    }
                    Cmd::Report { results, .. } => assert!(!results.is_empty(), "{ctx}"),
                    // The one FOLDED file it draws.
                    Cmd::Flame(_) => assert!(ctx.contains("\"flame\""), "{ctx}"),
                    Cmd::Ab { args, .. } => {
                        assert!(args.paired.is_none() && args.baseline.is_none(), "{ctx}");
                        assert!(args.save_baseline.is_none() && !args.list, "{ctx}");
                    }
                    // The benchmark's command line parsed as the benchmark binary parses it.
                    Cmd::RunSuite { args, .. } => {
                        assert!(args.rounds.is_none_or(|r| (1..=1000).contains(&r)), "{ctx}")
                    }
                    Cmd::Doctor { .. } | Cmd::List { .. } | Cmd::Export { .. } => {}
                }
            }
            Err(e) => {
                refused += 1;
                assert!(
                    e.0.contains("error") || e.0.contains("Usage"),
                    "{ctx}: {}",
                    e.0
                );
            }
        }
    }
    assert!(
        parsed > 1000 && refused > 1000,
        "{parsed} parsed, {refused} refused"
    );
}
