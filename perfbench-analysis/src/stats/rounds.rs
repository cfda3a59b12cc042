//! Change detection between runs measured in rounds, the runner's default: [`compare_rounds`]
//! (one run a side) and [`compare_runs`] (sides of several runs, such as a baseline saved again
//! from the same build).
//!
//! The rule: each round's figure is its smallest per-iteration value ([`round_figures`]) and a
//! run's **floor** the smallest of them ([`floor`]; over several runs, [`floor_of_runs`]). The
//! change is `floor(new) / floor(base)`; it counts beyond `max(threshold, noise_factor x spread)`,
//! the spread of each side's ln round figures as [`CompareConfig::spread`] measures it. An exact
//! counter's change counts from [`CompareConfig::min_step`] per iteration when it also exceeds its
//! rounds' spread; a floor of 0 or below is judged by the Mann-Whitney test on the round figures.
//! With fewer than [`MIN_ROUNDS`] rounds on a side, [`compare()`] judges the samples instead,
//! against [`CompareConfig::samples_threshold`]. The guide's docs/measuring.md ("The verdict")
//! explains the rule, and docs/validation.md measures how often it is right.

use super::bootstrap::{self, ConfidenceInterval};
use super::change::{compare, Change, CompareConfig, Method, Spread, Verdict};
use super::univariate::Sample;
use perfbench::sorting::{sort_by, sort_f64};

/// The fewest rounds on each side for [`compare_rounds`] to use rounds; fewer falls back to
/// [`compare()`] on the samples.
pub const MIN_ROUNDS: usize = 3;

/// Compares a new run with a baseline run, each given as its rounds (the per-iteration values
/// of each round's samples). See the [module documentation](self).
///
/// Rounds without a finite value are dropped. The `baseline` of the result is the baseline's
/// floor; `ratio` is the floor ratio (`None` when a floor is not positive).
///
/// ```
/// use perfbench_analysis::stats::{compare_rounds, CompareConfig, Verdict};
///
/// let base: [&[f64]; 4] = [&[10.0, 11.0], &[10.2, 12.0], &[10.1, 10.5], &[10.0, 13.0]];
/// let new: [&[f64]; 4] = [&[13.0, 14.0], &[13.1, 13.5], &[13.0, 15.0], &[13.2, 13.3]];
/// let change = compare_rounds(&base, &new, &CompareConfig::for_counter("wall-time"));
/// assert_eq!(change.baseline, 10.0); // the floor
/// assert!((change.ratio.unwrap() - 1.3).abs() < 1e-9);
/// assert_eq!(change.verdict, Verdict::Regressed);
/// ```
pub fn compare_rounds(base: &[&[f64]], new: &[&[f64]], cfg: &CompareConfig) -> Change {
    compare_runs(&[base], &[new], cfg)
}

