//! Counter groups: a set of perf events opened together so the kernel schedules them all or
//! none, read in one go, and the [`Counters`] set that splits a request into groups and adds the
//! `wall-time` clock.
//!
//! # Kernel semantics this code relies on (`perf_event_open(2)`)
//! - Every event is opened for this thread only (`pid = 0, cpu = -1`, `inherit = 0`), with the
//!   kernel and hypervisor excluded unless the event asks for them (`perf_event_paranoid = 2`
//!   refuses kernel counting to unprivileged users).
//! - The leader is opened `disabled`; `ENABLE`, `DISABLE` and `RESET` are issued on the leader
//!   with `PERF_IOC_FLAG_GROUP`. `RESET` zeroes counts but not the enabled/running times.
//! - A group is scheduled all or nothing. When the PMU has fewer counters than the machine's
//!   events need, the kernel time-slices groups (multiplexing): `time_running < time_enabled`,
//!   and counts are estimates scaled by `enabled / running` ([`Reading::multiplexed`]). A group
//!   that can never be placed (more members than counters) runs for 0 ns and reads zeros: this
//!   module detects that at open time and splits the group instead of reporting zeros.
//! - A *pinned* group that cannot be placed goes into an error state and `read(2)` returns
//!   end-of-file; that is reported as [`CounterError::Unschedulable`], never as a zero.

use std::fmt;

use super::arch;
use super::userpage::{FastReader, Hot};
use super::Source;
use crate::events::{Event, EventKind, PerfEvent};
use crate::machine::{self, Explanation};
use crate::sys::{self, Errno, EventFd, MappedPage, PageRef, Scope};

/// How to open counters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupOptions {
    /// Use the user-page fast path (`rdpmc`/`mrs`) when the kernel allows it. On by default.
    pub fast_path: bool,
    /// Open the leader `pinned`: the group is never multiplexed, and reads end-of-file
    /// ([`CounterError::Unschedulable`]) when it cannot be placed. Off by default.
    pub pinned: bool,
}

impl Default for GroupOptions {
    fn default() -> Self {
        GroupOptions {
            fast_path: true,
            pinned: false,
        }
    }
}

/// Why opening or reading counters failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CounterError {
    /// `perf_event_open` refused an event.
    Open {
        /// The event's name as the user wrote it.
        event: String,
        /// The kernel's answer.
        errno: Errno,
        /// What it means on this machine and what to do about it.
        explanation: Explanation,
    },
    /// An ioctl or `read(2)` on an open group failed.
    Io {
        /// What perfbench was doing (`"enable"`, `"read"`, ...).
        action: &'static str,
        /// The kernel's answer.
        errno: Errno,
    },
    /// A pinned group could not be scheduled: `read(2)` returned end-of-file.
    Unschedulable {
        /// The group's events.
        events: Vec<String>,
    },
    /// The kernel returned a read of an unexpected shape.
    Malformed {
        /// What was wrong.
        detail: String,
    },
}

impl fmt::Display for CounterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CounterError::Open {
                event,
                errno,
                explanation,
            } => write!(
                f,
                "cannot open counter `{event}` ({errno}): {}; fix: {}",
                explanation.reason, explanation.fix
            ),
            CounterError::Io { action, errno } => {
                write!(
                    f,
                    "counter {action} failed: {errno} ({})",
                    errno.description()
                )
            }
            CounterError::Unschedulable { events } => write!(
                f,
                "the pinned counter group [{}] cannot be scheduled on the PMU (read returned \
                 end-of-file): another tool or the NMI watchdog holds counters, or the group has \
                 more events than the PMU has counters; measure fewer counters at once",
                events.join(", ")
            ),
            CounterError::Malformed { detail } => write!(f, "unexpected counter read: {detail}"),
        }
    }
}

impl std::error::Error for CounterError {}

/// One reading of a group: raw counts in the group's event order, plus the times the kernel
/// reports for the group.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reading {
    /// Raw (unscaled) counts, one per event, in the group's order.
    pub values: Vec<u64>,
    /// Nanoseconds the group was enabled.
    pub time_enabled: u64,
    /// Nanoseconds the group was actually on the PMU.
    pub time_running: u64,
}

impl Reading {
    /// A reading sized for `n` events.
    ///
    /// ```
    /// use perfbench::counters::Reading;
    ///
    /// let r = Reading::with_len(3);
    /// assert_eq!(r.values, [0, 0, 0]);
    /// assert!(!r.multiplexed());
    /// ```
    pub fn with_len(n: usize) -> Reading {
        Reading {
            values: vec![0; n],
            ..Reading::default()
        }
    }

    /// The group was time-sliced with other groups: counts cover only part of the enabled time.
    ///
    /// ```
    /// use perfbench::counters::Reading;
    ///
    /// let mut r = Reading::with_len(1);
    /// (r.time_enabled, r.time_running) = (1000, 400); // on the PMU 40% of the time
    /// assert!(r.multiplexed());
    /// ```
    pub fn multiplexed(&self) -> bool {
        self.time_running < self.time_enabled
    }

    /// The group was enabled but never ran: its counts are meaningless zeros.
    ///
    /// ```
    /// use perfbench::counters::Reading;
    ///
    /// let mut r = Reading::with_len(1);
    /// (r.time_enabled, r.time_running) = (1000, 0);
    /// assert!(r.never_ran());
    /// assert_eq!(r.scaled(0), None);
    /// ```
    pub fn never_ran(&self) -> bool {
        self.time_enabled > 0 && self.time_running == 0
    }

