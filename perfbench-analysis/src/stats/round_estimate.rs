//! The estimate of a counter measured in rounds ([`estimate_rounds`]): [`estimate`] of its
//! samples, the median of time and cycles taken over the quiet rounds, and the interval widened
//! by how far the rounds' figures spread.

use super::{bootstrap, estimate, Center, Estimate, Sample, StatsConfig};

/// [`estimate`] of samples taken in rounds (`rounds[r]` samples in round `r`, in order). With
/// at least 3 rounds:
/// - the median of time and cycles ([`Center::Median`], flat sampling, a
///   [`StatsConfig::quiet_band`]) is that of the **quiet rounds**
///   ([`perfbench::harness::quiet::quiet_rounds`]): the rounds whose median lies within the
///   band of the smallest where at least three do, else within the band of the third smallest.
///   The others ran while a neighbour slowed the machine, or with the body's data placed
///   worse; they are left out of the point and its interval and counted in
///   [`Estimate::disturbed_rounds`], while the descriptive statistics still describe every
///   sample;
/// - the interval is widened to hold the bootstrap interval of the (kept) rounds' central
///   figure too (the mean of the round means, or for a median the median of the round
///   medians), so it shows the drift between the stretches of the run that the samples of one
///   stretch cannot (an interval never claims more certainty than repeated measurement shows).
///
/// With fewer rounds, or `rounds` not adding up to the samples, it is [`estimate`]'s.
///
/// ```
/// use perfbench_analysis::stats::{estimate, estimate_rounds, StatsConfig};
///
/// // Three rounds of four samples; the middle one ran while the machine was busier.
/// let values = [10.0, 10.1, 10.0, 10.1, 12.0, 12.1, 12.0, 12.1, 10.0, 10.1, 10.0, 10.1];
/// let cfg = StatsConfig::default(); // the mean of every round
/// let plain = estimate(&values, None, &cfg).unwrap();
/// let rounds = estimate_rounds(&values, None, &[4, 4, 4], &cfg).unwrap();
/// assert!(rounds.ci_high - rounds.ci_low >= plain.ci_high - plain.ci_low);
///
/// // Wall time at two speeds in turn: the median of the three quiet rounds.
/// let mut values = Vec::new();
/// for level in [100.0, 112.0, 100.2, 112.5, 113.0, 100.1] {
///     values.extend([level, level + 0.1, level + 0.2, level + 0.1]);
/// }
/// let time = estimate_rounds(&values, None, &[4; 6], &StatsConfig::for_counter("wall-time"));
/// let time = time.unwrap();
/// assert_eq!(time.disturbed_rounds, 3);
/// assert!(time.point < 100.4 && time.ci_high < 100.5);
/// assert!(time.median > 106.0); // the median of every sample
/// ```
pub fn estimate_rounds(
    values: &[f64],
    iterations: Option<&[u64]>,
    rounds: &[u32],
    cfg: &StatsConfig,
) -> Option<Estimate> {
    let mut e = estimate(values, iterations, cfg)?;
    let median = e.slope.is_none() && cfg.center == Center::Median;
    let total: usize = rounds.iter().map(|&r| r as usize).sum();
    if rounds.len() < 3 || total != values.len() {
        return Some(e);
    }
    let mut rest = values;
    let parts: Vec<&[f64]> = rounds
        .iter()
        .map(|&r| {
            let (part, tail) = rest.split_at(r as usize);
            rest = tail;
            part
        })
        .collect();
    // Each round's central figure: with the quiet rounds, of those alone.
    let figures: Vec<f64> = if median {
        let medians = perfbench::harness::quiet::round_medians(&parts);
        let measured = medians.iter().flatten().count();
        let quiet = cfg
            .quiet_band
            .map(|band| perfbench::harness::quiet::quiet_rounds(&medians, band))
            .filter(|quiet| quiet.len() < measured);
        if let Some(quiet) = &quiet {
            let kept: Vec<f64> = quiet.iter().flat_map(|&i| parts[i]).copied().collect();
            let q = estimate(&kept, None, cfg)?;
            (e.point, e.ci_low, e.ci_high) = (q.point, q.ci_low, q.ci_high);
            e.excluded = q.excluded;
            e.disturbed_rounds = measured - quiet.len();
        }
        let kept = quiet.unwrap_or_else(|| (0..medians.len()).collect());
        kept.iter().filter_map(|&i| medians[i]).collect()
    } else {
        parts
            .iter()
            .filter_map(|part| {
                let finite: Vec<f64> = part.iter().copied().filter(|x| x.is_finite()).collect();
                Sample::new(&finite).map(|s| s.mean())
            })
            .collect()
    };
    if let Some(s) = Sample::new(&figures).filter(|_| figures.len() >= 3) {
        let ci = if median {
            bootstrap::median_ci(s, cfg)
        } else {
            bootstrap::mean_ci(s, cfg)
        };
        if ci.low.is_finite() && ci.high.is_finite() {
            e.ci_low = e.ci_low.min(ci.low);
            e.ci_high = e.ci_high.max(ci.high);
        }
    }
    Some(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rounds of 20 samples, each round at its own level, the samples 0.1% apart.
    fn rounds_at(levels: &[f64]) -> (Vec<f64>, Vec<u32>) {
        let values = levels
            .iter()
            .flat_map(|&l| (0..20).map(move |i| l * (1.0 + 0.001 * f64::from(i % 5))))
            .collect();
        (values, vec![20; levels.len()])
    }

    fn wall() -> StatsConfig {
        StatsConfig {
            resamples: 200,
            ..StatsConfig::for_counter("wall-time")
        }
    }

    #[test]
    fn a_quiet_machine_leaves_no_round_out() {
        let (values, rounds) = rounds_at(&[100.0, 100.1, 99.9, 100.2, 100.0]);
        let e = estimate_rounds(&values, None, &rounds, &wall()).unwrap();
        assert_eq!(e.disturbed_rounds, 0);
        assert_eq!(e.point, estimate(&values, None, &wall()).unwrap().point);
    }

    #[test]
    fn two_speeds_in_turn_take_the_quiet_rounds() {
        let (values, rounds) = rounds_at(&[100.0, 110.0, 100.2, 111.0, 100.1, 110.5, 112.0]);
        let e = estimate_rounds(&values, None, &rounds, &wall()).unwrap();
        assert_eq!(e.disturbed_rounds, 4);
        assert!(e.point > 100.0 && e.point < 100.4, "{e:?}");
        assert!(e.ci_low >= 100.0 && e.ci_high < 100.5, "{e:?}");
        // The descriptive statistics still describe every sample.
        assert!(e.median > 109.0 && e.max > 112.0, "{e:?}");
        // Without a band, or for a mean, every round counts.
        let every = StatsConfig {
            quiet_band: None,
            ..wall()
        };
        let pooled = estimate_rounds(&values, None, &rounds, &every).unwrap();
        assert_eq!((pooled.disturbed_rounds, pooled.point), (0, e.median));
        let mean = StatsConfig {
            center: Center::Mean,
            ..wall()
        };
        assert_eq!(
            estimate_rounds(&values, None, &rounds, &mean)
                .unwrap()
                .disturbed_rounds,
            0
        );
        // A band of 20%: every round is quiet.
        let wide = wall().with_quiet_band(0.2);
        assert_eq!(
            estimate_rounds(&values, None, &rounds, &wide)
                .unwrap()
                .disturbed_rounds,
            0
        );
    }

    #[test]
    fn the_fastest_speed_seen_twice_counts_up_to_the_third_rounds_band() {
        let (values, rounds) = rounds_at(&[100.0, 110.0, 100.2, 111.0, 110.5]);
        let e = estimate_rounds(&values, None, &rounds, &wall()).unwrap();
        // Rounds up to 110 * 1.005: all but the one at 111.
        assert_eq!(e.disturbed_rounds, 1);
        // The interval shows the two speeds.
        assert!(e.ci_low < 101.0 && e.ci_high > 109.0, "{e:?}");
    }
}
