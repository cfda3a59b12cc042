//! The measuring engine behind [`Bencher`](super::Bencher): warm-up, the sample plan
//! ([`Plan`], flat or linear, in [`Plan::rounds`] rounds), overhead calibration with an empty body,
//! and the samples of every measurement pass ([`Counters::passes`]), each bracketed by a [`Meter`].
//!
//! A sample is `(delta - overhead) / n` per counter. The groups' times, read once at the start and
//! once at the end of a sample, outside the brackets ([`Group::read_counts`] reads counts only),
//! tell whether it was multiplexed, and then scale it. A counter whose readings repeat exactly is
//! read as its slope in the iteration count, so that per-sample constants cancel: through the
//! samples' own counts, two more readings at a quarter of `n` with flat sampling, or readings of
//! one input per bracket for a batched body (`Body::single`); readings with a
//! [`Group::slow_reads`] bracket are left out of that test. The guide's docs/measuring.md
//! ("How a benchmark is measured") explains each step.
//!
//! Its parts, one concept each: `plan` (how many iterations a sample takes, from the warm-up),
//! `meter` (the bracket, [`Meter`]), `body` (what is measured), `pass` (one pass of a round:
//! calibration, samples, probes and exact slopes), [`settle`] (the stopping rule: whether the
//! rounds so far are enough) and `remote` (a paired run's driver, as a worker sees it);
//! [`Sampler`] here puts them together for a benchmark's rounds. It reads
//! counters and the clock only through [`Meter`] and computes no statistics (the tool does).

mod body;
mod meter;
mod pass;
mod plan;
mod remote;
pub mod settle;

use std::fmt;
use std::sync::Arc;

use super::raw::RawCounter;
use super::simulate::Simulation;
use crate::counters::{CounterError, Counters, Group, Source};
use crate::sys::EventFd;

pub(crate) use body::{Body, Brackets};
pub use meter::Meter;
use pass::{prime, run_pass, PassState, PassValues};
pub(crate) use plan::plan_iterations;
use plan::{
    first_warm_up_ns, later_warm_up_ns, overrun_note, warm_up, warm_up_both, CALIBRATION_RUNS,
};
pub use plan::{Plan, SAMPLE_NS};
pub use remote::{Command, Remote};

/// Where a measurement is, for progress displays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// The current round (0-based).
    pub round: u32,
    /// Rounds in all: those planned, or the current one's number where the stopping rule
    /// took more.
    pub rounds: u32,
    /// The current pass (0-based).
    pub pass: usize,
    /// Passes in all.
    pub passes: usize,
    /// Samples taken in this pass, this round.
    pub sample: usize,
    /// Samples per pass, this round.
    pub samples: usize,
}

/// What a measured benchmark produced, counters in the order requested (estimates not yet
/// computed).
pub(crate) type Measured = Vec<RawCounter>;

/// Runs the plan for one benchmark, one round at a time: the runner gives the sampler to a
/// [`Bencher`](super::Bencher) for each round (moving it to the next round in between), and
/// takes the samples of every round at the end.
pub struct Sampler {
    counters: Counters,
    plan: Plan,
    /// The current round (0-based).
    round: u32,
    /// Iterations per sample of the whole plan, fixed by the first round's warm-up.
    iterations: Option<Vec<u64>>,
    /// The samples of the rounds so far, counters in the order requested.
    measured: Option<Measured>,
    /// Whether the benchmark called an `iter*` method in this round.
    called: bool,
    /// The first thing that went wrong.
    error: Option<String>,
    /// Called as each pass starts and after each sample.
    on_progress: Option<Box<dyn FnMut(Position)>>,
    /// Called with a line for the user (a plan that cannot keep to the measurement time).
    on_note: Option<Box<dyn FnMut(String)>>,
    /// In a paired run's worker: the driver, which decides when to sample (see [`Remote`]).
    remote: Option<Box<dyn Remote>>,
    /// Under Callgrind (`--simulate`): the simulated samples (see [`simulate`](super::simulate)).
    simulation: Option<Simulation>,
    /// A batched body's inputs per bracket, planned in the first round (see
    /// [`BatchSize::Auto`](super::bencher::BatchSize::Auto)).
    batch: Option<u64>,
    /// Profile mode: the sampling event the measured brackets switch on and off.
    gate: Option<Arc<EventFd>>,
    /// Whether the body measured its own time ([`Meter::elapsed`]): wall time only.
    self_timed: bool,
}