    /// Count `i` scaled to the whole enabled time (`value * enabled / running`), or the raw count
    /// when the group was not multiplexed. `None` when the group never ran.
    ///
    /// ```
    /// use perfbench::counters::Reading;
    ///
    /// let mut r = Reading::with_len(1);
    /// r.values[0] = 300;
    /// (r.time_enabled, r.time_running) = (1000, 500); // counted half of the time
    /// assert_eq!(r.scaled(0), Some(600.0));
    /// assert_eq!(r.scaled(1), None);
    /// ```
    pub fn scaled(&self, i: usize) -> Option<f64> {
        let v = *self.values.get(i)? as f64;
        if !self.multiplexed() {
            return Some(v);
        }
        if self.time_running == 0 {
            return None;
        }
        Some(v * self.time_enabled as f64 / self.time_running as f64)
    }
}

/// A group of perf events opened together, read in one go.
pub struct Group {
    events: Vec<Event>,
    fds: Vec<EventFd>,
    ids: Vec<u64>,
    buf: Vec<u64>,
    fast: Option<FastReader<MappedPage, arch::Native>>,
    /// Handles to `fast`'s pages for the hot paths of [`Group::read`] and
    /// [`Group::read_counts`]; declines every read when `fast` is `None`.
    hot: HotPages,
    source: Source,
    fast_fallbacks: u64,
    /// See [`Group::slow_reads`].
    slow_reads: u64,
    options: GroupOptions,
}

/// The hot path's handles to the pages of a group's [`FastReader`]: borrowed from the
/// `MappedPage`s the reader owns, in the same `Group`, which Rust cannot express with a
/// lifetime; hence `'static`, and the rules that make it sound: a `HotPages` is only ever built
/// from the pages of the `FastReader` stored beside it (or from none), the group never replaces
/// or moves out its `FastReader` (it is set once, in [`Group::open`]), and the handles never
/// leave the group.
struct HotPages(Hot<PageRef<'static>>);

impl HotPages {
    /// The hot path of a group without the fast path: declines every read.
    fn none() -> HotPages {
        HotPages(Hot::new(&[]))
    }

    /// The hot path over `fast`'s pages, which the caller stores beside it (see [`HotPages`]).
    fn of(fast: &FastReader<MappedPage, arch::Native>) -> HotPages {
        let handles: Vec<PageRef<'static>> = fast
            .pages()
            .iter()
            // SAFETY: the handles live in the `HotPages` stored in the same `Group` as `fast`,
            // which owns the pages for the group's whole life and is never replaced (see
            // `HotPages`); no handle leaves the group.
            .map(|page| unsafe { page.page_ref_unbounded() })
            .collect();
        HotPages(Hot::new(&handles))
    }
}

// SAFETY: the handles only read the read-only mappings of the `MappedPage`s owned by the same
// `Group`, which are `Send`: the kernel is the only writer, and reading them from another thread
// is as sound as reading them from this one.
unsafe impl Send for HotPages {}

impl fmt::Debug for Group {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Group")
            .field("events", &self.names())
            .field("source", &self.source)
            .field("ids", &self.ids)
            .finish_non_exhaustive()
    }
}

impl std::os::fd::AsRawFd for Group {
    /// The leader's descriptor: `read(2)` of it returns the whole group.
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        self.fds[0].as_raw_fd()
    }
}

/// Fills an attr for `event` as a member (or leader) of a counting group.
pub(crate) fn counting_attr(p: &PerfEvent, leader: bool, options: &GroupOptions) -> sys::Attr {
    let mut attr = sys::new_attr();
    attr.type_ = p.type_;
    attr.config = p.config;
    attr.__bindgen_anon_3.config1 = p.config1;
    attr.__bindgen_anon_4.config2 = p.config2;
    attr.config3 = p.config3;
    attr.set_exclude_user(u64::from(!p.user));
    attr.set_exclude_kernel(u64::from(!p.kernel));
    attr.set_exclude_hv(u64::from(!p.hypervisor));
    attr.set_precise_ip(u64::from(p.precise_ip));
    attr.set_inherit(0);
    attr.read_format = sys::GROUP_READ_FORMAT;
    if leader {
        attr.set_disabled(1);
        attr.set_pinned(u64::from(options.pinned));
    }
    if options.fast_path && cfg!(target_arch = "aarch64") && needs_pmu(p) {
        // arm64: `config1` bit 1 asks the PMUv3 driver for user access (sysfs format
        // `rdpmc=config1:1`); bit 0 (64-bit counters) is left to the user because it fails with
        // EOPNOTSUPP without PMUv3p5.
        attr.__bindgen_anon_3.config1 = p.config1 | 2;
    }
    attr
}

fn needs_pmu(p: &PerfEvent) -> bool {
    p.type_ != sys::raw::PERF_TYPE_SOFTWARE && p.type_ != sys::raw::PERF_TYPE_TRACEPOINT
}

impl Group {
    /// Opens `events` (perf events only; `wall-time` is not a perf event) as one group.
    ///
    /// The leader is opened disabled. On failure the error names the event the kernel refused
    /// and explains the errno for this machine; `Err((index, error))` gives the member's index so
    /// [`Counters::open`] can split a group the PMU cannot hold.
    ///
    /// Counting the page faults of touching 8 fresh pages, and the CPU time it took:
    ///
    /// ```
    /// use perfbench::counters::{Group, GroupOptions, Reading};
    /// use perfbench::events::{parse_list, Sysfs};
    ///
    /// let events = parse_list("page-faults,task-clock", &Sysfs::system())?;
    /// let mut group = Group::open(&events, &GroupOptions::default())?;
    /// use perfbench::sys::AnonMapping;
    ///
    /// assert_eq!((group.len(), group.names()), (2, vec!["page-faults".to_string(), "task-clock".into()]));
    /// let mut reading = Reading::with_len(group.len());
    /// let mut pages = AnonMapping::new(8)?;
    /// group.reset()?;
    /// group.enable()?;
    /// pages.touch_every_page();
    /// group.disable()?;
    /// let source = group.read(&mut reading)?;
    /// assert_eq!(source, group.source());
    /// assert_eq!(reading.values[0], 8);
    /// assert!(reading.values[1] > 0); // nanoseconds on the CPU
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(events: &[Event], options: &GroupOptions) -> Result<Group, CounterError> {
        Self::open_at(events, options).map_err(|(_, e)| e)
    }

