//! What the fresh processes of a confirmation leave undecided, settled by a paired run of both
//! builds.
//!
//! Fresh processes bring each side's floor down to its fastest process ([`super::confirm`]), but
//! which process is fastest is a lottery of its own: on the project's VM the floors of one build's
//! processes spread over 10% for a pure computation, and the fastest of five moves by a few percent
//! from one set to the next. A real slowdown just above the threshold (10% against 8%) then ends
//! its confirmation unchanged in about one run in eight, at +1.4% to +7.9% (14 of 120 runs in two
//! sets, docs/validation.md, "Settled by a paired run"). The floors cannot tell it better; a paired
//! run can: the baseline's build and this build measured alternately, in fresh processes every
//! round ([`super::paired`]), judged by the change within each round's pairs, read a 10% slowdown
//! as +10.0% [+9.5% +10.9%] and unchanged code as -0.1% [-0.5% +0.3%] on the same VM.
//!
//! So a benchmark measured again for a time or cycle counter (judged regressed, or a near miss)
//! that the fresh processes did not confirm regressed is measured once more as a paired run with
//! `--quick`'s plan, and so is one measured again because it read faster that reads slower near a
//! regression once the baseline's build had a fresh process. Each of those time and cycle counters
//! judged unchanged is judged by the paired run as it judges its own: regressed where the paired
//! change is significant and its whole interval lies beyond the counter's threshold (the threshold
//! of the run's verdict: a 5% change against 8% stays unchanged), improved likewise, else
//! unchanged. The paired change replaces the counter's (method `paired`). A benchmark the fresh
//! processes confirmed regressed is checked by the same paired run: each side's floor is its
//! fastest process, and the baseline's can come from a minute the machine sat fast (on the
//! project's VM, in one set of twenty runs of unchanged code, two read the memory scan 8 and 14%
//! slower over five processes of each build, the baseline's saved two among them); a paired run's
//! alternating samples cannot. The regression stands unless the paired run reads it within the
//! threshold (its whole interval below `1 + threshold`: then the paired change and its verdict
//! replace it). A benchmark the run did not measure again is left as it is.

use std::path::Path;

use super::confirm::{timed, to_confirm};
use super::paired::{self, Builds};
use crate::model::{Benchmark, Change, Method, Outcome, Verdict};
use crate::verdict::CompareSettings as _;
use perfbench::runner::cli::Args;

/// The benchmarks of `results` a confirmation measures again for a time or cycle counter
/// ([`to_confirm`]: judged regressed, a near miss, or faster), each with its counters that
/// read slower (regressed or near it); asked before the confirmation, for [`pair_undecided`]
/// after it.
pub(super) fn asked(results: &[Benchmark]) -> Vec<(String, Vec<String>)> {
    results
        .iter()
        .filter(|b| b.outcome == Outcome::Measured)
        .filter(|b| {
            b.counters
                .iter()
                .any(|c| timed(&c.name) && to_confirm(c).is_some())
        })
        .map(|b| {
            let counters = b.counters.iter().filter(|c| {
                timed(&c.name)
                    && matches!(to_confirm(c), Some(Verdict::Regressed | Verdict::Unchanged))
            });
            (b.id.clone(), counters.map(|c| c.name.clone()).collect())
        })
        .collect()
}

/// The counters of `b` to settle by a paired run, of those `names` asked for: judged unchanged
/// after the confirmation, and either asked for as slower or reading slower near a regression
/// now (one that read faster until the baseline's build was measured again).
fn to_settle<'b>(b: &'b Benchmark, names: &'b [String]) -> impl Iterator<Item = &'b str> + 'b {
    b.counters
        .iter()
        .filter(move |c| {
            timed(&c.name)
                && c.change
                    .as_ref()
                    .is_some_and(|ch| ch.verdict == Verdict::Unchanged)
                && (names.contains(&c.name) || to_confirm(c) == Some(Verdict::Unchanged))
        })
        .map(|c| c.name.as_str())
}

