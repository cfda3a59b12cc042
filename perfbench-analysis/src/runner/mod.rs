//! The runs the `perfbench` tool analyses: a benchmark binary's run over a pipe
//! ([`run_streamed`], `perfbench run-suite`), paired runs of two builds ([`paired`],
//! `--paired` and `perfbench ab`), and runs under Callgrind ([`simulate`], `--simulate`).
//!
//! It owns the tool's side of a run: starting and driving processes, and putting analysis,
//! verdicts, baselines and reports together; it never measures in its own process (the
//! benchmark binary does) and leaves each step's rules to its module.

mod analyse;
mod compared;
mod confirm;
mod fresh;
pub mod paired;
mod save;
pub mod simulate;
mod stream;
mod undecided;

pub(crate) use analyse::{
    derived_metrics, failed_and_regressed, machine_info, run_config, write_html,
};
pub use analyse::{run_streamed, StreamedSuite};
