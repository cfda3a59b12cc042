//! A regression confirmed in fresh processes of both builds before it is reported.
//!
//! A benchmark's floor can sit at one level for a whole process: where its code and data
//! landed, a neighbour busy for as long as the run lasts. On the project's shared VM, in one set
//! of twenty runs of unchanged code, 3, 4 and 12 processes (by benchmark) read 9 to 72% slow in
//! every round, with nothing in their rounds to tell (docs/validation.md, "Confirming a
//! regression"), and a run compared with a baseline flags such a process as a regression. So
//! when a run compared with a saved baseline judges a counter regressed (one that is not an
//! exact count), the tool measures those benchmarks again: in a fresh process of this build
//! and, where the baseline would then hold fewer processes of them, of the baseline's build
//! (the executable the baseline keeps, `--save-baseline`), each started with the run's command
//! line, `--perfbench-only=ID` for each benchmark and `--perfbench-stream SOCKET` (it measures
//! as a run does and sends its results here instead of starting a tool). Every counter of those
//! benchmarks is then judged over all their processes
//! ([`crate::verdict::counter_change_over_runs`]: each side's floor is its fastest process's),
//! and while the regression stands, again, up to [`MOST_AGAIN`] fresh processes of this build.
//! The baseline's side is given at least as many processes as this build's, so that this
//! build's floor never has more chances to come down than the baseline's. A real regression is
//! seen in every process; a slow process five times in a row as rarely as the fifth power of
//! its rate.
//!
//! A near miss is measured again the same way: a time or cycle counter judged unchanged that
//! reads slower by more than half its threshold ([`NEAR`]). A baseline of one process can sit
//! at a slow level as well, and a real slowdown then reads smaller by that level (a 10% one as
//! 7.5% against an 8% threshold, docs/validation.md); the baseline's fresh processes bring its
//! floor down to its fastest level, and the slowdown is judged at its size. A near miss of
//! unchanged code reads smaller again once both sides have their fastest processes.
//!
//! A time or cycle counter that reads faster than the baseline, judged improved or by more
//! than a quarter of its threshold ([`NEAR_FASTER`]), is measured again in one fresh process of
//! the baseline's build only: a baseline saved while the machine sat slow (both its processes,
//! for the minute of the save: 6 and 15% on the project's VM) reads every later run faster,
//! and a 10% slowdown as unchanged or improved; the fresh process brings its floor down, and
//! what then reads regressed or near it is measured again as above. While a counter still
//! reads improved, the baseline's build is measured again, in up to [`MOST_AGAIN`] more fresh
//! processes: the fresh process can sit slow as well (on the project's VM, in one hour, a memory
//! scan's processes at twice its time, both of a baseline's and the first fresh one, left 6 runs
//! of unchanged code in 20 judged improved). Measuring this build again could only bring its own
//! floor down, and is left out.
//!
//! Every other time or cycle counter compared is checked the same way, in that one fresh
//! process of the baseline's build ([`checked`]), which measures every benchmark measured again
//! whatever it is measured again for: a machine that has turned faster since the save reads a
//! real slowdown smaller by as much, a 10% one as +1 to +3% against the saved baseline (on the
//! project's VM, in one set, 12 and 17 runs of 20 by benchmark: docs/validation.md, "The blind
//! zone"), neither slower near the threshold nor faster. With the baseline's fresh process its
//! floor comes down to the machine as it is now, and what then reads regressed or near it is
//! measured again as above. A check that leaves a benchmark as it was is said in one line and
//! not kept in the baseline.
//!
//! The fresh processes are kept as runs of their build: this build's in the run's report, the
//! baseline's in the saved baseline (only the benchmarks they measured, [`EarlierRun`]), so
//! that `perfbench compare` of the two judges as the run did. Nothing is measured again without
//! a saved baseline's executable (the previous run, a baseline saved without one). What the
//! fresh processes leave unchanged is measured once more as a paired run, and what they confirm
//! regressed is checked by it ([`super::undecided`]). `--no-confirm` turns all of it off.

use std::path::Path;

use super::analyse::StreamedSuite;
use super::fresh;
use crate::baseline::Store;
use crate::model::{Benchmark, CounterResult, EarlierRun, Outcome, Report, Verdict};
use crate::stats::CounterKind;

