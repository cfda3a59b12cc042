//! [`Counters`]: a run's events opened as groups and split into the passes the PMU can hold
//! at once ([`Pass`]), and the clock ([`wall_time_ns`]).

use super::*;

/// The counters a run measures: perf event groups plus, when asked for, the `wall-time` clock.
///
/// A request is split into several groups when the PMU cannot hold it in one. Software events
/// are kept apart from hardware events so the hardware group can use the fast path, and the
/// software clocks apart from the other software events (see [`Counters::open`]). [`Counters::passes`] says which groups are measured
/// together.
#[derive(Debug)]
pub struct Counters {
    pub(super) events: Vec<Event>,
    /// Hardware groups first (`..hardware`), then the software groups.
    pub(super) groups: Vec<Group>,
    pub(super) hardware: usize,
    pub(super) wall_time: bool,
    /// The allocation counters requested, in the order requested.
    pub(super) allocs: Vec<AllocCounter>,
}

/// Groups measured together in one measurement pass: a range of [`Counters::groups`], and
/// whether the `wall-time` clock is read in the same brackets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pass {
    /// The groups of this pass, as indices into [`Counters::groups`].
    pub groups: std::ops::Range<usize>,
    /// Whether `wall-time` is measured in this pass.
    pub wall_time: bool,
    /// The allocation counters measured in this pass (the first pass has them all).
    pub allocs: Vec<AllocCounter>,
}

impl Counters {
    /// Opens `events`.
    ///
    /// Hardware events go into as few groups as the PMU can schedule (a group the kernel
    /// refuses with `EINVAL`/`ENOSPC` at a member, or that never runs when enabled, is split);
    /// `task-clock` and `cpu-clock` each lead a group, the other software events share one;
    /// `wall-time` is served by the clock. The first
    /// event the kernel refuses for any other reason makes the whole open fail.
    ///
    /// ```
    /// use perfbench::counters::{Counters, GroupOptions};
    /// use perfbench::events::{parse_list, Sysfs};
    ///
    /// let events = parse_list("wall-time,task-clock,page-faults,context-switches", &Sysfs::system())?;
    /// let counters = Counters::open(&events, &GroupOptions::default())?;
    /// assert!(counters.wall_time());
    /// assert_eq!(counters.events().len(), 4);
    /// // task-clock leads a group of its own; the other software events share one.
    /// assert_eq!(counters.groups().len(), 2);
    /// assert_eq!(counters.source_of("wall-time"), Some(perfbench::Source::Clock));
    /// assert_eq!(counters.source_of("cycles"), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(events: &[Event], options: &GroupOptions) -> Result<Counters, CounterError> {
        let mut allocs: Vec<AllocCounter> = Vec::new();
        for e in events {
            if let EventKind::Alloc(a) = e.kind {
                // Checked once, at the first allocation counter.
                if allocs.is_empty() && !crate::counters::alloc::installed() {
                    return Err(CounterError::NoAllocator {
                        event: e.name.clone(),
                    });
                }
                if !allocs.contains(&a) {
                    allocs.push(a);
                }
            }
        }
        let (hardware, software): (Vec<Event>, Vec<Event>) = events
            .iter()
            .filter(|e| e.perf().is_some())
            .cloned()
            .partition(Event::needs_pmu);
        let mut groups = Vec::new();
        if !hardware.is_empty() {
            open_split(&hardware, options, &mut groups)?;
        }
        let hardware = groups.len();
        // Software events never multiplex, so a group only saves `read(2)` calls, and grouping
        // across software PMUs is unreliable: on Linux 6.18 a member whose leader belongs to
        // another software PMU reads 0 or a stale value, while every leader reads right.
        // task-clock and cpu-clock are PMUs of their own and lead their own groups, as do
        // tracepoints; the other software events (page-faults, context-switches, ...) share one
        // PMU and one group.
        // The shared group opens first and the clocks last: a pass reads its groups in order at
        // the start of a bracket and in reverse at the end, so the clocks' brackets hold no
        // other group's `read(2)` (whose cost after a cold `iter_batched` setup exceeds what
        // calibration subtracts), while page faults and context switches do not count reads.
        let (clocks, shared): (Vec<Event>, Vec<Event>) =
            software.into_iter().partition(leads_own_group);
        if !shared.is_empty() {
            open_split(&shared, options, &mut groups)?;
        }
        for event in clocks {
            open_split(std::slice::from_ref(&event), options, &mut groups)?;
        }
        Ok(Counters {
            events: events.to_vec(),
            groups,
            hardware,
            wall_time: events.iter().any(|e| matches!(e.kind, EventKind::WallTime)),
            allocs,
        })
    }

    /// No counters at all (a simulated run's sampler, which reads none).
    ///
    /// ```
    /// use perfbench::counters::Counters;
    ///
    /// let none = Counters::empty();
    /// assert!(none.groups().is_empty() && !none.wall_time());
    /// ```
    pub fn empty() -> Counters {
        Counters {
            events: Vec::new(),
            groups: Vec::new(),
            hardware: 0,
            wall_time: false,
            allocs: Vec::new(),
        }
    }

    /// Every requested event, in the order requested.
    ///
    /// See [`Counters::open`] for an example.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// The perf event groups: hardware groups first, then the software ones.
    ///
    /// See [`Counters::open`] for an example.
    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    /// The perf event groups, mutably (reading needs `&mut`).
    ///
    /// ```
    /// use perfbench::counters::{Counters, GroupOptions, Reading};
    /// use perfbench::events::{parse_list, Sysfs};
    ///
    /// let events = parse_list("task-clock,page-faults", &Sysfs::system())?;
    /// let mut counters = Counters::open(&events, &GroupOptions::default())?;
    /// for group in counters.groups_mut() {
    ///     let mut reading = Reading::with_len(group.len());
    ///     group.read(&mut reading)?;
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn groups_mut(&mut self) -> &mut [Group] {
        &mut self.groups
    }

    /// The allocation counters requested, in the order requested.
    ///
    /// ```
    /// use perfbench::counters::{Counters, GroupOptions};
    /// use perfbench::events::{parse_list, Sysfs};
    ///
    /// // Without a `CountingAlloc` as the global allocator, asking for one names the fix.
    /// let events = parse_list("wall-time,alloc-count", &Sysfs::system())?;
    /// let refused = Counters::open(&events, &GroupOptions::default()).unwrap_err();
    /// assert!(refused.to_string().contains("#[global_allocator]"), "{refused}");
    /// assert!(Counters::empty().allocs().is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn allocs(&self) -> &[AllocCounter] {
        &self.allocs
    }

    /// Whether `wall-time` was requested.
    ///
    /// See [`Counters::open`] for an example.
    pub fn wall_time(&self) -> bool {
        self.wall_time
    }

    /// The measurement passes, at least one.
    ///
    /// - Each hardware group is a pass of its own: the groups were split because the PMU cannot
    ///   count them at the same time, and measuring them together would multiplex them.
    /// - All the software groups share one pass. Software events never compete for counters,
    ///   so reading several groups in one bracket costs only the bracket's extra reads, which
    ///   calibration subtracts, and every counter gets the whole pass's share of the measurement
    ///   time and describes the same samples as the others.
    /// - `wall-time` is read in the first pass (a pass of its own when there is no group). The
    ///   [`Meter`](crate::harness::Meter) keeps the counter reads out of its bracket: the clock
    ///   is read outside fast-path reads and inside `read(2)` calls.
    ///
    /// ```
    /// use perfbench::counters::{Counters, GroupOptions};
    /// use perfbench::events::{parse_list, Sysfs};
    ///
    /// let events = parse_list("wall-time,task-clock,page-faults", &Sysfs::system())?;
    /// let counters = Counters::open(&events, &GroupOptions::default())?;
    /// let passes = counters.passes();
    /// assert!(passes[0].wall_time);
    /// let groups: usize = passes.iter().map(|p| p.groups.len()).sum();
    /// assert_eq!(groups, counters.groups().len()); // every group in exactly one pass
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn passes(&self) -> Vec<Pass> {
        let mut passes: Vec<Pass> = (0..self.hardware)
            .map(|i| Pass {
                groups: i..i + 1,
                wall_time: false,
                allocs: Vec::new(),
            })
            .collect();
        if self.groups.len() > self.hardware {
            passes.push(Pass {
                groups: self.hardware..self.groups.len(),
                wall_time: false,
                allocs: Vec::new(),
            });
        }
        match passes.first_mut() {
            Some(first) => {
                first.wall_time = self.wall_time;
                first.allocs = self.allocs.clone();
            }
            None => passes.push(Pass {
                groups: 0..0,
                wall_time: self.wall_time,
                allocs: self.allocs.clone(),
            }),
        }
        passes
    }

    /// The source serving `event` (by name), or `None` when it is not part of this set.
    ///
    /// See [`Counters::open`] for an example.
    pub fn source_of(&self, name: &str) -> Option<Source> {
        if self.wall_time && name == crate::events::WALL_TIME {
            return Some(Source::Clock);
        }
        if self.allocs.iter().any(|a| a.name() == name) {
            return Some(Source::Allocator);
        }
        self.groups
            .iter()
            .find(|g| g.events().iter().any(|e| e.name == name))
            .map(Group::source)
    }
}