    fn open_at(events: &[Event], options: &GroupOptions) -> Result<Group, (usize, CounterError)> {
        let mut fds: Vec<EventFd> = Vec::with_capacity(events.len());
        for (i, event) in events.iter().enumerate() {
            let Some(p) = event.perf() else {
                return Err((
                    i,
                    CounterError::Malformed {
                        detail: format!("`{}` is not a perf event", event.name),
                    },
                ));
            };
            let mut attr = counting_attr(p, i == 0, options);
            let opened = EventFd::open(&mut attr, 0, -1, fds.first());
            match opened {
                Ok(fd) => fds.push(fd),
                Err(failure) => {
                    let explanation = machine::explain_open_failure(event, &failure);
                    return Err((
                        i,
                        CounterError::Open {
                            event: event.name.clone(),
                            errno: failure.errno,
                            explanation,
                        },
                    ));
                }
            }
        }
        let ids = fds
            .iter()
            .map(|fd| fd.id())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|errno| {
                (
                    0,
                    CounterError::Io {
                        action: "id",
                        errno,
                    },
                )
            })?;
        let n = events.len();
        let mut group = Group {
            events: events.to_vec(),
            fds,
            ids,
            buf: vec![0; sys::GROUP_HEADER_WORDS + 2 * n],
            fast: None,
            hot: HotPages::none(),
            source: Source::Read,
            fast_fallbacks: 0,
            slow_reads: 0,
            options: options.clone(),
        };
        if options.fast_path && arch::SOURCE.is_some() && events.iter().all(Event::needs_pmu) {
            group.fast = group.map_fast_path();
            if let Some(fast) = &group.fast {
                group.hot = HotPages::of(fast);
                group.source = arch::SOURCE.unwrap_or(Source::Read);
            }
        }
        Ok(group)
    }

    /// Maps every member's user page and keeps the fast reader when the kernel grants user
    /// access on all of them.
    fn map_fast_path(&self) -> Option<FastReader<MappedPage, arch::Native>> {
        let pages = self
            .fds
            .iter()
            .map(EventFd::map_user_page)
            .collect::<Result<Vec<_>, _>>()
            .ok()?;
        let regs = arch::native()?;
        self.enable().ok()?;
        // `index` is only non-zero while the group is on the PMU: probe while enabled.
        let reader = FastReader::new(pages, regs);
        let usable = reader.capability().is_usable();
        self.disable().ok()?;
        self.reset().ok()?;
        usable.then_some(reader)
    }

    /// The group's events, in read order.
    ///
    /// See [`Group::open`] for an example.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// The events' names, in read order.
    ///
    /// See [`Group::open`] for an example.
    pub fn names(&self) -> Vec<String> {
        self.events.iter().map(|e| e.name.clone()).collect()
    }

    /// Number of events.
    ///
    /// See [`Group::open`] for an example.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether the group has no events (never true for an opened group).
    ///
    /// ```
    /// use perfbench::counters::{Group, GroupOptions, Reading};
    /// use perfbench::events::{parse_list, Sysfs};
    ///
    /// let events = parse_list("page-faults,task-clock", &Sysfs::system())?;
    /// let mut group = Group::open(&events, &GroupOptions::default())?;
    /// assert!(!group.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// Where readings come from: the fast path ([`Source::Rdpmc`]/[`Source::Mrs`]) when every
    /// member's user page grants it, [`Source::Read`] otherwise.
    ///
    /// ```
    /// use perfbench::counters::{Group, GroupOptions, Reading};
    /// use perfbench::events::{parse_list, Sysfs};
    ///
    /// let events = parse_list("page-faults,task-clock", &Sysfs::system())?;
    /// let mut group = Group::open(&events, &GroupOptions::default())?;
    /// use perfbench::Source;
    ///
    /// // Software events have no user-page fast path.
    /// assert_eq!(group.source(), Source::Read);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn source(&self) -> Source {
        self.source
    }

    /// How many fast-path reads fell back to `read(2)` because a member's page showed
    /// `index == 0` (the group was not on the PMU at that instant, e.g. while disabled), or
    /// because the [`Reading`] passed had another length than the group.
    ///
    /// ```
    /// use perfbench::counters::{Group, GroupOptions, Reading};
    /// use perfbench::events::{parse_list, Sysfs};
    ///
    /// let events = parse_list("page-faults,task-clock", &Sysfs::system())?;
    /// let mut group = Group::open(&events, &GroupOptions::default())?;
    /// let mut reading = Reading::with_len(group.len());
    /// group.read(&mut reading)?;
    /// assert_eq!(group.fast_fallbacks(), 0); // no fast path, so nothing fell back
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fast_fallbacks(&self) -> u64 {
        self.fast_fallbacks
    }

    /// How many reads of a fast-path group ([`Group::read`] or [`Group::read_counts`]) the hot
    /// path's one straight-line attempt did not serve: the page changed during the attempt
    /// (the kernel updated it: the group was scheduled in, or its counter overflowed, and the
    /// read retried), the page showed the group multiplexed (for `read`), or the fast path
    /// declined ([`Group::fast_fallbacks`]). Always 0 for a group without the fast path.
    ///
    /// Such a read runs other code than the hot path between the counter load it keeps and
    /// its return (a retry runs the whole attempt again after a discarded load), so a bracket
    /// it begins or ends counts a few more instructions than one read on the hot path: the
    /// harness leaves a reading with such a read out of its exactness test (see
    /// [`harness`](crate::harness), exact counts).
    ///
    /// ```
    /// use perfbench::counters::{Group, GroupOptions, Reading};
    /// use perfbench::events::{parse_list, Sysfs};
    ///
    /// let events = parse_list("page-faults", &Sysfs::system())?;
    /// let mut group = Group::open(&events, &GroupOptions::default())?;
    /// let mut reading = Reading::with_len(group.len());
    /// group.read_counts(&mut reading)?; // read(2): software events have no fast path
    /// assert_eq!(group.slow_reads(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn slow_reads(&self) -> u64 {
        self.slow_reads
    }

    /// The options the group was opened with.
    ///
    /// ```
    /// use perfbench::counters::{Group, GroupOptions, Reading};
    /// use perfbench::events::{parse_list, Sysfs};
    ///
    /// let events = parse_list("page-faults,task-clock", &Sysfs::system())?;
    /// let mut group = Group::open(&events, &GroupOptions::default())?;
    /// assert_eq!(group.options(), &GroupOptions::default());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn options(&self) -> &GroupOptions {
        &self.options
    }

    /// Starts counting (`PERF_EVENT_IOC_ENABLE` on the whole group).
    ///
    /// See [`Group::open`] for an example.
    pub fn enable(&self) -> Result<(), CounterError> {
        self.leader()
            .enable(Scope::Group)
            .map_err(|errno| CounterError::Io {
                action: "enable",
                errno,
            })
    }

    /// Stops counting (`PERF_EVENT_IOC_DISABLE` on the whole group).
    ///
    /// See [`Group::open`] for an example.
    pub fn disable(&self) -> Result<(), CounterError> {
        self.leader()
            .disable(Scope::Group)
            .map_err(|errno| CounterError::Io {
                action: "disable",
                errno,
            })
    }

    /// Zeroes every member's count (`PERF_EVENT_IOC_RESET`); times are not reset.
    ///
    /// ```
    /// use perfbench::counters::{Group, GroupOptions, Reading};
    /// use perfbench::events::{parse_list, Sysfs};
    ///
    /// let events = parse_list("page-faults,task-clock", &Sysfs::system())?;
    /// let mut group = Group::open(&events, &GroupOptions::default())?;
    /// use perfbench::sys::AnonMapping;
    ///
    /// let mut reading = Reading::with_len(group.len());
    /// group.enable()?;
    /// AnonMapping::new(4)?.touch_every_page();
    /// group.disable()?;
    /// group.reset()?;
    /// group.read(&mut reading)?;
    /// assert_eq!(reading.values[0], 0); // the counts are zeroed, the times are not
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn reset(&self) -> Result<(), CounterError> {
        self.leader()
            .reset(Scope::Group)
            .map_err(|errno| CounterError::Io {
                action: "reset",
                errno,
            })
    }

    /// The members' descriptors (for the doctor's fast-path diagnosis).
    #[doc(hidden)]
    pub fn fds_for_doctor(&self) -> &[EventFd] {
        &self.fds
    }

    fn leader(&self) -> &EventFd {
        &self.fds[0]
    }

    /// Reads every member: through the fast path when available and the group is on the PMU,
    /// through `read(2)` otherwise. Returns the source that served this reading.
    ///
    /// Allocation-free when `out` was made by [`Reading::with_len`] for this group (another
    /// length is corrected once, through `read(2)`). Through the fast path the times are
    /// extrapolated to the moment of the read only when the group has been multiplexed; see
    /// [`Times::extrapolated`](super::userpage::Times::extrapolated): differences of two
    /// readings, and [`Reading::multiplexed`] of them, are right either way.
    ///
    /// See [`Group::open`] for an example.
    #[inline(always)]
    pub fn read(&mut self, out: &mut Reading) -> Result<Source, CounterError> {
        // The hot path: a fast-path group of at most `STRAIGHT_MAX` members, a `Reading` of
        // its length, one seqlock attempt that sees no page change and a group the page does
        // not show multiplexed, read member after member with no loop. Everything else is
        // `read_slow`'s (a torn attempt retried there costs one attempt more).
        if let Some(regs) = arch::native() {
            if let Some(times) = self.hot.0.read(&regs, &mut out.values) {
                out.time_enabled = times.enabled;
                out.time_running = times.running;
                return Ok(self.source);
            }
        }
        self.read_slow(out)
    }

    /// Reads every member's count, as [`Group::read`] does, without the times where it can:
    /// the counts-only read of a bracket whose caller detects multiplexing from times read
    /// elsewhere.
    ///
    /// The counts are raw, exactly as [`Group::read`] gives them (never scaled). On the hot
    /// path (a fast-path group of at most 7 members, a [`Reading`] of its length, one seqlock
    /// attempt that sees no page change and every member on the PMU) it loads no times and
    /// makes no multiplexing test: `out.time_enabled` and `out.time_running` are left as they
    /// were, and a multiplexed group's raw counts are read like any other's. Every other read
    /// (a torn snapshot, a member whose `index` is 0, a `Reading` of another length, a group of
    /// more than 7 members or without the fast path) is [`Group::read`]'s out-of-line path,
    /// which may fill the times. So the times of `out` mean nothing after this call: a caller
    /// that scales or flags multiplexed counts takes the times from another read, such as
    /// [`Group::read`] before and after a stretch of counts-only reads (the harness's
    /// [`Meter`](crate::harness::Meter) does so once per sample: a group whose `time_enabled`
    /// and `time_running` advanced alike over the sample was never multiplexed in it).
    ///
    /// ```
    /// use perfbench::counters::{Group, GroupOptions, Reading};
    /// use perfbench::events::{parse_list, Sysfs};
    /// use perfbench::sys::AnonMapping;
    ///
    /// let events = parse_list("page-faults,context-switches", &Sysfs::system())?;
    /// let mut group = Group::open(&events, &GroupOptions::default())?;
    /// let (mut times0, mut times1) = (Reading::with_len(group.len()), Reading::with_len(group.len()));
    /// let (mut a, mut b) = (Reading::with_len(group.len()), Reading::with_len(group.len()));
    /// group.reset()?;
    /// group.enable()?;
    /// group.read(&mut times0)?; // the times at the start of the stretch
    /// group.read_counts(&mut a)?;
    /// AnonMapping::new(6)?.touch_every_page();
    /// let source = group.read_counts(&mut b)?;
    /// group.read(&mut times1)?; // and at its end
    /// group.disable()?;
    /// assert_eq!(source, group.source());
    /// assert_eq!(b.values[0] - a.values[0], 6); // counts as `read` gives them
    /// // Multiplexed during the stretch? Only if running advanced less than enabled.
    /// let enabled = times1.time_enabled - times0.time_enabled;
    /// let running = times1.time_running - times0.time_running;
    /// assert_eq!(enabled, running); // software events are never multiplexed
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline(always)]
    pub fn read_counts(&mut self, out: &mut Reading) -> Result<Source, CounterError> {
        // The hot path of `read` without the times: the straight-line read of a fast-path
        // group of at most `STRAIGHT_MAX` members, one seqlock attempt, no multiplexing test.
        if let Some(regs) = arch::native() {
            if self.hot.0.read_counts(&regs, &mut out.values) {
                return Ok(self.source);
            }
        }
        self.read_slow(out)
    }

    /// Every read the hot path of [`Group::read`] (or of [`Group::read_counts`]) does not
    /// serve, out of line: a group without the fast path reads with `read(2)`; a fast-path
    /// group the page shows multiplexed (for `read`), or whose one hot attempt saw a page
    /// change, is read again by [`FastReader::read`] (which retries and extrapolates the times
    /// of a multiplexed group); a read the fast path declines (a member's `index` is 0, the
    /// pages kept changing for [`MAX_RETRIES`] + 1 attempts, or the `Reading` has another
    /// length than the group) is counted in [`Group::fast_fallbacks`] and served by `read(2)`.
    /// A fast-path group of more than 7 members is always read here.
    ///
    /// [`MAX_RETRIES`]: super::userpage::MAX_RETRIES
    #[cold]
    #[inline(never)]
    fn read_slow(&mut self, out: &mut Reading) -> Result<Source, CounterError> {
        let Some(fast) = &self.fast else {
            self.read_syscall(out)?;
            return Ok(Source::Read);
        };
        self.slow_reads += 1;
        if out.values.len() == fast.len() {
            if let Some(times) = fast.read(&mut out.values) {
                out.time_enabled = times.enabled;
                out.time_running = times.running;
                return Ok(self.source);
            }
        }
        self.fast_fallbacks += 1;
        self.read_syscall(out)?;
        Ok(Source::Read)
    }

    /// Reads every member with one `read(2)` of the leader, whatever the fast path could do.
    ///
    /// ```
    /// use perfbench::counters::{Group, GroupOptions, Reading};
    /// use perfbench::events::{parse_list, Sysfs};
    ///
    /// let events = parse_list("page-faults,task-clock", &Sysfs::system())?;
    /// let mut group = Group::open(&events, &GroupOptions::default())?;
    /// use perfbench::sys::AnonMapping;
    ///
    /// let mut reading = Reading::with_len(group.len());
    /// group.enable()?;
    /// AnonMapping::new(3)?.touch_every_page();
    /// group.disable()?;
    /// group.read_syscall(&mut reading)?; // read(2), whatever the fast path could do
    /// assert!(reading.values[0] >= 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn read_syscall(&mut self, out: &mut Reading) -> Result<(), CounterError> {
        let n = self.events.len();
        let bytes = self.fds[0]
            .read_words(&mut self.buf)
            .map_err(|errno| CounterError::Io {
                action: "read",
                errno,
            })?;
        if bytes == 0 {
            return Err(CounterError::Unschedulable {
                events: self.names(),
            });
        }
        if bytes != self.buf.len() * 8 || self.buf[0] as usize != n {
            return Err(CounterError::Malformed {
                detail: format!(
                    "read {bytes} bytes for {} members (expected {} for {n})",
                    self.buf[0],
                    self.buf.len() * 8
                ),
            });
        }
        out.time_enabled = self.buf[1];
        out.time_running = self.buf[2];
        out.values.resize(n, 0);
        let pairs = &self.buf[sys::GROUP_HEADER_WORDS..];
        for (i, slot) in out.values.iter_mut().enumerate() {
            let (value, id) = (pairs[2 * i], pairs[2 * i + 1]);
            *slot = if id == self.ids[i] {
                value
            } else {
                // The kernel lists members in creation order, so this is never expected; map by
                // id rather than trust the order blindly.
                self.value_by_id(self.ids[i])?
            };
        }
        Ok(())
    }

    fn value_by_id(&self, id: u64) -> Result<u64, CounterError> {
        self.buf[sys::GROUP_HEADER_WORDS..]
            .chunks_exact(2)
            .find(|pair| pair[1] == id)
            .map(|pair| pair[0])
            .ok_or_else(|| CounterError::Malformed {
                detail: format!("member id {id} missing from the group read"),
            })
    }

    /// Every member's count as the user page's `offset` shows it, read consistently under the
    /// page's seqlock. While the group is disabled the kernel leaves each member's full count
    /// there, so this equals [`Group::read_syscall`]'s values; used to verify the fast path.
    /// `None` without mapped pages.
    ///
    /// ```
    /// use perfbench::counters::{Group, GroupOptions, Reading};
    /// use perfbench::events::{parse_list, Sysfs};
    ///
    /// let events = parse_list("page-faults,task-clock", &Sysfs::system())?;
    /// let mut group = Group::open(&events, &GroupOptions::default())?;
    /// let mut offsets = vec![0; group.len()];
    /// // Software events map no user pages here: nothing to compare.
    /// if group.source() == perfbench::Source::Read {
    ///     assert_eq!(group.page_offsets(&mut offsets), None);
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn page_offsets(&self, out: &mut [u64]) -> Option<()> {
        let fast = self.fast.as_ref()?;
        fast.page_offsets(out).then_some(())
    }

    /// Runs the group briefly to check that the PMU can hold it: a group with more members than
    /// counters is enabled but never runs.
    fn schedulable(&mut self) -> Result<bool, CounterError> {
        let mut r = Reading::with_len(self.len());
        self.reset()?;
        self.enable()?;
        let mut x = 0u64;
        for i in 0..20_000u64 {
            x = std::hint::black_box(x ^ i);
        }
        std::hint::black_box(x);
        self.disable()?;
        self.read_syscall(&mut r)?;
        self.reset()?;
        Ok(!r.never_ran())
    }
}

