//! The sample plan: how many iterations each sample takes ([`Plan`], flat or linear, in
//! rounds), from the warm-up's time per iteration of the body and of its empty body, so that
//! the samples and their calibration runs fill the measurement time.

use super::body::Body;
use super::meter::Meter;
use crate::counters::wall_time_ns;

/// Sampling settings for one benchmark.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Samples per pass.
    pub sample_size: u32,
    /// Warm-up, nanoseconds.
    pub warm_up_ns: u64,
    /// Measurement time (all passes together), nanoseconds.
    pub measurement_ns: u64,
    /// Linear sampling (`(i + 1) * d` iterations) instead of flat.
    pub linear: bool,
    /// Rounds the samples are split into (at least 1; at most `sample_size`).
    pub rounds: u32,
    /// The stopping rule's target (a fraction: 0.01 for 1%): the samples are short
    /// ([`SAMPLE_NS`]), the benchmark stops after its [`rounds`](Self::rounds) once its
    /// figures have settled to this precision ([`settle`](super::settle)), and takes more
    /// rounds until they do, for at most [`measurement_ns`](Self::measurement_ns). `None` (and
    /// linear sampling): a fixed plan, its samples filling the measurement time.
    pub precision: Option<f64>,
}

impl Plan {
    /// The plan of a simulated sampler, whose samples are not planned by time.
    pub(super) fn simulated() -> Plan {
        Plan {
            sample_size: 2,
            warm_up_ns: 0,
            measurement_ns: 0,
            linear: false,
            rounds: 1,
            precision: None,
        }
    }

    /// Whether the stopping rule applies: a [`precision`](Self::precision) and flat sampling.
    pub fn stops_when_settled(&self) -> bool {
        self.precision.is_some() && !self.linear
    }

    /// The time the planned samples take, all passes together: the measurement time, or, where
    /// the stopping rule applies, [`SAMPLE_NS`] per sample (at most the measurement time).
    ///
    /// ```
    /// use perfbench::harness::sampler::{Plan, SAMPLE_NS};
    ///
    /// let fixed = Plan { sample_size: 100, warm_up_ns: 0, measurement_ns: 1_500_000_000, linear: false, rounds: 10, precision: None };
    /// assert_eq!(fixed.planned_ns(), 1_500_000_000);
    /// let settling = Plan { precision: Some(0.01), ..fixed };
    /// assert_eq!(settling.planned_ns(), 100 * SAMPLE_NS);
    /// let short = Plan { measurement_ns: 10_000_000, ..settling };
    /// assert_eq!(short.planned_ns(), 10_000_000);
    /// ```
    pub fn planned_ns(&self) -> u64 {
        if self.stops_when_settled() {
            (u64::from(self.sample_size.max(2)) * SAMPLE_NS).min(self.measurement_ns)
        } else {
            self.measurement_ns
        }
    }

    /// The rounds this plan really has: [`Plan::rounds`], at least 1, at most one per sample.
    ///
    /// ```
    /// use perfbench::harness::sampler::Plan;
    ///
    /// let plan = Plan { sample_size: 100, warm_up_ns: 0, measurement_ns: 0, linear: false, rounds: 0, precision: None };
    /// assert_eq!(plan.round_count(), 1);
    /// assert_eq!(Plan { rounds: 10, ..plan.clone() }.round_count(), 10);
    /// assert_eq!(Plan { rounds: 500, ..plan }.round_count(), 100);
    /// ```
    pub fn round_count(&self) -> u32 {
        self.rounds.clamp(1, self.sample_size.max(2))
    }

    /// Runs of the empty body per sample, on average: one before each sample, and more up
    /// front in a round of fewer than [`CALIBRATION_RUNS`] samples. What an iteration of a
    /// sample costs is the body's time plus this many of the empty body's, and the measurement
    /// time is spent on both.
    pub(super) fn calibrations_per_sample(&self) -> f64 {
        let samples = self.sample_size.max(2) as usize;
        let rounds = self.round_count() as usize;
        // Round r takes samples r, r + R, r + 2R, ...
        let runs: usize = (0..rounds)
            .map(|r| (samples - r).div_ceil(rounds).max(CALIBRATION_RUNS))
            .sum();
        runs as f64 / samples as f64
    }

    /// [`Plan::calibrations_per_sample`] for a paired run's worker, which calibrates each pass
    /// [`CALIBRATION_RUNS`] times before its first sample and once before every sample.
    pub(super) fn paired_calibrations_per_sample(&self) -> f64 {
        let samples = f64::from(self.sample_size.max(2));
        (samples + CALIBRATION_RUNS as f64) / samples
    }
}

