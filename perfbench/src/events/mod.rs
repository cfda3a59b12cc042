//! Event names <-> `perf_event_attr`: perf-style names (`instructions`, `cycles:u`,
//! `L1-dcache-load-misses`, `r01c2`, `cpu/event=0x3c,umask=0x0/`, `cpu_core/instructions/`,
//! `page-faults`, `wall-time`, `alloc-count`) parsed into [`Event`]s, with PMUs resolved through sysfs
//! (`/sys/bus/event_source/devices`, injectable through [`Sysfs`] so tests use fake trees).
//!
//! This module only names and describes events; opening them is [`counters`](crate::counters).

use crate::sys;

mod alloc;
#[cfg(test)]
pub(crate) mod fixtures;
mod parse;
mod sysfs;

pub use alloc::AllocCounter;
pub use parse::*;
pub use sysfs::*;

/// One counter a user asked for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Event {
    /// The name as the user wrote it (trimmed); the key in reports and JSON.
    pub name: String,
    /// What to open.
    pub kind: EventKind,
}

/// What an [`Event`] counts.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// Wall time in nanoseconds, from `CLOCK_MONOTONIC`: not a perf event at all.
    WallTime,
    /// A perf event, opened with `perf_event_open`.
    Perf(PerfEvent),
    /// An allocation counter, counted by a
    /// [`CountingAlloc`](crate::counters::alloc::CountingAlloc): not a perf event either.
    Alloc(AllocCounter),
}

/// The attr fields that identify a perf event, plus its privilege filter.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PerfEvent {
    /// `attr.type`: `PERF_TYPE_*`, or a sysfs PMU's dynamic type.
    pub type_: u32,
    /// `attr.config`.
    pub config: u64,
    /// `attr.config1`.
    pub config1: u64,
    /// `attr.config2`.
    pub config2: u64,
    /// `attr.config3`.
    pub config3: u64,
    /// The sysfs PMU the event was resolved through (`cpu`, `cpu_core`, `armv8_pmuv3_0`), if any.
    pub pmu: Option<String>,
    /// Count in user space (`:u`, and the default).
    pub user: bool,
    /// Count in the kernel (`:k`; needs `perf_event_paranoid` <= 1).
    pub kernel: bool,
    /// Count in the hypervisor (`:h`).
    pub hypervisor: bool,
    /// `attr.precise_ip` (`:p`, `:pp`, `:ppp`).
    pub precise_ip: u8,
}

impl PerfEvent {
    /// An event that only ever happens in kernel mode (context switches, CPU migrations,
    /// cgroup switches, tracepoints): filtered to user space it always reads 0, so perfbench
    /// counts it in kernel mode unless a modifier says otherwise. That needs
    /// `perf_event_paranoid <= 1` or `CAP_PERFMON` for unprivileged users.
    ///
    /// ```
    /// use perfbench::events::{parse, Sysfs};
    ///
    /// let none = Sysfs::new("/nonexistent"); // no PMUs: software events still parse
    /// let cs = parse("context-switches", &none)?;
    /// assert!(cs.perf().unwrap().happens_in_kernel());
    /// assert!(!parse("page-faults", &none)?.perf().unwrap().happens_in_kernel());
    /// # Ok::<(), perfbench::events::EventError>(())
    /// ```
    pub fn happens_in_kernel(&self) -> bool {
        self.type_ == sys::raw::PERF_TYPE_TRACEPOINT
            || self.type_ == sys::raw::PERF_TYPE_SOFTWARE
                && [
                    sys::raw::PERF_COUNT_SW_CONTEXT_SWITCHES,
                    sys::raw::PERF_COUNT_SW_CPU_MIGRATIONS,
                    sys::raw::PERF_COUNT_SW_CGROUP_SWITCHES,
                ]
                .iter()
                .any(|&c| self.config == c as u64)
    }
}

impl Event {
    /// The `wall-time` counter.
    ///
    /// ```
    /// use perfbench::events::{Event, EventKind, WALL_TIME};
    ///
    /// let e = Event::wall_time();
    /// assert_eq!((e.name.as_str(), &e.kind, e.unit()), (WALL_TIME, &EventKind::WallTime, "ns"));
    /// ```
    pub fn wall_time() -> Event {
        Event {
            name: WALL_TIME.to_owned(),
            kind: EventKind::WallTime,
        }
    }

    /// The perf event, unless this is `wall-time` or an allocation counter.
    ///
    /// ```
    /// use perfbench::events::{parse, Event, Sysfs};
    ///
    /// assert!(Event::wall_time().perf().is_none());
    /// let faults = parse("page-faults:u", &Sysfs::new("/nonexistent"))?;
    /// let p = faults.perf().unwrap();
    /// assert!(p.user && !p.kernel);
    /// # Ok::<(), perfbench::events::EventError>(())
    /// ```
    pub fn perf(&self) -> Option<&PerfEvent> {
        match &self.kind {
            EventKind::Perf(p) => Some(p),
            EventKind::WallTime | EventKind::Alloc(_) => None,
        }
    }

    /// Whether this event needs a hardware PMU (anything but software events, wall time and
    /// the allocation counters).
    ///
    /// ```
    /// use perfbench::events::{parse, Sysfs};
    ///
    /// let none = Sysfs::new("/nonexistent");
    /// assert!(parse("instructions", &none)?.needs_pmu());
    /// assert!(!parse("task-clock", &none)?.needs_pmu());
    /// # Ok::<(), perfbench::events::EventError>(())
    /// ```
    pub fn needs_pmu(&self) -> bool {
        self.perf().is_some_and(|p| {
            p.type_ != sys::raw::PERF_TYPE_SOFTWARE && p.type_ != sys::raw::PERF_TYPE_TRACEPOINT
        })
    }

    /// The unit of the counter's values: `"ns"` for time-like events, `"bytes"` for the
    /// allocation counters of bytes, `"count"` otherwise.
    ///
    /// ```
    /// use perfbench::events::{parse, Sysfs};
    ///
    /// let none = Sysfs::new("/nonexistent");
    /// assert_eq!(parse("task-clock", &none)?.unit(), "ns");
    /// assert_eq!(parse("branch-misses", &none)?.unit(), "count");
    /// # Ok::<(), perfbench::events::EventError>(())
    /// ```
    pub fn unit(&self) -> &'static str {
        match &self.kind {
            EventKind::WallTime => "ns",
            EventKind::Perf(p)
                if p.type_ == sys::raw::PERF_TYPE_SOFTWARE
                    && (p.config == sys::raw::PERF_COUNT_SW_TASK_CLOCK as u64
                        || p.config == sys::raw::PERF_COUNT_SW_CPU_CLOCK as u64) =>
            {
                "ns"
            }
            EventKind::Perf(_) => "count",
            EventKind::Alloc(a) => a.unit(),
        }
    }
}

/// The name of the wall-clock counter.
pub const WALL_TIME: &str = "wall-time";
