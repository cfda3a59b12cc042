//! The verdict on synthetic runs: a noise model whose profiles were fitted to real runs of
//! `bench-compare/verdict-suite` (the model's terms are `Profile`'s fields), and tests that hold
//! [`compare_rounds`] and [`compare_runs`] to their rates on it, with either spread measure
//! ([`Spread::Iqr`], [`Spread::LowQuarter`]) and a fixed seed. The tests assert the targets where
//! they hold and pin the other rates, so that a change of the rule shows.
//!
//! `cargo test -p perfbench-analysis --lib detection_by_profile -- --nocapture` prints the
//! detection tables (`detection_by_baseline_runs` for baselines of several runs). The fits, their
//! check against the measured runs and the tables are in the guide's docs/validation.md
//! ("Simulated runs").

use super::compare::{CompareConfig, Spread, Verdict};
use super::rng::Rng;
use super::rounds::{compare_rounds, compare_runs};

#[derive(Clone, Copy, Debug)]
struct Profile {
    name: &'static str,
    /// The sigma of the lognormal noise of every sample.
    sample_noise: f64,
    /// The share of samples hit by a spike, and its largest size: a spike multiplies the
    /// sample by `1 + spike_max * U(0, 1)`.
    spike_rate: f64,
    spike_max: f64,
    /// The share of rounds that are disturbed, and the range of their factor (see
    /// `slow_shape`).
    p_slow: f64,
    slow: (f64, f64),
    /// The sigma of the lognormal factor of each run.
    run_drift: f64,
    /// The share of runs in which every round is disturbed.
    p_all_slow: f64,
    /// One-sided noise of each sample: a factor `exp(calm * sample_tail * E)`, `E` standard
    /// exponential (the noise of a shared machine only adds).
    sample_tail: f64,
    /// One-sided noise of each round, in all its samples: `exp(round_tail * E)`.
    round_tail: f64,
    /// The spread of the runs' noise levels: `calm = exp(noise_spread * N(0, 1))`, drawn per
    /// run, scales the samples' tail; 0: 1 in every run.
    noise_spread: f64,
    /// 0: a disturbed round's factor is uniform on `slow`. Above 0: it is 1 plus a Pareto
    /// excess with this tail index from `slow.0 - 1` to `slow.1 - 1` (mostly small, now and
    /// then large).
    slow_shape: f64,
    /// The share of disturbances that slow every sample of their round; each of the others
    /// slows each sample of its round with a chance drawn uniform on (0, 1), so that the
    /// round's smallest sample usually stays undisturbed. 1: every disturbance is whole.
    whole: f64,
    /// The overdispersion of the run's own `whole` (Beta, mean `whole`): 0, the same in every
    /// run; towards 1, some runs' disturbances are all whole and others' none.
    whole_spread: f64,
    /// The chance that a round goes on with the round before's disturbance (or quiet), factor
    /// and share included: disturbances that last longer than a round.
    persist: f64,
    /// The process's level: with chance `p_high` a run is `high` times slower in every sample,
    /// and at each round after the first it switches level with chance `p_switch`.
    p_high: f64,
    high: f64,
    p_switch: f64,
}

/// The fields that keep the first model's shape: every sample of a disturbed round slowed,
/// symmetric noise only, one level, no per-run state.
const FIRST_SHAPE: Profile = Profile {
    name: "",
    sample_noise: 0.0,
    spike_rate: 0.0,
    spike_max: 0.0,
    p_slow: 0.0,
    slow: (1.0, 1.0),
    run_drift: 0.0,
    p_all_slow: 0.0,
    sample_tail: 0.0,
    round_tail: 0.0,
    noise_spread: 0.0,
    slow_shape: 0.0,
    whole: 1.0,
    whole_spread: 0.0,
    persist: 0.0,
    p_high: 0.0,
    high: 1.0,
    p_switch: 0.0,
};

/// `verdict/compute`, fitted 2026-11-26 to 21 runs of unchanged code on this VM with the
/// model's present shape: `VERDICT_WORK=/tmp/perfbench-noise RUNS=21 SLOWDOWNS=0 bash
/// bench-compare/verdict.sh && python3 bench-compare/noise_fit.py /tmp/perfbench-noise/runs`.
const COMPUTE: Profile = Profile {
    name: "compute",
    sample_noise: 0.0000,
    spike_rate: 0.0486,
    spike_max: 0.2878,
    p_slow: 0.2115,
    slow: (1.050, 1.288),
    run_drift: 0.0009,
    p_all_slow: 0.0000,
    sample_tail: 0.0114,
    round_tail: 0.0030,
    noise_spread: 0.6393,
    slow_shape: 0.0139,
    whole: 0.0000,
    ..FIRST_SHAPE
};

