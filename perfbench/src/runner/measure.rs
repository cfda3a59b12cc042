//! How a streamed run measures: the counters it opens ([`RunCounters`]), its plan
//! ([`RunPlan`]), and each benchmark's rounds, interleaved with the others' or, in a driven
//! suite, one after the other ([`Measurement`]); a panic is the benchmark's result.

use super::*;
use crate::events::AllocCounter;
use std::time::{Duration, Instant};

/// The sampling plan a run gives every benchmark that does not set its own: from `--quick`,
/// `--sample-size`, `--warm-up-time`, `--measurement-time`, `--linear`, `--rounds` and
/// `--precision`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[doc(hidden)] // the tool records it in the report's configuration
pub struct RunPlan {
    /// Samples per benchmark (in its first [`rounds`](Self::rounds)).
    pub sample_size: u32,
    /// Warm-up seconds.
    pub warm_up_time: f64,
    /// Measurement seconds: the most a benchmark takes where the stopping rule applies, the
    /// time its samples fill otherwise.
    pub measurement_time: f64,
    /// Linear sampling (`--linear`), else flat.
    pub linear: bool,
    /// Rounds per benchmark (the fewest, where the stopping rule applies).
    pub rounds: u32,
    /// The stopping rule's target, a fraction; `None`: a fixed plan.
    pub precision: Option<f64>,
}

impl RunPlan {
    /// The plan of the command line `args`: the stopping rule's, unless `--precision 0`, linear
    /// sampling or profile mode ask for a fixed plan.
    ///
    /// ```
    /// use perfbench::runner::cli;
    /// use perfbench::runner::RunPlan;
    ///
    /// let plan = RunPlan::of(&cli::parse("suite", ["suite", "--bench"]).unwrap());
    /// assert_eq!((plan.precision, plan.rounds, plan.measurement_time), (Some(0.01), 10, 1.5));
    /// let fixed = RunPlan::of(&cli::parse("suite", ["suite", "--bench", "--precision", "0"]).unwrap());
    /// assert_eq!((fixed.precision, fixed.warm_up_time), (None, 0.3));
    /// let profile = RunPlan::of(&cli::parse("suite", ["suite", "--bench", "--profile"]).unwrap());
    /// assert_eq!(profile.precision, None);
    /// ```
    pub fn of(args: &Args) -> RunPlan {
        let precision = args
            .precision
            .unwrap_or(if args.quick {
                QUICK_PRECISION
            } else {
                DEFAULT_PRECISION
            })
            .max(0.0);
        // Profile mode samples the measured region for the plan's whole time: a fixed plan.
        let settles = precision > 0.0 && !args.linear && !args.profile;
        let (sample_size, warm, measure) = match (args.quick, settles) {
            (true, true) => (50, QUICK_SETTLING_WARM_UP_TIME, 0.4),
            (true, false) => (30, 0.1, 0.4),
            (false, true) => (100, SETTLING_WARM_UP_TIME, DEFAULT_MEASUREMENT_TIME),
            (false, false) => (100, DEFAULT_WARM_UP_TIME, DEFAULT_MEASUREMENT_TIME),
        };
        RunPlan {
            sample_size: args.sample_size.unwrap_or(sample_size),
            warm_up_time: args.warm_up_time.unwrap_or(warm),
            measurement_time: args.measurement_time.unwrap_or(measure),
            linear: args.linear,
            rounds: args.rounds.unwrap_or(if args.quick {
                QUICK_ROUNDS
            } else {
                DEFAULT_ROUNDS
            }),
            precision: settles.then_some(precision),
        }
    }
}

/// A run that reads this machine's counters: the command line's counters, if any, else each
/// benchmark's own (its attribute's, else the machine's defaults).
pub(super) struct RunCounters {
    /// `--counters`, parsed and checked to open.
    pub(super) cli_events: Option<Vec<Event>>,
    /// The machine's default counters.
    pub(super) defaults: Vec<Event>,
    /// Profile mode: the sampling event the measured brackets switch on and off.
    pub(super) gate: Option<std::sync::Arc<sys::EventFd>>,
}

