//! The verdict on synthetic runs with the noise measured on this project's VM (issue 9,
//! evidence 1), and the statistics' properties (evidence 2).
//!
//! # The noise model
//! Each sample of a synthetic run (10 rounds of 10 samples) is the true cost times:
//!
//! - **sample noise**: lognormal, `sample_noise`;
//! - **spikes**: a share `spike_rate` of samples is hit by a preemption that adds up to
//!   `spike_max` (uniform);
//! - **round state**: a round is disturbed with probability `p_slow`; a disturbed round runs
//!   `slow` times the cost (uniform in that range), in every one of its samples;
//! - **run drift**: a lognormal factor per run, `run_drift`, and a run that with probability
//!   `p_all_slow` never sees an undisturbed round.
//!
//! # What was measured when
//! - `compute`, `memory`, `sort`: fitted 2026-11-26 to 21 runs of unchanged code on this VM,
//!   by `VERDICT_WORK=/tmp/perfbench-noise RUNS=21 SLOWDOWNS=0 bash bench-compare/verdict.sh &&
//!   python3 bench-compare/noise_fit.py /tmp/perfbench-noise/runs` (the script says how each
//!   parameter is estimated; the round states are read from the round medians). Sample noise
//!   0.7%, 2.7% and 2.2%; spikes on 10-14% of samples, up to +22% to +43%; 17%, 56% and 43%
//!   of rounds disturbed, by 1.03-1.38x, 1.04-1.81x and 1.04-1.45x; run drift 0.7%, 4.1% and
//!   1.0%; and 2 of 21 runs of the sort whose round medians never came down (`p_all_slow`
//!   0.1).
//! - `earlier steady`, `earlier contended`, `earlier bimodal`: fitted by an earlier session to
//!   the same kind of runs on an earlier, noisier VM: sample noise 1% or 2%, spikes on 3% of
//!   samples up to +50%, 10% to 60% of rounds disturbed by up to 1.6x (a busy neighbour), run
//!   drift 0.5% to 1%, and in `earlier bimodal` a run in twenty with no quiet round (4 of 21
//!   runs of the memory scan). They are kept as stress cases, the limits of separate runs:
//!   where most rounds are disturbed the threshold grows with their spread and 10% is within
//!   it, and a run with no quiet round reads as a change.
//!
//! The fitted model describes this VM's rounds less well than the parameters suggest: here
//! disturbances often hit some samples of a round, not all of them. Of the rounds whose median
//! was more than 10% above the run's fastest, 14 of 17, 25 of 75 and 21 of 44 still had a
//! sample within 3% of the run's floor; read from their smallest samples (the figure the
//! verdict compares) 3%, 27% and 11% of rounds were disturbed, not 17%, 56% and 43%. The model
//! slows every sample of a disturbed round, so, simulated from the fit, the interquartile
//! range of a run's ln round minima is 0.6%, 32% and 15% (measured: 0.4%, 2.9% and 0.9%),
//! which widens the thresholds of `memory` and `sort` past 10%. The measured runs themselves,
//! scaled by 1.1 and compared in every ordered pair, are caught in 100%, 71% and 100% of the
//! pairs, with no false alarm in any pair; the memory scan's misses come from its quiet level,
//! which took one of two values about 5% apart from run to run. `noise_fit.py` prints that
//! check for every fit.
//!
//! Every figure is checked over 400 pairs of runs (a fixed seed: the rates are the same on
//! every run of the test). The targets (at most 5% false alarms; a 10% change caught
//! 95% of the time; 25% caught 99% of the time) hold for `earlier steady`, and for `compute`
//! to within the Monte Carlo error at +10% (94.8% and 95.3% with two seeds); the tests pin
//! what the other profiles give.

use super::compare::{CompareConfig, Verdict};
use super::rng::Rng;
use super::rounds::compare_rounds;

#[derive(Clone, Copy, Debug)]
struct Profile {
    name: &'static str,
    /// The sigma of the lognormal noise of every sample.
    sample_noise: f64,
    /// The share of samples hit by a spike, and its largest size: a spike multiplies the
    /// sample by `1 + spike_max * U(0, 1)`.
    spike_rate: f64,
    spike_max: f64,
    /// The share of rounds that are disturbed, and the range of their factor (uniform).
    p_slow: f64,
    slow: (f64, f64),
    /// The sigma of the lognormal factor of each run.
    run_drift: f64,
    /// The share of runs in which every round is disturbed.
    p_all_slow: f64,
}