impl fmt::Debug for Sampler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sampler")
            .field("plan", &self.plan)
            .field("round", &self.round)
            .finish_non_exhaustive()
    }
}

impl Sampler {
    pub(crate) fn new(counters: Counters, plan: Plan) -> Sampler {
        Sampler {
            counters,
            plan,
            round: 0,
            iterations: None,
            measured: None,
            called: false,
            error: None,
            on_progress: None,
            on_note: None,
            remote: None,
            simulation: None,
            batch: None,
            gate: None,
            self_timed: false,
        }
    }

    /// Profile mode: the samples' brackets switch `gate` (a sampling event) on and off.
    pub(crate) fn set_profile_gate(&mut self, gate: Option<Arc<EventFd>>) {
        self.gate = gate;
    }

    /// A sampler under Callgrind: one simulated sample per round, its dumps written to
    /// `simulation`'s directory; the counters and the plan's times are not used.
    pub(crate) fn simulated(simulation: Simulation) -> Sampler {
        Sampler {
            simulation: Some(simulation),
            ..Sampler::new(Counters::empty(), Plan::simulated())
        }
    }

    /// The simulated measurement so far, under Callgrind.
    pub(crate) fn simulation(&self) -> Option<&Simulation> {
        self.simulation.as_ref()
    }

    /// A worker's sampler: warms up for the plan's warm-up time, then samples when `remote`
    /// says ([`Command`]); the plan's sample size, measurement time and rounds are not used.
    pub(crate) fn remote(counters: Counters, plan: Plan, remote: Box<dyn Remote>) -> Sampler {
        Sampler {
            remote: Some(remote),
            ..Sampler::new(counters, plan)
        }
    }

    pub(crate) fn on_progress(&mut self, f: impl FnMut(Position) + 'static) {
        self.on_progress = Some(Box::new(f));
    }

    pub(crate) fn on_note(&mut self, f: impl FnMut(String) + 'static) {
        self.on_note = Some(Box::new(f));
    }

    /// How this round went: `Ok(true)` when the benchmark measured in it, `Ok(false)` when it
    /// never called an `iter*` method, `Err` with what went wrong.
    pub(crate) fn round_result(&self) -> Result<bool, String> {
        match &self.error {
            Some(e) => Err(e.clone()),
            None => Ok(self.called),
        }
    }

    /// Moves on to the next round, with the counters opened for it (each round opens its own,
    /// so a suite of many benchmarks never holds the descriptors of all of them).
    pub(crate) fn next_round(&mut self, counters: Counters) {
        self.counters = counters;
        self.round += 1;
        self.called = false;
    }

    /// Whether the rounds so far are enough where the plan has a precision: the stopping rule
    /// ([`settle`]) holds for the samples so far. `false` without a precision, or before any
    /// sample.
    pub(crate) fn settled(&self) -> bool {
        match (self.plan.stops_when_settled(), &self.measured) {
            (true, Some(measured)) => settle::settled(measured, self.plan.precision.unwrap_or(0.0)),
            _ => false,
        }
    }

    /// The samples of every round: each counter's `per_iteration` and `iterations` in the
    /// order they were taken, and `rounds` with the samples per round. `None` when nothing was
    /// measured.
    pub(crate) fn into_measured(self) -> Option<Measured> {
        self.measured
    }

    pub(crate) fn run(&mut self, body: &mut dyn Body, empty: &mut dyn Body) {
        if self.error.is_some() {
            return;
        }
        if self.called {
            self.error = Some(
                "the benchmark called Bencher::iter* more than once; call exactly one".to_owned(),
            );
            return;
        }
        self.called = true;
        if let Some(sim) = self.simulation.as_mut() {
            if let Err(e) = sim.sample(body, empty) {
                self.error = Some(e);
            }
            return;
        }
        if let Some(mut remote) = self.remote.take() {
            let served = self.serve(body, empty, remote.as_mut());
            self.remote = Some(remote);
            match served.and_then(|m| self.timed_only(m)) {
                Ok(measured) => self.measured = Some(measured),
                Err(e) => self.error = Some(e),
            }
            return;
        }
        let round = self.measure(body, empty).map_err(|e| e.to_string());
        if let Err(e) = round
            .and_then(|r| self.timed_only(r))
            .and_then(|r| self.merge(r))
        {
            self.error = Some(e);
        }
    }

