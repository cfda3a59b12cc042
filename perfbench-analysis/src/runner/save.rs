//! Saving a run as a baseline (`--save-baseline NAME`), from two processes at least.
//!
//! A baseline is what every later run is judged against, and one process can sit at one level
//! for its whole life: on the project's VM the sort of `bench-compare/verdict-suite` ran at two
//! levels about 12% apart, process by process, and a baseline saved from a process at the slow
//! one read 16 of 20 later runs of the same code as improved and hid a 10% slowdown in 12 of 20
//! (docs/validation.md, "Settled by a paired run"). A comparison takes the baseline's
//! floor from its fastest process, so a second process is what it needs to see a level the
//! first missed. So where a save would leave the baseline with one process of its build (a
//! first save, or a save of another build), the tool measures the suite's benchmarks once more
//! in a fresh process of the binary ([`super::fresh::measure`]) and saves that process
//! as the baseline's earlier run. Saved again from the same build, a baseline keeps its runs
//! and needs none. `--no-confirm` turns it off, as it turns off every fresh process. It cannot
//! help where the machine sat slow for the whole save, both processes with it: a baseline
//! saved from several runs apart in time, or a paired run, can.

use super::analyse::StreamedSuite;
use super::confirm;
use super::fresh;
use crate::baseline::Store;
use crate::model::{self, Outcome, Report};
use perfbench::runner::cli::{Args, Format};

/// Saves the run `report` (whose JSON is `json`) as baseline `name` with the benchmark
/// executable (for `--paired NAME`); saved again from the same build, the baseline keeps the
/// runs it had, and where it would hold one process, `again` (the binary, when it can be
/// started again) measures a second. False, after saying why, when it could not be saved.
pub(super) fn save_baseline(
    store: &Store,
    name: &str,
    suite: &str,
    args: &Args,
    report: &Report,
    json: &str,
    again: Option<&StreamedSuite>,
) -> bool {
    let kept = store.baseline(name, suite).ok();
    let (mut json, mut runs) = with_earlier_runs(report, kept.as_ref(), json);
    if let Some(again) = again.filter(|_| runs == 1) {
        if let Some(second) = second_process(report, again, args) {
            json = model::json::to_json(&second);
            runs = second.runs();
        }
    }
    let saved = store.save_baseline(name, suite, &json).and_then(|path| {
        let exe = perfbench::runner::bench_exe().ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::NotFound, "no benchmark executable")
        })?;
        store.save_executable(name, suite, &exe).map(|_| path)
    });
    match saved {
        Ok(path) => {
            if args.format != Format::Json {
                let runs = if runs > 1 {
                    format!(" ({runs} runs of this build)")
                } else {
                    String::new()
                };
                eprintln!("saved baseline `{name}`{runs}: {}", path.display());
            }
            true
        }
        Err(e) => {
            eprintln!("error: cannot save baseline `{name}`: {e}");
            false
        }
    }
}

/// `report` with a second process of its measured benchmarks as its earlier run, measured by
/// starting the binary of `again` once more; `None`, after saying why, where it could not be
/// measured (the baseline is then saved from the one process), or where nothing was measured.
fn second_process(report: &Report, again: &StreamedSuite, args: &Args) -> Option<Report> {
    let ids: Vec<String> = report
        .benchmarks
        .iter()
        .filter(|b| b.outcome == Outcome::Measured)
        .map(|b| b.id.clone())
        .collect();
    if ids.is_empty() {
        return None;
    }
    let quiet = args.format == Format::Json;
    if !quiet {
        eprintln!(
            "measuring {} benchmark{} once more in a fresh process for the baseline (one \
             process can sit slow for its whole life)",
            ids.len(),
            if ids.len() == 1 { "" } else { "s" }
        );
    }
    match fresh::measure(&again.exe, &again.args, &ids) {
        Ok(process) => {
            let measured: Vec<_> = process
                .into_iter()
                .filter(|b| b.outcome == Outcome::Measured)
                .collect();
            let mut second = report.clone();
            second.add_earlier_runs(confirm::earlier_runs(&[measured]));
            Some(second)
        }
        Err(e) => {
            eprintln!("note: the baseline is saved from this run's process alone: {e}");
            None
        }
    }
}

/// The document to keep for `report` (whose JSON is `json`) and how many runs it holds:
/// `json` itself, or, where `older` is a run of the same build
/// ([`Report::keep_earlier_runs`]), the report with `older`'s runs.
fn with_earlier_runs(report: &Report, older: Option<&Report>, json: &str) -> (String, usize) {
    if let Some(older) = older {
        let mut kept = report.clone();
        if kept.keep_earlier_runs(older) {
            return (model::json::to_json(&kept), kept.runs());
        }
    }
    (json.to_owned(), 1)
}