/// `verdict/compute`, fitted 2026-11-26 to 21 runs of unchanged code on this VM:
/// `VERDICT_WORK=/tmp/perfbench-noise RUNS=21 SLOWDOWNS=0 bash bench-compare/verdict.sh &&
/// python3 bench-compare/noise_fit.py /tmp/perfbench-noise/runs`.
const COMPUTE: Profile = Profile {
    name: "compute",
    sample_noise: 0.0071,
    spike_rate: 0.096,
    spike_max: 0.22,
    p_slow: 0.17,
    slow: (1.03, 1.38),
    run_drift: 0.0071,
    p_all_slow: 0.0,
};

/// `verdict/memory`, fitted 2026-11-26 as [`COMPUTE`].
const MEMORY: Profile = Profile {
    name: "memory",
    sample_noise: 0.0268,
    spike_rate: 0.129,
    spike_max: 0.43,
    p_slow: 0.56,
    slow: (1.04, 1.81),
    run_drift: 0.0411,
    p_all_slow: 0.0,
};

/// `verdict/sort`, fitted 2026-11-26 as [`COMPUTE`].
const SORT: Profile = Profile {
    name: "sort",
    sample_noise: 0.0224,
    spike_rate: 0.136,
    spike_max: 0.39,
    p_slow: 0.43,
    slow: (1.04, 1.45),
    run_drift: 0.0102,
    p_all_slow: 0.10,
};

/// The earlier VM's computation: steady rounds.
const EARLIER_STEADY: Profile = Profile {
    name: "earlier steady",
    sample_noise: 0.01,
    spike_rate: 0.03,
    spike_max: 0.5,
    p_slow: 0.1,
    slow: (1.02, 1.08),
    run_drift: 0.005,
    p_all_slow: 0.0,
};

/// The earlier VM's sort: half the rounds disturbed.
const EARLIER_CONTENDED: Profile = Profile {
    name: "earlier contended",
    sample_noise: 0.02,
    spike_rate: 0.03,
    spike_max: 0.5,
    p_slow: 0.5,
    slow: (1.3, 1.5),
    run_drift: 0.01,
    p_all_slow: 0.0,
};

/// The earlier VM's memory scan: most rounds disturbed, and a run now and then with no quiet
/// round.
const EARLIER_BIMODAL: Profile = Profile {
    name: "earlier bimodal",
    sample_noise: 0.02,
    spike_rate: 0.03,
    spike_max: 0.5,
    p_slow: 0.6,
    slow: (1.5, 1.6),
    run_drift: 0.01,
    p_all_slow: 0.05,
};

/// The rounds of a run as slices.
fn slices(r: &[Vec<f64>]) -> Vec<&[f64]> {
    r.iter().map(Vec::as_slice).collect()
}

const ROUNDS: usize = 10;
const PER_ROUND: usize = 10;
const PAIRS: usize = 400;

/// One run of `cost` under `p`: `ROUNDS` rounds of `PER_ROUND` per-iteration values.
fn simulate(rng: &mut Rng, p: &Profile, cost: f64) -> Vec<Vec<f64>> {
    let run = cost * (p.run_drift * rng.normal()).exp();
    let all_slow = rng.unit() < p.p_all_slow;
    (0..ROUNDS)
        .map(|_| {
            let state = if all_slow || rng.unit() < p.p_slow {
                rng.uniform(p.slow.0, p.slow.1)
            } else {
                1.0
            };
            (0..PER_ROUND)
                .map(|_| {
                    let spike = if rng.unit() < p.spike_rate {
                        1.0 + p.spike_max * rng.unit()
                    } else {
                        1.0
                    };
                    run * state * spike * (p.sample_noise * rng.normal()).exp()
                })
                .collect()
        })
        .collect()
}

/// The share of `PAIRS` comparisons of a baseline run at cost 1000 with a new run at
/// `1000 * (1 + shift)` that give `expect` (`None`: any verdict but unchanged).
fn rate(seed: u64, p: &Profile, shift: f64, cfg: &CompareConfig, expect: Option<Verdict>) -> f64 {
    let mut rng = Rng::new(seed);
    let mut hits = 0;
    for i in 0..PAIRS {
        let base = simulate(&mut rng, p, 1000.0);
        let new = simulate(&mut rng, p, 1000.0 * (1.0 + shift));
        let cfg = CompareConfig {
            seed: i as u64,
            resamples: 200,
            ..*cfg
        };
        let v = compare_rounds(&slices(&base), &slices(&new), &cfg).verdict;
        hits += usize::from(match expect {
            Some(e) => v == e,
            None => v != Verdict::Unchanged,
        });
    }
    hits as f64 / PAIRS as f64
}

