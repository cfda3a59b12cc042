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

use std::fmt;
use std::sync::Arc;

use super::raw::RawCounter;
use super::simulate::Simulation;
use crate::counters::{callgrind, wall_time_ns, CounterError, Counters, Group, Reading, Source};
use crate::sys::{EventFd, Scope};

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
}

impl Plan {
    /// The plan of a simulated sampler, whose samples are not planned by time.
    fn simulated() -> Plan {
        Plan {
            sample_size: 2,
            warm_up_ns: 0,
            measurement_ns: 0,
            linear: false,
            rounds: 1,
        }
    }

    /// The rounds this plan really has: [`Plan::rounds`], at least 1, at most one per sample.
    ///
    /// ```
    /// use perfbench::harness::sampler::Plan;
    ///
    /// let plan = Plan { sample_size: 100, warm_up_ns: 0, measurement_ns: 0, linear: false, rounds: 0 };
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
    fn calibrations_per_sample(&self) -> f64 {
        let samples = self.sample_size.max(2) as usize;
        let rounds = self.round_count() as usize;
        // Round r takes samples r, r + R, r + 2R, ...
        let runs: usize = (0..rounds)
            .map(|r| (samples - r).div_ceil(rounds).max(CALIBRATION_RUNS))
            .sum();
        runs as f64 / samples as f64
    }
}

/// Calibration readings per pass, at least.
const CALIBRATION_RUNS: usize = 21;

/// The bracket around measured code: reads the pass's counter groups (counts only, see
/// [`Group::read_counts`]) and the clock at [`Meter::start`] and again at [`Meter::stop`], and
/// adds up the differences. The groups' times are read once at the start and once at the end of
/// each sample, outside the brackets, to detect multiplexing (the guide's docs/measuring.md,
/// "Multiplexing").
pub struct Meter<'a> {
    groups: &'a mut [Group],
    wall: bool,
    /// Read the clock outside the counter reads (fast path) rather than inside (`read(2)`).
    clock_outside: bool,
    /// One reading per group.
    begin: Vec<Reading>,
    end: Vec<Reading>,
    begin_ns: u64,
    /// Every group's members, in order.
    acc: Vec<u64>,
    acc_ns: u64,
    /// Per group: `(time_enabled, time_running)` when the sample started ([`Meter::clear`]),
    /// and when its totals were taken ([`Meter::totals`]). The brackets read counts only.
    sample_start: Vec<(u64, u64)>,
    sample_end: Vec<(u64, u64)>,
    pairs: u64,
    /// The groups' [`Group::slow_reads`] summed when the sample started (after its times were
    /// read), against which [`Meter::totals`] sets `irregular`.
    slow_mark: u64,
    /// Whether a bracket read of the last sample went off the fast path's hot path (see
    /// [`Group::slow_reads`]); set by [`Meter::totals`].
    irregular: bool,
    error: Option<CounterError>,
    /// Under Callgrind (`--simulate`): the bracket turns collection on and off instead of
    /// reading anything.
    simulate: bool,
    /// Profile mode (`--profile`): a sampling event the bracket switches on at its start and
    /// off at its end, so only the measured region is sampled.
    gate: Option<&'a EventFd>,
    /// `simulate` or a gate: the one test the bracket's fast path makes.
    special: bool,
    /// Whether a body added time it measured itself ([`Meter::elapsed`]): its samples then have
    /// wall time only, and no bracket to calibrate away.
    self_timed: bool,
}

impl fmt::Debug for Meter<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Meter")
            .field("pairs", &self.pairs)
            .finish_non_exhaustive()
    }
}