/// `verdict/memory`, fitted as [`COMPUTE`].
const MEMORY: Profile = Profile {
    name: "memory",
    sample_noise: 0.0000,
    spike_rate: 0.0562,
    spike_max: 0.6432,
    p_slow: 0.5941,
    slow: (1.050, 2.151),
    run_drift: 0.0073,
    p_all_slow: 0.0000,
    sample_tail: 0.0250,
    round_tail: 0.0057,
    noise_spread: 1.0441,
    slow_shape: 0.9202,
    whole: 0.4067,
    whole_spread: 0.6774,
    persist: 0.3029,
    p_high: 0.4286,
    high: 1.0463,
    ..FIRST_SHAPE
};

/// `verdict/sort`, fitted as [`COMPUTE`].
const SORT: Profile = Profile {
    name: "sort",
    sample_noise: 0.0000,
    spike_rate: 0.0784,
    spike_max: 0.5026,
    p_slow: 0.5217,
    slow: (1.050, 1.491),
    run_drift: 0.0026,
    p_all_slow: 0.0000,
    sample_tail: 0.0185,
    round_tail: 0.0053,
    noise_spread: 0.8761,
    slow_shape: 0.3581,
    whole: 0.0670,
    whole_spread: 0.9000,
    persist: 0.0869,
    ..FIRST_SHAPE
};

/// The first fit of `verdict/compute` (2026-11-26, the same 21 runs as [`COMPUTE`]), with the
/// first model's shape: rounds read from their medians, every sample of a disturbed round
/// slowed.
const FIRST_COMPUTE: Profile = Profile {
    name: "first compute",
    sample_noise: 0.0071,
    spike_rate: 0.096,
    spike_max: 0.22,
    p_slow: 0.17,
    slow: (1.03, 1.38),
    run_drift: 0.0071,
    p_all_slow: 0.0,
    ..FIRST_SHAPE
};

/// The first fit of `verdict/memory`, as [`FIRST_COMPUTE`].
const FIRST_MEMORY: Profile = Profile {
    name: "first memory",
    sample_noise: 0.0268,
    spike_rate: 0.129,
    spike_max: 0.43,
    p_slow: 0.56,
    slow: (1.04, 1.81),
    run_drift: 0.0411,
    p_all_slow: 0.0,
    ..FIRST_SHAPE
};

/// The first fit of `verdict/sort`, as [`FIRST_COMPUTE`].
const FIRST_SORT: Profile = Profile {
    name: "first sort",
    sample_noise: 0.0224,
    spike_rate: 0.136,
    spike_max: 0.39,
    p_slow: 0.43,
    slow: (1.04, 1.45),
    run_drift: 0.0102,
    p_all_slow: 0.10,
    ..FIRST_SHAPE
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
    ..FIRST_SHAPE
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
    ..FIRST_SHAPE
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
    ..FIRST_SHAPE
};

/// The rounds of a run as slices.
fn slices(r: &[Vec<f64>]) -> Vec<&[f64]> {
    r.iter().map(Vec::as_slice).collect()
}

const ROUNDS: usize = 10;
const PER_ROUND: usize = 10;
const PAIRS: usize = 400;

/// A standard exponential variate.
fn exponential(rng: &mut Rng) -> f64 {
    -(1.0 - rng.unit()).ln()
}

