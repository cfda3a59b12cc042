//! The arm64 guest test: runs as the only program of a QEMU guest with an emulated PMUv3
//! (`bash .ci/arm64/run.sh`) and proves perfbench's `mrs` fast path.
//!
//! QEMU with `-icount shift=0 -smp 1` counts retired instructions exactly and deterministically,
//! so every assertion here is an equality, and the rig compares the `FIGURE` lines of two boots:
//! they must be identical.
//!
//! Phases (the test toggles `kernel.perf_user_access` itself; it boots as 0):
//! 1. user access off: the page shows `index == 0`, the fast reader declines, `mrs` traps with
//!    SIGILL, `read(2)` still counts exactly;
//! 2. user access on: inline-asm loops of exactly k instructions per iteration read through the
//!    fast path give exactly k after calibration, with zero variance; every counter register
//!    (`PMEVCNTR0..5_EL0`, `PMCCNTR_EL0`) reads the right event; a disabled group's page offsets
//!    equal `read(2)`; a group of `instructions`, `cycles` and a sysfs-named event is
//!    consistent; counts stay exact across 32-bit counter overflow; 64-bit counters are used or
//!    refused with EOPNOTSUPP;
//! 3. with `--suite=PATH`: a `perfbench::main!()` suite (`.ci/arm64/suite.rs`) reports
//!    exactly k instructions per iteration, and its change verdict against a baseline saved by
//!    the same binary is `unchanged` for the same k and `regressed` for k + 1, every time.
//!
//! On any other architecture it only says so and exits 0.
//!
//! Its parts: `run` (the phases in order, the summary), one module per phase
//! (`user_access_off`, `library`, `exact_loops`, `every_register`, `floor`, `slow_reads`,
//! `sysfs_group`, `overflow`, `long_counters`, `suite_report`, `verdicts`), and what they
//! share: `bodies` (the measured bodies of exactly k instructions), `checks` (the `ok`/`FAIL`
//! and `FIGURE` lines), `raw_group` (a raw counter group and the measured reads through it),
//! `group` (the library's `Group` and its brackets) and `steady` (brackets taken again after
//! a read off the hot path).

#[cfg(target_arch = "aarch64")]
mod bodies;
#[cfg(target_arch = "aarch64")]
mod checks;
#[cfg(target_arch = "aarch64")]
mod every_register;
#[cfg(target_arch = "aarch64")]
mod exact_loops;
#[cfg(target_arch = "aarch64")]
mod floor;
#[cfg(target_arch = "aarch64")]
mod group;
#[cfg(target_arch = "aarch64")]
mod library;
#[cfg(target_arch = "aarch64")]
mod long_counters;
#[cfg(target_arch = "aarch64")]
mod overflow;
#[cfg(target_arch = "aarch64")]
mod raw_group;
#[cfg(target_arch = "aarch64")]
mod run;
#[cfg(target_arch = "aarch64")]
mod slow_reads;
#[cfg(target_arch = "aarch64")]
mod steady;
#[cfg(target_arch = "aarch64")]
mod suite_report;
#[cfg(target_arch = "aarch64")]
mod sysfs_group;
#[cfg(target_arch = "aarch64")]
mod user_access_off;
#[cfg(target_arch = "aarch64")]
mod verdicts;

#[cfg(target_arch = "aarch64")]
fn main() {
    std::process::exit(run::run());
}

#[cfg(not(target_arch = "aarch64"))]
fn main() {
    println!("arm64_guest: aarch64 only (run it with `bash .ci/arm64/run.sh`)");
}