/// The targets: at most 5% false alarms at zero shift; a 10% slowdown judged
/// regressed, and a 10% speedup improved, in at least 95% of pairs; a 25% slowdown in at least
/// 99%.
const TARGETS: Bounds = Bounds {
    false_alarms: 0.05,
    slower_10: 0.95,
    faster_10: 0.95,
    slower_25: 0.99,
};

/// What one profile must give: the most false alarms, the least detection of each shift.
#[derive(Clone, Copy, Debug)]
struct Bounds {
    false_alarms: f64,
    slower_10: f64,
    faster_10: f64,
    slower_25: f64,
}

/// The targets on the profiles fitted here. They hold for `compute` (its +10% is at the
/// target within the Monte Carlo error of 400 pairs, about one point); where the fitted model
/// misses one, the bound is pinned a little past the rate it gives, so that a change of the
/// rule shows. Those misses are the model's more than this machine's: every disturbed round
/// of the model is slowed in all its samples, its smallest included, while the rounds measured
/// here kept fast samples; see the module documentation.
#[test]
fn the_targets_on_the_profiles_fitted_here() {
    let wall = CompareConfig::for_counter("wall-time");
    let profiles = [
        // +10%: 95.3% here, 94.8% in `detection_by_profile`.
        (
            COMPUTE,
            Bounds {
                slower_10: 0.93,
                ..TARGETS
            },
        ),
        // Only the false alarms meet the target (3%); 10% is caught in about a fifth of the
        // pairs, 25% in seven eighths.
        (
            MEMORY,
            Bounds {
                slower_10: 0.20,
                faster_10: 0.15,
                slower_25: 0.80,
                ..TARGETS
            },
        ),
        // 10% false alarms (its two runs in 21 whose round medians never came down), 10%
        // caught in about 60% of the pairs; 25% at the target's edge (99.0% here, 98.8% in
        // `detection_by_profile`).
        (
            SORT,
            Bounds {
                false_alarms: 0.13,
                slower_10: 0.55,
                faster_10: 0.50,
                slower_25: 0.97,
            },
        ),
    ];
    for (i, (p, b)) in profiles.iter().enumerate() {
        let seed = 800 + 10 * i as u64;
        let r = rate(seed, p, 0.0, &wall, None);
        assert!(r <= b.false_alarms, "{}: false alarms {r}", p.name);
        let r = rate(seed + 1, p, 0.10, &wall, Some(Verdict::Regressed));
        assert!(r >= b.slower_10, "{}: +10% {r}", p.name);
        let r = rate(seed + 2, p, -0.10, &wall, Some(Verdict::Improved));
        assert!(r >= b.faster_10, "{}: -10% {r}", p.name);
        let r = rate(seed + 3, p, 0.25, &wall, Some(Verdict::Regressed));
        assert!(r >= b.slower_25, "{}: +25% {r}", p.name);
    }
}

#[test]
fn false_alarms_stay_below_five_percent_where_every_run_sees_a_quiet_round() {
    let wall = CompareConfig::for_counter("wall-time");
    for (i, p) in [EARLIER_STEADY, EARLIER_CONTENDED].iter().enumerate() {
        let r = rate(100 + i as u64, p, 0.0, &wall, None);
        assert!(r <= 0.05, "{}: {r}", p.name);
    }
    // A run that never sees a quiet round (5% of runs in `bimodal`) reads 50% slower in every
    // round, which no comparison of two separate runs can tell from a real slowdown: about one
    // pair in ten has such a run on one side. This is the limit of separate runs (paired runs
    // of the two builds cancel it), and the test pins it so that a change of the rule shows.
    let r = rate(102, &EARLIER_BIMODAL, 0.0, &wall, None);
    assert!(r <= 2.0 * EARLIER_BIMODAL.p_all_slow + 0.02, "bimodal: {r}");
}

#[test]
fn a_ten_percent_slowdown_is_caught_where_the_rounds_repeat() {
    // Where most rounds are disturbed, the threshold grows with their spread, and 10% is
    // within it (see `detection_by_profile`): the target holds for steady benchmarks.
    let wall = CompareConfig::for_counter("wall-time");
    let r = rate(200, &EARLIER_STEADY, 0.10, &wall, Some(Verdict::Regressed));
    assert!(r >= 0.95, "{r}");
    let r = rate(201, &EARLIER_STEADY, -0.10, &wall, Some(Verdict::Improved));
    assert!(r >= 0.95, "improvement: {r}");
}