impl<'a> Meter<'a> {
    fn new(groups: &'a mut [Group], wall: bool) -> Meter<'a> {
        let n: usize = groups.iter().map(Group::len).sum();
        // With the fast path the counters must not count the clock's vDSO code, whose seqlock
        // loop occasionally retries (the kernel updates its data on timer ticks) and would add
        // instructions to one sample: the clock goes outside, and wall time absorbs the
        // (calibrated) cost of the counter reads. With `read(2)` the clock goes inside, so wall
        // time does not carry the system calls.
        let clock_outside = !groups.is_empty() && groups.iter().all(|g| g.source() != Source::Read);
        let readings: Vec<Reading> = groups.iter().map(|g| Reading::with_len(g.len())).collect();
        Meter {
            wall,
            clock_outside,
            begin: readings.clone(),
            end: readings,
            begin_ns: 0,
            acc: vec![0; n],
            acc_ns: 0,
            sample_start: vec![(0, 0); groups.len()],
            sample_end: vec![(0, 0); groups.len()],
            pairs: 0,
            slow_mark: 0,
            irregular: false,
            error: None,
            simulate: false,
            gate: None,
            special: false,
            self_timed: false,
            groups,
        }
    }

    /// A meter over `groups` (no `wall-time`), for benchmarks of the harness's own bracket
    /// (`perfbench/benches/read_overhead.rs`); the harness makes its meters itself.
    #[doc(hidden)]
    pub fn over_groups(groups: &'a mut [Group]) -> Meter<'a> {
        Meter::new(groups, false)
    }

    /// This meter, switching `gate` (a sampling event) on and off with its brackets.
    fn gated(self, gate: Option<&'a EventFd>) -> Meter<'a> {
        Meter {
            special: self.simulate || gate.is_some(),
            gate,
            ..self
        }
    }

    /// A meter whose brackets turn Callgrind's collection on and off (see
    /// [`simulate`](super::simulate)).
    pub(crate) fn simulating() -> Meter<'static> {
        Meter {
            simulate: true,
            special: true,
            ..Meter::new(&mut [], false)
        }
    }

    /// The start/stop pairs since the meter was made or cleared.
    pub(crate) fn pairs(&self) -> u64 {
        self.pairs
    }

    /// The start/stop pairs a sample's calibration is scaled by: at least one for a bracketed
    /// body, none for a self-timed one ([`Meter::elapsed`]) beyond those it made.
    fn calibrated_pairs(&self) -> u64 {
        if self.self_timed {
            self.pairs
        } else {
            self.pairs.max(1)
        }
    }

    /// Whether brackets do more than read counters (under Callgrind, or switching a profile's
    /// sampling event): a body that times itself brackets its whole call there instead.
    pub(crate) fn is_special(&self) -> bool {
        self.special
    }

    /// Adds `elapsed`, which the body measured itself, to the sample's wall time, and marks the
    /// meter self-timed: such a body's benchmark reports wall time only.
    pub(crate) fn elapsed(&mut self, elapsed: std::time::Duration) {
        let ns = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        self.acc_ns = self.acc_ns.saturating_add(ns);
        self.self_timed = true;
    }

    /// A meter that reads nothing (smoke tests and warm-up).
    pub(crate) fn idle() -> Meter<'static> {
        Meter::new(&mut [], false)
    }

    /// Starts a sample: zeroes the sums and takes every group's times (outside any bracket),
    /// against which [`Meter::totals`] detects multiplexing.
    fn clear(&mut self) {
        self.acc.iter_mut().for_each(|v| *v = 0);
        self.acc_ns = 0;
        self.pairs = 0;
        self.read_times(Mark::Start);
        self.slow_mark = self.slow_reads();
    }

    /// The groups' [`Group::slow_reads`], summed.
    fn slow_reads(&self) -> u64 {
        self.groups.iter().map(Group::slow_reads).sum()
    }

    /// Every group's `(time_enabled, time_running)` now, through [`Group::read`] (the fast
    /// path's page times, extrapolated when the group is multiplexed; `read(2)`'s otherwise)
    /// into the group's `end` reading, which no bracket is using: outside the brackets, so its
    /// cost is in no count and no wall time.
    #[cold]
    #[inline(never)]
    fn read_times(&mut self, mark: Mark) {
        let marks = match mark {
            Mark::Start => &mut self.sample_start,
            Mark::End => &mut self.sample_end,
        };
        for ((group, scratch), times) in self.groups.iter_mut().zip(&mut self.end).zip(marks) {
            match group.read(scratch) {
                Ok(_) => *times = (scratch.time_enabled, scratch.time_running),
                Err(e) => {
                    self.error.get_or_insert(e);
                }
            }
        }
    }

    /// Starts a measured stretch: reads the counters and the clock (the clock first when the
    /// counters use the fast path, last otherwise).
    ///
    /// ```
    /// # let mut b = perfbench::Bencher::smoke_test();
    /// b.iter_custom(|n, meter| {
    ///     let mut v: Vec<u64> = (0..n).collect(); // not measured
    ///     meter.start();
    ///     v.sort_unstable();
    ///     meter.stop();
    ///     meter.start(); // any number of start/stop pairs: their deltas add up
    ///     let s: u64 = v.iter().sum();
    ///     meter.stop();
    ///     std::hint::black_box(s);
    /// });
    /// ```
    #[inline(always)]
    pub fn start(&mut self) {
        if self.special {
            return self.start_special();
        }
        self.start_counting();
    }

    /// [`Meter::start`] under Callgrind or with a sampling gate.
    #[cold]
    #[inline(never)]
    fn start_special(&mut self) {
        if self.simulate {
            callgrind::toggle_collect();
            return;
        }
        if let Some(gate) = self.gate {
            if let Err(e) = gate.enable(Scope::Event) {
                self.error.get_or_insert(CounterError::Io {
                    action: "enable the profile's sampling event",
                    errno: e,
                });
            }
        }
        self.start_counting();
    }

    #[inline(always)]
    fn start_counting(&mut self) {
        if self.wall && self.clock_outside {
            self.begin_ns = wall_time_ns();
        }
        for (group, begin) in self.groups.iter_mut().zip(&mut self.begin) {
            if let Err(e) = group.read_counts(begin) {
                self.error.get_or_insert(e);
            }
        }
        if self.wall && !self.clock_outside {
            self.begin_ns = wall_time_ns();
        }
    }

    /// Ends a measured stretch: reads the clock and the counters in the mirror order of
    /// [`Meter::start`], and adds the differences.
    ///
    /// See [`Meter::start`] for an example.
    #[inline(always)]
    pub fn stop(&mut self) {
        if self.special {
            return self.stop_special();
        }
        self.stop_counting();
    }

    /// [`Meter::stop`] under Callgrind or with a sampling gate.
    #[cold]
    #[inline(never)]
    fn stop_special(&mut self) {
        if self.simulate {
            callgrind::toggle_collect();
            self.pairs += 1;
            return;
        }
        self.stop_counting();
        if let Some(gate) = self.gate {
            if let Err(e) = gate.disable(Scope::Event) {
                self.error.get_or_insert(CounterError::Io {
                    action: "disable the profile's sampling event",
                    errno: e,
                });
            }
        }
    }

    #[inline(always)]
    fn stop_counting(&mut self) {
        if self.wall && !self.clock_outside {
            self.acc_ns += wall_time_ns().wrapping_sub(self.begin_ns);
        }
        self.stop_counters();
        if self.wall && self.clock_outside {
            self.acc_ns += wall_time_ns().wrapping_sub(self.begin_ns);
        }
        self.pairs += 1;
    }

    #[inline(always)]
    fn stop_counters(&mut self) {
        // Mirror order of `start`, so each group's bracket is nested inside the earlier ones.
        for (group, end) in self.groups.iter_mut().zip(&mut self.end).rev() {
            if let Err(e) = group.read_counts(end) {
                self.error.get_or_insert(e);
            }
        }
        let mut acc = self.acc.iter_mut();
        for (end, begin) in self.end.iter().zip(&self.begin) {
            // The group's readings drive the zip, so `acc` advances by exactly their length.
            for ((end, begin), acc) in end.values.iter().zip(&begin.values).zip(&mut acc) {
                *acc = acc.wrapping_add(end.wrapping_sub(*begin));
            }
        }
    }

    /// Ends a sample: sets `irregular` (whether a bracket read of the sample went off the hot
    /// path), takes every group's times again (outside any bracket) and returns the sample's
    /// totals ([`Meter::scaled_totals`]).
    fn totals(&mut self) -> (Vec<f64>, Vec<bool>) {
        // Before the times are read: only the brackets' reads count.
        self.irregular = self.slow_reads() != self.slow_mark;
        self.read_times(Mark::End);
        self.scaled_totals()
    }

    /// The accumulated differences: the groups' members, then wall time when measured; and,
    /// per column, whether its group was multiplexed during the sample (never for wall time).
    /// A group is multiplexed when its `time_running` advanced less than its `time_enabled`
    /// from [`Meter::clear`] to [`Meter::totals`] (running time only accumulates while the
    /// group is on the PMU, so equal advances mean it was there for the whole sample, brackets
    /// included); its counts are then scaled by the sample's `enabled / running` (see the
    /// guide's docs/measuring.md, "Multiplexing").
    fn scaled_totals(&self) -> (Vec<f64>, Vec<bool>) {
        let mut values = Vec::with_capacity(self.acc.len() + 1);
        let mut multiplexed = Vec::with_capacity(self.acc.len() + 1);
        let mut acc = self.acc.iter();
        for ((group, start), end) in self
            .groups
            .iter()
            .zip(&self.sample_start)
            .zip(&self.sample_end)
        {
            let (mux, scale) = sample_scale(*start, *end);
            for &x in (&mut acc).take(group.len()) {
                values.push(x as f64 * scale);
                multiplexed.push(mux);
            }
        }
        if self.wall {
            values.push(self.acc_ns as f64);
            multiplexed.push(false);
        }
        (values, multiplexed)
    }
}

/// Which of a sample's two time readings [`Meter::read_times`] takes.
#[derive(Clone, Copy)]
enum Mark {
    /// At [`Meter::clear`].
    Start,
    /// At [`Meter::totals`].
    End,
}

/// Whether a group whose `(time_enabled, time_running)` went from `start` to `end` over a
/// sample was multiplexed in it (`running` advanced less than `enabled`), and the factor that
/// scales its counts to the whole enabled time: `enabled / running` of the sample, or 1 when
/// it was not multiplexed or never ran (`running` did not advance: flagged, not scaled).
fn sample_scale(start: (u64, u64), end: (u64, u64)) -> (bool, f64) {
    let enabled = end.0.wrapping_sub(start.0);
    let running = end.1.wrapping_sub(start.1);
    let mux = running < enabled;
    let scale = if mux && running > 0 {
        enabled as f64 / running as f64
    } else {
        1.0
    };
    (mux, scale)
}

/// A bracket around measured code: a [`Meter`], or, under Callgrind, the collection toggle
/// ([`SimBracket`](super::simulate::SimBracket)). The harness's bodies are generic over it, so
/// each kind of bracket is compiled into the body without a run-time choice.
pub(crate) trait Brackets {
    /// Starts a measured stretch.
    fn start(&mut self);
    /// Ends it.
    fn stop(&mut self);
}

impl Brackets for Meter<'_> {
    #[inline(always)]
    fn start(&mut self) {
        Meter::start(self);
    }

    #[inline(always)]
    fn stop(&mut self) {
        Meter::stop(self);
    }
}

