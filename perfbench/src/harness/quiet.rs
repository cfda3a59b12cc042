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

/// The median of each round's finite samples (`rounds`: each round's per-iteration values, as
/// the stopping rule and the analysis split them); `None` for a round without one. A round's
/// median needs no fences: a sample stretched by preemption moves it by half a gap at most, and
/// fences over all the rounds would cut off a quiet speed that few rounds saw.
///
/// ```
/// use perfbench::harness::quiet::round_medians;
///
/// let rounds: [&[f64]; 3] = [&[10.0, 11.0, 12.0], &[20.0, 21.0, 22.0], &[f64::NAN]];
/// assert_eq!(round_medians(&rounds), vec![Some(11.0), Some(21.0), None]);
/// ```
pub fn round_medians(rounds: &[&[f64]]) -> Vec<Option<f64>> {
    rounds
        .iter()
        .map(|round| {
            let mut finite: Vec<f64> = round.iter().copied().filter(|v| v.is_finite()).collect();
            sort_f64(&mut finite);
            (!finite.is_empty()).then(|| percentile_of_sorted(&finite, 50.0))
        })
        .collect()
}

/// The fewest rounds a quiet figure rests on.
const FEWEST: usize = 3;

/// The indices of the quiet rounds among `medians` ([`round_medians`]), in order: the rounds
/// whose median is at most the smallest times `1 + band` where at least three are, else at most
/// the third smallest times `1 + band`, so that the figure rests on three rounds at least; every
/// round with a median when fewer than three have one. A figure below one unit (1 ns, 1 cycle)
/// is held to a band of one unit's `band`, so that a body shorter than its bracket counts every
/// round.
///
/// ```
/// use perfbench::harness::quiet::quiet_rounds;
///
/// // Two speeds in turn: the rounds at 100 are quiet, those at 110 are not.
/// let medians = [Some(100.0), Some(110.2), Some(100.3), None, Some(109.8), Some(100.1)];
/// assert_eq!(quiet_rounds(&medians, 0.005), vec![0, 2, 5]);
/// assert_eq!(quiet_rounds(&medians, 0.2).len(), 5);
/// // The fastest speed seen twice only: the rounds up to the third's band.
/// let twice = [Some(100.0), Some(110.2), Some(100.3), Some(109.8), Some(111.5)];
/// assert_eq!(quiet_rounds(&twice, 0.005), vec![0, 1, 2, 3]);
/// ```
pub fn quiet_rounds(medians: &[Option<f64>], band: f64) -> Vec<usize> {
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
                fastest
            } else {
                within(third)
            }
        }
        _ => within(f64::INFINITY),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_severe_outlier_does_not_move_its_rounds_median() {
        let mut values: Vec<f64> = (0..30).map(|i| 100.0 + f64::from(i % 3)).collect();
        values[1] = 1e6; // descheduled
        let rounds: Vec<&[f64]> = values.chunks(10).collect();
        let m = round_medians(&rounds);
        assert_eq!(m, vec![Some(101.0), Some(101.0), Some(101.0)]);
        assert_eq!(quiet_rounds(&m, 0.0), vec![0, 1, 2]);
    }

    #[test]
    fn figures_below_one_unit_count_every_round() {
        let m = [Some(0.0004), Some(0.0011), Some(0.0007)];
        // 0.5% of one unit: every round here.
        assert_eq!(quiet_rounds(&m, 0.005), vec![0, 1, 2]);
        // 0.05% of one unit: the fastest seen twice, so up to the third's band.
        assert_eq!(quiet_rounds(&m, 0.0005), vec![0, 1, 2]);
        let three = [Some(0.0004), Some(0.0005), Some(0.002), Some(0.0006)];
        assert_eq!(quiet_rounds(&three, 0.0005), vec![0, 1, 3]);
        // Fewer than three rounds with a median: every one of them.
        assert_eq!(
            quiet_rounds(&[None, Some(2.0), Some(1.0)], 0.005),
            vec![1, 2]
        );
        assert!(quiet_rounds(&[None, None], 0.005).is_empty());
        assert!(round_medians(&[&[], &[]]).iter().all(Option::is_none));
    }
}