/// The time a sample is planned to take where the stopping rule applies
/// ([`Plan::precision`]): 0.25 ms. Short, so that the planned samples of a quiet benchmark are
/// done in 25 ms and a timer interrupt (every 4 ms at 250 Hz) falls in about one sample in
/// sixteen, which the median passes over; long enough that the bracket (a few microseconds with
/// `read(2)`) is a small part of it, and calibration subtracts that part. On this project's VM
/// samples of 0.25 ms gave a headline that moved 3 to 5 times less from run to run than samples
/// of 1 ms (docs/validation.md, "The stopping rule").
pub const SAMPLE_NS: u64 = 250_000;

/// Calibration readings per pass, at least.
pub(super) const CALIBRATION_RUNS: usize = 21;

/// The first round's warm-up, which also times the body for the plan: the whole warm-up time
/// with one round, half of it with more (the other half is shared by the later rounds, so the
/// warm-up time stays what the user set).
pub(super) fn first_warm_up_ns(plan: &Plan) -> u64 {
    if plan.round_count() > 1 {
        plan.warm_up_ns / 2
    } else {
        plan.warm_up_ns
    }
}

/// The warm-up of each later round: its share of the other half of the warm-up time.
pub(super) fn later_warm_up_ns(plan: &Plan) -> u64 {
    let later = u64::from(plan.round_count().saturating_sub(1)).max(1);
    (plan.warm_up_ns - first_warm_up_ns(plan)) / later
}

/// Runs the body with doubling iteration counts until `budget_ns` is spent, the last run cut
/// to what is left of it (so the warm-up overruns its budget by at most about one iteration,
/// not by up to the whole budget again); returns the nanoseconds per iteration of the longest
/// run (the most precise; at least 0.01 ns).
pub(super) fn warm_up(body: &mut dyn Body, budget_ns: u64) -> f64 {
    let mut meter = Meter::idle();
    let start = wall_time_ns();
    let mut n = 1u64;
    let mut longest = (0u64, 0.01f64);
    loop {
        let t0 = wall_time_ns();
        body.run(n, &mut meter);
        let now = wall_time_ns();
        let per = (now.saturating_sub(t0) as f64 / n as f64).max(0.01);
        if n >= longest.0 {
            longest = (n, per);
        }
        let spent = now.saturating_sub(start);
        if spent >= budget_ns || n >= 1 << 40 {
            return longest.1;
        }
        // The iterations that fit in what is left, at the rate measured so far.
        let fit = ((budget_ns - spent) as f64 / longest.1).ceil().max(1.0);
        n = n.saturating_mul(2).min(fit as u64);
    }
}

/// Warms `body` up for nine tenths of `budget_ns`, which also times it and, for a batched
/// body, plans its batch (which `empty`, the calibration body, then takes too), and times
/// `empty` for the rest: the nanoseconds per iteration of each, and the batch.
pub(super) fn warm_up_both(
    body: &mut dyn Body,
    empty: &mut dyn Body,
    budget_ns: u64,
) -> (f64, f64, Option<u64>) {
    let body_ns = warm_up(body, budget_ns - budget_ns / 10);
    let batch = body.plan_batch(body_ns);
    if let Some(batch) = batch {
        empty.use_batch(batch);
    }
    let empty_ns = warm_up(empty, budget_ns / 10);
    (body_ns, empty_ns, batch)
}

/// A note when the plan will take more than twice the measurement time: a body slower than
/// `measurement time / samples` still gets one iteration per sample, as in criterion.
pub(super) fn overrun_note(
    plan: &Plan,
    iterations: &[u64],
    ns_per_iter: f64,
    passes: usize,
) -> Option<String> {
    let planned = iterations.iter().sum::<u64>() as f64 * ns_per_iter * passes.max(1) as f64;
    let budget = plan.measurement_ns as f64;
    if planned <= 2.0 * budget {
        return None;
    }
    let time = |ns: f64| crate::units::format_value(ns, "ns");
    Some(format!(
        "{} samples of {} at {} per iteration take about {}, more than the measurement time \
         of {}; lower sample_size (--sample-size) or raise measurement_time",
        iterations.len() * passes.max(1),
        match iterations.first() {
            Some(1) if !plan.linear => "1 iteration".to_owned(),
            _ if plan.linear => "growing iteration counts".to_owned(),
            Some(n) => format!("{n} iterations"),
            None => "no iterations".to_owned(),
        },
        time(ns_per_iter),
        time(planned),
        time(budget),
    ))
}