impl RunCounters {
    /// Checks `--counters` (every counter must open: a bad one is a usage error up front, the
    /// `Err` message to print) and picks the defaults, noting what they lack here.
    pub(super) fn prepare(
        args: &Args,
        chosen: &[Job],
        sysfs: &Sysfs,
        machine: &Machine,
    ) -> Result<RunCounters, String> {
        let cli_events = match &args.counters {
            None => None,
            Some(list) => match events::parse_list(list, sysfs) {
                Ok(ev) => {
                    if let Err(e) = Counters::open(&ev, &GroupOptions::default()) {
                        return Err(format!(
                            "error: {e}\n(run `perfbench doctor` for this machine's details)"
                        ));
                    }
                    Some(ev)
                }
                Err(e) => return Err(format!("error: --counters: {e}")),
            },
        };
        let (defaults, note) = default_events(sysfs, machine);
        let uses_defaults = chosen.iter().any(|p| p.entry.options.counters.is_none());
        if args.counters.is_none() && uses_defaults {
            if let Some(note) = &note {
                eprintln!("note: {note}");
            }
        }
        Ok(RunCounters {
            cli_events,
            defaults,
            gate: None,
        })
    }

    /// Measures the benchmarks: round r of every benchmark, then round r + 1, so each one is
    /// measured in stretches spread over the whole run (see `harness::sampler`); a driven
    /// suite's ([`register_driven`]) each in all its rounds where its code defines it.
    /// `finished` gets the results in the benchmarks' order, each as soon as it and those
    /// before it are there: after its last round (which the stopping rule makes different
    /// from benchmark to benchmark), or when it fails or panics.
    pub(super) fn measure(
        &self,
        chosen: &[Job],
        sysfs: &Sysfs,
        plan: &RunPlan,
        finished: &mut dyn FnMut(&Job, &RawBenchmark, &Progress),
    ) -> Vec<RawBenchmark> {
        let mut flights: Vec<Measurement<'_>> = chosen
            .iter()
            .map(|p| {
                let mut f =
                    Measurement::new(p, self.cli_events.as_ref(), &self.defaults, sysfs, plan);
                f.gate = self.gate.clone();
                f
            })
            .collect();
        let bar = Progress::new(flights.iter().map(|f| u64::from(f.rounds)).sum());
        // Where the thread may run now; the runner pins it per benchmark on hybrid machines
        // and puts it back afterwards (see `affinity`).
        let allowed = sys::thread_affinity().ok();
        let mut notes: Vec<String> = Vec::new();
        if driver().is_some() {
            let missing = for_each_body(chosen, &mut |p, body| {
                let Some(f) = flights.iter_mut().find(|f| std::ptr::eq(f.p, p)) else {
                    return;
                };
                measure_rounds(f, sysfs, allowed.as_deref(), &bar, &mut notes, body);
                if let Some(r) = f.done.as_ref() {
                    finished(f.p, r, &bar);
                }
                bar.advance(u64::from(f.rounds.max(f.taken)));
            });
            for (p, why) in missing {
                if let Some(f) = flights.iter_mut().find(|f| std::ptr::eq(f.p, p)) {
                    let r = f.done.insert(raw_failed(p, why));
                    finished(p, r, &bar);
                }
            }
        } else {
            let mut round = 0u32;
            // Results are printed in the benchmarks' order: `next` is the first not printed.
            let mut next = 0;
            while next < flights.len() {
                for f in flights.iter_mut().filter(|f| f.done.is_none()) {
                    if round >= f.rounds {
                        // A round beyond the plan's, which the stopping rule asked for.
                        bar.grow(1);
                    }
                    let (run, arg) = (f.p.run, f.p.arg);
                    let body = &mut |b: &mut Bencher| run(b, arg);
                    let start = Instant::now();
                    measure_round(f, sysfs, allowed.as_deref(), &bar, &mut notes, body);
                    f.took_round(start.elapsed());
                    bar.advance(1);
                    if f.done.is_none() && !f.another_round() {
                        f.finish();
                    }
                }
                while let Some(f) = flights.get_mut(next).filter(|f| f.done.is_some()) {
                    if let Some(r) = f.done.as_ref() {
                        finished(f.p, r, &bar);
                    }
                    // The planned rounds it did not take.
                    bar.advance(u64::from(f.rounds.saturating_sub(f.taken)));
                    next += 1;
                }
                round += 1;
            }
        }
        let results = flights.into_iter().filter_map(|f| f.done).collect();
        bar.finish_and_clear();
        results
    }