/// A non-hardware event that is not served by the shared software PMU: `task-clock` and
/// `cpu-clock` (PMUs of their own), tracepoints and breakpoints.
pub(super) fn leads_own_group(event: &Event) -> bool {
    event.perf().is_some_and(|p| {
        p.type_ != sys::raw::PERF_TYPE_SOFTWARE
            || p.config == u64::from(sys::raw::PERF_COUNT_SW_TASK_CLOCK)
            || p.config == u64::from(sys::raw::PERF_COUNT_SW_CPU_CLOCK)
    })
}

pub(super) fn open_split(
    events: &[Event],
    options: &GroupOptions,
    out: &mut Vec<Group>,
) -> Result<(), CounterError> {
    match Group::open_at(events, options) {
        Ok(mut group) => {
            if events.len() > 1 && !group.schedulable()? {
                drop(group);
                let mid = events.len() / 2;
                open_split(&events[..mid], options, out)?;
                return open_split(&events[mid..], options, out);
            }
            out.push(group);
            Ok(())
        }
        Err((
            i,
            CounterError::Open {
                errno: Errno(libc::EINVAL | libc::ENOSPC),
                ..
            },
        )) if i > 0 => {
            // The kernel validated the group against the PMU's counters and refused member `i`:
            // the first `i` fit together; the rest start a new group.
            open_split(&events[..i], options, out)?;
            open_split(&events[i..], options, out)
        }
        Err((_, e)) => Err(e),
    }
}

/// Reads `wall-time`: nanoseconds of `CLOCK_MONOTONIC`.
///
/// ```
/// use perfbench::counters::wall_time_ns;
///
/// let t0 = wall_time_ns();
/// std::thread::sleep(std::time::Duration::from_millis(2));
/// assert!(wall_time_ns() - t0 >= 2_000_000);
/// ```
#[inline(always)]
pub fn wall_time_ns() -> u64 {
    sys::monotonic_ns()
}
