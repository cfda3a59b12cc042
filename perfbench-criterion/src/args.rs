//! The command line of a criterion suite: perfbench's flags, with criterion's meanings where
//! the two differ. criterion's filters are regular expressions (perfbench's are substrings)
//! and its `--noise-threshold` is a fraction (perfbench's a percentage). Both are settled here,
//! in the benchmark binary, which knows the suite's ids: the filters become the list of ids
//! they select (`--perfbench-select=ID`) and the line is marked as a criterion suite's
//! (`--perfbench-criterion`), so that the `perfbench` tool, which parses the same line for a
//! paired or simulated run and for the verdict, reads it the same way without a regex engine.

use std::ffi::OsString;
use std::process::ExitCode;

use perfbench::runner::cli::Args;
use perfbench::runner::parse_line;

/// Parses this process's command line for the suite `suite` whose benchmarks have the ids
/// `ids` (in definition order); on `--help` or an error, prints it and gives the exit code.
pub(crate) fn parse(suite: &str, ids: &[String]) -> Result<Args, ExitCode> {
    let line: Vec<OsString> = std::env::args_os().collect();
    let args = parse_line(suite, line.iter().cloned())?;
    let extra = match criterion_flags(&args, ids) {
        Ok(extra) => extra,
        Err(e) => {
            eprintln!("error: {e}");
            return Err(ExitCode::from(2));
        }
    };
    if extra.is_empty() {
        return Ok(args);
    }
    let mut line = line.into_iter();
    let program = line.next().unwrap_or_default();
    let relined = std::iter::once(program)
        .chain(extra.into_iter().map(OsString::from))
        .chain(line);
    parse_line(suite, relined)
}

/// The flags to put in front of `args`' line: the criterion mark and, for filters that are
/// not `--exact`, the ids they select (an empty id when none: it matches nothing). Nothing for
/// a line that has them already (the tool starts this binary again with the same line).
fn criterion_flags(args: &Args, ids: &[String]) -> Result<Vec<String>, String> {
    let mut extra = Vec::new();
    if !args.criterion {
        extra.push("--perfbench-criterion".to_owned());
    }
    if args.select.is_some() || args.exact || args.filters.is_empty() {
        return Ok(extra);
    }
    let filters = args
        .filters
        .iter()
        .map(|f| {
            regex_lite::Regex::new(f).map_err(|e| {
                format!(
                    "the filter `{f}` is not a regular expression (a criterion suite's filters \
                     are, as in criterion: escape `(`, `)`, `.` and the like with `\\`, or give \
                     the whole id with --exact): {e}"
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut selected = ids
        .iter()
        .filter(|id| filters.iter().any(|f| f.is_match(id)))
        .peekable();
    if selected.peek().is_none() {
        extra.push("--perfbench-select=".to_owned());
    }
    extra.extend(selected.map(|id| format!("--perfbench-select={id}")));
    Ok(extra)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &[&str]) -> Args {
        perfbench::runner::cli::parse(
            "suite",
            std::iter::once("suite").chain(line.iter().copied()),
        )
        .unwrap()
    }

    fn ids() -> Vec<String> {
        ["sum/64", "sum/128", "insert(17)/std", "fib 20"]
            .map(String::from)
            .to_vec()
    }

    #[test]
    fn filters_are_regular_expressions_resolved_to_ids() {
        let flags = |line: &[&str]| criterion_flags(&args(line), &ids()).unwrap();
        assert_eq!(flags(&["--bench"]), ["--perfbench-criterion"]);
        assert_eq!(
            flags(&["--bench", "^sum/1", "fib"]),
            [
                "--perfbench-criterion",
                "--perfbench-select=sum/128",
                "--perfbench-select=fib 20"
            ]
        );
        // A regular expression's parentheses group: criterion matches nothing here either.
        assert_eq!(
            flags(&["insert(17)"]),
            ["--perfbench-criterion", "--perfbench-select="]
        );
        assert_eq!(
            flags(&[r"insert\(17\)"]),
            ["--perfbench-criterion", "--perfbench-select=insert(17)/std"]
        );
        // --exact compares whole ids, as criterion's does and perfbench's own.
        assert_eq!(
            flags(&["--exact", "insert(17)/std"]),
            ["--perfbench-criterion"]
        );
        // A line that has them already (the tool's) gets nothing more.
        assert!(flags(&["--perfbench-criterion", "--perfbench-select=fib 20", "x"]).is_empty());
        let e = criterion_flags(&args(&["sum/(64"]), &ids()).unwrap_err();
        assert!(e.contains("`sum/(64` is not a regular expression"), "{e}");
    }

    #[test]
    fn the_selection_is_what_perfbench_and_the_tool_select() {
        let user = ["--bench", "^sum", "20$", "--noise-threshold", "0.05"];
        let mut line = criterion_flags(&args(&user), &ids()).unwrap();
        line.extend(user.map(String::from));
        // What this binary runs and the tool parses: the ids the regular expressions select.
        let relined = args(&line.iter().map(String::as_str).collect::<Vec<_>>());
        let all = ids();
        let chosen: Vec<&str> = all
            .iter()
            .filter(|id| perfbench::runner::selected_id(id, false, &relined))
            .map(String::as_str)
            .collect();
        assert_eq!(chosen, ["sum/64", "sum/128", "fib 20"]);
        assert_eq!(relined.thresholds.noise_threshold, Some(0.05));
        // Without the mark, `0.05` would be a twentieth of a percent.
        assert_eq!(args(&user).thresholds.noise_threshold, Some(0.0005));
    }
}