/// The most fresh processes of this build a regression is measured in after the run's own, one
/// at a time while it stands. Replayed on runs of the project's VM
/// (`bench-compare/confirm_replay.py`), a sort whose processes sat 17% slow three times in five
/// was flagged in 34% of comparisons of unchanged code against a baseline of one run, 14% with
/// two fresh processes a side, 5.5% with four, and a 10% slowdown was caught about as often.
pub(super) const MOST_AGAIN: usize = 4;

/// The share of its threshold a time or cycle counter judged unchanged must read slower by to be
/// measured again as a near miss: half (slower by more than 4% against the default 8%).
pub(super) const NEAR: f64 = 0.5;

/// The share of its threshold a time or cycle counter must read faster by to have the
/// baseline's build measured again: a quarter (faster by more than 2% against the default 8%).
/// Unchanged code reads faster than a baseline of two processes less often than slower (its
/// floor is the faster of two), so the line is closer than [`NEAR`] at little cost.
pub(super) const NEAR_FASTER: f64 = 0.25;

/// The fresh processes of a confirmation: per process, the benchmarks it measured.
#[derive(Debug, Default)]
pub(super) struct Again {
    /// This build's, oldest first.
    pub(super) new: Vec<Vec<Benchmark>>,
    /// The baseline's build's, oldest first.
    pub(super) base: Vec<Vec<Benchmark>>,
}

impl Again {
    /// The fresh processes that measured `id`: this build's and the baseline's.
    fn of(&self, id: &str) -> [Vec<&Benchmark>; 2] {
        [&self.new, &self.base].map(|processes| {
            processes
                .iter()
                .filter_map(|p| p.iter().find(|a| a.id == id))
                .collect()
        })
    }
}