/// Code the sampler runs `n` times inside a [`Meter`].
pub(crate) trait Body {
    /// Runs `n` iterations, bracketing what counts with `meter`.
    fn run(&mut self, n: u64, meter: &mut Meter<'_>);

    /// Runs `n` iterations under Callgrind, the brackets turning collection on and off; returns
    /// the start/stop pairs made. By default through a simulating [`Meter`] (`iter_custom`'s
    /// user code takes a `Meter`); the harness's own bodies use the branch-free
    /// [`SimBracket`](super::simulate::SimBracket).
    fn run_simulated(&mut self, n: u64) -> u64 {
        let mut meter = Meter::simulating();
        self.run(n, &mut meter);
        meter.pairs()
    }

    /// `true` for a calibration body that brackets once whatever `n` is: its overhead is per
    /// start/stop pair, not per sample.
    fn per_pair(&self) -> bool {
        false
    }

    /// A batched body whose batch size is chosen from the warm-up ([`BatchSize::Auto`]):
    /// chooses it from the time per iteration and returns it; `None` for other bodies.
    ///
    /// [`BatchSize::Auto`]: super::bencher::BatchSize::Auto
    fn plan_batch(&mut self, _ns_per_iter: f64) -> Option<u64> {
        None
    }

    /// Uses `batch` inputs per bracket (a batch planned in an earlier round, or the measured
    /// body's, for its calibration body).
    fn use_batch(&mut self, _batch: u64) {}

    /// Inputs per bracket in a run of `n` iterations: more than 1 for a batched body.
    fn batch_at(&mut self, _n: u64) -> u64 {
        1
    }

    /// With `on`, a batched body takes one input per bracket until called again with `false`.
    ///
    /// A batch's bracket holds the batch's loop as well as the routine: its per-iteration and
    /// per-batch code depends on the inputs' and outputs' types, which the calibration body
    /// (unit inputs, an empty routine) does not share, so an exact counter of a batched sample
    /// reads a fraction more than the routine costs. With one input per bracket there is no
    /// loop inside the bracket, and the calibration cancels the bracket exactly: an exact
    /// counter's slope is taken from such readings ([`PassState::single`]).
    fn single(&mut self, _on: bool) {}
}

/// Where a measurement is, for progress displays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// The current round (0-based).
    pub round: u32,
    /// Rounds in all.
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
    on_progress: Option<Box<dyn FnMut(Progress)>>,
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

    pub(crate) fn on_progress(&mut self, f: impl FnMut(Progress) + 'static) {
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
        // This round's share of the plan: samples r, r + R, r + 2R, ...
        let iterations: Vec<u64> = all
            .iter()
            .skip(self.round as usize)
            .step_by(rounds as usize)
            .copied()
            .collect();
        let round = self.round;
        let mut out: Vec<RawCounter> = Vec::new();
        for (index, pass) in passes.iter().enumerate() {
            let mut report = |sample: usize| {
                if let Some(f) = self.on_progress.as_mut() {
                    f(Progress {
                        round,
                        rounds,
                        pass: index,
                        passes: passes.len(),
                        sample,
                        samples: iterations.len(),
                    });
                }
            };
            report(0);
            let groups = &mut self.counters.groups_mut()[pass.groups.clone()];
            let columns = columns(groups, pass.wall_time);
            for g in groups.iter() {
                g.reset()?;
                g.enable()?;
            }
            let measured = run_pass(
                &mut *groups,
                self.gate.as_deref(),
                pass.wall_time,
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
        // The driver plans the samples from this: each takes one run of the empty body, and
        // the pass's first takes CALIBRATION_RUNS.
        let sample_size = f64::from(self.plan.sample_size.max(2));
        let calibrations = (sample_size + CALIBRATION_RUNS as f64) / sample_size;
        remote.ready(body_ns + empty_ns * calibrations)?;
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
                let mut meter = Meter::new(groups, pass.wall_time);
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
            let columns = columns(groups, pass.wall_time);
            let values = state.finish(&iterations, empty.per_pair(), columns.len());
            out.extend(results(columns, values, &iterations));
        }
        Ok(self.in_requested_order(out))
    }
}

/// What a paired run's driver tells a worker's sampler to do next (see [`Remote`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// Take one sample of `n` iterations (with its calibration run) in every pass.
    Sample(u64),
    /// Stop sampling: the benchmark's `iter*` call returns with the samples taken.
    Finish,
}

/// The driver of a paired run, as a worker's sampler sees it (the runner's worker implements it
/// over its pipe): the sampler reports the end of its warm-up, then asks for commands.
pub trait Remote {
    /// The warm-up is done; `ns_per_iter` is what it measured an iteration of a sample to cost
    /// (the body's time, and the empty body's for the sample's share of calibration runs).
    fn ready(&mut self, ns_per_iter: f64) -> Result<(), String>;
    /// The next command (blocks until the driver sends one).
    fn next(&mut self) -> Result<Command, String>;
    /// The sample asked for is taken.
    fn sampled(&mut self) -> Result<(), String>;
}

