//! The stopping rule: whether a benchmark's figures have settled to the plan's precision
//! ([`Plan::precision`](super::Plan::precision)), so that it takes no more rounds.
//!
//! Two figures are checked, for every time-like counter (wall time, cycles, a `-clock`
//! event): those the report and the verdict rest on.
//! - **The headline**: the median of the quiet rounds' samples ([`quiet`]). Settled when twice
//!   the standard error of every round's median (about a 95% interval's half-width) is at most
//!   the precision, relative to their mean. Rounds that disagree (a machine at several speeds
//!   in turn, a body whose data land differently round by round) take more rounds, up to the
//!   cap, so that the quietest speed is seen in as many as the run allows: stopping as soon as
//!   three rounds agreed at the fastest speed so far was tried, and the headline then moved
//!   more from run to run where the speeds were many (docs/validation.md, "The stopping
//!   rule").
//! - **The floor**: the smallest round figure (each round's smallest sample), which the verdict
//!   compares. Settled when the two smallest round figures agree within the precision: the
//!   machine's quiet state has been seen in two rounds, not once by chance.
//!
//! A figure below one unit per iteration (1 ns, 1 cycle) is held to the precision of one unit,
//! so that a body shorter than its bracket does not sample to the cap over fractions of a
//! nanosecond. Exact counters (instructions, page faults, allocations) and the environment's
//! (context switches) are not checked: the first repeat exactly, the second are no figure of
//! the code's. The rule needs [`MIN_ROUNDS`] rounds to say anything.
//!
//! It owns the rule only; the runner asks it after every round from the plan's last one on.

use super::Measured;
use crate::counters::Source;
use crate::harness::quiet;
use crate::harness::raw::RawCounter;
use crate::sorting::sort_f64;

/// The fewest rounds the rule judges (the verdict's fewest, too).
pub const MIN_ROUNDS: usize = 3;

/// Whether every time-like counter of `measured` has settled to `precision` (a fraction): see
/// the [module](self).
pub(crate) fn settled(measured: &Measured, precision: f64) -> bool {
    measured
        .iter()
        .filter(|c| time_like(c))
        .all(|c| counter_settled(c, precision))
}

/// Wall time, cycles and the `-clock` events: the counters whose figure is a time.
fn time_like(c: &RawCounter) -> bool {
    if c.source == Source::Clock {
        return true;
    }
    let lower = c.name.to_ascii_lowercase();
    // `cpu_core/cycles/u` -> `cycles`, `cycles:u` -> `cycles`.
    let inner = match lower.split('/').nth(1) {
        Some(inner) if !inner.is_empty() => inner,
        _ => lower.as_str(),
    };
    let base = inner.split(':').next().unwrap_or(inner);
    base.contains("cycles") || base.starts_with("cpu_clk_unhalted") || base.ends_with("-clock")
}

/// The samples of each round, in order.
fn rounds_of(c: &RawCounter) -> Vec<&[f64]> {
    let mut out = Vec::with_capacity(c.rounds.len());
    let mut rest = c.per_iteration.as_slice();
    for &n in &c.rounds {
        let n = (n as usize).min(rest.len());
        let (round, tail) = rest.split_at(n);
        out.push(round);
        rest = tail;
    }
    out
}

