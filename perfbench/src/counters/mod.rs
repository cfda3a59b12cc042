//! Counters: groups of perf events, the user-page fast path, and the fallback chain
//! (fast path -> `read(2)` of the group -> software counters and wall time).
//!
//! This module owns opening and reading; it does not decide what to measure (the runner). A
//! refused open carries the explanation [`machine`](crate::machine) gives for this machine (the
//! layer below); the `doctor` of `perfbench-analysis`, above, renders whole diagnoses.

pub mod alloc;
#[doc(hidden)] // the fast path's per-architecture registers (for the tool's doctor)
pub mod arch;
#[doc(hidden)] // Callgrind's client requests and dumps (for the tool's `--simulate`)
pub mod callgrind;
mod group;
pub mod userpage;

pub use group::*;

use std::fmt;

/// How a counter's values reach perfbench. In JSON: `"rdpmc"`, `"mrs"`, `"read"`, `"clock"`,
/// `"allocator"`, `"callgrind"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(
    feature = "serde",
    derive(serde_derive::Serialize, serde_derive::Deserialize),
    serde(rename_all = "lowercase")
)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Source {
    /// x86 `rdpmc` through the event's user page.
    Rdpmc,
    /// arm64 `mrs PMEVCNTR<n>_EL0` / `PMCCNTR_EL0` through the event's user page.
    Mrs,
    /// `read(2)` of the counter group.
    Read,
    /// `clock_gettime(CLOCK_MONOTONIC)`: the `wall-time` counter.
    Clock,
    /// A [`CountingAlloc`](alloc::CountingAlloc)'s counts: the allocation counters.
    Allocator,
    /// Simulated by Valgrind's Callgrind (`--simulate`): exact counts of a simulated CPU, not
    /// of this machine's (see [`callgrind`]).
    Callgrind,
}

impl Source {
    /// The name used in reports and JSON: `rdpmc`, `mrs`, `read`, `clock`, `allocator` or
    /// `callgrind`.
    ///
    /// ```
    /// use perfbench::Source;
    ///
    /// assert_eq!(Source::Rdpmc.as_str(), "rdpmc");
    /// assert_eq!(Source::Callgrind.to_string(), "callgrind");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Rdpmc => "rdpmc",
            Source::Mrs => "mrs",
            Source::Read => "read",
            Source::Clock => "clock",
            Source::Allocator => "allocator",
            Source::Callgrind => "callgrind",
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
