//! The quiet rounds of a time-like counter: the rounds whose median lies within a band of the
//! smallest round median. The headline of time and cycles (the analysis's `estimate.point`) is
//! the median of their samples; the stopping rule reads the rounds' medians the same way
//! ([`round_medians`]).
//!
//! Why: on a shared machine the other tenants come and go over milliseconds to seconds, so the
//! same loop runs at two or more speeds in turn (on this project's VM, the fib of the peer suite
//! read 15.2 µs in some rounds and 16.4 to 17.4 µs in others of the same run). A median of every
//! sample then lands in whichever speed held more than half of them, and moves by the gap from
//! run to run. The rounds of the machine's quietest speed repeat: their median moved 0.02 to
//! 0.2% from run to run where the median of all samples moved 1 to 3% (docs/validation.md,
//! "The stopping rule"). On a quiet machine every round lies within the band and the quiet
//! rounds are all of them.

use crate::sorting::{percentile_of_sorted, sort_f64};

/// The band of the default plan: rounds whose median is within 0.5% of the smallest are quiet
/// (half the default precision of the stopping rule, 1%).
pub const DEFAULT_BAND: f64 = 0.005;

/// The band for a stopping rule's target `precision` (a fraction): half of it, so that the
/// quiet rounds agree within the precision; [`DEFAULT_BAND`] for a fixed plan (`None` or 0).
///
/// ```
/// use perfbench::harness::quiet::{band, DEFAULT_BAND};
///
/// assert_eq!(band(Some(0.02)), 0.01);
/// assert_eq!(band(None), DEFAULT_BAND);
/// assert_eq!(band(Some(0.0)), DEFAULT_BAND);
/// ```
pub fn band(precision: Option<f64>) -> f64 {
    match precision {
        Some(p) if p > 0.0 && p.is_finite() => p / 2.0,
        _ => DEFAULT_BAND,
    }
}

/// The median of each round's finite samples (`rounds[r]` of `per_iteration`, in order);
/// `None` for a round without one. Rounds past the end of `per_iteration` are cut short. A
/// round's median needs no fences: a sample stretched by preemption moves it by half a gap at
/// most, and fences over all the rounds would cut off a quiet speed that few rounds saw.
///
/// ```
/// use perfbench::harness::quiet::round_medians;
///
/// let values = [10.0, 11.0, 12.0, 20.0, 21.0, 22.0, f64::NAN];
/// assert_eq!(round_medians(&values, &[3, 3, 1]), vec![Some(11.0), Some(21.0), None]);
/// ```
pub fn round_medians(per_iteration: &[f64], rounds: &[u32]) -> Vec<Option<f64>> {
    let mut rest = per_iteration;
    rounds
        .iter()
        .map(|&n| {
            let (round, tail) = rest.split_at((n as usize).min(rest.len()));
            rest = tail;
            let mut inside: Vec<f64> = round.iter().copied().filter(|v| v.is_finite()).collect();
            sort_f64(&mut inside);
            (!inside.is_empty()).then(|| percentile_of_sorted(&inside, 50.0))
        })
        .collect()
}

/// The fewest rounds a quiet figure rests on.
pub const FEWEST: usize = 3;

/// The quiet rounds of a counter ([`quiet_rounds`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quiet {
    /// Their indices, in order.
    pub rounds: Vec<usize>,
    /// Whether they are the rounds within the band of the smallest median, at least
    /// [`FEWEST`] of them: the machine's quietest speed seen in three rounds. `false` when
    /// fewer were (the rounds within the band of the third smallest median then), or with fewer
    /// than [`FEWEST`] rounds (every round then).
    pub at_fastest: bool,
}

/// The quiet rounds among `medians` ([`round_medians`]): the rounds whose median is at most
/// the smallest times `1 + band` where at least [`FEWEST`] are ([`Quiet::at_fastest`]), else
/// at most the third smallest times `1 + band`, so that the figure rests on three rounds at
/// least; every round with a median when fewer than three have one. A figure below one unit
/// (1 ns, 1 cycle) is held to a band of one unit's `band`, so that a body shorter than its
/// bracket counts every round.
///
/// ```
/// use perfbench::harness::quiet::quiet_rounds;
///
/// // Two speeds in turn: the rounds at 100 are quiet, those at 110 are not.
/// let medians = [Some(100.0), Some(110.2), Some(100.3), None, Some(109.8), Some(100.1)];
/// let quiet = quiet_rounds(&medians, 0.005);
/// assert_eq!((quiet.rounds, quiet.at_fastest), (vec![0, 2, 5], true));
/// assert_eq!(quiet_rounds(&medians, 0.2).rounds.len(), 5);
/// // The fastest speed seen twice only: the rounds up to the third's band.
/// let twice = [Some(100.0), Some(110.2), Some(100.3), Some(109.8), Some(111.5)];
/// let quiet = quiet_rounds(&twice, 0.005);
/// assert_eq!((quiet.rounds, quiet.at_fastest), (vec![0, 1, 2, 3], false));
/// ```
pub fn quiet_rounds(medians: &[Option<f64>], band: f64) -> Quiet {
    let mut sorted: Vec<f64> = medians.iter().flatten().copied().collect();
    sort_f64(&mut sorted);
    let within = |anchor: f64| -> Vec<usize> {
        let limit = anchor + band * anchor.abs().max(1.0);
        medians
            .iter()
            .enumerate()
            .filter(|(_, m)| m.is_some_and(|m| m <= limit))
            .map(|(i, _)| i)
            .collect()
    };
    match (sorted.first(), sorted.get(FEWEST - 1)) {
        (Some(&least), Some(&third)) => {
            let fastest = within(least);
            if fastest.len() >= FEWEST {
                Quiet {
                    rounds: fastest,
                    at_fastest: true,
                }
            } else {
                Quiet {
                    rounds: within(third),
                    at_fastest: false,
                }
            }
        }
        _ => Quiet {
            rounds: (0..medians.len())
                .filter(|&i| medians[i].is_some())
                .collect(),
            at_fastest: false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_severe_outlier_does_not_move_its_rounds_median() {
        let mut values: Vec<f64> = (0..30).map(|i| 100.0 + f64::from(i % 3)).collect();
        values[1] = 1e6; // descheduled
        let m = round_medians(&values, &[10, 10, 10]);
        assert_eq!(m, vec![Some(101.0), Some(101.0), Some(101.0)]);
        assert_eq!(quiet_rounds(&m, 0.0).rounds, vec![0, 1, 2]);
    }

    #[test]
    fn figures_below_one_unit_count_every_round() {
        let m = [Some(0.0004), Some(0.0011), Some(0.0007)];
        // 0.5% of one unit: every round here.
        assert_eq!(quiet_rounds(&m, 0.005).rounds, vec![0, 1, 2]);
        // 0.05% of one unit: the fastest seen twice, so up to the third's band.
        let quiet = quiet_rounds(&m, 0.0005);
        assert_eq!((quiet.rounds.len(), quiet.at_fastest), (3, false));
        let two = quiet_rounds(&[None, Some(2.0), Some(1.0)], 0.005);
        assert_eq!((two.rounds, two.at_fastest), (vec![1, 2], false));
        assert!(quiet_rounds(&[None, None], 0.005).rounds.is_empty());
        assert!(round_medians(&[], &[3, 3]).iter().all(Option::is_none));
    }
}