/// Confirms the regressions and near misses of `results` (see the [module
/// documentation](self)): measures those benchmarks again in a fresh process of this build
/// and, where the baseline (`saved`) would then have fewer processes of them, of the baseline's
/// build (`base_exe`), and `judge`s each over all its processes so far (given: this build's
/// fresh ones, the baseline's); up to [`MOST_AGAIN`] times while they still read regressed or
/// near it ([`slower`]). A benchmark that reads faster is measured in one fresh process of the
/// baseline's build first. `say` prints: a line before measuring, and after it the change of
/// each counter measured again for, in this process and over all of them, or why it could not
/// be measured again. The fresh processes.
pub(super) fn confirm_changes(
    suite: &StreamedSuite,
    base_exe: &Path,
    saved: &Report,
    results: &mut [Benchmark],
    say: &mut dyn FnMut(&str),
    mut judge: impl FnMut(&mut Benchmark, &[&Benchmark], &[&Benchmark]),
) -> Again {
    let mut ids = changed(results);
    ids.extend(checked_only(results));
    let mut before: Vec<Regressed> = ids
        .iter()
        .filter_map(|id| results.iter().find(|b| &b.id == id))
        .map(Regressed::of)
        .collect();
    let mut again = Again::default();
    if ids.is_empty() {
        return again;
    }
    say(&header(&before));
    // The processes of each side that measured `id`: the run's own or the baseline's saved
    // runs, and the fresh ones.
    let saved_runs = |id: &str| {
        let earlier = saved.earlier_runs.iter();
        1 + earlier.filter(|r| r.benchmarks.contains_key(id)).count()
    };
    // One round more than MOST_AGAIN: a benchmark that reads faster or is only checked has the
    // baseline's build alone in its first, and up to MOST_AGAIN of this build after it.
    for round in 0..=MOST_AGAIN {
        ids.retain(|id| again.of(id)[0].len() < MOST_AGAIN);
        if ids.is_empty() {
            break;
        }
        // This build's for what reads slower; the baseline's for every benchmark in the first
        // round (the machine as it is now), then for what reads faster, and where its side
        // would have fewer processes than this build's after this round (its run and one more
        // fresh process than so far).
        let slow = slower(results);
        let new_ids: Vec<String> = ids.iter().filter(|id| slow.contains(id)).cloned().collect();
        let base_ids: Vec<String> = ids
            .iter()
            .filter(|id| {
                let [new, base] = again.of(id);
                round == 0 || !slow.contains(id) || saved_runs(id) + base.len() < new.len() + 2
            })
            .cloned()
            .collect();
        let fresh = |exe: &Path, ids: &[String], build: &str| {
            if ids.is_empty() {
                return Ok(Vec::new());
            }
            fresh::measure(exe, &suite.args, ids)
                .map_err(|e| format!("{build} build cannot be measured again: {e}"))
        };
        let measured = fresh(base_exe, &base_ids, "the baseline's")
            .and_then(|base| Ok((base, fresh(&suite.exe, &new_ids, "this")?)));
        let (base, new) = match measured {
            Ok(pair) => pair,
            Err(e) => {
                say(&format!("  {e}\n"));
                break;
            }
        };
        for (build, process, asked) in [
            ("the baseline's", &base, &base_ids),
            ("this", &new, &new_ids),
        ] {
            for id in asked {
                let outcome = process.iter().find(|a| &a.id == id).map(|a| a.outcome);
                if outcome != Some(Outcome::Measured) {
                    let why = outcome.map_or("was not measured", Outcome::as_str);
                    say(&format!(
                        "  {id}: it {why} in a fresh process of {build} build\n"
                    ));
                }
            }
        }
        let measured_only = |p: Vec<Benchmark>| -> Vec<Benchmark> {
            p.into_iter()
                .filter(|a| a.outcome == Outcome::Measured)
                .collect()
        };
        again.base.push(measured_only(base));
        again.new.push(measured_only(new));
        for b in results.iter_mut().filter(|b| ids.contains(&b.id)) {
            let [new, base] = again.of(&b.id);
            if !new.is_empty() || !base.is_empty() {
                judge(b, &new, &base);
            }
        }
        let (still, faster) = (slower(results), improved(results));
        ids.retain(|id| still.contains(id) || faster.contains(id));
    }
    for r in &mut before {
        let [new, base] = again.of(&r.id);
        (r.more, r.more_base) = (new.len(), base.len());
    }
    before.retain(|r| r.more + r.more_base > 0);
    let quiet = quiet(&before, results);
    say(&summary(&before, &quiet, results));
    // What the check left as it was is not kept in the baseline: kept every run, its fresh
    // processes would fill the baseline's runs, whose floor then has more chances to come down
    // than a run's.
    for p in &mut again.base {
        p.retain(|b| !quiet.contains(&b.id.as_str()));
    }
    again
}

/// Adds the baseline's build's fresh processes `again` to baseline `name` of `suite` in `store`
/// (whose report is `saved`), as the newest of its earlier runs, and says where it could not.
pub(super) fn keep_baseline_runs(
    store: &Store,
    name: &str,
    suite: &str,
    saved: &Report,
    again: &[Vec<Benchmark>],
    say: &mut dyn FnMut(&str),
) {
    if again.iter().all(Vec::is_empty) {
        return;
    }
    let mut kept = saved.clone();
    kept.add_earlier_runs(earlier_runs(again));
    let json = crate::model::json::to_json(&kept);
    if let Err(e) = store.save_baseline(name, suite, &json) {
        say(&format!(
            "  note: cannot add the baseline's fresh processes to baseline `{name}`: {e}\n"
        ));
    }
}

/// Fresh processes (oldest first) as earlier runs of their build, newest first; a process that
/// measured nothing is left out.
pub(super) fn earlier_runs(again: &[Vec<Benchmark>]) -> impl Iterator<Item = EarlierRun> + '_ {
    let measured = again.iter().rev().filter(|p| !p.is_empty());
    measured.map(|p| EarlierRun::of_benchmarks(p))
}

/// A benchmark measured again: regressed, near it or faster in the run's own process, or only
/// checked against a fresh process of the baseline's build ([`checked`]), for [`summary`].
#[derive(Debug)]
pub(super) struct Regressed {
    pub(super) id: String,
    /// What it was measured again for, the first that holds of: a counter judged regressed
    /// (`Regressed`), one slower near it (`Unchanged`), one faster (`Improved`): [`to_confirm`];
    /// `None`: none of them, a time or cycle counter checked ([`checked`]).
    pub(super) asked: Option<Verdict>,
    /// Each counter measured again for, with its ratio in the run's own process.
    pub(super) counters: Vec<(String, Option<f64>)>,
    /// How many fresh processes of this build measured it.
    pub(super) more: usize,
    /// How many of the baseline's build.
    pub(super) more_base: usize,
}