/// The ids of `asked` whose benchmark in `results` is still measured and `keeps` holds of (given
/// the benchmark and the counters it was asked for).
fn asked_where(
    asked: &[(String, Vec<String>)],
    results: &[Benchmark],
    keeps: impl Fn(&Benchmark, &[String]) -> bool,
) -> Vec<String> {
    asked
        .iter()
        .filter(|(id, counters)| {
            results
                .iter()
                .any(|b| &b.id == id && b.outcome == Outcome::Measured && keeps(b, counters))
        })
        .map(|(id, _)| id.clone())
        .collect()
}

/// The ids of `asked` that the confirmation left undecided in `results`: still measured, no
/// counter judged regressed but an exact count (which the run reports as it is), and a counter
/// to settle ([`to_settle`]).
fn undecided(asked: &[(String, Vec<String>)], results: &[Benchmark]) -> Vec<String> {
    asked_where(asked, results, |b, counters| {
        !b.counters
            .iter()
            .any(|c| to_confirm(c) == Some(Verdict::Regressed))
            && to_settle(b, counters).next().is_some()
    })
}

/// The ids of `asked` that the confirmation left regressed in a time or cycle counter, to check
/// by the paired run: the fastest processes of each side can come from different minutes (the
/// baseline's saved ones while the machine sat fast), and a paired run's samples cannot.
fn confirmed(asked: &[(String, Vec<String>)], results: &[Benchmark]) -> Vec<String> {
    asked_where(asked, results, |b, _| {
        b.counters.iter().any(|c| {
            timed(&c.name)
                && c.change
                    .as_ref()
                    .is_some_and(|ch| ch.verdict == Verdict::Regressed)
        })
    })
}

/// The line said before the paired run of `unsettled` benchmarks left unchanged and `checked`
/// ones confirmed regressed.
fn pairing_header(unsettled: usize, checked: usize) -> String {
    let n = unsettled + checked;
    let s = if n == 1 { "" } else { "s" };
    let how = "(samples alternating, fresh processes every round)";
    match (unsettled, checked) {
        (_, 0) => format!(
            "Pairing {n} benchmark{s} the fresh processes left unchanged with the baseline's \
             build {how}, to settle:\n"
        ),
        (0, _) => format!(
            "Pairing {n} benchmark{s} the fresh processes confirmed regressed with the \
             baseline's build {how}, to check:\n"
        ),
        (u, r) => format!(
            "Pairing {n} benchmarks with the baseline's build {how}, to settle {u} the fresh \
             processes left unchanged and check {r} they confirmed regressed:\n"
        ),
    }
}