#[test]
fn a_quarter_slower_is_caught_on_every_profile() {
    let wall = CompareConfig::for_counter("wall-time");
    for (i, (p, at_least)) in [
        (EARLIER_STEADY, 0.99),
        (EARLIER_CONTENDED, 0.99),
        (EARLIER_BIMODAL, 0.85),
    ]
    .iter()
    .enumerate()
    {
        let r = rate(400 + i as u64, p, 0.25, &wall, Some(Verdict::Regressed));
        assert!(r >= *at_least, "{}: {r}", p.name);
    }
}

/// The table README quotes: `cargo test -p perfbench --lib detection_by_profile --
/// --nocapture`.
#[test]
fn detection_by_profile() {
    let wall = CompareConfig::for_counter("wall-time");
    println!("| profile | 0% (any flag) | +5% | +10% | +15% | +25% | -10% (improved) |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    // Each profile keeps its seeds whatever the order of the rows.
    for (i, p) in PROFILES {
        let mut cells = vec![format!(
            "{:.1}%",
            100.0 * rate(500 + i as u64, &p, 0.0, &wall, None)
        )];
        for (j, shift) in [0.05, 0.10, 0.15, 0.25].iter().enumerate() {
            let r = rate(
                600 + 10 * i as u64 + j as u64,
                &p,
                *shift,
                &wall,
                Some(Verdict::Regressed),
            );
            cells.push(format!("{:.1}%", 100.0 * r));
        }
        let r = rate(680 + i as u64, &p, -0.10, &wall, Some(Verdict::Improved));
        cells.push(format!("{:.1}%", 100.0 * r));
        println!("| {} | {} |", p.name, cells.join(" | "));
    }
    // Detection grows with the shift on every profile.
    for (_, p) in PROFILES {
        let rates: Vec<f64> = [0.05, 0.15, 0.25]
            .iter()
            .map(|s| rate(700, &p, *s, &wall, Some(Verdict::Regressed)))
            .collect();
        assert!(
            rates.windows(2).all(|w| w[0] <= w[1]),
            "{}: {rates:?}",
            p.name
        );
    }
}

/// Every profile, the fitted ones first, each with the index of its seeds.
const PROFILES: [(usize, Profile); 6] = [
    (3, COMPUTE),
    (4, MEMORY),
    (5, SORT),
    (0, EARLIER_STEADY),
    (1, EARLIER_CONTENDED),
    (2, EARLIER_BIMODAL),
];

#[test]
fn exact_counts_one_instruction_is_always_seen_and_identical_never_flagged() {
    let ins = CompareConfig::for_counter("instructions");
    let mut rng = Rng::new(7);
    for _ in 0..200 {
        // k anywhere up to ten million instructions per iteration; a few hundredths of skid.
        let k = (rng.unit() * 1e7).floor();
        let run = |rng: &mut Rng, k: f64| -> Vec<Vec<f64>> {
            (0..ROUNDS)
                .map(|_| (0..PER_ROUND).map(|_| k + 0.03 * rng.unit()).collect())
                .collect()
        };
        let (a, b, c) = (run(&mut rng, k), run(&mut rng, k), run(&mut rng, k + 1.0));
        let same = compare_rounds(&slices(&a), &slices(&b), &ins);
        assert_eq!(same.verdict, Verdict::Unchanged, "k = {k}: {same:?}");
        let plus = compare_rounds(&slices(&a), &slices(&c), &ins);
        assert_eq!(plus.verdict, Verdict::Regressed, "k = {k}: {plus:?}");
    }
}

/// Evidence 2: properties of the statistics.
mod properties {
    use super::super::{estimate, StatsConfig};
    use super::*;

    fn shuffled(rng: &mut Rng, v: &[f64]) -> Vec<f64> {
        let mut v = v.to_vec();
        for i in (1..v.len()).rev() {
            v.swap(i, rng.below(i + 1));
        }
        v
    }

    #[test]
    fn the_interval_of_the_mean_covers_the_true_mean_near_the_nominal_rate() {
        let cfg = StatsConfig {
            resamples: 1000,
            ..StatsConfig::default()
        };
        let mut rng = Rng::new(21);
        let trials = 400;
        let mut covered = 0;
        for _ in 0..trials {
            let v: Vec<f64> = (0..50).map(|_| 100.0 + 5.0 * rng.normal()).collect();
            let e = estimate(&v, None, &cfg).unwrap();
            // The mean of every sample (no outliers in normal data at this size, nearly).
            covered += usize::from(e.ci_low <= 100.0 && 100.0 <= e.ci_high);
        }
        let rate = covered as f64 / trials as f64;
        println!("coverage of a nominal 95% interval: {:.1}%", 100.0 * rate);
        // The percentile bootstrap undercovers slightly at n = 50 (about 94%).
        assert!((0.90..=0.99).contains(&rate), "{rate}");
    }

    #[test]
    fn sample_and_round_order_change_nothing() {
        let mut rng = Rng::new(22);
        let wall = CompareConfig::for_counter("wall-time");
        for _ in 0..50 {
            let base = simulate(&mut rng, &EARLIER_CONTENDED, 1000.0);
            let new = simulate(&mut rng, &EARLIER_CONTENDED, 1100.0);
            let c = compare_rounds(&slices(&base), &slices(&new), &wall);
            // Samples shuffled within each round, and the rounds shuffled.
            let mut b2: Vec<Vec<f64>> = base.iter().map(|r| shuffled(&mut rng, r)).collect();
            b2.reverse();
            let n2: Vec<Vec<f64>> = new.iter().rev().map(|r| shuffled(&mut rng, r)).collect();
            assert_eq!(compare_rounds(&slices(&b2), &slices(&n2), &wall), c);
            // An estimate's descriptive figures do not depend on the order either.
            let flat = base.concat();
            let cfg = StatsConfig::default();
            let (e1, e2) = (
                estimate(&flat, None, &cfg).unwrap(),
                estimate(&shuffled(&mut rng, &flat), None, &cfg).unwrap(),
            );
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(1.0);
            for (a, b) in [
                (e1.point, e2.point),
                (e1.mean, e2.mean),
                (e1.median, e2.median),
                (e1.stddev, e2.stddev),
                (e1.mad, e2.mad),
                (e1.min, e2.min),
                (e1.max, e2.max),
            ] {
                assert!(close(a, b), "{a} vs {b}");
            }
            assert_eq!(e1.outliers, e2.outliers);
            // The bootstrap interval moves only by its Monte Carlo error.
            assert!(
                (e1.ci_low - e2.ci_low).abs() <= 0.01 * e1.point,
                "{e1:?} {e2:?}"
            );
            assert!(
                (e1.ci_high - e2.ci_high).abs() <= 0.01 * e1.point,
                "{e1:?} {e2:?}"
            );
        }
    }

    #[test]
    fn scaling_the_samples_scales_the_estimates_and_keeps_the_verdict() {
        let mut rng = Rng::new(23);
        let wall = CompareConfig::for_counter("wall-time");
        let cfg = StatsConfig::default();
        for scale in [1e-3, 0.5, 7.0, 1e6] {
            let base = simulate(&mut rng, &EARLIER_STEADY, 1000.0);
            let new = simulate(&mut rng, &EARLIER_STEADY, 1300.0);
            let scaled = |r: &[Vec<f64>]| -> Vec<Vec<f64>> {
                r.iter()
                    .map(|v| v.iter().map(|x| x * scale).collect())
                    .collect()
            };
            let (c1, c2) = (
                compare_rounds(&slices(&base), &slices(&new), &wall),
                compare_rounds(&slices(&scaled(&base)), &slices(&scaled(&new)), &wall),
            );
            assert_eq!(c1.verdict, c2.verdict);
            let rel = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs();
            assert!(rel(c1.ratio.unwrap(), c2.ratio.unwrap()));
            assert!(rel(c1.ci_low.unwrap(), c2.ci_low.unwrap()));
            assert!(rel(c1.ci_high.unwrap(), c2.ci_high.unwrap()));
            assert!(rel(c1.threshold, c2.threshold));
            assert!(rel(c1.baseline * scale, c2.baseline));
            let flat = base.concat();
            let e1 = estimate(&flat, None, &cfg).unwrap();
            let e2 = estimate(
                &flat.iter().map(|x| x * scale).collect::<Vec<_>>(),
                None,
                &cfg,
            )
            .unwrap();
            for (a, b) in [
                (e1.point, e2.point),
                (e1.mean, e2.mean),
                (e1.median, e2.median),
                (e1.stddev, e2.stddev),
                (e1.ci_low, e2.ci_low),
                (e1.ci_high, e2.ci_high),
                (e1.min, e2.min),
                (e1.max, e2.max),
            ] {
                assert!(rel(a * scale, b), "{a} x {scale} vs {b}");
            }
        }
    }
}