    /// A round's counters, less those a self-timed body ([`Meter::elapsed`]) has no figure
    /// for: all but wall time, which is the time it measured. Says so once per benchmark.
    fn timed_only(&mut self, mut round: Measured) -> Result<Measured, String> {
        if !self.self_timed {
            return Ok(round);
        }
        let before = round.len();
        round.retain(|c| c.name == crate::events::WALL_TIME);
        if round.is_empty() {
            return Err(
                "the routine measures its own time (criterion's iter_custom), so wall-time \
                        is its only counter: measure wall-time (add it to --counters)"
                    .to_owned(),
            );
        }
        if before > round.len() && self.round == 0 {
            if let Some(f) = self.on_note.as_mut() {
                f(
                    "the routine measures its own time (criterion's iter_custom): wall-time is \
                   that time, the other counters are not available for it"
                        .to_owned(),
                );
            }
        }
        Ok(round)
    }

    /// Adds one round's samples to those of the earlier rounds.
    fn merge(&mut self, round: Measured) -> Result<(), String> {
        let Some(all) = self.measured.as_mut() else {
            let mut round = round;
            for c in &mut round {
                c.rounds = vec![c.per_iteration.len() as u32];
            }
            self.measured = Some(round);
            return Ok(());
        };
        let names = |m: &Measured| m.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
        if names(all) != names(&round) {
            return Err(format!(
                "round {} measured other counters ({}) than the first ({})",
                self.round + 1,
                names(&round).join(", "),
                names(all).join(", ")
            ));
        }
        for (c, r) in all.iter_mut().zip(round) {
            c.rounds.push(r.per_iteration.len() as u32);
            c.per_iteration.extend(r.per_iteration);
            c.iterations.extend(r.iterations);
            c.multiplexed |= r.multiplexed;
        }
        Ok(())
    }

    fn measure(
        &mut self,
        body: &mut dyn Body,
        empty: &mut dyn Body,
    ) -> Result<Measured, CounterError> {
        let rounds = self.plan.round_count();
        let passes = self.counters.passes();
        let all = match &self.iterations {
            Some(all) => {
                if let Some(batch) = self.batch {
                    body.use_batch(batch);
                    empty.use_batch(batch);
                }
                // Warm the caches and predictors again after the other benchmarks' rounds.
                warm_up(body, later_warm_up_ns(&self.plan));
                all.clone()
            }
            None => {
                let (body_ns, empty_ns, batch) =
                    warm_up_both(body, empty, first_warm_up_ns(&self.plan));
                self.batch = batch;
                let ns_per_iter = body_ns + empty_ns * self.plan.calibrations_per_sample();
                let all = plan_iterations(&self.plan, ns_per_iter, passes.len());
                if let Some(note) = overrun_note(&self.plan, &all, ns_per_iter, passes.len()) {
                    if let Some(f) = self.on_note.as_mut() {
                        f(note);
                    }
                }
                self.iterations = Some(all.clone());
                all
            }
        };
        // This round's share of the plan: samples r, r + R, r + 2R, ... (a round beyond the
        // plan's, which the stopping rule asked for, takes the share of round r mod R).
        let iterations: Vec<u64> = all
            .iter()
            .skip((self.round % rounds) as usize)
            .step_by(rounds as usize)
            .copied()
            .collect();
        let round = self.round;
        let mut out: Vec<RawCounter> = Vec::new();
        for (index, pass) in passes.iter().enumerate() {
            let mut report = |sample: usize| {
                if let Some(f) = self.on_progress.as_mut() {
                    f(Position {
                        round,
                        rounds: rounds.max(round + 1),
                        pass: index,
                        passes: passes.len(),
                        sample,
                        samples: iterations.len(),
                    });
                }
            };
            report(0);
            let groups = &mut self.counters.groups_mut()[pass.groups.clone()];
            let columns = columns(groups, pass);
            for g in groups.iter() {
                g.reset()?;
                g.enable()?;
            }
            let measured = run_pass(
                &mut *groups,
                self.gate.as_deref(),
                (pass.wall_time, &pass.allocs),
                (body, empty),
                &iterations,
                round == 0,
                &mut report,
            );
            for g in groups.iter() {
                g.disable()?;
            }
            let (values, self_timed) = measured?;
            self.self_timed |= self_timed;
            out.extend(results(columns, values, &iterations));
        }
        Ok(self.in_requested_order(out))
    }

