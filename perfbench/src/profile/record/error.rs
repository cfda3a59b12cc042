//! [`RecordError`]: where a record's bytes did not make sense, and what was wrong ([`Problem`]).

use super::*;

/// A record that could not be decoded: which field, where, and what was wrong with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordError {
    /// The field, named as in the kernel's layout (`"sample.callchain.nr"`, `"mmap2.filename"`,
    /// `"header.size"`); `"format.*"` for a [`SampleFormat`] the decoder cannot follow.
    pub field: &'static str,
    /// Byte offset of the field from the start of the record ([`parse`]) or of the buffer
    /// ([`split()`]).
    pub offset: usize,
    /// What was wrong.
    pub problem: Problem,
}

/// What was wrong with a field; see [`RecordError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The field needs more bytes than are left.
    Truncated {
        /// Bytes the field needs (a size or count times entry size, saturated).
        needed: u64,
        /// Bytes left in the record (or buffer).
        left: usize,
    },
    /// `header.size` is below the 8 bytes of the header itself (0 would never advance).
    SizeBelowHeader {
        /// The size found.
        size: u16,
    },
    /// Bytes left over after the last field.
    Trailing {
        /// How many.
        bytes: usize,
    },
    /// A count that disagrees with the event's format.
    Count {
        /// The count found.
        found: u64,
        /// The count the format says.
        expected: u64,
    },
    /// A value no kernel writes.
    Implausible {
        /// The value found.
        value: u64,
        /// Why it cannot be.
        why: &'static str,
    },
    /// A string without its terminating NUL.
    Unterminated,
    /// Format bits whose layout this decoder does not know.
    UnknownBits {
        /// The unknown bits.
        bits: u64,
    },
}

impl RecordError {
    pub(super) fn new(field: &'static str, offset: usize, problem: Problem) -> RecordError {
        RecordError {
            field,
            offset,
            problem,
        }
    }

    pub(super) fn shifted(mut self, by: usize) -> RecordError {
        self.offset += by;
        self
    }
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bad perf record: `{}` at byte {}: {}",
            self.field, self.offset, self.problem
        )
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Truncated { needed, left } => {
                write!(f, "needs {needed} bytes but only {left} are left")
            }
            Problem::SizeBelowHeader { size } => {
                write!(
                    f,
                    "size {size} is below the {HEADER_SIZE}-byte header itself"
                )
            }
            Problem::Trailing { bytes } => write!(f, "{bytes} bytes left over after it"),
            Problem::Count { found, expected } => {
                write!(f, "count {found} where the format says {expected}")
            }
            Problem::Implausible { value, why } => write!(f, "{value} cannot be: {why}"),
            Problem::Unterminated => f.write_str("string without its terminating NUL"),
            Problem::UnknownBits { bits } => {
                write!(
                    f,
                    "bits {bits:#x} are unknown here, so the layout is unknown"
                )
            }
        }
    }
}

impl std::error::Error for RecordError {}