/// Pairs the benchmarks of `asked` ([`asked`]) that the confirmation left undecided or confirmed
/// regressed in `results` with the baseline's build `base_exe` (the executable baseline `base_name`
/// keeps), judges their counters to settle by the paired run and checks their regressed time and
/// cycle counters by it (the [module documentation](self)). `exe` is this build, `suite` the
/// suite's name, `args` the run's command line. `say` prints a line before the paired run and one
/// per counter after it, or why there is no paired verdict (the counters then keep theirs).
#[allow(clippy::too_many_arguments)]
pub(super) fn pair_undecided(
    asked: &[(String, Vec<String>)],
    exe: &Path,
    base_exe: &Path,
    base_name: &str,
    suite: &str,
    args: &Args,
    results: &mut [Benchmark],
    say: &mut dyn FnMut(&str),
) {
    let (unsettled, checked) = (undecided(asked, results), confirmed(asked, results));
    let ids: Vec<String> = asked
        .iter()
        .map(|(id, _)| id)
        .filter(|id| unsettled.contains(id) || checked.contains(id))
        .cloned()
        .collect();
    if ids.is_empty() {
        return;
    }
    say(&pairing_header(unsettled.len(), checked.len()));
    let builds = Builds {
        base: base_exe.to_owned(),
        new: exe.to_owned(),
        base_name: base_name.to_owned(),
        write_latest: false,
        suite: Some(suite.to_owned()),
    };
    let pair_args = Args {
        only: Some(ids.clone()),
        quick: true,
        rounds: None,
        null_control: false,
        json: None,
        fail_on_regression: false,
        ..args.clone()
    };
    let paired = match paired::pair(&builds, &pair_args) {
        Ok(paired) => paired,
        Err(e) => {
            say(&format!("  no paired verdict: {e}\n"));
            return;
        }
    };
    for b in results.iter_mut().filter(|b| ids.contains(&b.id)) {
        let Some(p) = paired.results.iter().find(|p| p.id == b.id) else {
            say(&format!("  {}: not measured by the paired run\n", b.id));
            continue;
        };
        if p.outcome != Outcome::Measured {
            say(&format!(
                "  {}: it {} in the paired run\n",
                b.id,
                p.outcome.as_str()
            ));
            continue;
        }
        let names = asked
            .iter()
            .find(|(id, _)| id == &b.id)
            .map(|(_, names)| names.as_slice())
            .unwrap_or_default();
        let settled: Vec<String> = to_settle(b, names).map(str::to_owned).collect();
        for c in &mut b.counters {
            let Some(ch) = c.change.as_mut() else {
                continue;
            };
            let regressed = timed(&c.name) && ch.verdict == Verdict::Regressed;
            if !settled.contains(&c.name) && !regressed {
                continue;
            }
            let Some(pc) = p.counter(&c.name).and_then(|pc| pc.change.as_ref()) else {
                say(&format!("  {}  {}: no paired change\n", b.id, c.name));
                continue;
            };
            let significance = args.thresholds.config_for(&c.name).significance;
            let judged = paired_verdict(ch, pc, significance);
            let said = judged.map_or(
                "regressed (the paired interval reaches the threshold)",
                Verdict::as_str,
            );
            say(&format!(
                "  {}  {}: {} with the fresh processes, {} paired [{} {}]: {said}\n",
                b.id,
                c.name,
                perfbench::units::format_change(ch.ratio),
                perfbench::units::format_change(pc.ratio),
                perfbench::units::format_change(pc.ci_low),
                perfbench::units::format_change(pc.ci_high),
            ));
            if let Some(verdict) = judged {
                *ch = Change {
                    threshold: ch.threshold,
                    verdict,
                    method: Method::Paired,
                    ..*pc
                };
            }
        }
    }
}

/// The verdict the paired change `paired` gives a counter whose change was `change`: [`judge`]'s
/// against its threshold; `None` (the change stands) for a regression that the paired run
/// neither reads within the threshold (its whole interval below `1 + threshold`) nor vouches
/// for itself.
fn paired_verdict(change: &Change, paired: &Change, significance: f64) -> Option<Verdict> {
    let judged = judge(paired, significance, change.threshold);
    let within = paired.ci_high.is_some_and(|h| h < 1.0 + change.threshold);
    let stands = change.verdict == Verdict::Regressed && !within && judged != Verdict::Regressed;
    (!stands).then_some(judged)
}

/// The verdict of a paired change against the run's `threshold`, as a paired run judges
/// against its own: regressed where it is significant (`p_value` below `significance`, 0.05
/// by default) and its whole interval lies above `1 + threshold`, improved where significant
/// and wholly below `1 - threshold`, else unchanged (a change read beyond the threshold with an
/// interval that holds it too is not one the paired run can vouch for).
fn judge(change: &Change, significance: f64, threshold: f64) -> Verdict {
    let significant = change.p_value < significance;
    match (change.ci_low, change.ci_high) {
        (Some(low), _) if significant && low > 1.0 + threshold => Verdict::Regressed,
        (_, Some(high)) if significant && high < 1.0 - threshold => Verdict::Improved,
        _ => Verdict::Unchanged,
    }
}

#[cfg(test)]
mod tests {
    use super::super::confirm::tests::{bench, counter as compared};
    use super::*;
    use crate::model::CounterResult;

    /// Counter `name` judged `verdict` at `ratio`.
    fn counter(name: &str, verdict: Verdict, ratio: f64) -> CounterResult {
        let mut c = compared(name, Some(verdict));
        if let Some(change) = c.change.as_mut() {
            change.ratio = Some(ratio);
        }
        c
    }