impl Regressed {
    /// The counters of `b` measured again for ([`to_confirm`]), or else those checked
    /// ([`checked`]).
    fn of(b: &Benchmark) -> Regressed {
        let judged: Vec<(&CounterResult, Verdict)> = b
            .counters
            .iter()
            .filter_map(|c| Some((c, to_confirm(c)?)))
            .collect();
        let any = |v: Verdict| judged.iter().any(|&(_, w)| w == v);
        let asked = [Verdict::Regressed, Verdict::Unchanged, Verdict::Improved]
            .into_iter()
            .find(|&v| any(v));
        let counters: Vec<&CounterResult> = if judged.is_empty() {
            b.counters.iter().filter(|c| checked(c)).collect()
        } else {
            judged.iter().map(|&(c, _)| c).collect()
        };
        Regressed {
            id: b.id.clone(),
            asked,
            counters: counters
                .iter()
                .map(|c| (c.name.clone(), c.change.as_ref().and_then(|ch| ch.ratio)))
                .collect(),
            more: 0,
            more_base: 0,
        }
    }
}

/// Whether counter `c` asks for its benchmark to be measured again: `Some(Regressed)` where it
/// was judged regressed and does not count exactly (an exact count is the same in any process),
/// `Some(Unchanged)` for a near miss (a time or cycle counter judged unchanged, slower by more
/// than [`NEAR`] times its threshold), `Some(Improved)` for a time or cycle counter that reads
/// faster (judged improved, or faster by more than [`NEAR_FASTER`] times its threshold: the
/// baseline's build is measured again, for a baseline that sat slow).
pub(super) fn to_confirm(c: &CounterResult) -> Option<Verdict> {
    let ch = c.change.as_ref()?;
    let kind = CounterKind::of(&c.name);
    let is_timed = timed(&c.name);
    let beyond = |share: f64, slower: bool| {
        is_timed
            && ch.threshold.is_finite()
            && ch.ratio.is_some_and(|r| {
                let line = share * ch.threshold;
                if slower {
                    r > 1.0 + line
                } else {
                    r < 1.0 - line
                }
            })
    };
    match ch.verdict {
        Verdict::Regressed if kind != CounterKind::Exact => Some(Verdict::Regressed),
        Verdict::Unchanged if beyond(NEAR, true) => Some(Verdict::Unchanged),
        Verdict::Improved if is_timed => Some(Verdict::Improved),
        Verdict::Unchanged if beyond(NEAR_FASTER, false) => Some(Verdict::Improved),
        _ => None,
    }
}

/// Whether counter `c` is checked against a fresh process of the baseline's build though
/// nothing asks for it to be measured again ([`to_confirm`]): a time or cycle counter compared
/// with a finite threshold. A machine that has turned faster since the baseline was saved
/// reads a real slowdown smaller by as much, down to where nothing asks (see the [module
/// documentation](self)).
pub(super) fn checked(c: &CounterResult) -> bool {
    let compared = c.change.as_ref().is_some_and(|ch| {
        ch.ratio.is_some() && ch.threshold.is_finite() && ch.verdict == Verdict::Unchanged
    });
    compared && timed(&c.name) && to_confirm(c).is_none()
}

/// Whether the counter named `name` is a time or cycle counter: what a near miss, a faster
/// read and the paired settle are about.
pub(super) fn timed(name: &str) -> bool {
    matches!(
        CounterKind::of(name),
        CounterKind::Time | CounterKind::Cycles
    )
}

/// The ids of the benchmarks of `results` to measure again: with a counter judged regressed,
/// near it or faster ([`to_confirm`]).
pub(super) fn changed(results: &[Benchmark]) -> Vec<String> {
    asking(results, |v| v.is_some())
}

/// The ids of the benchmarks of `results` with a counter judged regressed or slower near it
/// ([`to_confirm`]): measured again in both builds while they read so.
pub(super) fn slower(results: &[Benchmark]) -> Vec<String> {
    asking(results, |v| {
        matches!(v, Some(Verdict::Regressed | Verdict::Unchanged))
    })
}

