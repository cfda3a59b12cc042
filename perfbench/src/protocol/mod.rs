//! The messages between a benchmark binary and the `perfbench` tool, typed in one place: each
//! message is a type here, with its encoder (JSON written by hand, so that a benchmark build
//! compiles no JSON library) and, with the `serde` feature (the tool's), its strict decoder,
//! which refuses a member, a variant or a version it does not know and names it.
//!
//! It owns the shape of every message and its version; it never does what a message asks
//! (measuring is the runner's, analysing the tool's) and touches no file or process.
//!
//! Three conversations, each with its own version:
//!
//! - **the stream** ([`stream`], version [`stream::VERSION`]): a benchmark binary's run,
//!   measured in the binary and analysed by `perfbench run-suite`. The binary writes a
//!   [`stream::Hello`] line, one [`RawBenchmark`](crate::harness::raw::RawBenchmark) line per
//!   benchmark, and [`stream::END`]; the tool answers with frames of text to print.
//! - **the paired worker** ([`worker`], version [`worker::VERSION`]): a benchmark binary
//!   started with `--perfbench-worker` greets with a [`worker::Hello`] and answers each
//!   [`worker::Request`] of the paired driver with one [`worker::Answer`].
//! - **the Callgrind child** ([`sim`], version [`sim::VERSION`]): a benchmark binary run under
//!   Callgrind with `--perfbench-simulated DIR` writes one [`sim::Result`] to
//!   `DIR/result.json` beside its dumps.
//!
//! Both ends of each conversation are always the same perfbench version (the tool checks the
//! version string too), so a version number changes whenever a message does, and neither end
//! reads another version's messages.

pub(crate) mod json;
pub mod sim;
pub mod stream;
pub mod worker;

#[cfg(all(test, feature = "serde"))]
mod tests;

/// This perfbench's version, which every first message carries.
pub const PERFBENCH: &str = env!("CARGO_PKG_VERSION");

/// Why a message could not be read: what it was meant to be, and what was wrong with it (an
/// unknown member or variant is named).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    /// The message that was expected (`the stream's first line`, `a worker's answer`...).
    pub what: &'static str,
    /// What is wrong with it.
    pub problem: String,
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} does not read: {}", self.what, self.problem)
    }
}

impl std::error::Error for DecodeError {}

/// `text` read as the message `T` (`what` names it in the error).
#[cfg(feature = "serde")]
pub(crate) fn decode<T: serde::de::DeserializeOwned>(
    what: &'static str,
    text: &str,
) -> Result<T, DecodeError> {
    serde_json::from_str(text.trim_end()).map_err(|e| DecodeError {
        what,
        problem: e.to_string(),
    })
}