/// Compares the runs of a baseline with the runs of a new build, each run given as its rounds
/// (as [`compare_rounds`], which is this with one run a side). See the
/// [module documentation](self).
///
/// A side's floor is the smallest round figure of all its runs; the spread that grows the
/// threshold is each run's own: the median over a side's runs, then the root mean square of
/// the two sides' (as [`compare_rounds`] pools its two runs). What moves from run to run does
/// not widen the threshold; the floor over runs is what answers it. The bootstrap interval and
/// the Mann-Whitney test take each side's rounds of all its runs together, and so does the
/// spread that exact counters must exceed. Runs with fewer than [`MIN_ROUNDS`] rounds with a finite value are
/// left out; when a side has none left, the first run of each side is compared sample by
/// sample (as [`compare_rounds`] does).
///
/// ```
/// use perfbench_analysis::stats::rounds::compare_runs;
/// use perfbench_analysis::stats::{CompareConfig, Verdict};
///
/// // The baseline's first run sat in a slow state (+5%); its second did not.
/// let slow: [&[f64]; 3] = [&[10.5, 11.0], &[10.6, 12.0], &[10.5, 10.9]];
/// let fast: [&[f64]; 3] = [&[10.0, 10.4], &[10.1, 10.2], &[10.0, 10.3]];
/// let new: [&[f64]; 3] = [&[11.0, 11.2], &[11.1, 11.4], &[11.0, 11.3]]; // 10% slower
/// let cfg = CompareConfig::for_counter("wall-time");
/// let one = compare_runs(&[&slow[..]], &[&new[..]], &cfg);
/// assert_eq!(one.verdict, Verdict::Unchanged); // 4.8%: within the 8% threshold
/// let two = compare_runs(&[&slow[..], &fast[..]], &[&new[..]], &cfg);
/// assert_eq!(two.baseline, 10.0);
/// assert_eq!(two.verdict, Verdict::Regressed);
/// ```
pub fn compare_runs(base: &[&[&[f64]]], new: &[&[&[f64]]], cfg: &CompareConfig) -> Change {
    // Each run's round figures, sorted: nothing below depends on the order of the rounds (the
    // bootstrap would) or of the runs.
    let (base_runs, new_runs) = (run_figures(base), run_figures(new));
    if base_runs.is_empty() || new_runs.is_empty() {
        let samples = CompareConfig {
            threshold: cfg.samples_threshold,
            ..*cfg
        };
        let first = |runs: &[&[&[f64]]]| runs.first().map_or(Vec::new(), |r| r.concat());
        return compare(&first(base), &first(new), &samples);
    }
    let pooled = |runs: &[Vec<f64>]| {
        let mut all = runs.concat();
        sort_f64(&mut all);
        all
    };
    let (b, n) = (pooled(&base_runs), pooled(&new_runs));
    // Sorted and not empty: the floors are the first figures.
    let (floor_b, floor_n) = (b[0], n[0]);
    let p_value = mann_whitney_p(&b, &n);
    let positive = floor_b > 0.0 && floor_n > 0.0;
    let ratio = positive.then(|| floor_n / floor_b);
    let interval = ratio.and_then(|r| floor_ratio_ci(&b, &n, r, cfg));
    let grown = if positive {
        let (measure, factor): (fn(&[f64]) -> f64, f64) = match cfg.spread {
            Spread::Iqr => (iqr, cfg.noise_factor),
            Spread::LowQuarter { factor } => (low_quarter, factor),
            Spread::Level => (level_iqr, cfg.noise_factor),
        };
        // The median of the runs' own spreads of ln round figures, squared, per side.
        let side = |runs: &[Vec<f64>]| {
            let each: Vec<f64> = runs
                .iter()
                .map(|r| measure(&r.iter().map(|x| x.ln()).collect::<Vec<f64>>()))
                .collect();
            let m = Sample::new(&each).map_or(0.0, |s| s.percentiles().median());
            m * m
        };
        factor * (0.5 * (side(&base_runs) + side(&new_runs))).sqrt()
    } else {
        0.0
    };
    let threshold = if cfg.threshold.is_nan() {
        f64::NAN
    } else {
        cfg.threshold.max(grown)
    };
    let step = floor_n - floor_b;
    // Exact counters: a change must exceed what the rounds themselves spread (0 for code whose
    // counts are the same every round), whether it is seen as a ratio or as a step.
    let exact = cfg.min_step.is_finite();
    let range = (b[b.len() - 1] - b[0]).max(n[n.len() - 1] - n[0]);
    let beyond_spread = |step: f64| !exact || step.abs() > range;
    let cfg = &CompareConfig {
        min_step: cfg.min_step.max(range),
        ..*cfg
    };
    let verdict = if !threshold.is_finite() {
        Verdict::Unchanged
    } else if let Some(r) = ratio {
        if (r > 1.0 + threshold || step >= cfg.min_step) && step > 0.0 && beyond_spread(step) {
            Verdict::Regressed
        } else if (r < 1.0 - threshold || step <= -cfg.min_step)
            && step < 0.0
            && beyond_spread(step)
        {
            Verdict::Improved
        } else {
            Verdict::Unchanged
        }
    } else {
        // No ratio: a significant difference of the floors, of at least `min_step` for
        // exact counters.
        if p_value >= cfg.significance {
            Verdict::Unchanged
        } else {
            step_verdict(step, cfg)
        }
    };
    Change {
        baseline: floor_b,
        ratio,
        ci_low: interval.map(|ci| ci.low),
        ci_high: interval.map(|ci| ci.high),
        p_value,
        threshold,
        verdict,
        method: Method::Separate,
    }
}

