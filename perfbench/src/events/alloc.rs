//! The allocation counters' names ([`AllocCounter`]); a [`CountingAlloc`] counts them.
//!
//! [`CountingAlloc`]: crate::counters::alloc::CountingAlloc

/// The allocation counters, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AllocCounter {
    /// `alloc-count`: allocations.
    Allocs,
    /// `alloc-bytes`: bytes allocated (and bytes reallocations grew by).
    Bytes,
    /// `dealloc-count`: deallocations.
    Deallocs,
    /// `realloc-count`: reallocations.
    Reallocs,
    /// `alloc-peak-bytes`: the most bytes the measured code held at once above what was live
    /// when its bracket started, the largest of a sample's brackets (a maximum, not a sum:
    /// for a body whose every iteration frees what it allocates, one iteration's peak).
    PeakBytes,
}

impl AllocCounter {
    /// Every allocation counter, in the order a run reports them.
    pub const ALL: [AllocCounter; 5] = [
        AllocCounter::Allocs,
        AllocCounter::Bytes,
        AllocCounter::Deallocs,
        AllocCounter::Reallocs,
        AllocCounter::PeakBytes,
    ];

    /// The counter's name: `alloc-count`, `alloc-bytes`, `dealloc-count`, `realloc-count`,
    /// `alloc-peak-bytes`.
    ///
    /// ```
    /// use perfbench::events::AllocCounter;
    ///
    /// let names: Vec<&str> = AllocCounter::ALL.iter().map(|c| c.name()).collect();
    /// assert_eq!(names, ["alloc-count", "alloc-bytes", "dealloc-count", "realloc-count", "alloc-peak-bytes"]);
    /// assert_eq!(AllocCounter::from_name("alloc-bytes"), Some(AllocCounter::Bytes));
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            AllocCounter::Allocs => "alloc-count",
            AllocCounter::Bytes => "alloc-bytes",
            AllocCounter::Deallocs => "dealloc-count",
            AllocCounter::Reallocs => "realloc-count",
            AllocCounter::PeakBytes => "alloc-peak-bytes",
        }
    }

    /// The counter named `name`, if one is.
    ///
    /// See [`AllocCounter::name`] for an example.
    pub fn from_name(name: &str) -> Option<AllocCounter> {
        AllocCounter::ALL.into_iter().find(|c| c.name() == name)
    }

    /// `"bytes"` or `"count"`.
    pub fn unit(self) -> &'static str {
        match self {
            AllocCounter::Bytes | AllocCounter::PeakBytes => "bytes",
            _ => "count",
        }
    }

    /// Whether a sample's value is the largest of its brackets' rather than their sum.
    pub fn is_peak(self) -> bool {
        self == AllocCounter::PeakBytes
    }
}