/// A Gamma(`shape`, 1) variate: Marsaglia and Tsang (2000), boosted for shapes below 1.
fn gamma(rng: &mut Rng, shape: f64) -> f64 {
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
fn beta(rng: &mut Rng, mean: f64, spread: f64) -> f64 {
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
fn slow_factor(rng: &mut Rng, p: &Profile) -> f64 {
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
fn simulate(rng: &mut Rng, p: &Profile, cost: f64) -> Vec<Vec<f64>> {
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
fn rate(seed: u64, p: &Profile, shift: f64, cfg: &CompareConfig, expect: Option<Verdict>) -> f64 {
    rate_runs(seed, p, shift, cfg, expect, 1)
}

/// As [`rate`], with a baseline of `base_runs` runs (a baseline saved from that many runs of
/// one build; [`compare_runs`]). One run draws exactly what [`rate`] drew before baselines
/// could hold several.
fn rate_runs(
    seed: u64,
    p: &Profile,
    shift: f64,
    cfg: &CompareConfig,
    expect: Option<Verdict>,
    base_runs: usize,
) -> f64 {
    let mut rng = Rng::new(seed);
    let mut hits = 0;
    for i in 0..PAIRS {
        let base: Vec<Vec<Vec<f64>>> = (0..base_runs)
            .map(|_| simulate(&mut rng, p, 1000.0))
            .collect();
        let new = simulate(&mut rng, p, 1000.0 * (1.0 + shift));
        let cfg = CompareConfig {
            seed: i as u64,
            resamples: 200,
            ..*cfg
        };
        let base: Vec<Vec<&[f64]>> = base.iter().map(|r| slices(r)).collect();
        let base: Vec<&[&[f64]]> = base.iter().map(Vec::as_slice).collect();
        let v = compare_runs(&base, &[&slices(&new)], &cfg).verdict;
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

/// Asserts `b` for `p` under `cfg`, with the seeds from `seed` on.
fn assert_bounds(p: &Profile, b: &Bounds, cfg: &CompareConfig, seed: u64) {
    let name = format!("{} ({:?})", p.name, cfg.spread);
    let rates = [
        rate(seed, p, 0.0, cfg, None),
        rate(seed + 1, p, 0.10, cfg, Some(Verdict::Regressed)),
        rate(seed + 2, p, -0.10, cfg, Some(Verdict::Improved)),
        rate(seed + 3, p, 0.25, cfg, Some(Verdict::Regressed)),
    ];
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

/// The two spread measures of [`compare_rounds`]: the default, and the lower quarter.
const SPREADS: [Spread; 2] = [Spread::Iqr, Spread::low_quarter()];

/// The targets on the profiles fitted here, under either spread measure. They hold
/// for `compute` and `sort`; `memory` meets the false alarms and +25% and misses 10% either
/// way, which the bounds pin a little below the rates it gives, so that a change of the rule
/// shows. Its misses are this machine's: measured here its floor took one of two levels about
/// 4.6% apart from run to run (the model's `p_high`), and the runs themselves, scaled by 1.1
/// and compared in every ordered pair, were caught in 71% of the pairs.
#[test]
fn the_targets_on_the_profiles_fitted_here() {
    let wall = CompareConfig::for_counter("wall-time");
    // memory: 1.25% false alarms either way; +10% 72.8% and 75.5%, -10% 68.8% and 70.3%
    // (IQR and lower quarter); +25% 99.75% and 100%.
    let memory = Bounds {
        slower_10: 0.68,
        faster_10: 0.64,
        ..TARGETS
    };
    let memory_low = Bounds {
        slower_10: 0.70,
        faster_10: 0.65,
        ..TARGETS
    };
    for (spread, memory) in SPREADS.iter().zip([memory, memory_low]) {
        let cfg = CompareConfig {
            spread: *spread,
            ..wall
        };
        for (i, (p, b)) in [(COMPUTE, TARGETS), (MEMORY, memory), (SORT, TARGETS)]
            .iter()
            .enumerate()
        {
            assert_bounds(p, b, &cfg, 830 + 10 * i as u64);
        }
    }
}

/// A baseline saved from five runs of one build (the runs it keeps, [`compare_runs`]) meets the
/// targets for a slowdown on every profile fitted here, `memory` included: its floor is the
/// fastest of five runs, so a new run is no longer measured against a baseline that spent its
/// whole life in the slow process level (43% of single runs). False alarms stay at the target,
/// since a new run in the slow level is 4.6% above that floor, within the 8% threshold. A
/// speedup of 10% is caught less often on `memory` than with one run (about half of the pairs
/// against about 70%): a new run in the slow level improved by 10% is only 6% below the fastest
/// baseline run. A single new run cannot show which level it is in; pooling the runs of the new
/// build too (`perfbench compare` of two baselines saved from several runs) brings that back.
#[test]
fn a_baseline_of_five_runs_meets_the_slowdown_targets_on_the_profiles_fitted_here() {
    let wall = CompareConfig::for_counter("wall-time");
    for (i, (p, faster_10)) in [(COMPUTE, 0.95), (MEMORY, 0.45), (SORT, 0.95)]
        .iter()
        .enumerate()
    {
        let seed = 860 + 10 * i as u64;
        let rates = [
            rate_runs(seed, p, 0.0, &wall, None, 5),
            rate_runs(seed + 1, p, 0.10, &wall, Some(Verdict::Regressed), 5),
            rate_runs(seed + 2, p, -0.10, &wall, Some(Verdict::Improved), 5),
            rate_runs(seed + 3, p, 0.25, &wall, Some(Verdict::Regressed), 5),
        ];
        println!(
            "{} (5 base runs): false alarms, +10%, -10%, +25%: {rates:?}",
            p.name
        );
        assert!(rates[0] <= TARGETS.false_alarms, "{}: {rates:?}", p.name);
        assert!(rates[1] >= TARGETS.slower_10, "{}: {rates:?}", p.name);
        assert!(rates[2] >= *faster_10, "{}: {rates:?}", p.name);
        assert!(rates[3] >= TARGETS.slower_25, "{}: {rates:?}", p.name);
    }
}

/// Detection against baselines of 1, 3, 5 and 10 runs of one build (the guide's validation page):
/// `cargo test -p perfbench-analysis --lib detection_by_baseline_runs -- --nocapture`. More runs never
/// lose a 10% slowdown on the fitted profiles, and never raise false alarms above the target.
#[test]
fn detection_by_baseline_runs() {
    let wall = CompareConfig::for_counter("wall-time");
    println!("| profile | baseline runs | 0% (any flag) | +5% | +10% | +25% | -10% (improved) |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (i, p) in [COMPUTE, MEMORY, SORT, EARLIER_CONTENDED, EARLIER_BIMODAL]
        .iter()
        .enumerate()
    {
        let mut slower_10 = Vec::new();
        for k in [1, 3, 5, 10] {
            let seed = 1000 + 10 * i as u64;
            let mut cells = vec![rate_runs(seed, p, 0.0, &wall, None, k)];
            for (j, shift) in [0.05, 0.10, 0.25].iter().enumerate() {
                let r = rate_runs(
                    seed + 1 + j as u64,
                    p,
                    *shift,
                    &wall,
                    Some(Verdict::Regressed),
                    k,
                );
                cells.push(r);
            }
            cells.push(rate_runs(
                seed + 5,
                p,
                -0.10,
                &wall,
                Some(Verdict::Improved),
                k,
            ));
            let text: Vec<String> = cells.iter().map(|r| format!("{:.1}%", 100.0 * r)).collect();
            println!("| {} | {k} | {} |", p.name, text.join(" | "));
            if i < 3 {
                assert!(
                    cells[0] <= TARGETS.false_alarms,
                    "{} ({k} runs): {cells:?}",
                    p.name
                );
            }
            slower_10.push(cells[2]);
        }
        if i < 3 {
            assert!(
                slower_10.windows(2).all(|w| w[1] >= w[0] - 0.01),
                "{}: {slower_10:?}",
                p.name
            );
        }
    }
}

/// The first fits (the first model's shape, every sample of a disturbed round slowed) give
/// what they gave when they were the fitted profiles: the targets hold for `first compute`
/// (its +10% within the Monte Carlo error of 400 pairs); the other rates are pinned. Under
/// that shape `memory` and `sort` read 30 and 15 times as wide a spread of round minima as
/// the runs they were fitted to (the guide's docs/validation.md, "Simulated runs").
#[test]
fn the_first_fits_with_the_first_shape() {
    let wall = CompareConfig::for_counter("wall-time");
    let profiles = [
        // +10%: 95.3% here, 94.8% in `detection_by_profile`.
        (
            FIRST_COMPUTE,
            Bounds {
                slower_10: 0.93,
                ..TARGETS
            },
        ),
        // Only the false alarms meet the target (3%); 10% is caught in about a fifth of the
        // pairs, 25% in seven eighths.
        (
            FIRST_MEMORY,
            Bounds {
                slower_10: 0.20,
                faster_10: 0.15,
                slower_25: 0.80,
                ..TARGETS
            },
        ),
        // 10% false alarms, 10% caught in about 60% of the pairs; 25% at the target's edge
        // (99.0% here, 98.8% in `detection_by_profile`).
        (
            FIRST_SORT,
            Bounds {
                false_alarms: 0.13,
                slower_10: 0.55,
                faster_10: 0.50,
                slower_25: 0.97,
            },
        ),
    ];
    for (i, (p, b)) in profiles.iter().enumerate() {
        assert_bounds(p, b, &wall, 800 + 10 * i as u64);
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

/// The tables the guide's validation page quotes, one per spread measure (the same simulated runs in both):
/// `cargo test -p perfbench-analysis --lib detection_by_profile -- --nocapture`.
#[test]
fn detection_by_profile() {
    let wall = CompareConfig::for_counter("wall-time");
    for spread in SPREADS {
        let cfg = CompareConfig { spread, ..wall };
        println!("\nSpread::{spread:?}\n");
        println!("| profile | 0% (any flag) | +5% | +10% | +15% | +25% | -10% (improved) |");
        println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
        // Each profile keeps its seeds whatever the order of the rows.
        for (i, p) in PROFILES {
            let mut cells = vec![format!(
                "{:.1}%",
                100.0 * rate(500 + i as u64, &p, 0.0, &cfg, None)
            )];
            for (j, shift) in [0.05, 0.10, 0.15, 0.25].iter().enumerate() {
                let r = rate(
                    600 + 10 * i as u64 + j as u64,
                    &p,
                    *shift,
                    &cfg,
                    Some(Verdict::Regressed),
                );
                cells.push(format!("{:.1}%", 100.0 * r));
            }
            let r = rate(680 + i as u64, &p, -0.10, &cfg, Some(Verdict::Improved));
            cells.push(format!("{:.1}%", 100.0 * r));
            println!("| {} | {} |", p.name, cells.join(" | "));
        }
        // Detection grows with the shift on every profile.
        for (_, p) in PROFILES {
            let rates: Vec<f64> = [0.05, 0.15, 0.25]
                .iter()
                .map(|s| rate(700, &p, *s, &cfg, Some(Verdict::Regressed)))
                .collect();
            assert!(
                rates.windows(2).all(|w| w[0] <= w[1]),
                "{} ({spread:?}): {rates:?}",
                p.name
            );
        }
    }
}

/// Every profile, the fitted ones first, each with the index of its seeds (the first fits
/// keep theirs from when they were the fitted profiles; no two profiles share a seed).
const PROFILES: [(usize, Profile); 9] = [
    (11, COMPUTE),
    (12, MEMORY),
    (13, SORT),
    (3, FIRST_COMPUTE),
    (4, FIRST_MEMORY),
    (5, FIRST_SORT),
    (0, EARLIER_STEADY),
    (1, EARLIER_CONTENDED),
    (2, EARLIER_BIMODAL),
];

/// A run's ln floor, and the interquartile range and the lower quarter (25th percentile minus
/// the smallest) of its ln round minima: what [`compare_rounds`] reads from it.
fn run_figures(run: &[Vec<f64>]) -> (f64, f64, f64) {
    let ln: Vec<f64> = super::rounds::round_figures(&slices(run))
        .iter()
        .map(|x| x.ln())
        .collect();
    let p = super::univariate::Sample::new(&ln).unwrap().percentiles();
    (p.min(), p.iqr(), p.at(25.0) - p.min())
}

/// The median of some values.
fn median(v: &[f64]) -> f64 {
    super::univariate::Sample::new(v)
        .unwrap()
        .percentiles()
        .median()
}

/// The check of `bench-compare/noise_fit.py`, on this simulation: what the verdict reads from
/// 4000 runs of each fitted profile (the median absolute deviation of ln floor over runs, and
/// the medians over runs of the interquartile range and the lower quarter of ln round
/// minima) is within a factor of 1.5 of what it read from the 21 runs the profile was fitted
/// to.
#[test]
fn the_fitted_profiles_read_as_the_runs_they_were_fitted_to() {
    // Measured on /tmp/perfbench-noise/runs (noise_fit.py prints them).
    let measured = [
        (COMPUTE, [0.00075, 0.00399, 0.00127]),
        (MEMORY, [0.01922, 0.02900, 0.00585]),
        (SORT, [0.00193, 0.00909, 0.00343]),
    ];
    let mut rng = Rng::new(900);
    for (p, m) in measured {
        let runs: Vec<(f64, f64, f64)> = (0..4000)
            .map(|_| run_figures(&simulate(&mut rng, &p, 1000.0)))
            .collect();
        let floors: Vec<f64> = runs.iter().map(|r| r.0).collect();
        let mid = median(&floors);
        let deviations: Vec<f64> = floors.iter().map(|f| (f - mid).abs()).collect();
        let simulated = [
            median(&deviations),
            median(&runs.iter().map(|r| r.1).collect::<Vec<f64>>()),
            median(&runs.iter().map(|r| r.2).collect::<Vec<f64>>()),
        ];
        for (what, (s, m)) in ["MAD of ln floor", "IQR", "q25 - min"]
            .iter()
            .zip(simulated.iter().zip(m))
        {
            println!(
                "{} {what}: measured {:.3}%, simulated {:.3}%",
                p.name,
                100.0 * m,
                100.0 * s
            );
            assert!(
                (m / 1.5..=m * 1.5).contains(s),
                "{} {what}: {s} against {m}",
                p.name
            );
        }
    }
}

/// The parts of the model's shape do what its documentation says.
#[test]
fn the_model_parts() {
    let mut rng = Rng::new(901);
    let quiet = Profile {
        sample_tail: 0.01,
        ..FIRST_SHAPE
    };
    // A disturbance that hits a share of its round's samples (uniform) leaves the round's
    // smallest sample alone unless it hits them all: about 1 round in 11, against half of
    // the medians.
    let partial = Profile {
        p_slow: 1.0,
        slow: (2.0, 2.0),
        whole: 0.0,
        ..quiet
    };
    let (mut raised_min, mut raised_median, mut rounds) = (0, 0, 0);
    for _ in 0..200 {
        for r in simulate(&mut rng, &partial, 1000.0) {
            raised_min += usize::from(smallest(&r) > 1500.0);
            raised_median += usize::from(median(&r) > 1500.0);
            rounds += 1;
        }
    }
    let (min_share, median_share) = (
        raised_min as f64 / rounds as f64,
        raised_median as f64 / rounds as f64,
    );
    assert!((0.06..0.12).contains(&min_share), "{min_share}");
    assert!((0.4..0.6).contains(&median_share), "{median_share}");
    // Two process levels 5% apart, and a chance of switching at each round.
    let levels = Profile {
        p_high: 0.5,
        high: 1.05,
        ..quiet
    };
    let runs: Vec<Vec<Vec<f64>>> = (0..200)
        .map(|_| simulate(&mut rng, &levels, 1000.0))
        .collect();
    let high = runs
        .iter()
        .filter(|r| run_figures(r).0 > 1.03_f64.ln() + 1000f64.ln())
        .count();
    assert!((70..130).contains(&high), "{high}");
    // Without switching a run keeps its level; with it, some runs hold both.
    let both = |p: &Profile, rng: &mut Rng| {
        (0..200)
            .filter(|_| {
                let minima: Vec<f64> = simulate(rng, p, 1000.0)
                    .iter()
                    .map(|r| smallest(r))
                    .collect();
                smallest(&minima) < 1030.0 && minima.iter().any(|&m| m > 1045.0)
            })
            .count()
    };
    assert_eq!(both(&levels, &mut rng), 0);
    let switching = Profile {
        p_switch: 0.1,
        ..levels
    };
    assert!(both(&switching, &mut rng) > 50);
    // A disturbance that goes on: with `persist` 0.9 neighbouring rounds share it (the same
    // factor), and the share of disturbed rounds stays `p_slow`.
    let lasting = Profile {
        p_slow: 0.3,
        slow: (1.2, 1.8),
        persist: 0.9,
        ..quiet
    };
    let (mut same, mut pairs, mut disturbed, mut total) = (0, 0, 0, 0);
    for _ in 0..400 {
        let minima: Vec<f64> = simulate(&mut rng, &lasting, 1000.0)
            .iter()
            .map(|r| smallest(r))
            .collect();
        for w in minima.windows(2) {
            same += usize::from((w[0] / w[1] - 1.0).abs() < 0.05);
            pairs += 1;
        }
        disturbed += minima.iter().filter(|&&m| m > 1150.0).count();
        total += minima.len();
    }
    assert!(same as f64 / pairs as f64 > 0.85, "{same} of {pairs}");
    let share = disturbed as f64 / total as f64;
    assert!((0.2..0.4).contains(&share), "{share}");
    // The runs' noise levels: with `noise_spread` 1 the runs' smallest samples over their
    // rounds' spread differently from run to run; one-sided noise keeps every sample above
    // the cost.
    let spread_out = Profile {
        noise_spread: 1.0,
        ..quiet
    };
    let widths: Vec<f64> = (0..200)
        .map(|_| {
            let r = simulate(&mut rng, &spread_out, 1000.0);
            assert!(r.iter().flatten().all(|&x| x >= 1000.0));
            median(&r.concat()) / smallest(&r.concat()) - 1.0
        })
        .collect();
    let mut sorted = widths.clone();
    perfbench::sorting::sort_f64(&mut sorted);
    assert!(
        sorted[180] > 4.0 * sorted[20],
        "{:?}",
        (sorted[20], sorted[180])
    );
}

/// The smallest of some values.
fn smallest(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

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