/// The names, units and sources of a pass's columns: its groups' members, then wall time.
fn columns(groups: &[Group], wall_time: bool) -> Vec<(String, &'static str, Source)> {
    let mut columns = Vec::new();
    for g in groups {
        for e in g.events() {
            columns.push((e.name.clone(), e.unit(), g.source()));
        }
    }
    if wall_time {
        columns.push((crate::events::WALL_TIME.to_owned(), "ns", Source::Clock));
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

type PassValues = (Vec<Vec<f64>>, Vec<bool>, Vec<f64>);

/// One pass of a round: its calibration runs, samples and (for exact counters) probes, and
/// whether the body timed itself ([`Meter::elapsed`]). In the `first_round`, one discarded
/// reading of each body through the pass's meter comes first (see [`prime`]).
fn run_pass(
    groups: &mut [Group],
    gate: Option<&EventFd>,
    wall: bool,
    (body, empty): (&mut dyn Body, &mut dyn Body),
    iterations: &[u64],
    first_round: bool,
    progress: &mut dyn FnMut(usize),
) -> Result<(PassValues, bool), CounterError> {
    let mut meter = Meter::new(groups, wall).gated(gate);
    let columns = meter.acc.len() + usize::from(wall);
    let mut state = PassState::default();
    if first_round {
        prime(&mut meter, body, empty);
    }
    // Calibration runs are interleaved with the samples (one before each, plus a few up
    // front), so drift of the machine affects both alike.
    let extra = CALIBRATION_RUNS.saturating_sub(iterations.len());
    for i in 0..extra {
        state.calibrate(&mut meter, empty, iterations[i % iterations.len().max(1)]);
    }
    for (i, &n) in iterations.iter().enumerate() {
        state.sample(&mut meter, body, empty, n);
        progress(i + 1);
    }
    let per_pair = empty.per_pair();
    let any_exact =
        |state: &PassState| (0..columns).any(|c| state.exact_points(c, per_pair).is_some());
    // A batched body's exact counters take their slope from readings of one input per bracket
    // (see `Body::single` and the module docs), at two iteration counts, flat or linear.
    let batched = iterations.iter().any(|&n| body.batch_at(n) > 1);
    if batched && any_exact(&state) {
        body.single(true);
        empty.single(true);
        for m in SINGLE_PROBE_ITERATIONS {
            for _ in 0..PROBES {
                state.probe_single(&mut meter, body, empty, m);
            }
        }
        body.single(false);
        empty.single(false);
    }
    // A flat plan has one iteration count: exact counters need a second one (see the module
    // docs, 7). Two readings, which must agree; and two at `n` again when every sample's
    // reading was left out (a round of one sample whose bracket read retried).
    let flat = iterations.windows(2).all(|w| w[0] == w[1]);
    if let (false, true, Some(&n)) = (batched, flat, iterations.first()) {
        if any_exact(&state) {
            let again = state.irregular.samples.len() == state.totals.len();
            let counts = [probe_iterations(n), n];
            for &m in &counts[..1 + usize::from(again)] {
                for _ in 0..PROBES {
                    state.probe(&mut meter, body, empty, m);
                }
            }
        }
    }
    if let Some(e) = meter.error.take() {
        return Err(e);
    }
    Ok((
        state.finish(iterations, per_pair, columns),
        meter.self_timed,
    ))
}

/// One discarded reading of one iteration of the empty body and of the body, through `meter`.
///
/// The warm-up runs the body without counters, so the first reading through a meter with
/// groups is the first time the bracket's code inlined into the body runs at all: where that
/// code sits on a page of the executable not touched before, the first sample pays a page fault
/// for it (seen once in CI: one page fault in the first of 50 samples of an empty body, in a
/// debug build). Exact counters must not see such one-time costs, so the first round of every
/// pass takes them here. The cost is one iteration of each body per pass, once per benchmark.
fn prime(meter: &mut Meter<'_>, body: &mut dyn Body, empty: &mut dyn Body) {
    meter.clear();
    empty.run(1, meter);
    meter.totals();
    meter.clear();
    body.run(1, meter);
    meter.totals();
}

/// Readings a flat pass takes at a second iteration count ([`probe_iterations`]) when a
/// counter is exact, to derive its slope (and a batched body's pass at each of
/// [`SINGLE_PROBE_ITERATIONS`]).
const PROBES: usize = 2;

/// The iteration counts of a batched body's readings of one input per bracket
/// (`Body::single`): two, for a slope; small, so that a costly setup or bracket costs little.
const SINGLE_PROBE_ITERATIONS: [u64; 2] = [4, 8];

/// The second iteration count of a flat pass whose samples take `n`: a quarter of it (at least
/// 1, and never `n` itself). Any other count gives an exact counter's slope alike; a smaller
/// one keeps the probes' cost to half a sample's time (at `2n`, the two probes of each round
/// added four samples' time to its ten on the default plan).
fn probe_iterations(n: u64) -> u64 {
    if n >= 2 {
        (n / 4).max(1)
    } else {
        2
    }
}

/// A pass's readings so far: the calibration runs and the samples' totals.
#[derive(Default)]
struct PassState {
    /// (iterations, totals) of each calibration run.
    calibration: Vec<(u64, Vec<f64>)>,
    /// Each sample's totals and its start/stop pairs.
    totals: Vec<(Vec<f64>, u64)>,
    /// The indices in `calibration` and in `totals` of the readings a bracket read of which
    /// went off the fast path's hot path ([`Group::slow_reads`]): left out of the exactness
    /// test (see the module docs).
    irregular: Irregular,
    /// Per column: whether its group was multiplexed in any sample.
    multiplexed: Vec<bool>,
    /// Readings at a second iteration count, for exact counters only. Not samples.
    probes: Vec<Probe>,
    /// A batched body's readings of one input per bracket (`Body::single`), for exact
    /// counters only: when there are any, an exact counter's slope is theirs.
    single: Vec<Probe>,
}

/// The readings of a [`PassState`] left out of its exactness test.
#[derive(Default)]
struct Irregular {
    /// Indices in [`PassState::calibration`].
    calibration: Vec<usize>,
    /// Indices in [`PassState::totals`].
    samples: Vec<usize>,
}

/// One reading of a flat pass for its exactness test, apart from the samples: at its second
/// iteration count ([`probe_iterations`]), or at its own when every sample was left out.
struct Probe {
    /// Its iteration count.
    n: u64,
    /// The empty body's totals, and whether a bracket read went off the hot path.
    calibration: (Vec<f64>, bool),
    /// The body's totals, and whether a bracket read went off the hot path.
    totals: (Vec<f64>, bool),
    /// The body's start/stop pairs.
    pairs: u64,
}

/// Below 2^53: every such whole number is an exact f64, and so is a difference.
fn whole(x: f64) -> bool {
    x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0
}

impl PassState {
    /// One calibration run: the empty body through the same bracket, `n` iterations.
    fn calibrate(&mut self, meter: &mut Meter<'_>, empty: &mut dyn Body, n: u64) {
        meter.clear();
        empty.run(n, meter);
        let (t, _) = meter.totals();
        if meter.irregular {
            self.irregular.calibration.push(self.calibration.len());
        }
        self.calibration.push((n, t));
    }

    /// One sample of `n` iterations, after a calibration run of its own.
    fn sample(&mut self, meter: &mut Meter<'_>, body: &mut dyn Body, empty: &mut dyn Body, n: u64) {
        self.calibrate(meter, empty, n);
        meter.clear();
        body.run(n, meter);
        let (t, mux) = meter.totals();
        if self.multiplexed.len() < mux.len() {
            self.multiplexed.resize(mux.len(), false);
        }
        for (any, now) in self.multiplexed.iter_mut().zip(mux) {
            *any |= now;
        }
        if meter.irregular {
            self.irregular.samples.push(self.totals.len());
        }
        self.totals.push((t, meter.calibrated_pairs()));
    }

    /// One reading at `n` iterations for the exactness derivation: the empty body, then the
    /// body, kept apart from the samples.
    fn probe(&mut self, meter: &mut Meter<'_>, body: &mut dyn Body, empty: &mut dyn Body, n: u64) {
        let p = self.reading(meter, body, empty, n);
        self.probes.push(p);
    }

    /// A reading of `n` iterations of a batched body made to take one input per bracket
    /// ([`Body::single`]), after the same of the empty body.
    fn probe_single(
        &mut self,
        meter: &mut Meter<'_>,
        body: &mut dyn Body,
        empty: &mut dyn Body,
        n: u64,
    ) {
        let p = self.reading(meter, body, empty, n);
        self.single.push(p);
    }

    /// The empty body's reading of `n` iterations, then the body's (its multiplexing noted).
    fn reading(
        &mut self,
        meter: &mut Meter<'_>,
        body: &mut dyn Body,
        empty: &mut dyn Body,
        n: u64,
    ) -> Probe {
        meter.clear();
        empty.run(n, meter);
        let calibration = (meter.totals().0, meter.irregular);
        meter.clear();
        body.run(n, meter);
        let (totals, mux) = meter.totals();
        for (any, now) in self.multiplexed.iter_mut().zip(mux) {
            *any |= now;
        }
        Probe {
            n,
            calibration,
            totals: (totals, meter.irregular),
            pairs: meter.calibrated_pairs(),
        }
    }

    /// Column `c`'s `(iterations, total - overhead)` at each iteration count of the single
    /// probes ([`PassState::single`]), when every regular one is a whole number and all at one
    /// count read the same; `None` otherwise.
    fn single_points(&self, c: usize) -> Option<Vec<(u64, f64)>> {
        let mut points: Vec<(u64, f64)> = Vec::new();
        for p in self
            .single
            .iter()
            .filter(|p| !p.calibration.1 && !p.totals.1)
        {
            let (t, o) = (
                p.totals.0.get(c).copied()?,
                p.calibration.0.get(c).copied()?,
            );
            if !(whole(t) && whole(o)) {
                return None;
            }
            let d = t - o;
            match points.iter().find(|q| q.0 == p.n) {
                Some(q) if q.1 != d => return None,
                Some(_) => {}
                None => points.push((p.n, d)),
            }
        }
        Some(points)
    }

    /// Column `c`'s `(iterations, total - overhead)` at each iteration count of the pass
    /// (samples and probes) when all its regular readings are exact: whole numbers, not
    /// multiplexed, and at each iteration count every regular calibration run reads the same,
    /// and every regular reading of the body too (for a per-pair calibration, every regular
    /// calibration run reads the same). A reading is regular when none of its bracket reads
    /// went off the hot path ([`PassState::irregular`]); a body reading at an iteration count
    /// no regular calibration run had is left out too (so the points may be none). `None`
    /// otherwise.
    fn exact_points(&self, c: usize, per_pair: bool) -> Option<Vec<(u64, f64)>> {
        if self.multiplexed.get(c).copied().unwrap_or(false) {
            return None;
        }
        let calibrations = self
            .calibration
            .iter()
            .enumerate()
            .filter(|(i, _)| !self.irregular.calibration.contains(i))
            .map(|(_, (n, v))| (*n, v.get(c).copied()))
            .chain(
                self.probes
                    .iter()
                    .filter(|p| !p.calibration.1)
                    .map(|p| (p.n, p.calibration.0.get(c).copied())),
            );
        // (iterations, calibration reading), one per iteration count (per pair: one in all).
        let mut overheads: Vec<(u64, f64)> = Vec::new();
        for (n, v) in calibrations {
            let v = v.filter(|v| whole(*v))?;
            let n = if per_pair { 0 } else { n };
            match overheads.iter().find(|o| o.0 == n) {
                Some(o) if o.1 != v => return None,
                Some(_) => {}
                None => overheads.push((n, v)),
            }
        }
        let readings = self
            .totals
            .iter()
            .zip(self.calibration_counts())
            .enumerate()
            .filter(|(i, _)| !self.irregular.samples.contains(i))
            .map(|(_, ((t, pairs), n))| (n, t.get(c).copied(), *pairs))
            .chain(
                self.probes
                    .iter()
                    .filter(|p| !p.totals.1)
                    .map(|p| (p.n, p.totals.0.get(c).copied(), p.pairs)),
            );
        let mut points: Vec<(u64, f64)> = Vec::new();
        for (n, t, pairs) in readings {
            let t = t.filter(|t| whole(*t))?;
            let key = if per_pair { 0 } else { n };
            let Some(&(_, o)) = overheads.iter().find(|o| o.0 == key) else {
                continue;
            };
            let d = if per_pair {
                t - o * pairs as f64
            } else {
                t - o
            };
            match points.iter().find(|p| p.0 == n) {
                Some(p) if p.1 != d => return None,
                Some(_) => {}
                None => points.push((n, d)),
            }
        }
        Some(points)
    }

    /// The iteration count of each sample, in order: each sample's own calibration run (the
    /// last calibration before it) used it.
    fn calibration_counts(&self) -> impl Iterator<Item = u64> + '_ {
        // The samples' calibration runs are the last `totals.len()` of `calibration`, one per
        // sample, in order.
        let first = self.calibration.len() - self.totals.len();
        self.calibration[first..].iter().map(|(n, _)| *n)
    }

    /// The slope in the iteration count of a column's exact points ([`PassState::exact_points`])
    /// when they lie at two or more iteration counts, all on one line exactly: the
    /// per-iteration count with every per-sample constant cancelled.
    fn exact_slope(points: &[(u64, f64)]) -> Option<f64> {
        let (&(n0, d0), &(n1, d1)) = (points.first()?, points.get(1)?);
        // Whole numbers below 2^53 (see `exact_points`): exact as i128.
        let (dn, dd) = (i128::from(n1) - i128::from(n0), d1 as i128 - d0 as i128);
        let on_line = points
            .iter()
            .all(|&(n, d)| (d as i128 - d0 as i128) * dn == dd * (i128::from(n) - i128::from(n0)));
        on_line.then(|| dd as f64 / dn as f64)
    }

    /// Per sample and column, `(total - overhead) / n` (for an exact column, its slope: see the
    /// module docs; for one without a slope, a sample left out of its exactness test reads
    /// the regular readings' common value at its iteration count); the multiplexing flags; and
    /// each column's overhead at the first sample's iteration count.
    fn finish(mut self, iterations: &[u64], per_pair: bool, columns: usize) -> PassValues {
        self.multiplexed.resize(columns, false);
        let overhead = Overhead::fit(&self.calibration, columns);
        let points: Vec<Option<Vec<(u64, f64)>>> = (0..columns)
            .map(|c| self.exact_points(c, per_pair))
            .collect();
        // A batched body's exact counter: its slope from the single probes (see `Body::single`).
        let slopes: Vec<Option<f64>> = points
            .iter()
            .enumerate()
            .map(|(c, p)| match (p, self.single.is_empty()) {
                (Some(p), true) => Self::exact_slope(p),
                (Some(_), false) => self.single_points(c).as_deref().and_then(Self::exact_slope),
                (None, _) => None,
            })
            .collect();
        let values = iterations
            .iter()
            .zip(&self.totals)
            .enumerate()
            .map(|(i, (&n, (t, pairs)))| {
                let left_out = self.irregular.samples.contains(&i);
                t.iter()
                    .enumerate()
                    .map(|(c, &x)| {
                        if let Some(k) = slopes[c] {
                            return k;
                        }
                        // An exact column with no slope (its readings at one iteration count: a
                        // paired worker's, or probes left out): a sample left out of the test
                        // reads its regular readings' common `total - overhead` at that count.
                        let regular = points[c].as_ref().filter(|_| left_out);
                        if let Some(&(_, d)) = regular.and_then(|p| p.iter().find(|p| p.0 == n)) {
                            return d / n as f64;
                        }
                        let o = if per_pair {
                            overhead.at(c, 1) * *pairs as f64
                        } else {
                            overhead.at(c, n)
                        };
                        (x - o) / n as f64
                    })
                    .collect()
            })
            .collect();
        let reported = (0..columns)
            .map(|c| overhead.at(c, iterations.first().copied().unwrap_or(1)))
            .collect();
        (values, self.multiplexed, reported)
    }
}

/// Each counter's bracket overhead as a function of the iteration count: the median of the
/// calibration runs when they all used one count (flat sampling), a least-squares line
/// `a + b * n` through them otherwise (linear sampling).
struct Overhead {
    lines: Vec<(f64, f64)>,
}

impl Overhead {
    fn fit(runs: &[(u64, Vec<f64>)], columns: usize) -> Overhead {
        let flat = runs.windows(2).all(|w| w[0].0 == w[1].0);
        let lines = (0..columns)
            .map(|c| {
                let ys: Vec<f64> = runs.iter().map(|(_, v)| v[c]).collect();
                if flat {
                    return (median(ys), 0.0);
                }
                let xs: Vec<f64> = runs.iter().map(|(n, _)| *n as f64).collect();
                let k = xs.len() as f64;
                let (mx, my) = (xs.iter().sum::<f64>() / k, ys.iter().sum::<f64>() / k);
                let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
                let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
                let b = if sxx > 0.0 { sxy / sxx } else { 0.0 };
                (my - b * mx, b)
            })
            .collect();
        Overhead { lines }
    }

    fn at(&self, column: usize, n: u64) -> f64 {
        let (a, b) = self.lines[column];
        a + b * n as f64
    }
}

/// The median of the calibration readings; 0 when there are none (or none is finite).
/// (The statistics' median, `stats::univariate::Percentiles::median`, which a benchmark build
/// does not compile: the two middle values' midpoint, as `lo + (hi - lo) / 2` like it.)
fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() || !v.iter().all(|x| x.is_finite()) {
        return 0.0;
    }
    crate::sorting::sort_f64(&mut v);
    let n = v.len();
    let (lo, hi) = (v[(n - 1) / 2], v[n / 2]);
    (lo + (hi - lo) * 0.5).clamp(lo, hi)
}