    #[test]
    fn what_the_fresh_processes_did_not_confirm_is_paired_and_nothing_else() {
        let before = [
            bench("near", vec![counter("wall-time", Verdict::Unchanged, 1.06)]),
            // Slower by less than half the threshold: not measured again.
            bench(
                "quiet",
                vec![counter("wall-time", Verdict::Unchanged, 1.03)],
            ),
            bench(
                "regressed",
                vec![
                    counter("wall-time", Verdict::Regressed, 1.2),
                    counter("cycles", Verdict::Unchanged, 1.01),
                ],
            ),
            // An exact count is not measured again; its time is.
            bench(
                "exact",
                vec![
                    counter("instructions", Verdict::Regressed, 1.2),
                    counter("task-clock", Verdict::Unchanged, 1.07),
                ],
            ),
            // Not a time: measured again, but not paired.
            bench(
                "faults",
                vec![counter("page-faults", Verdict::Regressed, 1.5)],
            ),
            // Faster: the baseline's build measured again; nothing to settle yet.
            bench("faster", vec![counter("wall-time", Verdict::Improved, 0.8)]),
            bench(
                "a bit faster",
                vec![counter("wall-time", Verdict::Unchanged, 0.97)],
            ),
        ];
        let asked = asked(&before);
        let names = |id: &str| asked.iter().find(|(a, _)| a == id).map(|(_, n)| n.clone());
        assert_eq!(asked.len(), 5, "{asked:?}");
        assert_eq!(names("near").unwrap(), ["wall-time"]);
        assert_eq!(names("regressed").unwrap(), ["wall-time"]);
        assert_eq!(names("exact").unwrap(), ["task-clock"]);
        assert!(names("faster").unwrap().is_empty());
        assert!(names("a bit faster").unwrap().is_empty());
        // After the fresh processes: `near` still a near miss and `exact`'s time cleared (both
        // undecided), `regressed` confirmed (left as it is), `faster` still improved (left),
        // `a bit faster` unchanged at +1% (left).
        let mut after = before.clone();
        after[3].counters[1] = counter("task-clock", Verdict::Unchanged, 1.02);
        after[6].counters[0] = counter("wall-time", Verdict::Unchanged, 1.01);
        assert_eq!(undecided(&asked, &after), ["near", "exact"]);
        // `regressed` cleared: undecided too; `near` confirmed: left.
        after[2].counters[0] = counter("wall-time", Verdict::Unchanged, 1.05);
        after[0].counters[0] = counter("wall-time", Verdict::Regressed, 1.11);
        assert_eq!(undecided(&asked, &after), ["regressed", "exact"]);
        // A benchmark that is no longer measured (it panicked) is not paired.
        after[2].outcome = Outcome::Panicked;
        assert_eq!(undecided(&asked, &after), ["exact"]);
        // `faster` reads slower near a regression once the baseline's build has a fresh
        // process: settled too (a baseline that sat slow hid it).
        after[5].counters[0] = counter("wall-time", Verdict::Unchanged, 1.06);
        assert_eq!(undecided(&asked, &after), ["exact", "faster"]);
        let settled: Vec<&str> = to_settle(&after[5], &[]).collect();
        assert_eq!(settled, ["wall-time"]);
    }

    #[test]
    fn a_confirmed_regression_stands_unless_the_paired_run_reads_it_within_the_threshold() {
        let paired = |low: f64, ratio: f64, high: f64| Change {
            ratio: Some(ratio),
            ci_low: Some(low),
            ci_high: Some(high),
            p_value: 0.001,
            threshold: 0.005,
            method: Method::Paired,
            ..compared("wall-time", Some(Verdict::Regressed))
                .change
                .unwrap()
        };
        let confirmed = compared("wall-time", Some(Verdict::Regressed))
            .change
            .unwrap();
        let verdict = |p: Change| paired_verdict(&confirmed, &p, 0.05);
        // Unchanged code whose baseline sat fast: the paired run clears it.
        assert_eq!(
            verdict(paired(0.971, 1.013, 1.058)),
            Some(Verdict::Unchanged)
        );
        // A real 10% slowdown read with a wide interval: it stands as the processes read it.
        assert_eq!(verdict(paired(1.04, 1.09, 1.16)), None);
        // Read wholly beyond the threshold: the paired change replaces it, regressed.
        assert_eq!(verdict(paired(1.09, 1.10, 1.11)), Some(Verdict::Regressed));
        // What was judged unchanged takes the paired verdict, whatever it is.
        let unchanged = compared("wall-time", Some(Verdict::Unchanged))
            .change
            .unwrap();
        let p = paired(1.04, 1.09, 1.16);
        assert_eq!(
            paired_verdict(&unchanged, &p, 0.05),
            Some(Verdict::Unchanged)
        );
    }

