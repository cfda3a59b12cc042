//! What a run is compared with and how: the reference (a saved baseline or the previous run),
//! each benchmark's thresholds, and each counter's change, over the run's own process and the
//! fresh ones that confirm a regression ([`super::confirm`]).

use perfbench::runner::cli::Args;

use super::analyse::Description;
use crate::baseline::{BaselineError, Store};
use crate::model::{Benchmark, Outcome, Report};
use crate::stats;

/// What this run is compared with: `--baseline NAME` (strict: every selected benchmark must be
/// in it), `--baseline-lenient NAME` (where a suite the baseline lacks is all new), or else the
/// previous run, if one reads. An unusable `--baseline` is an error; an unreadable previous run
/// only a note.
pub(super) fn reference(
    store: &Store,
    suite: &str,
    args: &Args,
    chosen: &[Description],
) -> Result<Option<(String, Report)>, String> {
    let Some(b) = &args.baseline else {
        return Ok(match store.previous(suite) {
            None => None,
            Some(Ok(r)) => Some(("previous run".to_owned(), r)),
            Some(Err(e)) => {
                eprintln!("note: not comparing with the previous run: {e}");
                None
            }
        });
    };
    let report = match store.baseline(&b.name, suite) {
        Err(BaselineError::Missing { .. }) if b.lenient => {
            eprintln!(
                "note: baseline `{}` has no suite `{suite}`: all of it is new",
                b.name
            );
            return Ok(None);
        }
        saved => saved.map_err(|e| e.to_string())?,
    };
    if !b.lenient {
        let missing: Vec<&str> = chosen
            .iter()
            .filter(|c| report.bench(&c.id).is_none())
            .map(|c| c.id.as_str())
            .collect();
        if !missing.is_empty() {
            return Err(format!(
                "baseline `{}` has no {}: {} (save it again, or use --baseline-lenient {} to \
                 report them as new)",
                b.name,
                if missing.len() == 1 {
                    "result for this benchmark"
                } else {
                    "results for these benchmarks"
                },
                missing.join(", "),
                b.name
            ));
        }
    }
    Ok(Some((b.name.clone(), report)))
}

/// The comparison settings of one benchmark: the command line's, with the attribute's
/// `thresholds` (`own`'s) for the counters the command line does not name.
pub(super) fn thresholds(own: Option<&Description>, args: &Args) -> crate::verdict::Settings {
    let mut settings = args.thresholds.clone();
    if let Some(own) = own.filter(|c| !c.thresholds.is_empty()) {
        // Later entries win: the attribute's first, then the command line's.
        let cli = std::mem::take(&mut settings.thresholds);
        settings.thresholds = own.thresholds.iter().cloned().chain(cli).collect();
    }
    settings
}

/// Adds to `bench` each counter's change since the same benchmark's counter in `base`, where
/// both were measured: over `bench`'s run and `base`'s runs, each with the same benchmark's runs
/// in fresh processes of its build (`again_new`, `again_base`: [`super::confirm`]).
pub(super) fn add_changes(
    bench: &mut Benchmark,
    base: &Report,
    settings: &crate::verdict::Settings,
    again_new: &[&Benchmark],
    again_base: &[&Benchmark],
) {
    let Some(old) = base
        .bench(&bench.id)
        .filter(|b| b.outcome == Outcome::Measured)
    else {
        return;
    };
    if bench.outcome != Outcome::Measured {
        return;
    }
    for c in &mut bench.counters {
        if let Some(o) = old.counter(&c.name) {
            let figures = |again: &[&Benchmark]| -> Vec<Vec<f64>> {
                let counters = again.iter().filter_map(|a| a.counter(&c.name));
                counters
                    .map(|a| stats::rounds::round_figures(&a.round_values()))
                    .collect()
            };
            let (new, fresh_base) = (figures(again_new), figures(again_base));
            let new_earlier: Vec<&[f64]> = new.iter().map(Vec::as_slice).collect();
            // Newest first, as a baseline keeps them.
            let mut earlier: Vec<&[f64]> = fresh_base.iter().rev().map(Vec::as_slice).collect();
            earlier.extend(base.earlier_figures(&bench.id, &c.name));
            c.change =
                crate::verdict::counter_change_over_runs(o, &earlier, c, &new_earlier, settings)
                    .ok();
        }
    }
}
