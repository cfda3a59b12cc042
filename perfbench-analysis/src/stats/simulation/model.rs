//! The model: runs drawn from a profile (rounds of samples, spikes, slow rounds, drift), the
//! rates at which the verdict flags them, and the bounds the tests hold those rates to.

use super::*;

/// The rounds of a run as slices.
pub(super) fn slices(r: &[Vec<f64>]) -> Vec<&[f64]> {
    r.iter().map(Vec::as_slice).collect()
}

pub(super) const ROUNDS: usize = 10;

pub(super) const PER_ROUND: usize = 10;

pub(super) const PAIRS: usize = 400;

/// A standard exponential variate.
pub(super) fn exponential(rng: &mut Rng) -> f64 {
    -(1.0 - rng.unit()).ln()
}

/// A Gamma(`shape`, 1) variate: Marsaglia and Tsang (2000), boosted for shapes below 1.
pub(super) fn gamma(rng: &mut Rng, shape: f64) -> f64 {
    if shape < 1.0 {
        return gamma(rng, shape + 1.0) * rng.unit().powf(1.0 / shape);
    }
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = rng.normal();
        let v = (1.0 + c * x).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u = rng.unit();
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

/// A Beta variate of mean `mean` and overdispersion `spread` (`1 / (a + b + 1)`); `mean`
/// itself when either is degenerate.
pub(super) fn beta(rng: &mut Rng, mean: f64, spread: f64) -> f64 {
    if spread <= 0.0 || mean <= 0.0 || mean >= 1.0 {
        return mean;
    }
    let k = 1.0 / spread.min(0.999) - 1.0;
    let (x, y) = (gamma(rng, mean * k), gamma(rng, (1.0 - mean) * k));
    if x + y > 0.0 {
        x / (x + y)
    } else {
        mean
    }
}

/// A disturbed round's factor (see [`Profile::slow_shape`]).
pub(super) fn slow_factor(rng: &mut Rng, p: &Profile) -> f64 {
    let (a, b) = p.slow;
    if p.slow_shape <= 0.0 || b <= a {
        return rng.uniform(a, b);
    }
    let (x0, x1, alpha) = (a - 1.0, b - 1.0, p.slow_shape);
    let u = rng.unit();
    1.0 + x0 * (1.0 - u * (1.0 - (x0 / x1).powf(alpha))).powf(-1.0 / alpha)
}

/// One run of `cost` under `p`: `ROUNDS` rounds of `PER_ROUND` per-iteration values. The
/// first model's profiles ([`FIRST_SHAPE`]'s fields) draw exactly what they drew before the
/// model grew: every new draw is skipped at its default.
pub(super) fn simulate(rng: &mut Rng, p: &Profile, cost: f64) -> Vec<Vec<f64>> {
    let run = cost * (p.run_drift * rng.normal()).exp();
    let mut high = p.p_high > 0.0 && rng.unit() < p.p_high;
    let all_slow = rng.unit() < p.p_all_slow;
    let whole = beta(rng, p.whole, p.whole_spread);
    let calm = if p.noise_spread > 0.0 {
        (p.noise_spread * rng.normal()).exp()
    } else {
        1.0
    };
    // The round's disturbance: its factor (1: none) and the chance of each sample's being hit.
    let (mut state, mut share) = (1.0, 1.0);
    (0..ROUNDS)
        .map(|i| {
            if i > 0 && p.p_switch > 0.0 && rng.unit() < p.p_switch {
                high = !high;
            }
            let goes_on = i > 0 && p.persist > 0.0 && rng.unit() < p.persist;
            if !goes_on {
                let disturbed = all_slow || rng.unit() < p.p_slow;
                state = if disturbed { slow_factor(rng, p) } else { 1.0 };
                share = if disturbed && whole < 1.0 && rng.unit() >= whole {
                    rng.unit()
                } else {
                    1.0
                };
            }
            let mut level = run * if high { p.high } else { 1.0 };
            if p.round_tail > 0.0 {
                level *= (p.round_tail * exponential(rng)).exp();
            }
            (0..PER_ROUND)
                .map(|_| {
                    let hit = share >= 1.0 || rng.unit() < share;
                    let spike = if rng.unit() < p.spike_rate {
                        1.0 + p.spike_max * rng.unit()
                    } else {
                        1.0
                    };
                    let mut x = level
                        * if hit { state } else { 1.0 }
                        * spike
                        * (p.sample_noise * rng.normal()).exp();
                    if p.sample_tail > 0.0 {
                        x *= (calm * p.sample_tail * exponential(rng)).exp();
                    }
                    x
                })
                .collect()
        })
        .collect()
}

/// The share of `PAIRS` comparisons of a baseline run at cost 1000 with a new run at
/// `1000 * (1 + shift)` that give `expect` (`None`: any verdict but unchanged).
pub(super) fn rate(
    seed: u64,
    p: &Profile,
    shift: f64,
    cfg: &CompareConfig,
    expect: Option<Verdict>,
) -> f64 {
    rate_runs(seed, p, shift, cfg, expect, Pairing::Runs(1))
}

/// What each pair of [`rate_runs`] compares.
#[derive(Clone, Copy, Debug)]
pub(super) enum Pairing {
    /// A baseline of this many runs (a baseline saved from that many runs of one build;
    /// [`compare_runs`]) and one new run. One run draws exactly what [`rate`] drew before
    /// baselines could hold several.
    Runs(usize),
    /// A baseline of one run and one new run, with the tool's confirmation in fresh processes
    /// modelled (`runner::confirm`): after the first reading, one more run of the baseline's
    /// build always (the check), and one more of the new build too where the new run reads
    /// regressed or slower by more than half the threshold; then, while a regression stands,
    /// one more of each build, and while an improvement stands, one more of the baseline's, up
    /// to [`MOST_AGAIN`] times. The verdict is the one over all the runs. Not modelled: the
    /// paired settle that follows.
    Confirmed,
}

/// The most fresh processes of the new build a flagged comparison is measured in, one at a time
/// while it stands: the tool's `runner::confirm::MOST_AGAIN`.
pub(super) const MOST_AGAIN: usize = 4;

/// As [`rate`], each pair compared as `pairing` says.
pub(super) fn rate_runs(
    seed: u64,
    p: &Profile,
    shift: f64,
    cfg: &CompareConfig,
    expect: Option<Verdict>,
    pairing: Pairing,
) -> f64 {
    let mut rng = Rng::new(seed);
    let new_cost = 1000.0 * (1.0 + shift);
    let mut hits = 0;
    for i in 0..PAIRS {
        let cfg = CompareConfig {
            seed: i as u64,
            resamples: 200,
            ..*cfg
        };
        let judge = |base: &[Vec<Vec<f64>>], new: &[Vec<Vec<f64>>]| {
            let b: Vec<Vec<&[f64]>> = base.iter().map(|r| slices(r)).collect();
            let n: Vec<Vec<&[f64]>> = new.iter().map(|r| slices(r)).collect();
            let b: Vec<&[&[f64]]> = b.iter().map(Vec::as_slice).collect();
            let n: Vec<&[&[f64]]> = n.iter().map(Vec::as_slice).collect();
            compare_runs(&b, &n, &cfg)
        };
        let v = match pairing {
            Pairing::Runs(k) => {
                let base: Vec<Vec<Vec<f64>>> =
                    (0..k).map(|_| simulate(&mut rng, p, 1000.0)).collect();
                let new = simulate(&mut rng, p, new_cost);
                judge(&base, &[new]).verdict
            }
            Pairing::Confirmed => confirmed(&mut rng, p, new_cost, judge),
        };
        hits += usize::from(match expect {
            Some(e) => v == e,
            None => v != Verdict::Unchanged,
        });
    }
    hits as f64 / PAIRS as f64
}

/// One pair under [`Pairing::Confirmed`]: its verdict once the modelled confirmation is over.
fn confirmed(
    rng: &mut Rng,
    p: &Profile,
    new_cost: f64,
    judge: impl Fn(&[Vec<Vec<f64>>], &[Vec<Vec<f64>>]) -> Change,
) -> Verdict {
    let mut base = vec![simulate(rng, p, 1000.0)];
    let mut new = vec![simulate(rng, p, new_cost)];
    let first = judge(&base, &new);
    let slower = first.verdict == Verdict::Regressed
        || first.ratio.is_some_and(|r| r > 1.0 + 0.5 * first.threshold);
    base.push(simulate(rng, p, 1000.0));
    if slower {
        new.push(simulate(rng, p, new_cost));
    }
    let mut v = judge(&base, &new).verdict;
    for _ in 0..MOST_AGAIN {
        match v {
            Verdict::Regressed => {
                new.push(simulate(rng, p, new_cost));
                while base.len() < new.len() {
                    base.push(simulate(rng, p, 1000.0));
                }
            }
            Verdict::Improved => base.push(simulate(rng, p, 1000.0)),
            _ => break,
        }
        v = judge(&base, &new).verdict;
    }
    v
}

/// The targets: at most 5% false alarms at zero shift; a 10% slowdown judged
/// regressed, and a 10% speedup improved, in at least 95% of pairs; a 25% slowdown in at least
/// 99%.
pub(super) const TARGETS: Bounds = Bounds {
    false_alarms: 0.05,
    slower_10: 0.95,
    faster_10: 0.95,
    slower_25: 0.99,
};

/// What one profile must give: the most false alarms, the least detection of each shift.
#[derive(Clone, Copy, Debug)]
pub(super) struct Bounds {
    pub(super) false_alarms: f64,
    pub(super) slower_10: f64,
    pub(super) faster_10: f64,
    pub(super) slower_25: f64,
}

/// The rates the targets are about, each pair compared as `pairing` says, with the seeds from
/// `seed` on: any flag at zero shift, a 10% slowdown judged regressed, a 10% speedup improved,
/// a 25% slowdown regressed.
pub(super) fn target_rates(
    seed: u64,
    p: &Profile,
    cfg: &CompareConfig,
    pairing: Pairing,
) -> [f64; 4] {
    let shifts = [
        (0.0, None),
        (0.10, Some(Verdict::Regressed)),
        (-0.10, Some(Verdict::Improved)),
        (0.25, Some(Verdict::Regressed)),
    ];
    std::array::from_fn(|j| {
        let (shift, expect) = shifts[j];
        rate_runs(seed + j as u64, p, shift, cfg, expect, pairing)
    })
}

/// Asserts `b` for `p` under `cfg`, with the seeds from `seed` on.
pub(super) fn assert_bounds(p: &Profile, b: &Bounds, cfg: &CompareConfig, seed: u64) {
    let name = format!("{} ({:?})", p.name, cfg.spread);
    let rates = target_rates(seed, p, cfg, Pairing::Runs(1));
    println!("{name}: false alarms, +10%, -10%, +25%: {rates:?}");
    assert!(
        rates[0] <= b.false_alarms,
        "{name}: false alarms {}",
        rates[0]
    );
    assert!(rates[1] >= b.slower_10, "{name}: +10% {}", rates[1]);
    assert!(rates[2] >= b.faster_10, "{name}: -10% {}", rates[2]);
    assert!(rates[3] >= b.slower_25, "{name}: +25% {}", rates[3]);
}

/// The spread measures of [`compare_rounds`]: the IQR, the lower quarter, and the floor's
/// level (the default).
pub(super) const SPREADS: [Spread; 3] = [Spread::Iqr, Spread::low_quarter(), Spread::Level];

/// A run's ln floor, and the interquartile range and the lower quarter (25th percentile minus
/// the smallest) of its ln round minima: what [`compare_rounds`] reads from it.
pub(super) fn run_figures(run: &[Vec<f64>]) -> (f64, f64, f64) {
    let ln: Vec<f64> = crate::stats::rounds::round_figures(&slices(run))
        .iter()
        .map(|x| x.ln())
        .collect();
    let p = crate::stats::univariate::Sample::new(&ln)
        .unwrap()
        .percentiles();
    (p.min(), p.iqr(), p.at(25.0) - p.min())
}

/// The median of some values.
pub(super) fn median(v: &[f64]) -> f64 {
    crate::stats::univariate::Sample::new(v)
        .unwrap()
        .percentiles()
        .median()
}

/// The smallest of some values.
pub(super) fn smallest(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}
