//! The verdict on synthetic runs: a noise model whose profiles were fitted to real runs of
//! `bench-compare/verdict-suite` (the model's terms are `Profile`'s fields), and tests that hold
//! [`compare_rounds`] and [`compare_runs`] to their rates on it, with each spread measure
//! ([`Spread::Level`], the default; [`Spread::Iqr`]; [`Spread::LowQuarter`]) and a fixed seed,
//! and with the tool's confirmation in fresh processes modelled ([`Pairing::Confirmed`]). The tests assert the targets where
//! they hold and pin the other rates, so that a change of the rule shows.
//!
//! `cargo test -p perfbench-analysis --lib detection_by_profile -- --nocapture` prints the
//! detection tables (`detection_by_baseline_runs` for baselines of several runs). The fits, their
//! check against the measured runs and the tables are in the guide's docs/validation.md
//! ("Simulated runs").
//!
//! Its parts: `profiles` (the fitted noise profiles) and `model` (runs drawn from a profile, and
//! the rates the verdict gives on them); the tests are here.

use super::change::{Change, CompareConfig, Spread, Verdict};
use super::rng::Rng;
use super::rounds::{compare_rounds, compare_runs};

mod model;
mod profiles;

use model::*;
use profiles::*;

/// The targets on the profiles fitted here, under each spread measure. They hold
/// for `compute` and `sort`; `memory` meets the false alarms and +25% and misses 10% each
/// way, which the bounds pin a little below the rates it gives, so that a change of the rule
/// shows. Its misses are this machine's: measured here its floor took one of two levels about
/// 4.6% apart from run to run (the model's `p_high`), and the runs themselves, scaled by 1.1
/// and compared in every ordered pair, were caught in 71% of the pairs.
#[test]
fn the_targets_on_the_profiles_fitted_here() {
    let wall = CompareConfig::for_counter("wall-time");
    // memory: 1.25% false alarms each way; +10% 72.8%, 75.5% and 75.3%, -10% 68.8%, 70.3%
    // and 69.8% (IQR, lower quarter and the floor's level); +25% 99.75%, 100% and 100%.
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
    let memory_level = Bounds {
        slower_10: 0.70,
        faster_10: 0.65,
        ..TARGETS
    };
    for (spread, memory) in SPREADS.iter().zip([memory, memory_low, memory_level]) {
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
        let rates = target_rates(seed, p, &wall, Pairing::Runs(5));
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
            let mut cells = vec![rate_runs(seed, p, 0.0, &wall, None, Pairing::Runs(k))];
            for (j, shift) in [0.05, 0.10, 0.25].iter().enumerate() {
                let r = rate_runs(
                    seed + 1 + j as u64,
                    p,
                    *shift,
                    &wall,
                    Some(Verdict::Regressed),
                    Pairing::Runs(k),
                );
                cells.push(r);
            }
            cells.push(rate_runs(
                seed + 5,
                p,
                -0.10,
                &wall,
                Some(Verdict::Improved),
                Pairing::Runs(k),
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
        // Under the default spread (`Spread::Level`) its false alarms are 18.5% of single
        // pairs (1.8% with the tool's confirmation: `confirmation_by_profile`); 10% is caught
        // in about three pairs in five, 25% in nearly all. (`Spread::Iqr`: 3% false alarms, 10%
        // caught in a fifth.)
        (
            FIRST_MEMORY,
            Bounds {
                false_alarms: 0.20,
                slower_10: 0.55,
                faster_10: 0.58,
                slower_25: 0.97,
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

/// The verdict with the tool's confirmation modelled ([`Pairing::Confirmed`]) on every profile,
/// beside the single pair, for the default spread ([`Spread::Level`]) and the IQR of all rounds:
/// `cargo test -p perfbench-analysis --release --lib confirmation_by_profile -- --nocapture`
/// prints the table of the guide's validation page. With confirmation the default meets the
/// false-alarm target on every profile, the first fits' included (whose floors drift between
/// runs more than any run shows in itself: 18.5% of single pairs of `first memory`), and it
/// catches 10% at least about as often as the IQR everywhere.
#[test]
fn confirmation_by_profile() {
    let wall = CompareConfig::for_counter("wall-time");
    println!("| profile | spread | 0% (any flag): pair / confirmed | +10%: pair / confirmed | -10% (improved): pair / confirmed |");
    println!("| --- | --- | ---: | ---: | ---: |");
    let shifts = [
        (0.0, None),
        (0.10, Some(Verdict::Regressed)),
        (-0.10, Some(Verdict::Improved)),
    ];
    let mut confirmed = Vec::new();
    for spread in [Spread::Level, Spread::Iqr] {
        let cfg = CompareConfig { spread, ..wall };
        for (i, p) in PROFILES {
            let mut cells = Vec::new();
            let mut rates = Vec::new();
            for (j, (shift, expect)) in shifts.iter().enumerate() {
                let seed = 900 + 10 * i as u64 + j as u64;
                let pair = rate(seed, &p, *shift, &cfg, *expect);
                let conf = rate_runs(seed, &p, *shift, &cfg, *expect, Pairing::Confirmed);
                cells.push(format!("{:.1}% / {:.1}%", 100.0 * pair, 100.0 * conf));
                rates.push(conf);
            }
            println!("| {} | {spread:?} | {} |", p.name, cells.join(" | "));
            confirmed.push((p.name, rates));
        }
    }
    let (level, iqr) = confirmed.split_at(PROFILES.len());
    for ((name, l), (_, q)) in level.iter().zip(iqr) {
        assert!(l[0] <= TARGETS.false_alarms, "{name}: {l:?}");
        assert!(l[1] >= q[1] - 0.02, "{name}: level {l:?}, iqr {q:?}");
    }
}
