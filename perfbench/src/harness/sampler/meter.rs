//! The bracket around measured code ([`Meter`]): reads the pass's counter groups and the clock
//! at its start and stop and adds up the differences; the groups' times, read at a sample's
//! start and end, say whether it was multiplexed. It owns no plan and no statistics.

use std::fmt;

use super::body::Brackets;
use crate::counters::alloc::{self, AllocBracket, AllocCounter};
use crate::counters::{callgrind, wall_time_ns, CounterError, Group, Reading, Source};
use crate::sys::{EventFd, Scope};

/// The bracket around measured code: reads the pass's counter groups (counts only, see
/// [`Group::read_counts`]) and the clock at [`Meter::start`] and again at [`Meter::stop`], and
/// adds up the differences. The groups' times are read once at the start and once at the end of
/// each sample, outside the brackets, to detect multiplexing (the guide's docs/measuring.md,
/// "Multiplexing").
pub struct Meter<'a> {
    pub(super) groups: &'a mut [Group],
    pub(super) wall: bool,
    /// Read the clock outside the counter reads (fast path) rather than inside (`read(2)`).
    pub(super) clock_outside: bool,
    /// One reading per group.
    pub(super) begin: Vec<Reading>,
    pub(super) end: Vec<Reading>,
    pub(super) begin_ns: u64,
    /// Every group's members, in order.
    pub(super) acc: Vec<u64>,
    pub(super) acc_ns: u64,
    /// Per group: `(time_enabled, time_running)` when the sample started ([`Meter::clear`]),
    /// and when its totals were taken ([`Meter::totals`]). The brackets read counts only.
    pub(super) sample_start: Vec<(u64, u64)>,
    pub(super) sample_end: Vec<(u64, u64)>,
    pub(super) pairs: u64,
    /// The groups' [`Group::slow_reads`] summed when the sample started (after its times were
    /// read), against which [`Meter::totals`] sets `irregular`.
    pub(super) slow_mark: u64,
    /// Whether a bracket read of the last sample went off the fast path's hot path (see
    /// [`Group::slow_reads`]); set by [`Meter::totals`].
    pub(super) irregular: bool,
    pub(super) error: Option<CounterError>,
    /// Under Callgrind (`--simulate`): the bracket turns collection on and off instead of
    /// reading anything.
    pub(super) simulate: bool,
    /// Profile mode (`--profile`): a sampling event the bracket switches on at its start and
    /// off at its end, so only the measured region is sampled.
    pub(super) gate: Option<&'a EventFd>,
    /// `simulate`, a gate or allocation counters: the one test the bracket's fast path makes.
    pub(super) special: bool,
    /// Whether a body added time it measured itself ([`Meter::elapsed`]): its samples then have
    /// wall time only, and no bracket to calibrate away.
    pub(super) self_timed: bool,
    /// The allocation counters read in the brackets (after wall time in the columns).
    pub(super) allocs: Vec<AllocCounter>,
    /// This thread's allocation counts at the bracket's start.
    pub(super) alloc_bracket: AllocBracket,
    /// Per allocation counter: the sum of the brackets' differences, or for
    /// `alloc-peak-bytes` the largest bracket's peak.
    pub(super) alloc_acc: Vec<u64>,
    /// A threaded body's other threads' totals for the sample ([`Meter::add_thread`]), per
    /// column, and how many threads ran it (wall time is their mean).
    pub(super) others: Vec<f64>,
    pub(super) threads: u32,
}

impl fmt::Debug for Meter<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Meter")
            .field("pairs", &self.pairs)
            .finish_non_exhaustive()
    }
}

impl<'a> Meter<'a> {
    pub(super) fn new(groups: &'a mut [Group], wall: bool) -> Meter<'a> {
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
            allocs: Vec::new(),
            alloc_bracket: AllocBracket::default(),
            alloc_acc: Vec::new(),
            others: Vec::new(),
            threads: 1,
            groups,
        }
    }

    /// What a thread of a threaded body opens to measure alongside this meter's: the events
    /// of its groups, whether wall time is read, and the allocation counters. `None` under
    /// Callgrind or with a profile's gate, where this meter's brackets take every thread's
    /// work (Callgrind collects the whole process) and the other threads read nothing.
    pub(crate) fn thread_setup(&self) -> Option<ThreadSetup> {
        if self.is_special() {
            return None;
        }
        let events = self
            .groups
            .iter()
            .flat_map(|g| g.events().iter().cloned())
            .collect();
        Some(ThreadSetup {
            events,
            wall: self.wall,
            allocs: self.allocs.clone(),
        })
    }