    /// `out` sorted in the order the user asked for the counters.
    fn in_requested_order(&self, mut out: Measured) -> Measured {
        let order: Vec<&str> = self
            .counters
            .events()
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        let rank = |name: &str| order.iter().position(|n| *n == name).unwrap_or(usize::MAX);
        crate::sorting::sort_by(&mut out, |a, b| rank(&a.name).cmp(&rank(&b.name)));
        out
    }

    /// A paired run's worker: warms up, tells the driver the time per iteration, then takes one
    /// sample (of every pass) per [`Command::Sample`] until [`Command::Finish`].
    fn serve(
        &mut self,
        body: &mut dyn Body,
        empty: &mut dyn Body,
        remote: &mut dyn Remote,
    ) -> Result<Measured, String> {
        let (body_ns, empty_ns, _) = warm_up_both(body, empty, self.plan.warm_up_ns);
        // The driver plans the samples from this.
        remote.ready(body_ns + empty_ns * self.plan.paired_calibrations_per_sample())?;
        let passes = self.counters.passes();
        let mut states: Vec<PassState> = passes.iter().map(|_| PassState::default()).collect();
        let mut iterations = Vec::new();
        let fail = |e: CounterError| e.to_string();
        while let Command::Sample(n) = remote.next()? {
            let n = n.max(1);
            for (pass, state) in passes.iter().zip(&mut states) {
                let groups = &mut self.counters.groups_mut()[pass.groups.clone()];
                for g in groups.iter() {
                    g.reset().map_err(fail)?;
                    g.enable().map_err(fail)?;
                }
                let mut meter = Meter::new(groups, pass.wall_time).counting_allocs(&pass.allocs);
                if state.calibration.is_empty() {
                    prime(&mut meter, body, empty);
                    for _ in 0..CALIBRATION_RUNS {
                        state.calibrate(&mut meter, empty, n);
                    }
                }
                state.sample(&mut meter, body, empty, n);
                self.self_timed |= meter.self_timed;
                if let Some(e) = meter.error.take() {
                    return Err(e.to_string());
                }
                for g in groups.iter() {
                    g.disable().map_err(fail)?;
                }
            }
            iterations.push(n);
            remote.sampled()?;
        }
        let mut out = Vec::new();
        for (pass, state) in passes.iter().zip(states) {
            let groups = &self.counters.groups_mut()[pass.groups.clone()];
            let columns = columns(groups, pass);
            let values = state.finish(&iterations, empty.per_pair(), columns.len());
            out.extend(results(columns, values, &iterations));
        }
        Ok(self.in_requested_order(out))
    }
}

/// The names, units and sources of a pass's columns: its groups' members, then wall time, then
/// the allocation counters.
fn columns(groups: &[Group], pass: &crate::counters::Pass) -> Vec<(String, &'static str, Source)> {
    let mut columns = Vec::new();
    for g in groups {
        for e in g.events() {
            columns.push((e.name.clone(), e.unit(), g.source()));
        }
    }
    if pass.wall_time {
        columns.push((crate::events::WALL_TIME.to_owned(), "ns", Source::Clock));
    }
    for a in &pass.allocs {
        columns.push((a.name().to_owned(), a.unit(), Source::Allocator));
    }
    columns
}

/// One counter result per column of a pass.
fn results(
    columns: Vec<(String, &'static str, Source)>,
    (values, multiplexed, overheads): PassValues,
    iterations: &[u64],
) -> Vec<RawCounter> {
    columns
        .into_iter()
        .enumerate()
        .map(|(c, (name, unit, source))| RawCounter {
            name,
            unit: unit.to_owned(),
            source,
            multiplexed: multiplexed[c],
            per_iteration: values.iter().map(|v| v[c]).collect(),
            iterations: iterations.to_vec(),
            rounds: Vec::new(),
            overhead: overheads[c],
        })
        .collect()
}