/// The ids of the measured benchmarks of `results` that nothing asks to measure again
/// ([`changed`]) with a counter [`checked`]: measured once in the baseline's build.
pub(super) fn checked_only(results: &[Benchmark]) -> Vec<String> {
    let asked = changed(results);
    let mut ids = measured_with(results, checked);
    ids.retain(|id| !asked.contains(id));
    ids
}

/// The ids of the measured benchmarks of `results` with a time or cycle counter judged
/// improved: measured again in the baseline's build while they read so.
pub(super) fn improved(results: &[Benchmark]) -> Vec<String> {
    measured_with(results, |c| {
        timed(&c.name)
            && c.change
                .as_ref()
                .is_some_and(|ch| ch.verdict == Verdict::Improved)
    })
}

/// The ids of the measured benchmarks of `results` with a counter whose [`to_confirm`] is
/// `wanted`.
fn asking(results: &[Benchmark], wanted: impl Fn(Option<Verdict>) -> bool) -> Vec<String> {
    measured_with(results, |c| wanted(to_confirm(c)))
}

/// The ids of the measured benchmarks of `results` with a counter `counter` holds of.
fn measured_with(results: &[Benchmark], counter: impl Fn(&CounterResult) -> bool) -> Vec<String> {
    results
        .iter()
        .filter(|b| b.outcome == Outcome::Measured && b.counters.iter().any(&counter))
        .map(|b| b.id.clone())
        .collect()
}

/// The line said before measuring the benchmarks `before` again: how many regressed, read
/// slower near it and read faster.
fn header(before: &[Regressed]) -> String {
    let count = |v: Option<Verdict>| before.iter().filter(|r| r.asked == v).count();
    let (regressed, near, faster, checked) = (
        count(Some(Verdict::Regressed)),
        count(Some(Verdict::Unchanged)),
        count(Some(Verdict::Improved)),
        count(None),
    );
    let n = before.len() - checked;
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let s = plural(n);
    let others = match (n, checked) {
        (_, 0) => String::new(),
        (0, k) => {
            return format!(
                "\nMeasuring {k} benchmark{} again in a fresh process of the baseline's build, to \
                 read this run against the machine as it is now:\n",
                plural(k)
            )
        }
        (_, k) => format!(
            "; the other {k} in the baseline's build, to read them against the machine as it is \
             now"
        ),
    };
    if n == regressed {
        return format!(
            "\nMeasuring {n} regressed benchmark{s} again in fresh processes, to confirm{others}:\n"
        );
    }
    let mut parts = vec![format!("{regressed} regressed")];
    if near > 0 {
        parts.push(format!("{near} slower by more than half the threshold"));
    }
    if faster > 0 {
        parts.push(format!("{faster} faster, measured in the baseline's build"));
    }
    format!(
        "\nMeasuring {n} benchmark{s} again in fresh processes, to confirm ({}){others}:\n",
        parts.join(", ")
    )
}

/// Whether `r`, only checked, stayed as it was (see [`quiet`]).
fn is_quiet(r: &Regressed, results: &[Benchmark]) -> bool {
    let b = results.iter().find(|b| b.id == r.id);
    let unchanged = |name: &String| {
        let change = b
            .and_then(|b| b.counter(name))
            .and_then(|c| c.change.as_ref());
        change.is_none_or(|ch| ch.verdict == Verdict::Unchanged)
    };
    r.asked.is_none() && r.more == 0 && r.counters.iter().all(|(name, _)| unchanged(name))
}

/// The ids of `before` only checked against the baseline's fresh process that stayed as they
/// were: judged unchanged with it, and so not measured again in this build.
pub(super) fn quiet<'a>(before: &'a [Regressed], results: &[Benchmark]) -> Vec<&'a str> {
    let quiet = before.iter().filter(|r| is_quiet(r, results));
    quiet.map(|r| r.id.as_str()).collect()
}