    /// Measures benchmark `p` in all its rounds with `body`; its result, if it has one (none
    /// when it takes no round).
    #[cfg(feature = "profile")]
    pub(super) fn measure_body(
        &self,
        p: &Job,
        sysfs: &Sysfs,
        plan: &RunPlan,
        body: &mut dyn FnMut(&mut Bencher),
    ) -> Option<RawBenchmark> {
        let mut f = Measurement::new(p, self.cli_events.as_ref(), &self.defaults, sysfs, plan);
        f.gate = self.gate.clone();
        let bar = Progress::new(u64::from(f.rounds));
        let allowed = sys::thread_affinity().ok();
        measure_rounds(
            &mut f,
            sysfs,
            allowed.as_deref(),
            &bar,
            &mut Vec::new(),
            body,
        );
        bar.finish_and_clear();
        f.done
    }
}

/// Every round of a benchmark, one after the other ([`measure_round`]), until it has its
/// result: after its planned rounds, or later where the stopping rule asks for more.
pub(super) fn measure_rounds(
    f: &mut Measurement<'_>,
    sysfs: &Sysfs,
    allowed: Option<&[u32]>,
    bar: &Progress,
    shown: &mut Vec<String>,
    body: &mut dyn FnMut(&mut Bencher),
) {
    while f.done.is_none() {
        if f.taken >= f.rounds {
            // A round beyond the plan's, which the stopping rule asked for.
            bar.grow(1);
        }
        let start = Instant::now();
        measure_round(f, sysfs, allowed, bar, shown, body);
        f.took_round(start.elapsed());
        if f.done.is_none() && !f.another_round() {
            f.finish();
        }
    }
}

/// The default counters for this machine, and a note when some are unavailable: the hardware
/// counters where the PMU has them, else wall time and the software counters; and the
/// allocation counters where a [`CountingAlloc`](crate::CountingAlloc) is the global
/// allocator.
///
/// ```
/// use perfbench::events::Sysfs;
/// use perfbench::machine::Machine;
/// use perfbench::runner::default_events;
///
/// let (events, note) = default_events(&Sysfs::system(), Machine::cached());
/// assert!(events.iter().any(|e| e.name == "wall-time"));
/// if let Some(note) = note {
///     println!("{note}"); // in a VM without a PMU: why there are no hardware counters
/// }
/// ```
pub fn default_events(sysfs: &Sysfs, machine: &Machine) -> (Vec<Event>, Option<String>) {
    let (mut events, note) = default_counter_events(sysfs, machine);
    // The allocation counters, where the suite installed the allocator that counts them.
    if crate::counters::alloc::installed() {
        events.extend(AllocCounter::ALL.map(|a| Event {
            name: a.name().to_owned(),
            kind: events::EventKind::Alloc(a),
        }));
    }
    (events, note)
}