fn counter_settled(c: &RawCounter, precision: f64) -> bool {
    let rounds: Vec<&[f64]> = rounds_of(c)
        .into_iter()
        .filter(|r| r.iter().any(|v| v.is_finite()))
        .collect();
    if rounds.len() < MIN_ROUNDS {
        return false;
    }
    let medians: Vec<f64> = quiet::round_medians(&rounds)
        .into_iter()
        .flatten()
        .collect();
    let headline = agree(&medians, precision);
    let mut figures: Vec<f64> = rounds
        .iter()
        .map(|r| {
            r.iter()
                .copied()
                .filter(|v| v.is_finite())
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    sort_f64(&mut figures);
    let floor = figures[1] - figures[0] <= precision * figures[0].abs().max(1.0);
    headline && floor
}

/// Whether twice the standard error of `medians` (about a 95% interval's half-width) is at most
/// `precision` relative to their mean; never for fewer than [`MIN_ROUNDS`].
fn agree(medians: &[f64], precision: f64) -> bool {
    if medians.len() < MIN_ROUNDS {
        return false;
    }
    let k = medians.len() as f64;
    let mean = medians.iter().sum::<f64>() / k;
    let var = medians.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (k - 1.0);
    2.0 * (var / k).sqrt() <= precision * mean.abs().max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn counter(name: &str, source: Source, rounds: &[Vec<f64>]) -> RawCounter {
        RawCounter {
            name: name.to_owned(),
            unit: "ns".to_owned(),
            source,
            multiplexed: false,
            per_iteration: rounds.concat(),
            iterations: vec![1; rounds.iter().map(Vec::len).sum()],
            rounds: rounds.iter().map(|r| r.len() as u32).collect(),
            overhead: 0.0,
        }
    }

    /// `k` rounds of 10 samples around `level`, each sample off by up to `noise` (a fraction)
    /// and each round's level off by up to `drift`.
    fn noisy(level: f64, noise: f64, drift: f64, k: usize, seed: u64) -> Vec<Vec<f64>> {
        let mut rng = Rng::new(seed);
        (0..k)
            .map(|_| {
                let round = level * (1.0 + drift * (2.0 * rng.unit() - 1.0));
                (0..10)
                    .map(|_| round * (1.0 + noise * rng.unit()))
                    .collect()
            })
            .collect()
    }

    fn wall(rounds: &[Vec<f64>]) -> Measured {
        vec![counter("wall-time", Source::Clock, rounds)]
    }

    #[test]
    fn quiet_rounds_settle_and_drifting_ones_do_not() {
        assert!(settled(&wall(&noisy(1000.0, 0.002, 0.001, 10, 1)), 0.01));
        // Rounds 10% apart: the headline's interval is several percent wide.
        assert!(!settled(&wall(&noisy(1000.0, 0.002, 0.10, 10, 2)), 0.01));
        // The same rounds at a looser target.
        assert!(settled(&wall(&noisy(1000.0, 0.002, 0.10, 10, 2)), 0.2));
    }

    #[test]
    fn two_speeds_in_turn_take_more_rounds() {
        // A neighbour slows every other round by 10%: the rounds disagree, so the quiet speed
        // is looked for in more rounds (the estimate is the quiet rounds' median).
        let rounds: Vec<Vec<f64>> = noisy(1000.0, 0.002, 0.001, 10, 8)
            .into_iter()
            .enumerate()
            .map(|(i, r)| {
                r.iter()
                    .map(|v| v * if i % 2 == 1 { 1.1 } else { 1.0 })
                    .collect()
            })
            .collect();
        assert!(!settled(&wall(&rounds), 0.01));
        assert!(settled(&wall(&rounds), 0.2));
    }

    #[test]
    fn a_floor_seen_once_is_not_settled() {
        // One round much lower than all the others: the floor rests on it alone.
        let mut rounds = noisy(1000.0, 0.001, 0.0, 10, 3);
        rounds[4][3] = 900.0;
        let m = wall(&rounds);
        assert!(!settled(&m, 0.01));
        // Seen again in another round: settled.
        rounds[7][0] = 901.0;
        assert!(settled(&wall(&rounds), 0.01));
    }

    #[test]
    fn an_outlier_sample_does_not_hold_the_headline_up() {
        let mut rounds = noisy(1000.0, 0.002, 0.001, 10, 4);
        rounds[2][5] = 30_000.0; // a sample stretched 30x by preemption
        assert!(settled(&wall(&rounds), 0.01));
    }

    #[test]
    fn too_few_rounds_are_never_settled() {
        assert!(!settled(&wall(&noisy(1000.0, 0.0, 0.0, 2, 5)), 0.5));
        assert!(settled(&wall(&noisy(1000.0, 0.0, 0.0, 3, 5)), 0.01));
    }

    #[test]
    fn only_time_like_counters_are_judged() {
        let spread = noisy(1000.0, 0.5, 0.5, 10, 6);
        let quiet = noisy(1000.0, 0.0, 0.0, 10, 6);
        for name in [
            "cycles",
            "cpu_core/cycles/u",
            "cycles:u",
            "task-clock",
            "ref-cycles",
        ] {
            let m = vec![counter(name, Source::Read, &spread)];
            assert!(!settled(&m, 0.01), "{name}");
        }
        for name in [
            "instructions",
            "cache-misses",
            "context-switches",
            "alloc-count",
        ] {
            let m = vec![
                counter(name, Source::Read, &spread),
                counter("wall-time", Source::Clock, &quiet),
            ];
            assert!(settled(&m, 0.01), "{name}");
        }
    }

    #[test]
    fn figures_below_one_unit_are_held_to_one_unit() {
        // An empty body: 0.0006 ns per iteration, give or take 100%.
        let tiny = noisy(0.0006, 1.0, 1.0, 10, 7);
        assert!(settled(&wall(&tiny), 0.01));
        // Non-finite and empty rounds do not panic.
        let odd = vec![vec![f64::NAN; 10], vec![], vec![1.0; 10]];
        assert!(!settled(&wall(&odd), 0.01));
    }
}