/// The counters a run measures: perf event groups plus, when asked for, the `wall-time` clock.
///
/// A request is split into several groups when the PMU cannot hold it in one. Software events
/// are kept apart from hardware events so the hardware group can use the fast path, and the
/// software clocks apart from the other software events (see [`Counters::open`]). [`Counters::passes`] says which groups are measured
/// together.
#[derive(Debug)]
pub struct Counters {
    events: Vec<Event>,
    /// Hardware groups first (`..hardware`), then the software groups.
    groups: Vec<Group>,
    hardware: usize,
    wall_time: bool,
}

/// Groups measured together in one measurement pass: a range of [`Counters::groups`], and
/// whether the `wall-time` clock is read in the same brackets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pass {
    /// The groups of this pass, as indices into [`Counters::groups`].
    pub groups: std::ops::Range<usize>,
    /// Whether `wall-time` is measured in this pass.
    pub wall_time: bool,
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
            })
            .collect();
        if self.groups.len() > self.hardware {
            passes.push(Pass {
                groups: self.hardware..self.groups.len(),
                wall_time: false,
            });
        }
        match passes.first_mut() {
            Some(first) => first.wall_time = self.wall_time,
            None => passes.push(Pass {
                groups: 0..0,
                wall_time: self.wall_time,
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
        self.groups
            .iter()
            .find(|g| g.events().iter().any(|e| e.name == name))
            .map(Group::source)
    }
}

/// A non-hardware event that is not served by the shared software PMU: `task-clock` and
/// `cpu-clock` (PMUs of their own), tracepoints and breakpoints.
fn leads_own_group(event: &Event) -> bool {
    event.perf().is_some_and(|p| {
        p.type_ != sys::raw::PERF_TYPE_SOFTWARE
            || p.config == u64::from(sys::raw::PERF_COUNT_SW_TASK_CLOCK)
            || p.config == u64::from(sys::raw::PERF_COUNT_SW_CPU_CLOCK)
    })
}

fn open_split(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::PerfEvent;
    use crate::sys::raw;

    fn sw(name: &str, config: u32) -> Event {
        Event {
            name: name.to_owned(),
            kind: EventKind::Perf(PerfEvent {
                type_: raw::PERF_TYPE_SOFTWARE,
                config: config as u64,
                config1: 0,
                config2: 0,
                config3: 0,
                pmu: None,
                user: true,
                kernel: false,
                hypervisor: false,
                precise_ip: 0,
            }),
        }
    }

    fn software_trio() -> Vec<Event> {
        vec![
            sw("page-faults", raw::PERF_COUNT_SW_PAGE_FAULTS),
            sw("task-clock", raw::PERF_COUNT_SW_TASK_CLOCK),
            sw("context-switches", raw::PERF_COUNT_SW_CONTEXT_SWITCHES),
        ]
    }

    #[test]
    fn touching_k_fresh_pages_reads_exactly_k_page_faults() {
        let mut group = Group::open(&software_trio(), &GroupOptions::default()).unwrap();
        assert_eq!(
            group.source(),
            Source::Read,
            "software events have no fast path"
        );
        let mut r = Reading::with_len(3);
        for k in [1usize, 7, 64, 300] {
            let mut map = sys::AnonMapping::new(k).unwrap();
            group.reset().unwrap();
            group.enable().unwrap();
            map.touch_every_page();
            group.disable().unwrap();
            group.read(&mut r).unwrap();
            assert_eq!(r.values[0], k as u64, "page-faults for {k} pages");
            assert!(!r.multiplexed());
        }
    }

    #[test]
    fn task_clock_stays_within_the_wall_time_of_the_region() {
        let mut group = Group::open(&software_trio(), &GroupOptions::default()).unwrap();
        let mut r = Reading::with_len(3);
        // Busy for `ns` of wall time, outside the region: counted, it would show.
        let spin = |ns: u64| {
            let start = wall_time_ns();
            while wall_time_ns() - start < ns {
                std::hint::spin_loop();
            }
        };
        group.reset().unwrap();
        spin(20_000_000);
        let t0 = wall_time_ns();
        group.enable().unwrap();
        let mut x = 1u64;
        for i in 0..2_000_000u64 {
            x = std::hint::black_box(x.wrapping_mul(i | 1));
        }
        group.disable().unwrap();
        let wall = wall_time_ns() - t0;
        spin(20_000_000);
        group.read(&mut r).unwrap();
        assert!(r.values[1] > 0);
        // task-clock runs on the kernel's scheduler clock and the wall time on CLOCK_MONOTONIC,
        // which time synchronisation may slew by a few percent: 10% of slack, while counting
        // the 40 ms of spinning outside would read several times the region's wall time.
        let slack = |ns: u64| ns as f64 <= 1.1 * wall as f64;
        assert!(
            slack(r.values[1]),
            "task-clock {} > wall {wall}",
            r.values[1]
        );
        assert!(slack(r.time_enabled) && r.time_running <= r.time_enabled);
    }

    #[test]
    fn disabled_group_excludes_what_happens_outside() {
        let mut group = Group::open(&software_trio(), &GroupOptions::default()).unwrap();
        let mut r = Reading::with_len(3);
        group.reset().unwrap();
        // Faults while disabled must not count.
        let mut outside = sys::AnonMapping::new(50).unwrap();
        outside.touch_every_page();
        group.enable().unwrap();
        let mut inside = sys::AnonMapping::new(5).unwrap();
        inside.touch_every_page();
        group.disable().unwrap();
        let mut after = sys::AnonMapping::new(50).unwrap();
        after.touch_every_page();
        group.read(&mut r).unwrap();
        assert_eq!(r.values[0], 5);
        // The read itself does not change anything once disabled.
        let first = r.clone();
        group.read(&mut r).unwrap();
        assert_eq!(first, r);
    }

    #[test]
    fn reset_zeroes_counts_not_times() {
        let mut group = Group::open(&software_trio(), &GroupOptions::default()).unwrap();
        let mut r = Reading::with_len(3);
        group.enable().unwrap();
        let mut m = sys::AnonMapping::new(3).unwrap();
        m.touch_every_page();
        group.disable().unwrap();
        group.reset().unwrap();
        group.read(&mut r).unwrap();
        assert_eq!(r.values, vec![0, 0, 0]);
        assert!(r.time_enabled > 0, "times survive a reset");
    }

    #[test]
    fn scaling_and_flags() {
        let r = Reading {
            values: vec![100, 7],
            time_enabled: 1000,
            time_running: 250,
        };
        assert!(r.multiplexed());
        assert_eq!(r.scaled(0), Some(400.0));
        let never = Reading {
            values: vec![0],
            time_enabled: 1000,
            time_running: 0,
        };
        assert!(never.never_ran());
        assert_eq!(never.scaled(0), None);
        let full = Reading {
            values: vec![5],
            time_enabled: 10,
            time_running: 10,
        };
        assert_eq!(full.scaled(0), Some(5.0));
        assert_eq!(full.scaled(3), None);
    }

    #[test]
    fn counters_split_software_and_wall_time() {
        let mut events = software_trio();
        events.push(Event::wall_time());
        let counters = Counters::open(&events, &GroupOptions::default()).unwrap();
        assert_eq!(
            counters.groups().len(),
            2,
            "task-clock alone, page-faults and context-switches together"
        );
        let names: Vec<Vec<String>> = counters.groups().iter().map(Group::names).collect();
        assert_eq!(
            names,
            [vec!["page-faults", "context-switches"], vec!["task-clock"]],
            "the clock's group last, so its bracket is innermost"
        );
        assert!(counters.wall_time());
        assert_eq!(counters.source_of("wall-time"), Some(Source::Clock));
        assert_eq!(counters.source_of("task-clock"), Some(Source::Read));
        assert_eq!(counters.source_of("nope"), None);
        // The three software groups and the clock in one pass.
        assert_eq!(
            counters.passes(),
            vec![Pass {
                groups: 0..2,
                wall_time: true
            }]
        );
        let software_only = Counters::open(&software_trio(), &GroupOptions::default()).unwrap();
        assert_eq!(
            software_only.passes(),
            vec![Pass {
                groups: 0..2,
                wall_time: false
            }]
        );
        let clock_only = Counters::open(&[Event::wall_time()], &GroupOptions::default()).unwrap();
        assert_eq!(
            clock_only.passes(),
            vec![Pass {
                groups: 0..0,
                wall_time: true
            }]
        );
        let nothing = Counters::open(&[], &GroupOptions::default()).unwrap();
        assert_eq!(nothing.passes().len(), 1);
    }

    #[test]
    fn every_software_counter_reads_right_whatever_the_order() {
        // Grouped, `page-faults` behind a `task-clock` leader read 0 on Linux 6.18; behind a
        // leader of its own software PMU it reads right.
        let events = vec![
            sw("task-clock", raw::PERF_COUNT_SW_TASK_CLOCK),
            sw("context-switches", raw::PERF_COUNT_SW_CONTEXT_SWITCHES),
            sw("page-faults", raw::PERF_COUNT_SW_PAGE_FAULTS),
            sw("cpu-clock", raw::PERF_COUNT_SW_CPU_CLOCK),
        ];
        let mut counters = Counters::open(&events, &GroupOptions::default()).unwrap();
        let mut map = sys::AnonMapping::new(40).unwrap();
        for g in counters.groups_mut() {
            g.reset().unwrap();
            g.enable().unwrap();
        }
        map.touch_every_page();
        for g in counters.groups_mut() {
            g.disable().unwrap();
        }
        let mut values = std::collections::HashMap::new();
        for g in counters.groups_mut() {
            let mut r = Reading::with_len(g.len());
            g.read(&mut r).unwrap();
            for (e, v) in g.events().iter().zip(&r.values) {
                values.insert(e.name.clone(), *v);
            }
        }
        // page-faults is a member behind context-switches, a leader of the same software PMU.
        assert_eq!(counters.groups().len(), 3);
        assert_eq!(values["page-faults"], 40);
        assert!(values["task-clock"] > 0);
        assert!(values["cpu-clock"] > 0);
    }

    #[test]
    #[ignore = "needs root and tracefs mounted at /sys/kernel/tracing (.ci/run mounts it)"]
    fn a_tracepoint_counts_exactly_the_system_calls_made() {
        let sysfs = crate::events::Sysfs::system();
        let events =
            crate::events::parse_list("syscalls:sys_enter_getpid,page-faults", &sysfs).unwrap();
        let mut counters = Counters::open(&events, &GroupOptions::default()).unwrap();
        // The tracepoint is a PMU of its own: it leads its own group, after the shared one.
        let names: Vec<Vec<String>> = counters.groups().iter().map(Group::names).collect();
        assert_eq!(
            names,
            [vec!["page-faults"], vec!["syscalls:sys_enter_getpid"]]
        );
        for k in [1u32, 10, 1000] {
            let group = &mut counters.groups_mut()[1];
            let (mut a, mut b) = (Reading::with_len(1), Reading::with_len(1));
            group.reset().unwrap();
            group.enable().unwrap();
            group.read(&mut a).unwrap();
            for _ in 0..k {
                // glibc >= 2.25 does not cache the pid: one getpid(2) each.
                std::hint::black_box(std::process::id());
            }
            group.read(&mut b).unwrap();
            group.disable().unwrap();
            assert_eq!(b.values[0] - a.values[0], u64::from(k), "k = {k}");
        }
    }

    #[test]
    fn group_reads_carry_ids_in_order() {
        let mut group = Group::open(&software_trio(), &GroupOptions::default()).unwrap();
        group.enable().unwrap();
        let mut r = Reading::with_len(3);
        group.read_syscall(&mut r).unwrap();
        assert_eq!(group.ids.len(), 3);
        let ids = &group.buf[sys::GROUP_HEADER_WORDS..];
        assert_eq!(
            [ids[1], ids[3], ids[5]],
            [group.ids[0], group.ids[1], group.ids[2]]
        );
    }

    // ---- Hardware counters: these need a CPU PMU (`/sys/bus/event_source/devices/cpu*`),
    // which this project's VMs lack. Run with `cargo test -- --ignored` on bare metal.

    fn hw(names: &str) -> Vec<Event> {
        crate::events::parse_list(names, &crate::events::Sysfs::system()).unwrap()
    }

    #[test]
    #[ignore = "needs a CPU PMU (hardware counters); the development VM has none"]
    fn hardware_group_counts_a_loop_and_reports_its_source() {
        let mut group = Group::open(&hw("instructions,cycles"), &GroupOptions::default()).unwrap();
        let mut r = Reading::with_len(2);
        let mut per_k = Vec::new();
        for k in [100_000u64, 200_000] {
            group.reset().unwrap();
            group.enable().unwrap();
            let mut x = 0u64;
            for i in 0..k {
                x = std::hint::black_box(x.wrapping_add(i));
            }
            group.disable().unwrap();
            group.read(&mut r).unwrap();
            assert!(!r.never_ran());
            per_k.push(r.values[0]);
        }
        // Twice the loop, about twice the instructions.
        let ratio = per_k[1] as f64 / per_k[0] as f64;
        assert!((1.8..2.2).contains(&ratio), "instructions ratio {ratio}");
        if arch::SOURCE.is_some() && group.source() != Source::Read {
            assert_eq!(Some(group.source()), arch::SOURCE);
        }
    }

    #[test]
    #[ignore = "needs a CPU PMU (hardware counters); the development VM has none"]
    fn fast_path_matches_read_while_enabled() {
        let mut group = Group::open(&hw("instructions,cycles"), &GroupOptions::default()).unwrap();
        if group.source() == Source::Read {
            eprintln!("fast path not granted here (see `perfbench doctor`)");
            return;
        }
        group.reset().unwrap();
        group.enable().unwrap();
        let (mut a, mut b) = (Reading::with_len(2), Reading::with_len(2));
        group.read(&mut a).unwrap();
        group.read_syscall(&mut b).unwrap();
        group.disable().unwrap();
        // Counting continued between the two reads, but only by the cost of one read.
        assert!(b.values[0] >= a.values[0] && b.values[0] - a.values[0] < 100_000);
    }

    #[test]
    #[ignore = "needs a CPU PMU (hardware counters); the development VM has none"]
    fn more_events_than_counters_are_split_not_read_as_zero() {
        // More `instructions` counters than any PMU has (Intel 8, Zen 6, PMUv3 up to 31).
        let events: Vec<Event> = (0..40)
            .map(|i| Event {
                name: format!("instructions#{i}"),
                ..hw("instructions").remove(0)
            })
            .collect();
        let mut counters = Counters::open(&events, &GroupOptions::default()).unwrap();
        assert!(
            counters.groups().len() > 1,
            "40 events cannot share one group"
        );
        for group in counters.groups_mut() {
            let mut r = Reading::with_len(group.len());
            group.enable().unwrap();
            group.disable().unwrap();
            group.read(&mut r).unwrap();
            assert!(!r.never_ran(), "group {:?} never ran", group.names());
        }
    }

    #[test]
    #[ignore = "needs a CPU PMU (hardware counters); the development VM has none"]
    fn each_hardware_group_is_a_pass_and_the_clock_joins_the_first() {
        let mut events = hw("instructions");
        events.push(sw("page-faults", raw::PERF_COUNT_SW_PAGE_FAULTS));
        events.push(Event::wall_time());
        let counters = Counters::open(&events, &GroupOptions::default()).unwrap();
        let pass = |groups: std::ops::Range<usize>, wall_time| Pass { groups, wall_time };
        assert_eq!(counters.passes(), vec![pass(0..1, true), pass(1..2, false)]);
    }

    #[test]
    #[ignore = "needs a CPU PMU (hardware counters); the development VM has none"]
    fn pinned_groups_that_cannot_all_fit_report_unschedulable() {
        let options = GroupOptions {
            pinned: true,
            ..GroupOptions::default()
        };
        // Pin more groups than the PMU has counters; at least one must go into error state.
        let mut groups: Vec<Group> = (0..32)
            .map(|_| Group::open(&hw("instructions,cycles"), &options))
            .collect::<Result<_, _>>()
            .unwrap();
        for g in &groups {
            g.enable().unwrap();
        }
        let mut r = Reading::with_len(2);
        let mut errors = 0;
        for g in &mut groups {
            if matches!(g.read(&mut r), Err(CounterError::Unschedulable { .. })) {
                errors += 1;
            }
        }
        assert!(
            errors > 0,
            "32 pinned 2-event groups cannot all be on the PMU"
        );
    }
}
