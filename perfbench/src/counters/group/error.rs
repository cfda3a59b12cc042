//! [`CounterError`]: why a counter could not be opened or read, with what to do about it.

use super::*;

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
    /// An allocation counter was asked for, and no
    /// [`CountingAlloc`](crate::counters::alloc::CountingAlloc) is the global allocator.
    NoAllocator {
        /// The counter's name.
        event: String,
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
            CounterError::NoAllocator { event } => write!(
                f,
                "cannot count `{event}`: this program's global allocator is not perfbench's \
                 counting one; fix: add `{}` to the benchmark's file",
                crate::counters::alloc::INSTALL_LINE
            ),
        }
    }
}

impl std::error::Error for CounterError {}