/// The verdict of a significant change of `step` per iteration where there is no ratio (a
/// baseline of 0 or less): its sign, when it is at least [`CompareConfig::min_step`] for exact
/// counters (any size for the others).
pub(super) fn step_verdict(step: f64, cfg: &CompareConfig) -> Verdict {
    let needed = if cfg.min_step.is_finite() {
        cfg.min_step
    } else {
        0.0
    };
    if step > 0.0 && step >= needed {
        Verdict::Regressed
    } else if step < 0.0 && -step >= needed {
        Verdict::Improved
    } else {
        Verdict::Unchanged
    }
}

/// The floor of a run given as its rounds: its smallest round figure, when it has at least
/// [`MIN_ROUNDS`] rounds with a finite value (what [`compare_rounds`] compares); `None`
/// otherwise. [`floor_of_runs`] with one run.
///
/// ```
/// use perfbench_analysis::stats::rounds::floor;
///
/// assert_eq!(floor(&[&[10.5, 11.0], &[10.2], &[10.9]]), Some(10.2));
/// assert_eq!(floor(&[&[10.5], &[10.2]]), None); // fewer than MIN_ROUNDS
/// ```
pub fn floor(rounds: &[&[f64]]) -> Option<f64> {
    floor_of_runs(&[rounds])
}

/// The floor of a side of several runs, each given as its rounds: the smallest round figure
/// of the runs with at least [`MIN_ROUNDS`] rounds with a finite value (what [`compare_runs`]
/// compares); `None` when no run has that many.
///
/// ```
/// use perfbench_analysis::stats::rounds::floor_of_runs;
///
/// let full: [&[f64]; 3] = [&[10.5, 11.0], &[10.2], &[10.9]];
/// let short: [&[f64]; 2] = [&[9.0], &[9.5]]; // fewer than MIN_ROUNDS: left out
/// assert_eq!(floor_of_runs(&[&full[..], &short[..]]), Some(10.2));
/// assert_eq!(floor_of_runs(&[&short[..]]), None);
/// ```
pub fn floor_of_runs(runs: &[&[&[f64]]]) -> Option<f64> {
    let floors: Vec<f64> = run_figures(runs).iter().map(|f| f[0]).collect();
    (!floors.is_empty()).then(|| smallest(&floors))
}

/// Each run's round figures, sorted, for the runs with at least [`MIN_ROUNDS`] of them.
fn run_figures(runs: &[&[&[f64]]]) -> Vec<Vec<f64>> {
    runs.iter()
        .map(|r| {
            let mut f = round_figures(r);
            sort_f64(&mut f);
            f
        })
        .filter(|f| f.len() >= MIN_ROUNDS)
        .collect()
}

