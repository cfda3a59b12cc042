//! The workloads of bench-compare/simulate.sh: the very file perfbench's side uses.
#[path = "../../simsuite-perfbench/src/lib.rs"]
mod workloads;
pub use workloads::*;