/// The first round's warm-up, which also times the body for the plan: the whole warm-up time
/// with one round, half of it with more (the other half is shared by the later rounds, so the
/// warm-up time stays what the user set).
fn first_warm_up_ns(plan: &Plan) -> u64 {
    if plan.round_count() > 1 {
        plan.warm_up_ns / 2
    } else {
        plan.warm_up_ns
    }
}

/// The warm-up of each later round: its share of the other half of the warm-up time.
fn later_warm_up_ns(plan: &Plan) -> u64 {
    let later = u64::from(plan.round_count().saturating_sub(1)).max(1);
    (plan.warm_up_ns - first_warm_up_ns(plan)) / later
}

/// Runs the body with doubling iteration counts until `budget_ns` is spent, the last run cut
/// to what is left of it (so the warm-up overruns its budget by at most about one iteration,
/// not by up to the whole budget again); returns the nanoseconds per iteration of the longest
/// run (the most precise; at least 0.01 ns).
fn warm_up(body: &mut dyn Body, budget_ns: u64) -> f64 {
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
fn warm_up_both(
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
fn overrun_note(
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
    let budget = plan.measurement_ns as f64 / passes.max(1) as f64;
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
mod tests {
    use super::*;

    fn plan(linear: bool) -> Plan {
        Plan {
            sample_size: 10,
            warm_up_ns: 1_000_000,
            measurement_ns: 1_000_000_000,
            linear,
            rounds: 1,
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

    #[test]
    fn median_of_even_and_odd() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(vec![]), 0.0);
    }
}

#[cfg(test)]
mod overhead_tests {
    use super::*;

    /// A pass of `samples` samples at `n[i]` iterations of a body whose column 0 is exact:
    /// `k` per iteration, `c` once per sample, a bracket of `o0 + o1 * n` (the empty body's
    /// loop); column 1 has noise. `probes` readings at `probe_iterations(n)` follow (flat
    /// plans).
    fn pass(n: &[u64], k: f64, c: f64, probes: usize) -> PassState {
        let bracket = |n: u64| 62.0 + 3.0 * n as f64;
        let mut state = PassState::default();
        for i in 0..CALIBRATION_RUNS.saturating_sub(n.len()) {
            let m = n[i % n.len()];
            state
                .calibration
                .push((m, vec![bracket(m), 100.0 + i as f64]));
        }
        for (i, &m) in n.iter().enumerate() {
            state
                .calibration
                .push((m, vec![bracket(m), 90.0 + i as f64]));
            let total = bracket(m) + k * m as f64 + c;
            state
                .totals
                .push((vec![total, 5000.0 * m as f64 + i as f64], 1));
        }
        state.multiplexed = vec![false, false];
        for _ in 0..probes {
            let m = probe_iterations(n[0]);
            let total = bracket(m) + k * m as f64 + c;
            state.probes.push(Probe {
                n: m,
                calibration: (vec![bracket(m), 7.0], false),
                totals: (vec![total, 1.0], false),
                pairs: 1,
            });
        }
        state
    }

    #[test]
    fn an_exact_counter_reads_its_slope_whatever_is_done_once_per_sample() {
        let flat = [1000u64; 10];
        // Without a second iteration count the constant shows: 21 + 3/1000.
        let (values, _, _) = pass(&flat, 21.0, 3.0, 0).finish(&flat, false, 2);
        assert!(values.iter().all(|v| v[0] == 21.003), "{values:?}");
        // With the probes at a second count it cancels: exactly 21 in every sample.
        let state = pass(&flat, 21.0, 3.0, PROBES);
        assert!(state.exact_points(0, false).is_some());
        assert!(
            state.exact_points(1, false).is_none(),
            "a noisy column is not exact"
        );
        let (values, _, _) = state.finish(&flat, false, 2);
        assert!(values.iter().all(|v| v[0] == 21.0), "{values:?}");
        // The noisy column keeps the calibrated per-sample values.
        assert!(values.iter().any(|v| v[1] != values[0][1]));
        // Linear sampling: the samples' own counts suffice.
        let linear: Vec<u64> = (1..=10).map(|i| i * 100).collect();
        let (values, _, _) = pass(&linear, 21.0, 3.0, 0).finish(&linear, false, 2);
        assert!(values.iter().all(|v| v[0] == 21.0), "{values:?}");
        // Fractional slopes are kept as they are.
        let (values, _, _) = pass(&flat, 2.5, 1.0, PROBES).finish(&flat, false, 2);
        assert!(values.iter().all(|v| v[0] == 2.5), "{values:?}");
    }

    /// A flat pass of a batched body: `batch` inputs per bracket, whose loop costs `l` per
    /// iteration and `p` per batch more than the calibration body's; the routine `k`.
    fn batched_pass(n: u64, batch: u64, k: f64, l: f64, p: f64) -> PassState {
        let bracket = 62.0;
        let batches = n.div_ceil(batch) as f64;
        let mut state = PassState {
            multiplexed: vec![false],
            ..PassState::default()
        };
        for _ in 0..10 {
            state.calibration.push((n, vec![bracket * batches]));
            let total = bracket * batches + (k + l) * n as f64 + p * batches;
            state.totals.push((vec![total], 1));
        }
        // The flat pass's probes at a quarter, batched too.
        let m = probe_iterations(n);
        let quarter = m.div_ceil(batch) as f64;
        for _ in 0..PROBES {
            state.probes.push(Probe {
                n: m,
                calibration: (vec![bracket * quarter], false),
                totals: (
                    vec![bracket * quarter + (k + l) * m as f64 + p * quarter],
                    false,
                ),
                pairs: 1,
            });
        }
        state
    }

    #[test]
    fn a_batched_bodys_exact_counter_reads_the_slope_of_one_input_per_bracket() {
        let (n, batch, k) = (1000u64, 64u64, 37.0);
        // The batch's own code, not cancelled by the calibration: a fraction more per
        // iteration even through the slope (as on the arm64 rig: 37.7988...).
        let (values, _, _) = batched_pass(n, batch, k, 0.0, 51.0).finish(&[n; 10], false, 1);
        assert!(values.iter().all(|v| v[0] != k), "{values:?}");
        // With readings of one input per bracket (no loop inside it), the slope is the routine's.
        let mut state = batched_pass(n, batch, k, 2.0, 51.0);
        for m in SINGLE_PROBE_ITERATIONS {
            for _ in 0..PROBES {
                state.single.push(Probe {
                    n: m,
                    calibration: (vec![62.0 * m as f64], false),
                    // Something once per reading too (a captured value loaded before the loop).
                    totals: (vec![62.0 * m as f64 + k * m as f64 + 3.0], false),
                    pairs: m,
                });
            }
        }
        let (values, _, _) = state.finish(&[n; 10], false, 1);
        assert!(values.iter().all(|v| v[0] == k), "{values:?}");
        // Single probes that disagree give no slope: the calibrated values stay.
        state = batched_pass(n, batch, k, 0.0, 51.0);
        for (m, extra) in [(4u64, 0.0), (4, 1.0), (8, 0.0)] {
            state.single.push(Probe {
                n: m,
                calibration: (vec![0.0], false),
                totals: (vec![k * m as f64 + extra], false),
                pairs: m,
            });
        }
        let (values, _, _) = state.finish(&[n; 10], false, 1);
        assert!(values.iter().all(|v| v[0] != k), "{values:?}");
    }

    #[test]
    fn the_probes_take_another_count_at_a_quarter_of_the_cost() {
        for n in [1u64, 2, 3, 4, 5, 7, 1000, u64::MAX] {
            let m = probe_iterations(n);
            assert!(m >= 1 && m != n, "n {n}: probes at {m}");
            if n >= 4 {
                assert!(m <= n / 4, "n {n}: probes at {m}");
            }
        }
        // The slope comes out exact from the smallest plans too.
        for n in [1u64, 2, 3, 8] {
            let flat = [n; 10];
            let (values, _, _) = pass(&flat, 21.0, 3.0, PROBES).finish(&flat, false, 2);
            assert!(values.iter().all(|v| v[0] == 21.0), "n {n}: {values:?}");
        }
    }

    #[test]
    fn readings_that_are_not_exact_keep_the_calibrated_values() {
        let flat = [1000u64; 10];
        let calibrated = |state: PassState| state.finish(&flat, false, 2).0[0][0];
        // Probes that disagree.
        let mut state = pass(&flat, 21.0, 3.0, PROBES);
        state.probes[1].totals.0[0] += 1.0;
        assert_eq!(calibrated(state), 21.003);
        // A sample that differs from the others at the same count.
        let mut state = pass(&flat, 21.0, 3.0, PROBES);
        state.totals[4].0[0] += 1.0;
        assert!(state.exact_points(0, false).is_none());
        // A calibration run that differs.
        let mut state = pass(&flat, 21.0, 3.0, PROBES);
        state.calibration[2].1[0] += 1.0;
        assert_eq!(calibrated(state), 21.003);
        // Not a whole number (a multiplexed group's scaled count, say), or multiplexed.
        let mut state = pass(&flat, 21.0, 3.0, PROBES);
        state.probes[0].totals.0[0] += 0.5;
        state.probes[1].totals.0[0] += 0.5;
        assert_eq!(calibrated(state), 21.003);
        let mut state = pass(&flat, 21.0, 3.0, PROBES);
        state.multiplexed[0] = true;
        assert_eq!(calibrated(state), 21.003);
        // Linear readings off the line by one count.
        let linear: Vec<u64> = (1..=10).map(|i| i * 100).collect();
        let mut state = pass(&linear, 21.0, 3.0, 0);
        state.totals[6].0[0] += 1.0;
        let values = state.finish(&linear, false, 2).0;
        assert_ne!(values[0][0], 21.0);
    }

    #[test]
    fn readings_whose_brackets_read_off_the_hot_path_are_left_out_of_the_exactness_test() {
        // A read that retried counts the discarded attempt's instructions: 12 more here.
        let flat = [1000u64; 10];
        let exact = |state: PassState| {
            let values = state.finish(&flat, false, 2).0;
            values.iter().all(|v| v[0] == 21.0)
        };
        // A sample, flagged: every sample (that one too) reads the slope.
        let mut state = pass(&flat, 21.0, 3.0, PROBES);
        state.totals[4].0[0] += 12.0;
        state.irregular.samples.push(4);
        assert!(exact(state));
        // The same reading, not flagged: not exact.
        let mut state = pass(&flat, 21.0, 3.0, PROBES);
        state.totals[4].0[0] += 12.0;
        assert!(state.exact_points(0, false).is_none());
        // A calibration run, and one probe's body and another's calibration.
        let mut state = pass(&flat, 21.0, 3.0, PROBES);
        state.calibration[2].1[0] += 12.0;
        state.irregular.calibration.push(2);
        state.probes[0].totals.0[0] += 12.0;
        state.probes[0].totals.1 = true;
        assert!(exact(state));
        // Both probes' calibrations flagged: no second iteration count is left, so the
        // constant shows again.
        let mut state = pass(&flat, 21.0, 3.0, PROBES);
        for p in &mut state.probes {
            p.calibration.0[0] += 12.0;
            p.calibration.1 = true;
        }
        assert_eq!(state.exact_points(0, false).map(|p| p.len()), Some(1));
        assert!(!exact(state));
        // A round of one sample, flagged: the two probes alone are one iteration count, so the
        // pass takes two more readings at the samples' count.
        let one = [1000u64];
        let mut state = pass(&one, 21.0, 3.0, PROBES);
        state.totals[0].0[0] += 30.0;
        state.irregular.samples.push(0);
        assert_eq!(state.exact_points(0, false).map(|p| p.len()), Some(1));
        let bracket = 62.0 + 3.0 * 1000.0;
        for _ in 0..PROBES {
            state.probes.push(Probe {
                n: 1000,
                calibration: (vec![bracket, 7.0], false),
                totals: (vec![bracket + 21.0 * 1000.0 + 3.0, 1.0], false),
                pairs: 1,
            });
        }
        assert_eq!(state.finish(&one, false, 2).0[0][0], 21.0);
        // No second iteration count (a paired worker takes no probes): the flagged sample reads
        // what the regular ones read, constant included.
        let mut state = pass(&flat, 21.0, 3.0, 0);
        state.totals[4].0[0] += 30.0;
        state.irregular.samples.push(4);
        let values = state.finish(&flat, false, 2).0;
        assert!(values.iter().all(|v| v[0] == 21.003), "{values:?}");
        // Unflagged, the same reading keeps its own value.
        let mut state = pass(&flat, 21.0, 3.0, 0);
        state.totals[4].0[0] += 30.0;
        assert_eq!(state.finish(&flat, false, 2).0[4][0], 21.033);
        // Linear sampling: a flagged sample off the line.
        let linear: Vec<u64> = (1..=10).map(|i| i * 100).collect();
        let mut state = pass(&linear, 21.0, 3.0, 0);
        state.totals[6].0[0] += 12.0;
        state.irregular.samples.push(6);
        let values = state.finish(&linear, false, 2).0;
        assert!(values.iter().all(|v| v[0] == 21.0), "{values:?}");
    }

    #[test]
    fn flat_overhead_is_the_median() {
        let runs: Vec<(u64, Vec<f64>)> = [5.0, 1.0, 3.0, 100.0, 2.0]
            .iter()
            .map(|&v| (10, vec![v]))
            .collect();
        let o = Overhead::fit(&runs, 1);
        assert_eq!(o.at(0, 10), 3.0);
    }

    #[test]
    fn linear_overhead_is_a_line_in_n() {
        let runs: Vec<(u64, Vec<f64>)> = (1..=5)
            .map(|n| (n * 10, vec![7.0 + 2.0 * (n * 10) as f64]))
            .collect();
        let o = Overhead::fit(&runs, 1);
        assert!((o.at(0, 0) - 7.0).abs() < 1e-9);
        assert!((o.at(0, 100) - 207.0).abs() < 1e-9);
    }
}

#[cfg(test)]
mod meter_tests {
    use super::*;
    use crate::counters::GroupOptions;
    use crate::events::{parse_list, Sysfs};
    use crate::sys::AnonMapping;

    /// `page-faults` and `context-switches` in one group (`read(2)`: software events), plus
    /// `task-clock` in a group of its own, enabled.
    fn software_groups() -> Vec<Group> {
        let sysfs = Sysfs::system();
        let mut groups = vec![
            Group::open(
                &parse_list("page-faults,context-switches", &sysfs).unwrap(),
                &GroupOptions::default(),
            )
            .unwrap(),
            Group::open(
                &parse_list("task-clock", &sysfs).unwrap(),
                &GroupOptions::default(),
            )
            .unwrap(),
        ];
        for g in &mut groups {
            g.reset().unwrap();
            g.enable().unwrap();
        }
        groups
    }

    /// Touches `pages` fresh pages inside one bracket of `meter` (none: an empty bracket).
    fn faults(meter: &mut Meter<'_>, pages: usize) {
        let mut map = (pages > 0).then(|| AnonMapping::new(pages).unwrap());
        meter.start();
        if let Some(map) = map.as_mut() {
            map.touch_every_page();
        }
        meter.stop();
    }

    #[test]
    fn a_group_on_the_pmu_for_the_whole_sample_reads_exact_unscaled_counts() {
        let mut groups = software_groups();
        let mut meter = Meter::new(&mut groups, true);
        // A first bracket, so the buffers the reads write are touched before the sample.
        faults(&mut meter, 0);
        meter.clear();
        faults(&mut meter, 5);
        faults(&mut meter, 3);
        let (values, multiplexed) = meter.totals();
        assert_eq!(values[0], 8.0, "page faults of two brackets: {values:?}");
        assert!(values[2] > 0.0, "task-clock: {values:?}");
        assert!(values[3] > 0.0, "wall time: {values:?}");
        assert_eq!(multiplexed, [false; 4]);
        // The sample's times: read at its start and end, each group's advancing alike.
        for (start, end) in meter.sample_start.iter().zip(&meter.sample_end) {
            assert!(
                end.0 > start.0,
                "enabled time advanced: {start:?} -> {end:?}"
            );
            assert_eq!(end.0 - start.0, end.1 - start.1);
        }
        assert!(meter.error.is_none());
        // The next sample starts from zero, and from new times.
        let before = meter.sample_end.clone();
        meter.clear();
        assert!(meter
            .sample_start
            .iter()
            .zip(&before)
            .all(|(s, b)| s.0 >= b.0));
        faults(&mut meter, 2);
        assert_eq!(meter.totals().0[0], 2.0);
    }

    #[test]
    fn multiplexing_over_a_sample_is_flagged_and_scaled_by_the_samples_times() {
        // Software groups are never multiplexed: the sample's end times are replaced, as if
        // the first group had been on the PMU for part of the sample only.
        let mut groups = software_groups();
        let mut meter = Meter::new(&mut groups, true);
        meter.clear();
        faults(&mut meter, 6);
        meter.read_times(Mark::End);
        let acc = meter.acc.clone();
        let wall = meter.acc_ns as f64;
        // On the PMU a third of the sample: 3x.
        meter.sample_start[0] = (1_000, 1_000);
        meter.sample_end[0] = (7_000, 3_000);
        let (values, multiplexed) = meter.scaled_totals();
        assert_eq!(values[0], 18.0);
        assert_eq!(values[1], acc[1] as f64 * 3.0);
        assert_eq!(
            multiplexed,
            [true, true, false, false],
            "only the first group's columns"
        );
        assert_eq!((values[2], values[3]), (acc[2] as f64, wall));
        // Multiplexed before the sample (enabled ahead of running at its start), on the PMU for
        // all of it: neither flagged nor scaled.
        meter.sample_start[0] = (1_000, 600);
        meter.sample_end[0] = (7_000, 6_600);
        let (values, multiplexed) = meter.scaled_totals();
        assert_eq!((values[0], multiplexed[0]), (6.0, false));
        // Never ran during the sample: flagged, not scaled.
        meter.sample_end[0] = (7_000, 600);
        let (values, multiplexed) = meter.scaled_totals();
        assert_eq!((values[0], multiplexed[0]), (6.0, true));
    }

    #[test]
    fn the_scale_is_the_samples_enabled_over_running() {
        assert_eq!(sample_scale((0, 0), (0, 0)), (false, 1.0));
        assert_eq!(sample_scale((10, 10), (110, 110)), (false, 1.0));
        assert_eq!(sample_scale((10, 10), (110, 60)), (true, 2.0));
        assert_eq!(sample_scale((10, 10), (110, 10)), (true, 1.0));
        // Times are differences: wrapping is fine.
        assert_eq!(sample_scale((u64::MAX, u64::MAX), (99, 49)), (true, 2.0));
    }

    /// Touches `pages` fresh pages per iteration, one bracket per iteration.
    struct Faulting {
        pages: usize,
    }

    impl Body for Faulting {
        fn run(&mut self, n: u64, meter: &mut Meter<'_>) {
            for _ in 0..n {
                faults(meter, self.pages);
            }
        }
    }

    /// A batched body of page faults: `pages` fresh pages per input, and in each batch's
    /// bracket one fresh page more (the batch's own work, which its calibration body, with
    /// `extra: false`, does not do); one input per bracket when made single.
    struct BatchedFaults {
        pages: usize,
        extra: bool,
        single: bool,
        singles: u32,
    }

    impl Body for BatchedFaults {
        fn run(&mut self, n: u64, meter: &mut Meter<'_>) {
            let batch = self.batch_at(n);
            let mut left = n;
            while left > 0 {
                let k = batch.min(left) as usize;
                let mut maps: Vec<AnonMapping> = (0..k)
                    .map(|_| AnonMapping::new(self.pages.max(1)).unwrap())
                    .collect();
                let mut more = (self.extra && batch > 1).then(|| AnonMapping::new(1).unwrap());
                meter.start();
                if self.pages > 0 {
                    for m in &mut maps {
                        m.touch_every_page();
                    }
                }
                if let Some(m) = more.as_mut() {
                    m.touch_every_page();
                }
                meter.stop();
                left -= k as u64;
            }
        }

        fn batch_at(&mut self, n: u64) -> u64 {
            if self.single {
                1
            } else {
                n.min(8)
            }
        }

        fn single(&mut self, on: bool) {
            self.single = on;
            self.singles += u32::from(on);
        }
    }

    #[test]
    fn a_batched_pass_reads_exact_counts_through_one_input_per_bracket() {
        let mut groups = software_groups();
        let mut body = BatchedFaults {
            pages: 2,
            extra: true,
            single: false,
            singles: 0,
        };
        let mut empty = BatchedFaults {
            pages: 0,
            extra: false,
            single: false,
            singles: 0,
        };
        let iterations = [32u64; 4];
        let ((values, multiplexed, _), self_timed) = run_pass(
            &mut groups,
            None,
            false,
            (&mut body, &mut empty),
            &iterations,
            true,
            &mut |_| {},
        )
        .unwrap();
        assert!(!self_timed);
        // Batched, each sample read 2 + 1/8 page faults per iteration; the slope of the
        // readings of one input per bracket is the routine's 2 exactly.
        assert!(values.iter().all(|v| v[0] == 2.0), "{values:?}");
        assert!(!multiplexed[0]);
        assert_eq!((body.singles, empty.singles), (1, 1));
        assert!(
            !body.single && !empty.single,
            "batches again after the probes"
        );
    }

    #[test]
    fn a_pass_reads_exact_counts_through_counts_only_brackets() {
        let mut groups = software_groups();
        let mut meter = Meter::new(&mut groups, false);
        let mut state = PassState::default();
        let (mut body, mut empty) = (Faulting { pages: 4 }, Faulting { pages: 0 });
        faults(&mut meter, 0);
        for _ in 0..3 {
            state.sample(&mut meter, &mut body, &mut empty, 5);
        }
        assert!(meter.error.is_none());
        let (values, multiplexed, _) = state.finish(&[5, 5, 5], false, 3);
        assert!(values.iter().all(|v| v[0] == 4.0), "{values:?}");
        assert_eq!(multiplexed, [false; 3]);
    }
}