/// [`default_events`] without the allocation counters.
fn default_counter_events(sysfs: &Sysfs, machine: &Machine) -> (Vec<Event>, Option<String>) {
    let parse = |names: &[&str]| -> Vec<Event> {
        names
            .iter()
            .filter_map(|n| events::parse(n, sysfs).ok())
            .collect()
    };
    let mut notes = Vec::new();
    if machine.has_cpu_pmu() {
        // Keep the hardware events this PMU has (an emulated or small PMU may lack some).
        if let Ok((counters, dropped)) = open_available(&parse(DEFAULT_HARDWARE)) {
            if counters.events().iter().any(Event::needs_pmu) {
                if !dropped.is_empty() {
                    notes.push(format!(
                        "this PMU cannot count {}: left out",
                        dropped_names(&dropped)
                    ));
                }
                return (counters.events().to_vec(), notes.pop());
            }
        }
        notes.push(
            "hardware counters do not open here: measuring wall-time and software counters \
             (--simulate gives exact simulated counts under Valgrind)"
                .to_owned(),
        );
    } else {
        notes.push(
            "no hardware PMU on this machine: measuring wall-time and software counters \
             (--simulate gives exact simulated counts under Valgrind)"
                .to_owned(),
        );
    }
    // Software counters an unprivileged user may not count (context switches happen in the
    // kernel) are left out once, here, rather than noted for every benchmark.
    let software = parse(DEFAULT_SOFTWARE);
    let kept = match open_available(&software) {
        Ok((counters, dropped)) => {
            if !dropped.is_empty() {
                notes.push(format!("{} left out", dropped_names(&dropped)));
            }
            counters.events().to_vec()
        }
        Err(_) => vec![Event::wall_time()],
    };
    notes.push("`perfbench doctor` explains".to_owned());
    (kept, Some(notes.join("; ")))
}

pub(super) fn dropped_names(dropped: &[(String, CounterError)]) -> String {
    dropped
        .iter()
        .map(|(n, _)| n.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Opens what can be opened of `events`; returns the counters and the events dropped with why.
pub(super) fn open_available(
    events: &[Event],
) -> Result<(Counters, Vec<(String, CounterError)>), CounterError> {
    let mut wanted = events.to_vec();
    let mut dropped = Vec::new();
    loop {
        match Counters::open(&wanted, &GroupOptions::default()) {
            Ok(c) => return Ok((c, dropped)),
            Err(e @ CounterError::Open { .. }) => {
                let CounterError::Open { event, .. } = &e else {
                    unreachable!()
                };
                let name = event.clone();
                wanted.retain(|w| w.name != name);
                dropped.push((name, e));
                if wanted.is_empty() {
                    wanted.push(Event::wall_time());
                }
            }
            Err(other) => return Err(other),
        }
    }
}

/// A benchmark between its rounds.
pub(super) struct Measurement<'a> {
    pub(super) p: &'a Job,
    pub(super) events: Vec<Event>,
    pub(super) plan: Plan,
    /// Rounds it takes ([`Plan::round_count`]): all it takes with a fixed plan, the fewest
    /// where the stopping rule applies ([`Measurement::another_round`]).
    pub(super) rounds: u32,
    /// Rounds taken so far.
    pub(super) taken: u32,
    /// How long its rounds have taken so far (warm-ups and calibration included).
    pub(super) spent: Duration,
    /// Its samples so far (`None` before the first round).
    pub(super) sampler: Option<Box<Sampler>>,
    /// What its body set with `Bencher::throughput`, last round's.
    pub(super) throughput: Option<Throughput>,
    /// The threads of its `Bencher::iter_threads` body, last round's.
    pub(super) threads: Option<u32>,
    /// Its result, once it has one: measured after its last round, or failed or panicked.
    pub(super) done: Option<RawBenchmark>,
    /// Profile mode: the sampling event its brackets switch on and off.
    pub(super) gate: Option<std::sync::Arc<sys::EventFd>>,
}

impl<'a> Measurement<'a> {
    pub(super) fn new(
        p: &'a Job,
        cli_events: Option<&Vec<Event>>,
        defaults: &[Event],
        sysfs: &Sysfs,
        run: &RunPlan,
    ) -> Measurement<'a> {
        let o = &p.entry.options;
        let plan = Plan {
            sample_size: o.sample_size.unwrap_or(run.sample_size),
            warm_up_ns: secs_to_ns(o.warm_up_time.unwrap_or(run.warm_up_time)),
            measurement_ns: secs_to_ns(o.measurement_time.unwrap_or(run.measurement_time)),
            linear: run.linear,
            rounds: run.rounds,
            precision: run.precision,
        };
        let events = match cli_events {
            Some(ev) => Ok(ev.clone()),
            None => own_events(p, defaults, sysfs),
        };
        let (events, done) = match events {
            Ok(ev) => (ev, None),
            Err(e) => (Vec::new(), Some(raw_failed(p, e))),
        };
        Measurement {
            p,
            events,
            rounds: plan.round_count(),
            taken: 0,
            spent: Duration::ZERO,
            plan,
            sampler: None,
            throughput: None,
            threads: None,
            done,
            gate: None,
        }
    }

    /// Counts a round that took `time`.
    pub(super) fn took_round(&mut self, time: Duration) {
        self.taken += 1;
        self.spent += time;
    }

    /// Whether it takes another round: until its planned rounds are done; then, where the
    /// stopping rule applies ([`Plan::stops_when_settled`]), until its figures have settled
    /// ([`Sampler::settled`]), at most [`MAX_ROUND_FACTOR`] times its planned rounds and
    /// while another round, at the pace of those so far, fits in the measurement time.
    pub(super) fn another_round(&self) -> bool {
        if self.done.is_some() {
            return false;
        }
        if self.taken < self.rounds {
            return true;
        }
        if !self.plan.stops_when_settled() || self.taken >= self.rounds * MAX_ROUND_FACTOR {
            return false;
        }
        let Some(sampler) = self.sampler.as_ref() else {
            return false;
        };
        let pace = self.spent / self.taken.max(1);
        !sampler.settled() && (self.spent + pace).as_nanos() <= u128::from(self.plan.measurement_ns)
    }

    /// The result after the last round: the samples of every counter (the analysis computes
    /// the estimates).
    pub(super) fn finish(&mut self) {
        let p = self.p;
        self.done = Some(match self.sampler.take().and_then(|s| s.into_measured()) {
            Some(counters) => RawBenchmark {
                counters,
                throughput: self.throughput.or(p.entry.options.throughput),
                threads: self.threads,
                ..raw_result(p, Outcome::Measured)
            },
            None => raw_failed(p, NEVER_CALLED.to_owned()),
        });
    }
}

