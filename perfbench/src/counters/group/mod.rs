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

use crate::events::{AllocCounter, Event, EventKind, PerfEvent};
use crate::machine::{self, Explanation};
use crate::sys::{self, Errno, EventFd, MappedPage, PageRef, Scope};

mod error;
mod passes;
mod reading;

pub use error::*;
pub use passes::*;
pub use reading::*;

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
    /// AnonMapping::new(1)?.touch_every_page(); // runs the code once: its own pages are in
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
    /// let mut pages = AnonMapping::new(6)?;
    /// AnonMapping::new(1)?.touch_every_page(); // runs the code once: its own pages are in
    /// // Once into each, so that no first write into a fresh heap page (a page fault) lands
    /// // between the two readings.
    /// for r in [&mut times0, &mut times1, &mut a, &mut b] {
    ///     group.read(r)?;
    /// }
    /// group.reset()?;
    /// group.enable()?;
    /// group.read(&mut times0)?; // the times at the start of the stretch
    /// group.read_counts(&mut a)?;
    /// pages.touch_every_page();
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

#[cfg(test)]
mod tests;