    /// A meter over `groups` laid out as `setup` says: another thread's share of a threaded
    /// body.
    pub(crate) fn for_thread(groups: &'a mut [Group], setup: &ThreadSetup) -> Meter<'a> {
        let meter = Meter::new(groups, setup.wall);
        if setup.allocs.is_empty() {
            meter
        } else {
            meter.counting_allocs(&setup.allocs)
        }
    }

    /// The sample's totals of this meter alone, for `n` iterations, as [`Meter::totals`] gives
    /// them; an error of its reads is returned.
    pub(crate) fn thread_totals(&mut self, n: u64) -> Result<Vec<f64>, CounterError> {
        let (values, _) = self.totals(n);
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(values),
        }
    }

    /// Adds another thread's totals of the same sample (laid out as this meter's columns):
    /// counts are summed over the threads, wall time is their mean, `alloc-peak-bytes` their
    /// sum (the most the threads could hold at once).
    pub(crate) fn add_thread(&mut self, totals: &[f64]) {
        if self.others.len() < totals.len() {
            self.others.resize(totals.len(), 0.0);
        }
        for (o, t) in self.others.iter_mut().zip(totals) {
            *o += t;
        }
        self.threads += 1;
    }

    /// Notes an error of another thread's share.
    pub(crate) fn thread_error(&mut self, e: CounterError) {
        self.error.get_or_insert(e);
    }