    #[test]
    fn confirmed_regressions_are_paired_beside_what_was_left_unchanged() {
        let results = [
            bench("near", vec![counter("wall-time", Verdict::Unchanged, 1.06)]),
            bench("slow", vec![counter("wall-time", Verdict::Regressed, 1.2)]),
            // Regressed in a count of faults only: not paired.
            bench(
                "faults",
                vec![
                    counter("page-faults", Verdict::Regressed, 1.5),
                    counter("wall-time", Verdict::Unchanged, 1.0),
                ],
            ),
        ];
        let asked = asked(&results);
        assert_eq!(undecided(&asked, &results), ["near"]);
        assert_eq!(confirmed(&asked, &results), ["slow"]);
        assert_eq!(
            pairing_header(1, 0),
            "Pairing 1 benchmark the fresh processes left unchanged with the baseline's build \
             (samples alternating, fresh processes every round), to settle:\n"
        );
        assert_eq!(
            pairing_header(0, 2),
            "Pairing 2 benchmarks the fresh processes confirmed regressed with the baseline's \
             build (samples alternating, fresh processes every round), to check:\n"
        );
        assert_eq!(
            pairing_header(1, 1),
            "Pairing 2 benchmarks with the baseline's build (samples alternating, fresh \
             processes every round), to settle 1 the fresh processes left unchanged and check 1 \
             they confirmed regressed:\n"
        );
    }

    #[test]
    fn the_paired_change_is_judged_against_the_runs_threshold() {
        let paired = |low: f64, ratio: f64, high: f64, p_value: f64| Change {
            baseline: 1.0,
            ratio: Some(ratio),
            ci_low: Some(low),
            ci_high: Some(high),
            p_value,
            threshold: 0.005,
            verdict: Verdict::Regressed,
            method: Method::Paired,
        };
        let judged = |c: Change, threshold: f64| judge(&c, 0.05, threshold);
        // A real 10% slowdown read by a paired run: wholly beyond 8%.
        assert_eq!(
            judged(paired(1.095, 1.10, 1.105, 0.001), 0.08),
            Verdict::Regressed
        );
        // 5% is below the run's 8%: unchanged, however sure (the paired run's own threshold,
        // 0.5%, would have flagged it).
        assert_eq!(
            judged(paired(1.045, 1.05, 1.055, 0.001), 0.08),
            Verdict::Unchanged
        );
        // Read beyond the threshold, but its interval holds it: unchanged.
        assert_eq!(
            judged(paired(1.03, 1.09, 1.15, 0.01), 0.08),
            Verdict::Unchanged
        );
        // Beyond it but not significant.
        assert_eq!(
            judged(paired(1.09, 1.10, 1.11, 0.2), 0.08),
            Verdict::Unchanged
        );
        assert_eq!(
            judged(paired(0.87, 0.88, 0.89, 0.001), 0.08),
            Verdict::Improved
        );
        let no_interval = Change {
            ci_low: None,
            ci_high: None,
            ..paired(1.0, 1.5, 1.0, 0.0)
        };
        assert_eq!(judged(no_interval, 0.08), Verdict::Unchanged);
        // A grown threshold holds: 10% against 12%.
        assert_eq!(
            judged(paired(1.095, 1.10, 1.105, 0.001), 0.12),
            Verdict::Unchanged
        );
    }
}