/// What the terminal says of the benchmarks measured again: for each counter measured again
/// for, its change in this process and with the fresh processes, and the verdict with them;
/// of the benchmarks only checked that stayed as they were (`quiet`, [`quiet`]'s), how many.
pub(super) fn summary(before: &[Regressed], quiet: &[&str], results: &[Benchmark]) -> String {
    use perfbench::units::format_change;
    let mut out = String::new();
    for Regressed {
        id,
        counters,
        more,
        more_base,
        ..
    } in before.iter().filter(|r| !quiet.contains(&r.id.as_str()))
    {
        let with = match (more, more_base) {
            (m, 0) => format!("{m} more of this build"),
            (0, k) => format!("{k} more of the baseline's build"),
            (m, k) => format!("{m} more of this build and {k} of the baseline's"),
        };
        let Some(b) = results.iter().find(|b| &b.id == id) else {
            continue;
        };
        for (name, first) in counters {
            let Some(change) = b.counter(name).and_then(|c| c.change.as_ref()) else {
                continue;
            };
            out.push_str(&format!(
                "  {id}  {name}: {} in this process, {} with {with}: {}\n",
                format_change(*first),
                format_change(change.ratio),
                change.verdict.as_str()
            ));
        }
    }
    if !quiet.is_empty() {
        let (k, s) = (quiet.len(), if quiet.len() == 1 { "" } else { "s" });
        out.push_str(&format!(
            "  {k} benchmark{s} checked: unchanged with 1 more of the baseline's build\n"
        ));
    }
    out
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::model::{Change, Method, Source};

    /// A wall-time-like counter named `name`, judged `verdict` (none: not compared) at +20%.
    pub(in crate::runner) fn counter(name: &str, verdict: Option<Verdict>) -> CounterResult {
        CounterResult {
            name: name.into(),
            unit: "ns".into(),
            source: Source::Clock,
            multiplexed: false,
            per_iteration: vec![1.0, 2.0],
            iterations: vec![1, 1],
            rounds: vec![1, 1],
            overhead: 0.0,
            estimate: None,
            change: verdict.map(|verdict| Change {
                baseline: 1.0,
                ratio: Some(1.2),
                ci_low: None,
                ci_high: None,
                p_value: 0.0,
                threshold: 0.08,
                verdict,
                method: Method::Separate,
            }),
        }
    }

    /// A measured benchmark `id` with `counters`.
    pub(in crate::runner) fn bench(id: &str, counters: Vec<CounterResult>) -> Benchmark {
        Benchmark {
            counters,
            ..Benchmark::new(id, "g", id, None, Outcome::Measured)
        }
    }

    #[test]
    fn regressions_of_counters_that_do_not_count_exactly_and_faster_times_are_measured_again() {
        let results = [
            bench(
                "slower",
                vec![counter("wall-time", Some(Verdict::Regressed))],
            ),
            bench(
                "faster",
                vec![counter("task-clock", Some(Verdict::Improved))],
            ),
            bench("same", {
                let mut c = counter("wall-time", Some(Verdict::Unchanged));
                c.change.as_mut().unwrap().ratio = Some(1.01);
                vec![c]
            }),
            bench("new", vec![counter("wall-time", None)]),
            bench(
                "exact",
                vec![counter("instructions", Some(Verdict::Regressed))],
            ),
            Benchmark {
                outcome: Outcome::Failed,
                ..bench(
                    "failed",
                    vec![counter("wall-time", Some(Verdict::Regressed))],
                )
            },
        ];
        assert_eq!(changed(&results), ["slower", "faster"]);
        // The rest of the time counters compared: checked in the baseline's build.
        assert_eq!(checked_only(&results), ["same"]);
        let same = Regressed::of(&results[2]);
        assert_eq!(same.asked, None);
        assert_eq!(same.counters, [("wall-time".to_owned(), Some(1.01))]);
        // Measured again in both builds while it stands: only what reads slower; in the
        // baseline's build while it reads improved.
        assert_eq!(slower(&results), ["slower"]);
        assert_eq!(improved(&results), ["faster"]);
        assert_eq!(Regressed::of(&results[1]).asked, Some(Verdict::Improved));
        // An improved count of misses is not: a slow baseline is a matter of time.
        let misses = bench(
            "misses",
            vec![counter("cache-misses", Some(Verdict::Improved))],
        );
        assert!(changed(&[misses]).is_empty());
    }

    #[test]
    fn a_time_or_cycle_counter_slower_by_more_than_half_its_threshold_is_a_near_miss() {
        let unchanged = |name: &str, ratio: f64, threshold: f64| {
            let mut c = counter(name, Some(Verdict::Unchanged));
            let ch = c.change.as_mut().unwrap();
            (ch.ratio, ch.threshold) = (Some(ratio), threshold);
            c
        };
        let results = [
            bench("near", vec![unchanged("wall-time", 1.05, 0.08)]),
            bench("cycles", vec![unchanged("cycles", 1.07, 0.08)]),
            bench("within", vec![unchanged("task-clock", 1.039, 0.08)]),
            // Half of a threshold grown to 20% by the rounds' spread.
            bench("wide", vec![unchanged("wall-time", 1.09, 0.20)]),
            bench("count", vec![unchanged("instructions", 1.07, 0.08)]),
            bench("misses", vec![unchanged("cache-misses", 1.07, 0.08)]),
            bench(
                "never",
                vec![unchanged("context-switches", 3.0, f64::INFINITY)],
            ),
            // Faster by more than a quarter of its threshold: the baseline's build again.
            bench("faster", vec![unchanged("wall-time", 0.979, 0.08)]),
            bench("a bit faster", vec![unchanged("wall-time", 0.981, 0.08)]),
            bench("faster count", vec![unchanged("instructions", 0.9, 0.08)]),
        ];
        assert_eq!(changed(&results), ["near", "cycles", "faster"]);
        // Neither slower near the threshold nor faster beyond its quarter: checked. Not an
        // exact count, a count of misses, nor a counter whose threshold is infinite.
        assert_eq!(checked_only(&results), ["within", "wide", "a bit faster"]);
        assert_eq!(slower(&results), ["near", "cycles"]);
        let near = Regressed::of(&results[0]);
        assert_eq!(near.asked, Some(Verdict::Unchanged));
        assert_eq!(near.counters, [("wall-time".to_owned(), Some(1.05))]);
        let both = bench(
            "both",
            vec![
                counter("wall-time", Some(Verdict::Regressed)),
                unchanged("cycles", 1.06, 0.08),
                unchanged("task-clock", 1.01, 0.08),
            ],
        );
        let both = Regressed::of(&both);
        assert_eq!(both.asked, Some(Verdict::Regressed));
        let names: Vec<&str> = both.counters.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["wall-time", "cycles"]);
    }

    #[test]
    fn the_first_line_says_how_many_regressed_how_many_are_near_misses_and_faster() {
        let asked = |asked: &[Option<Verdict>]| -> Vec<Regressed> {
            let one = |&asked| Regressed {
                id: "g/x".into(),
                asked,
                counters: Vec::new(),
                more: 0,
                more_base: 0,
            };
            asked.iter().map(one).collect()
        };
        assert_eq!(
            header(&asked(&[Some(Verdict::Regressed)])),
            "\nMeasuring 1 regressed benchmark again in fresh processes, to confirm:\n"
        );
        let near = Some(Verdict::Unchanged);
        assert_eq!(
            header(&asked(&[near, near])),
            "\nMeasuring 2 benchmarks again in fresh processes, to confirm (0 regressed, 2 slower \
             by more than half the threshold):\n"
        );
        assert_eq!(
            header(&asked(&[Some(Verdict::Regressed), Some(Verdict::Improved)])),
            "\nMeasuring 2 benchmarks again in fresh processes, to confirm (1 regressed, 1 \
             faster, measured in the baseline's build):\n"
        );
        // The benchmarks only checked are counted apart.
        assert_eq!(
            header(&asked(&[None, Some(Verdict::Regressed), None])),
            "\nMeasuring 1 regressed benchmark again in fresh processes, to confirm; the other 2 \
             in the baseline's build, to read them against the machine as it is now:\n"
        );
        assert_eq!(
            header(&asked(&[None])),
            "\nMeasuring 1 benchmark again in a fresh process of the baseline's build, to read \
             this run against the machine as it is now:\n"
        );
    }

    #[test]
    fn the_baselines_fresh_processes_are_kept_or_a_note_says_why_not() {
        let dir = std::env::temp_dir().join(format!("perfbench-keep-runs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = Store::new(&dir);
        let saved = crate::model::fixtures::synthetic_report();
        let suite = saved.suite.clone();
        let again = [vec![bench("g/x", vec![counter("wall-time", None)])]];
        let mut said = String::new();
        // A directory that is not empty where the baseline's file goes: no rename replaces
        // it, not even root's (whom a read-only directory would not stop).
        let blocked = store.baseline_path("ref", &suite);
        std::fs::create_dir_all(blocked.join("kept")).unwrap();
        keep_baseline_runs(&store, "ref", &suite, &saved, &again, &mut |t| said += t);
        assert!(
            said.contains("note: cannot add the baseline's fresh processes to baseline `ref`"),
            "{said}"
        );
        assert!(
            blocked.join("kept").is_dir(),
            "what was there is left as it was"
        );
        // Where it can be written, the fresh process is the baseline's newest earlier run.
        said.clear();
        keep_baseline_runs(&store, "ok", &suite, &saved, &again, &mut |t| said += t);
        assert_eq!(said, "");
        let kept = store.baseline("ok", &suite).unwrap();
        assert_eq!(kept.earlier_runs.len(), saved.earlier_runs.len() + 1);
        assert!(kept.earlier_runs[0].benchmarks.contains_key("g/x"));
        // Nothing measured, nothing written.
        keep_baseline_runs(&store, "none", &suite, &saved, &[vec![]], &mut |t| {
            said += t
        });
        assert!(!store.baseline_path("none", &suite).exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_summary_gives_both_changes_and_the_verdict_over_all_processes() {
        let mut after = bench("g/x", vec![counter("wall-time", Some(Verdict::Unchanged))]);
        after.counters[0].change.as_mut().unwrap().ratio = Some(1.003);
        let before = [Regressed {
            id: "g/x".to_owned(),
            asked: Some(Verdict::Regressed),
            counters: vec![("wall-time".to_owned(), Some(1.176))],
            more: 1,
            more_base: 1,
        }];
        assert_eq!(
            summary(&before, &[], &[after]),
            "  g/x  wall-time: +17.6% in this process, +0.3% with 1 more of this build and 1 of \
             the baseline's: unchanged\n"
        );
        // Faster: measured again in the baseline's build alone.
        let before = [Regressed {
            asked: Some(Verdict::Improved),
            counters: vec![("wall-time".to_owned(), Some(0.85))],
            more: 0,
            ..before.into_iter().next().unwrap()
        }];
        let after = bench("g/x", vec![counter("wall-time", Some(Verdict::Regressed))]);
        assert_eq!(
            summary(&before, &[], &[after]),
            "  g/x  wall-time: -15.0% in this process, +20.0% with 1 more of the baseline's \
             build: regressed\n"
        );
        // Only checked: a line where the check changed its verdict, or it was then measured
        // again in this build; one line for the rest, which are quiet.
        let checked = |id: &str, more: usize| Regressed {
            id: id.to_owned(),
            asked: None,
            counters: vec![("wall-time".to_owned(), Some(1.02))],
            more,
            more_base: 1,
        };
        let before = [
            checked("g/flagged", 0),
            checked("g/again", 1),
            checked("g/a", 0),
            checked("g/b", 0),
        ];
        let results = [
            bench(
                "g/flagged",
                vec![counter("wall-time", Some(Verdict::Regressed))],
            ),
            bench(
                "g/again",
                vec![counter("wall-time", Some(Verdict::Unchanged))],
            ),
            bench("g/a", vec![counter("wall-time", Some(Verdict::Unchanged))]),
            bench("g/b", vec![counter("wall-time", Some(Verdict::Unchanged))]),
        ];
        let quiet = quiet(&before, &results);
        assert_eq!(quiet, ["g/a", "g/b"]);
        assert_eq!(
            summary(&before, &quiet, &results),
            "  g/flagged  wall-time: +2.0% in this process, +20.0% with 1 more of the baseline's \
             build: regressed\n  \
             g/again  wall-time: +2.0% in this process, +20.0% with 1 more of this build and 1 of \
             the baseline's: unchanged\n  \
             2 benchmarks checked: unchanged with 1 more of the baseline's build\n"
        );
    }
}