pub(super) const NEVER_CALLED: &str =
    "the benchmark never called Bencher::iter, iter_batched, iter_custom or iter_timed";

/// One round of a benchmark ([`measure_once`]) on the CPUs whose PMU serves the events (see
/// [`affinity`]), then back where the thread may run. Each note is shown once per run
/// (`shown`).
pub(super) fn measure_round(
    f: &mut Measurement<'_>,
    sysfs: &Sysfs,
    allowed: Option<&[u32]>,
    bar: &Progress,
    shown: &mut Vec<String>,
    body: &mut dyn FnMut(&mut Bencher),
) {
    let Some(allowed) = allowed else {
        let events = f.events.clone();
        return measure_once(f, &events, bar, body);
    };
    let pinning = affinity::plan(&f.events, sysfs, allowed);
    let mut note = pinning.note.clone();
    let mut pinned = false;
    if let Some(cpus) = &pinning.cpus {
        match sys::set_thread_affinity(cpus) {
            Ok(()) => pinned = true,
            Err(e) => {
                note = Some(format!(
                    "could not pin to CPUs {} of {}: {}; its counters may count part-time",
                    affinity::cpu_list(cpus),
                    pinning.pmu.as_deref().unwrap_or("the PMU"),
                    e.description()
                ));
            }
        }
    }
    if let Some(note) = note.filter(|n| !shown.contains(n)) {
        bar.suspend(|| eprintln!("note: {note}"));
        shown.push(note);
    }
    measure_once(f, &pinning.events, bar, body);
    if pinned {
        // Failing to widen the mask again only leaves the thread on the core type the
        // counters need; nothing to report.
        let _ = sys::set_thread_affinity(allowed);
    }
}