/// Iterations per sample for the plan, given the warm-up's time per iteration.
pub(crate) fn plan_iterations(plan: &Plan, ns_per_iter: f64, passes: usize) -> Vec<u64> {
    let samples = u64::from(plan.sample_size.max(2));
    let budget = plan.planned_ns() as f64 / passes.max(1) as f64;
    let per_iter = ns_per_iter.max(0.01);
    if plan.linear {
        // d * (1 + 2 + ... + S) iterations in all.
        let total = samples * (samples + 1) / 2;
        let d = (budget / (per_iter * total as f64)).ceil().max(1.0) as u64;
        (1..=samples).map(|i| i * d).collect()
    } else {
        let n = (budget / (per_iter * samples as f64)).ceil().max(1.0) as u64;
        vec![n; samples as usize]
    }
}

#[cfg(test)]
#[cfg(test)]
mod tests {
    use super::*;

    fn plan(linear: bool) -> Plan {
        Plan {
            sample_size: 10,
            warm_up_ns: 1_000_000,
            measurement_ns: 1_000_000_000,
            linear,
            rounds: 1,
            precision: None,
        }
    }

    #[test]
    fn flat_plan_spends_the_budget() {
        let it = plan_iterations(&plan(false), 100.0, 1);
        assert_eq!(it.len(), 10);
        assert!(it.iter().all(|&n| n == 1_000_000));
        let two_passes = plan_iterations(&plan(false), 100.0, 2);
        assert_eq!(two_passes[0], 500_000);
    }

    #[test]
    fn linear_plan_grows_by_d() {
        let it = plan_iterations(&plan(true), 100.0, 1);
        assert_eq!(it.len(), 10);
        let d = it[0];
        assert!(it.iter().enumerate().all(|(i, &n)| n == d * (i as u64 + 1)));
        let total: u64 = it.iter().sum();
        assert!((total as f64 * 100.0) >= 1e9 * 0.99);
    }

    #[test]
    fn slow_bodies_get_one_iteration() {
        let it = plan_iterations(&plan(false), 1e12, 1);
        assert!(it.iter().all(|&n| n == 1));
    }

    #[test]
    fn a_plan_that_overruns_the_measurement_time_says_so() {
        // 10 samples of a 10 ms body against 1 s: 100 ms, fine.
        let p = plan(false);
        let it = plan_iterations(&p, 1e7, 1);
        assert_eq!(overrun_note(&p, &it, 1e7, 1), None);
        // A 1 s body: 10 samples of one iteration take 10 s.
        let it = plan_iterations(&p, 1e9, 1);
        let note = overrun_note(&p, &it, 1e9, 1).unwrap();
        assert!(
            note.starts_with("10 samples of 1 iteration at 1.00 s per iteration take about 10.0 s"),
            "{note}"
        );
        assert!(note.contains("--sample-size"), "{note}");
        // Passes multiply it.
        let it = plan_iterations(&p, 3e8, 2);
        assert!(overrun_note(&p, &it, 3e8, 2)
            .unwrap()
            .starts_with("20 samples"));
    }

    #[test]
    fn calibration_runs_are_counted_in_a_sample_s_cost() {
        let mut p = plan(false);
        // 10 samples in one round: 21 calibration runs.
        assert!((p.calibrations_per_sample() - 2.1).abs() < 1e-12);
        // 100 in 10 rounds of 10: 21 in each round.
        p.sample_size = 100;
        p.rounds = 10;
        assert!((p.calibrations_per_sample() - 2.1).abs() < 1e-12);
        // 100 in one round: one before each sample.
        p.rounds = 1;
        assert_eq!(p.calibrations_per_sample(), 1.0);
        // 50 in 3 rounds of 17, 17 and 16: 21 each.
        p.sample_size = 50;
        p.rounds = 3;
        assert!((p.calibrations_per_sample() - 63.0 / 50.0).abs() < 1e-12);
        // A paired worker: 21 up front and one per sample, whatever the rounds.
        assert!((p.paired_calibrations_per_sample() - 71.0 / 50.0).abs() < 1e-12);
    }

    #[test]
    fn rounds_share_the_warm_up_time() {
        let mut p = plan(false);
        // One round: the whole warm-up, and no later round.
        assert_eq!((first_warm_up_ns(&p), later_warm_up_ns(&p)), (1_000_000, 0));
        p.rounds = 5;
        assert_eq!(first_warm_up_ns(&p) + 4 * later_warm_up_ns(&p), 1_000_000);
        assert_eq!(first_warm_up_ns(&p), 500_000);
        // More rounds than samples: one per sample.
        p.rounds = 1000;
        assert_eq!(p.round_count(), 10);
    }
}