/// The smallest value (infinity for none).
fn smallest(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

/// Each round's figure: its smallest finite value; rounds without one are dropped.
///
/// ```
/// use perfbench_analysis::stats::rounds::round_figures;
///
/// assert_eq!(round_figures(&[&[10.5, 11.0], &[f64::NAN], &[12.0, 11.5]]), [10.5, 11.5]);
/// ```
pub fn round_figures(rounds: &[&[f64]]) -> Vec<f64> {
    rounds
        .iter()
        .filter_map(|r| r.iter().copied().filter(|x| x.is_finite()).reduce(f64::min))
        .collect()
}

/// The percentile bootstrap interval of `min(new*) / min(base*)` over rounds, or `None` when
/// some resampled floor is not positive.
fn floor_ratio_ci(
    base: &[f64],
    new: &[f64],
    ratio: f64,
    cfg: &CompareConfig,
) -> Option<ConfidenceInterval> {
    let (Some(b), Some(n)) = (Sample::new(base), Sample::new(new)) else {
        return None;
    };
    let dist = bootstrap::two_sample_distribution(b, n, cfg.resamples, cfg.seed, |b, n| {
        smallest(n) / smallest(b)
    });
    Some(
        ConfidenceInterval::from_distribution(dist, cfg.confidence)
            .unwrap_or_else(|| ConfidenceInterval::point(ratio, cfg.confidence)),
    )
}

/// The two-sided p-value of the Mann-Whitney test of `base` against `new` (normal
/// approximation with the tie correction); 1 when every value is tied.
fn mann_whitney_p(base: &[f64], new: &[f64]) -> f64 {
    let (m, k) = (base.len() as f64, new.len() as f64);
    let mut all: Vec<(f64, bool)> = base
        .iter()
        .map(|&x| (x, false))
        .chain(new.iter().map(|&x| (x, true)))
        .collect();
    sort_by(&mut all, |a, b| a.0.total_cmp(&b.0));
    // Mid-ranks, and the tie term sum(t^3 - t).
    let (mut rank_new, mut ties) = (0.0, 0.0);
    let mut i = 0;
    while i < all.len() {
        let mut j = i;
        while j + 1 < all.len() && all[j + 1].0 == all[i].0 {
            j += 1;
        }
        let t = (j - i + 1) as f64;
        let mid = (i + j) as f64 / 2.0 + 1.0;
        rank_new += mid * all[i..=j].iter().filter(|(_, new)| *new).count() as f64;
        ties += t * t * t - t;
        i = j + 1;
    }
    let u = rank_new - k * (k + 1.0) / 2.0;
    let total = m + k;
    let var = m * k / 12.0 * ((total + 1.0) - ties / (total * (total - 1.0)));
    if var <= 0.0 || !var.is_finite() {
        return 1.0;
    }
    let z = (u - m * k / 2.0).abs() / var.sqrt();
    super::dist::erfc(z / std::f64::consts::SQRT_2).min(1.0)
}

/// The interquartile range: not moved by a stray round, and (unlike the median absolute
/// deviation) not blind to a second state that a quarter to a half of the rounds were in.
fn iqr(v: &[f64]) -> f64 {
    Sample::new(v).map_or(0.0, |s| s.percentiles().iqr())
}

/// The lower quarter: the 25th percentile minus the smallest value ([`Spread::LowQuarter`]).
fn low_quarter(v: &[f64]) -> f64 {
    Sample::new(v).map_or(0.0, |s| {
        let p = s.percentiles();
        p.at(25.0) - p.min()
    })
}

/// The widest step between neighbouring sorted ln round figures that still counts as one level
/// ([`Spread::Level`]): 5%.
const LEVEL_GAP: f64 = 0.048_790_164_169_432; // ln 1.05

/// The interquartile range of the floor's level ([`Spread::Level`]): of the sorted values `v`
/// up to the first step between neighbours wider than [`LEVEL_GAP`], when those are at least a
/// quarter of them and at least [`MIN_ROUNDS`]; otherwise of them all.
fn level_iqr(v: &[f64]) -> f64 {
    let end = (1..v.len())
        .find(|&i| v[i] - v[i - 1] > LEVEL_GAP)
        .unwrap_or(v.len());
    if end >= MIN_ROUNDS && 4 * end >= v.len() {
        iqr(&v[..end])
    } else {
        iqr(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::rng::Rng;

    fn cfg(name: &str) -> CompareConfig {
        CompareConfig::for_counter(name)
    }

    /// `rounds` rounds of `per` samples, each value `f(round, sample)`.
    fn run(rounds: usize, per: usize, mut f: impl FnMut(usize, usize) -> f64) -> Vec<Vec<f64>> {
        let mut out = Vec::new();
        for r in 0..rounds {
            out.push((0..per).map(|i| f(r, i)).collect());
        }
        out
    }

    fn slices(v: &[Vec<f64>]) -> Vec<&[f64]> {
        v.iter().map(Vec::as_slice).collect()
    }

    fn verdict(base: &[Vec<f64>], new: &[Vec<f64>], cfg: &CompareConfig) -> Change {
        compare_rounds(&slices(base), &slices(new), cfg)
    }

    #[test]
    fn one_more_instruction_per_iteration_is_always_a_regression() {
        for k in [0.0, 3.0, 37.0, 1001.0, 4099.0, 1e7] {
            let base = run(10, 10, |_, _| k);
            let same = verdict(&base, &base, &cfg("instructions"));
            assert_eq!(same.verdict, Verdict::Unchanged, "k = {k}");
            assert_eq!(same.p_value, 1.0, "k = {k}");
            let plus = verdict(&base, &run(10, 10, |_, _| k + 1.0), &cfg("instructions"));
            assert_eq!(plus.verdict, Verdict::Regressed, "k = {k}: {plus:?}");
            let minus = verdict(&base, &run(10, 10, |_, _| k - 1.0), &cfg("instructions"));
            // (-1 from 0 cannot happen to a count; the sign rule still says improved.)
            assert_eq!(minus.verdict, Verdict::Improved, "k = {k}: {minus:?}");
        }
    }

    #[test]
    fn exact_counts_with_a_little_skid_stay_unchanged_and_still_see_one_instruction() {
        // Hardware counts of a deterministic body move by a few hundredths per iteration
        // (an interrupt's skid spread over the sample's iterations).
        let mut rng = Rng::new(11);
        let mut noisy = |k: f64| run(10, 10, |_, _| k + 0.02 * rng.unit());
        for k in [37.0, 1001.0, 1e6] {
            let (a, b) = (noisy(k), noisy(k));
            assert_eq!(
                verdict(&a, &b, &cfg("instructions")).verdict,
                Verdict::Unchanged
            );
            let c = noisy(k + 1.0);
            assert_eq!(
                verdict(&a, &c, &cfg("instructions")).verdict,
                Verdict::Regressed
            );
        }
    }

    #[test]
    fn a_disturbed_stretch_of_the_run_is_not_a_change() {
        // Rounds 2, 3 and 4 of the new run ran 60% slower (a busy neighbour): the rounds it
        // left alone agree with the baseline's.
        let base = run(10, 10, |_, i| 1000.0 + i as f64);
        let new = run(10, 10, |r, i| {
            (1000.0 + i as f64) * if (2..5).contains(&r) { 1.6 } else { 1.0 }
        });
        let c = verdict(&base, &new, &cfg("wall-time"));
        assert_eq!(c.verdict, Verdict::Unchanged, "{c:?}");
        assert_eq!(c.ratio, Some(1.0));
        // The samples alone call it a change (this is what rounds are for).
        let flat = compare(
            &base.concat(),
            &new.concat(),
            &CompareConfig {
                threshold: 0.0,
                ..cfg("wall-time")
            },
        );
        assert_ne!(flat.verdict, Verdict::Unchanged, "{flat:?}");
    }

    #[test]
    fn a_real_slowdown_in_every_round_is_caught() {
        let mut rng = Rng::new(3);
        let mut noisy = |cost: f64| run(10, 10, |_, _| cost * (0.02 * rng.normal()).exp());
        let base = noisy(1000.0);
        let slow = noisy(1250.0);
        let c = verdict(&base, &slow, &cfg("wall-time"));
        assert_eq!(c.verdict, Verdict::Regressed, "{c:?}");
        let r = c.ratio.unwrap();
        assert!((1.15..1.35).contains(&r), "{r}");
        assert!(c.ci_low.unwrap() <= r && r <= c.ci_high.unwrap());
        let fast = noisy(700.0);
        assert_eq!(
            verdict(&base, &fast, &cfg("wall-time")).verdict,
            Verdict::Improved
        );
    }

    #[test]
    fn runs_pool_into_the_fastest_floor_and_keep_each_runs_own_spread() {
        let mut rng = Rng::new(21);
        let mut noisy = |cost: f64| run(10, 10, |_, _| cost * (0.01 * rng.normal()).exp());
        let (slow, fast, other) = (noisy(1046.0), noisy(1000.0), noisy(1001.0));
        let new = noisy(1100.0);
        let wall = cfg("wall-time");
        let compare = |base: &[&Vec<Vec<f64>>], new: &[&Vec<Vec<f64>>]| {
            fn runs<'a>(v: &[&'a Vec<Vec<f64>>]) -> Vec<Vec<&'a [f64]>> {
                v.iter().map(|r| slices(r)).collect()
            }
            let (b, n) = (runs(base), runs(new));
            let b: Vec<&[&[f64]]> = b.iter().map(Vec::as_slice).collect();
            let n: Vec<&[&[f64]]> = n.iter().map(Vec::as_slice).collect();
            compare_runs(&b, &n, &wall)
        };
        // One run a side is `compare_rounds`.
        assert_eq!(compare(&[&slow], &[&new]), verdict(&slow, &new, &wall));
        assert_eq!(compare(&[&slow], &[&new]).verdict, Verdict::Unchanged);
        // The fastest run's floor, whatever the order of the runs.
        let pooled = compare(&[&slow, &fast, &other], &[&new]);
        assert_eq!(pooled.verdict, Verdict::Regressed, "{pooled:?}");
        assert_eq!(pooled, compare(&[&other, &slow, &fast], &[&new]));
        let floor = |r: &Vec<Vec<f64>>| floor(&slices(r)).unwrap();
        assert_eq!(pooled.baseline, floor(&fast).min(floor(&other)));
        // Runs that differ do not widen the threshold: the runs' own spread does.
        assert_eq!(pooled.threshold, wall.threshold);
        // A run with too few rounds is left out; none left falls back to the samples.
        let short = run(2, 10, |_, _| 500.0);
        assert_eq!(
            compare(&[&slow, &short], &[&new]),
            compare(&[&slow], &[&new])
        );
        let samples = CompareConfig {
            threshold: wall.samples_threshold,
            ..wall
        };
        assert_eq!(
            compare(&[&short], &[&new]),
            crate::stats::compare(&short.concat(), &new.concat(), &samples)
        );
    }

    #[test]
    fn the_threshold_grows_with_the_spread_of_the_rounds() {
        // Most rounds disturbed by up to 60% (a busy neighbour; the noise of a shared machine
        // only adds): the interquartile range of the round figures is about a third, and with
        // it (`Spread::Iqr`) a 12% move of the floor is within what the rounds show.
        let mut rng = Rng::new(5);
        let mut wild = |cost: f64| {
            run(10, 5, |_, _| cost)
                .into_iter()
                .map(|r| {
                    let f = if rng.unit() < 0.7 {
                        1.0 + 0.6 * rng.unit()
                    } else {
                        1.0
                    };
                    r.into_iter().map(|x| x * f).collect()
                })
                .collect::<Vec<Vec<f64>>>()
        };
        let (a, b) = (wild(1000.0), wild(1120.0));
        let iqr = CompareConfig {
            spread: Spread::Iqr,
            ..cfg("wall-time")
        };
        let c = verdict(&a, &b, &iqr);
        assert!(c.threshold > 0.12, "{c:?}");
        assert_eq!(c.verdict, Verdict::Unchanged);
        // The default reads the floor's level alone: the rounds left undisturbed (three in
        // ten or more, all at the floor) agree, and 12% is a regression.
        let c = verdict(&a, &b, &cfg("wall-time"));
        assert_eq!(
            (c.threshold, c.verdict),
            (0.08, Verdict::Regressed),
            "{c:?}"
        );
        // Steady rounds: the 8% default, and the same 12% is a regression.
        let steady = |cost: f64| run(10, 5, |_, i| cost + i as f64);
        let c = verdict(&steady(1000.0), &steady(1120.0), &cfg("wall-time"));
        assert_eq!((c.threshold, c.verdict), (0.08, Verdict::Regressed));
    }

    #[test]
    fn the_iqr_of_the_floors_level_by_default_the_iqr_of_all_or_the_lower_quarter() {
        // ln round figures over the floor: the baseline came down to its floor in one round
        // and otherwise sat 12-14% higher; the new run is steady, 8.3% above that floor.
        let base_ln = [0.0, 0.12, 0.12, 0.12, 0.13, 0.13, 0.13, 0.14, 0.14, 0.14];
        let base = run(10, 3, |r, i| 1000.0 * f64::exp(base_ln[r]) + i as f64);
        let new = run(10, 3, |r, i| 1083.0 * f64::exp(0.001 * r as f64) + i as f64);
        let pooled = |b: f64, n: f64| (0.5 * (b * b + n * n)).sqrt();
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        // Interquartile ranges (ranks 2.25 and 6.75 of 0..9): 1.75% and 0.45%; lower
        // quarters (rank 2.25 over rank 0): 12% and 0.225%. The baseline's floor is one round
        // below a gap of 12%, fewer than a quarter of its rounds: its level is all of them.
        let (iqr, low) = (pooled(0.0175, 0.0045), pooled(0.12, 0.00225));
        let wall = cfg("wall-time");
        assert_eq!(wall.spread, Spread::Level);
        assert_eq!(Spread::default(), Spread::Level);
        // The default: 0.5 x 1.3% is below 8%, and 8.3% is a regression.
        let c = verdict(&base, &new, &wall);
        assert_eq!(
            (c.threshold, c.verdict),
            (0.08, Verdict::Regressed),
            "{c:?}"
        );
        for spread in [Spread::Level, Spread::Iqr] {
            let wide = CompareConfig {
                noise_factor: 100.0,
                spread,
                ..wall
            };
            let c = verdict(&base, &new, &wide);
            assert!(close(c.threshold, 100.0 * iqr), "{spread:?}: {c:?}");
        }
        // The lower quarter, times 1: 8.49%, and 8.3% is within it.
        let lq = CompareConfig {
            spread: Spread::low_quarter(),
            ..wall
        };
        let c = verdict(&base, &new, &lq);
        assert!(close(c.threshold, low), "{c:?}");
        assert_eq!(c.verdict, Verdict::Unchanged);
        // Its own factor; the noise factor plays no part in it.
        let lq4 = CompareConfig {
            spread: Spread::LowQuarter { factor: 4.0 },
            noise_factor: 100.0,
            ..wall
        };
        assert!(close(verdict(&base, &new, &lq4).threshold, 4.0 * low));
        // Everything but the threshold and the verdict is the same either way.
        let (a, b) = (verdict(&base, &new, &wall), verdict(&base, &new, &lq));
        assert_eq!(
            (a.baseline, a.ratio, a.ci_low, a.ci_high, a.p_value),
            (b.baseline, b.ratio, b.ci_low, b.ci_high, b.p_value)
        );
    }

    #[test]
    fn rounds_at_two_levels_grow_the_threshold_by_the_floors_level_alone() {
        // ln round figures: 4 of 10 rounds at the floor's level (within 1%), 6 at twice the
        // time; the new run the same, 10% slower.
        let levels = [0.0, 0.002, 0.006, 0.01, 0.69, 0.69, 0.7, 0.7, 0.71, 0.71];
        let at = |cost: f64, ln: &[f64]| run(10, 3, |r, i| cost * f64::exp(ln[r]) + i as f64);
        let (base, new) = (at(1000.0, &levels), at(1100.0, &levels));
        let wall = cfg("wall-time");
        // The level: IQR of the four lowest 0.55% (ranks 0.75 and 2.25), so 8% stands.
        let c = verdict(&base, &new, &wall);
        assert_eq!(
            (c.threshold, c.verdict),
            (0.08, Verdict::Regressed),
            "{c:?}"
        );
        // The IQR of all ten spans both levels (0.69 - 0.007): a threshold of 34%.
        let iqr = CompareConfig {
            spread: Spread::Iqr,
            ..wall
        };
        let c = verdict(&base, &new, &iqr);
        assert!(c.threshold > 0.3, "{c:?}");
        assert_eq!(c.verdict, Verdict::Unchanged);
        // Two of ten at the floor's level are fewer than a quarter: the IQR of all of them,
        // here the upper level's alone (1%), so 8% stands.
        let two = [0.0, 0.002, 0.69, 0.69, 0.69, 0.7, 0.7, 0.7, 0.71, 0.71];
        let (base, new) = (at(1000.0, &two), at(1100.0, &two));
        let (a, b) = (verdict(&base, &new, &wall), verdict(&base, &new, &iqr));
        assert_eq!((a.threshold, a.verdict), (b.threshold, b.verdict));
        assert_eq!(a.threshold, 0.08);
        // Steps of at most 5% are one level: rounds climbing 4% at a time are all of it.
        let climb: Vec<f64> = (0..10).map(|r| 0.04 * r as f64).collect();
        let (a, b) = (
            verdict(&at(1000.0, &climb), &at(1100.0, &climb), &wall),
            verdict(&at(1000.0, &climb), &at(1100.0, &climb), &iqr),
        );
        assert_eq!(a.threshold, b.threshold);
    }

    #[test]
    fn few_rounds_fall_back_to_the_samples_and_their_threshold() {
        let base = run(2, 30, |_, i| 1000.0 + (i % 5) as f64);
        let new = run(2, 30, |_, i| 2000.0 + (i % 5) as f64);
        let c = verdict(&base, &new, &cfg("wall-time"));
        let samples = CompareConfig {
            threshold: 0.25,
            ..cfg("wall-time")
        };
        assert_eq!(c, compare(&base.concat(), &new.concat(), &samples));
        assert_eq!(c.verdict, Verdict::Regressed);
        assert_eq!(c.threshold, 0.25);
        // A 15% change is within the samples' threshold, not within the rounds'.
        let new = run(2, 30, |_, i| 1150.0 + (i % 5) as f64);
        assert_eq!(
            verdict(&base, &new, &cfg("wall-time")).verdict,
            Verdict::Unchanged
        );
        let (b10, n10) = (
            run(10, 6, |_, i| 1000.0 + i as f64),
            run(10, 6, |_, i| 1150.0 + i as f64),
        );
        assert_eq!(
            verdict(&b10, &n10, &cfg("wall-time")).verdict,
            Verdict::Regressed
        );
    }

    #[test]
    fn zero_baselines_and_non_finite_values() {
        // Page faults: none in the baseline, 16 per iteration now.
        let base = run(5, 10, |_, _| 0.0);
        let new = run(5, 10, |_, _| 16.0);
        let c = verdict(&base, &new, &cfg("page-faults"));
        assert_eq!(c.verdict, Verdict::Regressed);
        assert_eq!((c.ratio, c.ci_low, c.ci_high), (None, None, None));
        // One stray fault in one round is no change.
        let stray = run(5, 10, |r, i| if r == 2 && i == 0 { 1e-3 } else { 0.0 });
        assert_eq!(
            verdict(&base, &stray, &cfg("page-faults")).verdict,
            Verdict::Unchanged
        );
        // NaN samples are dropped; a round with none finite is dropped.
        let mut with_nan = run(5, 10, |_, _| 100.0);
        with_nan[1] = vec![f64::NAN; 10];
        with_nan[2][3] = f64::INFINITY;
        assert_eq!(round_figures(&slices(&with_nan)).len(), 4);
        let c = verdict(&with_nan, &with_nan, &cfg("wall-time"));
        assert_eq!(c.verdict, Verdict::Unchanged);
        assert_eq!(c.ratio, Some(1.0));
        // A NaN threshold never flags.
        let nan = CompareConfig {
            threshold: f64::NAN,
            ..cfg("instructions")
        };
        assert_eq!(verdict(&base, &new, &nan).verdict, Verdict::Unchanged);
        // Environment counters: never.
        let cs = verdict(
            &run(5, 4, |_, _| 1e-4),
            &run(5, 4, |_, _| 1e-2),
            &cfg("context-switches"),
        );
        assert_eq!(cs.verdict, Verdict::Unchanged);
    }

    #[test]
    fn mann_whitney_matches_known_values() {
        // Complete separation of 10 vs 10 without ties: U = 100, z = 50 / sqrt(175) = 3.78.
        let a: Vec<f64> = (0..10).map(f64::from).collect();
        let b: Vec<f64> = (10..20).map(f64::from).collect();
        let p = mann_whitney_p(&a, &b);
        assert!((p - 1.57e-4).abs() < 0.05e-4, "{p}");
        assert!((mann_whitney_p(&a, &a) - 1.0).abs() < 1e-6);
    }
}