/// Opens the counters and runs the benchmark's body once: one round of its samples.
/// Sets `f.done` when it fails or panics.
pub(super) fn measure_once(
    f: &mut Measurement<'_>,
    events: &[Event],
    bar: &Progress,
    body: &mut dyn FnMut(&mut Bencher),
) {
    let p = f.p;
    let (counters, dropped) = match open_available(events) {
        Ok(x) => x,
        Err(e) => {
            f.done = Some(raw_failed(p, e.to_string()));
            return;
        }
    };
    let sampler = match f.sampler.take() {
        Some(mut s) => {
            s.next_round(counters);
            s
        }
        None => {
            if !dropped.is_empty() {
                let reason = match &dropped[0].1 {
                    CounterError::Open { explanation, .. } => explanation.reason.clone(),
                    other => other.to_string(),
                };
                bar.suspend(|| {
                    eprintln!(
                        "note: {}: not measuring {} here: {reason}",
                        p.id,
                        dropped_names(&dropped)
                    )
                });
            }
            let mut s = Box::new(Sampler::new(counters, f.plan.clone()));
            s.set_profile_gate(f.gate.clone());
            let (id, progress) = (p.id.clone(), bar.clone());
            s.on_progress(move |at| {
                let round = if at.rounds > 1 {
                    format!(" round {}/{}", at.round + 1, at.rounds)
                } else {
                    String::new()
                };
                let pass = if at.passes > 1 {
                    format!(" pass {}/{}", at.pass + 1, at.passes)
                } else {
                    String::new()
                };
                progress.set_message(format!(
                    "{id}{round}{pass}: sample {}/{}",
                    at.sample, at.samples
                ));
            });
            let (id, progress) = (p.id.clone(), bar.clone());
            s.on_note(move |note| progress.suspend(|| eprintln!("note: {id}: {note}")));
            s
        }
    };
    let mut bencher = Bencher::measuring(sampler);
    let outcome = catch_unwind(AssertUnwindSafe(|| body(&mut bencher)));
    if let Err(payload) = outcome {
        f.done = Some(RawBenchmark {
            error: Some(panic_message(payload.as_ref())),
            ..raw_result(p, Outcome::Panicked)
        });
        return;
    }
    f.throughput = bencher.throughput_set().or(f.throughput);
    f.threads = bencher.threads_set().or(f.threads);
    let Some(sampler) = bencher.into_sampler() else {
        return;
    };
    match sampler.round_result() {
        Ok(true) => f.sampler = Some(sampler),
        Ok(false) => f.done = Some(raw_failed(p, NEVER_CALLED.to_owned())),
        Err(e) => f.done = Some(raw_failed(p, e)),
    }
}

/// The counters of benchmark `p` when the command line names none: its attribute's `counters`,
/// else `defaults`.
pub(super) fn own_events(p: &Job, defaults: &[Event], sysfs: &Sysfs) -> Result<Vec<Event>, String> {
    match p.entry.options.counters {
        Some(names) => names
            .iter()
            .map(|n| events::parse(n, sysfs))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("counters option: {e}")),
        None => Ok(defaults.to_vec()),
    }
}

#[doc(hidden)]
pub fn secs_to_ns(s: f64) -> u64 {
    (s.max(0.0) * 1e9) as u64
}

/// A failed benchmark's result.
pub(super) fn raw_failed(p: &Job, error: String) -> RawBenchmark {
    RawBenchmark {
        error: Some(error),
        ..raw_result(p, Outcome::Failed)
    }
}

/// A benchmark's result without counters.
pub(super) fn raw_result(p: &Job, outcome: Outcome) -> RawBenchmark {
    RawBenchmark {
        id: p.id.clone(),
        group: p.group.clone(),
        name: p.entry.name.to_owned(),
        params: p.params.clone(),
        throughput: p.entry.options.throughput,
        threads: None,
        outcome,
        error: None,
        counters: Vec::new(),
    }
}

pub(super) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panicked with a non-string payload".to_owned()
    }
}