    /// This meter, reading the allocation counters `allocs` too (innermost in its brackets:
    /// after the counter groups and the clock at the start, before them at the stop). Its
    /// brackets then take the out-of-line path ([`Meter::start_special`]), so a meter without
    /// them pays not even the test for them.
    pub(super) fn counting_allocs(self, allocs: &[AllocCounter]) -> Meter<'a> {
        if !allocs.is_empty() {
            // The thread that measures counts (the flag is per thread).
            alloc::set_counting(true);
        }
        Meter {
            special: self.special || !allocs.is_empty(),
            allocs: allocs.to_vec(),
            alloc_acc: vec![0; allocs.len()],
            ..self
        }
    }

    /// A meter over `groups` (no `wall-time`), for benchmarks of the harness's own bracket
    /// (`perfbench/benches/read_overhead.rs`); the harness makes its meters itself.
    #[doc(hidden)]
    pub fn over_groups(groups: &'a mut [Group]) -> Meter<'a> {
        Meter::new(groups, false)
    }

    /// This meter, switching `gate` (a sampling event) on and off with its brackets.
    pub(super) fn gated(self, gate: Option<&'a EventFd>) -> Meter<'a> {
        Meter {
            special: self.simulate || gate.is_some() || !self.allocs.is_empty(),
            gate,
            ..self
        }
    }

    /// A meter whose brackets turn Callgrind's collection on and off (see
    /// [`simulate`](crate::harness::simulate)).
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
    pub(super) fn calibrated_pairs(&self) -> u64 {
        if self.self_timed {
            self.pairs
        } else {
            self.pairs.max(1)
        }
    }

    /// Whether brackets do more than read counters (under Callgrind, or switching a profile's
    /// sampling event): a body that times itself brackets its whole call there instead.
    pub(crate) fn is_special(&self) -> bool {
        self.simulate || self.gate.is_some()
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
    pub(crate) fn clear(&mut self) {
        self.acc.iter_mut().for_each(|v| *v = 0);
        self.alloc_acc.iter_mut().for_each(|v| *v = 0);
        self.others.clear();
        self.threads = 1;
        self.acc_ns = 0;
        self.pairs = 0;
        self.read_times(Mark::Start);
        self.slow_mark = self.slow_reads();
    }

    /// The groups' [`Group::slow_reads`], summed.
    pub(super) fn slow_reads(&self) -> u64 {
        self.groups.iter().map(Group::slow_reads).sum()
    }

    /// Every group's `(time_enabled, time_running)` now, through [`Group::read`] (the fast
    /// path's page times, extrapolated when the group is multiplexed; `read(2)`'s otherwise)
    /// into the group's `end` reading, which no bracket is using: outside the brackets, so its
    /// cost is in no count and no wall time.
    #[cold]
    #[inline(never)]
    pub(super) fn read_times(&mut self, mark: Mark) {
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

    /// [`Meter::start`] under Callgrind, with a sampling gate or with allocation counters.
    #[cold]
    #[inline(never)]
    pub(super) fn start_special(&mut self) {
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
        if !self.allocs.is_empty() {
            self.alloc_bracket.start();
        }
    }

    #[inline(always)]
    pub(super) fn start_counting(&mut self) {
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

    /// [`Meter::stop`] under Callgrind, with a sampling gate or with allocation counters.
    #[cold]
    #[inline(never)]
    pub(super) fn stop_special(&mut self) {
        if self.simulate {
            callgrind::toggle_collect();
            self.pairs += 1;
            return;
        }
        if !self.allocs.is_empty() {
            self.alloc_bracket.stop(&self.allocs, &mut self.alloc_acc);
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
    pub(super) fn stop_counting(&mut self) {
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
    pub(super) fn stop_counters(&mut self) {
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
    /// totals ([`Meter::scaled_totals`]) for a sample of `n` iterations.
    pub(super) fn totals(&mut self, n: u64) -> (Vec<f64>, Vec<bool>) {
        // Before the times are read: only the brackets' reads count.
        self.irregular = self.slow_reads() != self.slow_mark;
        self.read_times(Mark::End);
        self.scaled_totals(n)
    }

    /// The accumulated differences of a sample of `n` iterations: the groups' members, then wall
    /// time when measured, then the allocation counters (`alloc-peak-bytes`, a maximum, times
    /// `n`, so that like every column it reads its figure once divided by the iterations);
    /// and, per column, whether its group was multiplexed during the sample (never for wall
    /// time or allocations).
    /// A group is multiplexed when its `time_running` advanced less than its `time_enabled`
    /// from [`Meter::clear`] to [`Meter::totals`] (running time only accumulates while the
    /// group is on the PMU, so equal advances mean it was there for the whole sample, brackets
    /// included); its counts are then scaled by the sample's `enabled / running` (see the
    /// guide's docs/measuring.md, "Multiplexing").
    pub(super) fn scaled_totals(&self, n: u64) -> (Vec<f64>, Vec<bool>) {
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
        for (counter, &x) in self.allocs.iter().zip(&self.alloc_acc) {
            let x = if counter.is_peak() {
                x.saturating_mul(n)
            } else {
                x
            };
            values.push(x as f64);
            multiplexed.push(false);
        }
        // A threaded body's other threads: summed, wall time averaged over every thread.
        if !self.others.is_empty() {
            let wall = self.wall.then_some(self.acc.len());
            for (c, (v, o)) in values.iter_mut().zip(&self.others).enumerate() {
                *v += o;
                if Some(c) == wall {
                    *v /= f64::from(self.threads);
                }
            }
        }
        (values, multiplexed)
    }
}

/// What another thread of a threaded body opens and reads ([`Meter::thread_setup`]).
#[derive(Clone, Debug)]
pub(crate) struct ThreadSetup {
    /// The events of the meter's groups, in order.
    pub(crate) events: Vec<crate::events::Event>,
    /// Whether wall time is read.
    pub(crate) wall: bool,
    /// The allocation counters read.
    pub(crate) allocs: Vec<AllocCounter>,
}

/// Which of a sample's two time readings [`Meter::read_times`] takes.
#[derive(Clone, Copy)]
pub(super) enum Mark {
    /// At [`Meter::clear`].
    Start,
    /// At [`Meter::totals`].
    End,
}

/// Whether a group whose `(time_enabled, time_running)` went from `start` to `end` over a
/// sample was multiplexed in it (`running` advanced less than `enabled`), and the factor that
/// scales its counts to the whole enabled time: `enabled / running` of the sample, or 1 when
/// it was not multiplexed or never ran (`running` did not advance: flagged, not scaled).
pub(super) fn sample_scale(start: (u64, u64), end: (u64, u64)) -> (bool, f64) {
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

#[cfg(test)]
#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::counters::GroupOptions;
    use crate::events::{parse_list, Sysfs};
    use crate::sys::AnonMapping;

    /// `page-faults` and `context-switches` in one group (`read(2)`: software events), plus
    /// `task-clock` in a group of its own, enabled.
    pub(crate) fn software_groups() -> Vec<Group> {
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
    pub(crate) fn faults(meter: &mut Meter<'_>, pages: usize) {
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
        // A first bracket, so the buffers the reads write and the code that touches pages are
        // in before the sample (a first run of that code can fault on its own text).
        faults(&mut meter, 1);
        meter.clear();
        faults(&mut meter, 5);
        faults(&mut meter, 3);
        let (values, multiplexed) = meter.totals(1);
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
        assert_eq!(meter.totals(1).0[0], 2.0);
    }

    #[test]
    fn multiplexing_over_a_sample_is_flagged_and_scaled_by_the_samples_times() {
        // Software groups are never multiplexed: the sample's end times are replaced, as if
        // the first group had been on the PMU for part of the sample only.
        let mut groups = software_groups();
        let mut meter = Meter::new(&mut groups, true);
        faults(&mut meter, 1); // the code's own pages in, as above
        meter.clear();
        faults(&mut meter, 6);
        meter.read_times(Mark::End);
        let acc = meter.acc.clone();
        let wall = meter.acc_ns as f64;
        // On the PMU a third of the sample: 3x.
        meter.sample_start[0] = (1_000, 1_000);
        meter.sample_end[0] = (7_000, 3_000);
        let (values, multiplexed) = meter.scaled_totals(1);
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
        let (values, multiplexed) = meter.scaled_totals(1);
        assert_eq!((values[0], multiplexed[0]), (6.0, false));
        // Never ran during the sample: flagged, not scaled.
        meter.sample_end[0] = (7_000, 600);
        let (values, multiplexed) = meter.scaled_totals(1);
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
}
