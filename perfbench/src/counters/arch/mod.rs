//! The instructions that read a hardware counter from user space: x86 `rdpmc`, arm64 `mrs`.
//!
//! This module owns only the register reads. The protocol around them (the user page's seqlock,
//! `offset`, sign extension, time extrapolation) lives in [`userpage`](super::userpage), which is
//! generic over [`Registers`](super::userpage::Registers) so that it is tested on any machine
//! with a simulated page.
//!
//! | target | reader | [`SOURCE`] | counter | timestamp |
//! | --- | --- | --- | --- | --- |
//! | x86_64 | `Rdpmc` | `Some(Rdpmc)` | `rdpmc`, ECX = `index - 1` | `rdtsc` |
//! | aarch64 | `Mrs` | `Some(Mrs)` | `mrs` of the register [`aarch64_counter_register`] names | `CNTVCT_EL0` |
//! | other | (none) | `None` | - | - |
//!
//! Executing these instructions is only allowed while the kernel says so on the event's user
//! page (`cap_user_rdpmc` and `index != 0`); otherwise x86 raises SIGSEGV and arm64 SIGILL.
//! Nothing here checks that: only call them through
//! [`FastReader`](super::userpage::FastReader).

use crate::counters::Source;

/// Calls `$callback!` with the complete arm64 mapping from the user page's `index` to the
/// register that `mrs` reads, as `index => "REGISTER",` pairs.
///
/// This list is the single source of the mapping: [`aarch64_counter_register`] (tested on every
/// target) and the `match` of `mrs` instructions in `aarch64.rs` are both generated from it, so
/// the two cannot disagree. (`mrs` takes the register name at compile time, hence one `match`
/// arm per register; a widely copied public table has entries 12 and 13 swapped.)
///
/// The kernel reports `index = hw_idx + 1`; `PMEVCNTR<n>_EL0` has index `n + 1`, and the cycle
/// counter `PMCCNTR_EL0` is reported as 32 on every kernel version (the 6.1 driver remaps its
/// idx 0 to 32, later drivers number it 31 and add 1).
macro_rules! with_aarch64_counter_registers {
    ($callback:ident) => {
        $callback! {
            1 => "PMEVCNTR0_EL0",
            2 => "PMEVCNTR1_EL0",
            3 => "PMEVCNTR2_EL0",
            4 => "PMEVCNTR3_EL0",
            5 => "PMEVCNTR4_EL0",
            6 => "PMEVCNTR5_EL0",
            7 => "PMEVCNTR6_EL0",
            8 => "PMEVCNTR7_EL0",
            9 => "PMEVCNTR8_EL0",
            10 => "PMEVCNTR9_EL0",
            11 => "PMEVCNTR10_EL0",
            12 => "PMEVCNTR11_EL0",
            13 => "PMEVCNTR12_EL0",
            14 => "PMEVCNTR13_EL0",
            15 => "PMEVCNTR14_EL0",
            16 => "PMEVCNTR15_EL0",
            17 => "PMEVCNTR16_EL0",
            18 => "PMEVCNTR17_EL0",
            19 => "PMEVCNTR18_EL0",
            20 => "PMEVCNTR19_EL0",
            21 => "PMEVCNTR20_EL0",
            22 => "PMEVCNTR21_EL0",
            23 => "PMEVCNTR22_EL0",
            24 => "PMEVCNTR23_EL0",
            25 => "PMEVCNTR24_EL0",
            26 => "PMEVCNTR25_EL0",
            27 => "PMEVCNTR26_EL0",
            28 => "PMEVCNTR27_EL0",
            29 => "PMEVCNTR28_EL0",
            30 => "PMEVCNTR29_EL0",
            31 => "PMEVCNTR30_EL0",
            32 => "PMCCNTR_EL0",
        }
    };
}

#[cfg(target_arch = "aarch64")]
mod aarch64;
#[cfg(target_arch = "x86_64")]
mod x86_64;

#[cfg(target_arch = "aarch64")]
pub use aarch64::Mrs;
#[cfg(target_arch = "x86_64")]
pub use x86_64::Rdpmc;

macro_rules! register_name_match {
    ($($index:literal => $name:literal,)*) => {
        /// The arm64 system register that `mrs` reads for a user page `index`: 1..=31 ->
        /// `PMEVCNTR<index-1>_EL0`, 32 -> `PMCCNTR_EL0`, anything else `None`.
        ///
        /// `None` includes 0 (no user access right now) and 33, which kernels with
        /// FEAT_PMUv3_ICNTR (Armv9.4) report for the fixed instruction counter `PMICNTR_EL0`;
        /// perfbench does not read that register, so such a read falls back to `read(2)`.
        ///
        /// Available on every target so the mapping is unit-tested everywhere; `Mrs` on arm64
        /// executes exactly this mapping (both are generated from one list).
        ///
        /// ```
        /// use perfbench::counters::arch::aarch64_counter_register;
        ///
        /// assert_eq!(aarch64_counter_register(1), Some("PMEVCNTR0_EL0"));
        /// assert_eq!(aarch64_counter_register(32), Some("PMCCNTR_EL0")); // the cycle counter
        /// assert_eq!(aarch64_counter_register(0), None);
        /// ```
        pub fn aarch64_counter_register(index: u32) -> Option<&'static str> {
            match index {
                $($index => Some($name),)*
                _ => None,
            }
        }
    };
}
with_aarch64_counter_registers!(register_name_match);

/// The register reader of the target perfbench was built for: [`Rdpmc`] on x86_64, `Mrs` on
/// aarch64, and on other targets an uninhabited type ([`native`] returns `None` there).
#[cfg(target_arch = "x86_64")]
pub type Native = Rdpmc;
/// The register reader of the target perfbench was built for: `Rdpmc` on x86_64, [`Mrs`] on
/// aarch64, and on other targets an uninhabited type ([`native`] returns `None` there).
#[cfg(target_arch = "aarch64")]
pub type Native = Mrs;
/// The register reader of the target perfbench was built for: `Rdpmc` on x86_64, `Mrs` on
/// aarch64, and on this target an uninhabited type ([`native`] returns `None`).
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub type Native = Unsupported;

/// The register reader on a target without a user-space counter read. It has no values, so no
/// code path can call it.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
#[derive(Clone, Copy, Debug)]
pub enum Unsupported {}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
impl super::userpage::Registers for Unsupported {
    fn read_counter(&self, _index: u32) -> Option<u64> {
        match *self {}
    }

    fn read_timestamp(&self) -> u64 {
        match *self {}
    }
}

/// How the fast path reads counters on this target: `Some(Source::Rdpmc)` on x86_64,
/// `Some(Source::Mrs)` on aarch64, `None` elsewhere.
#[cfg(target_arch = "x86_64")]
pub const SOURCE: Option<Source> = Some(Source::Rdpmc);
/// How the fast path reads counters on this target: `Some(Source::Rdpmc)` on x86_64,
/// `Some(Source::Mrs)` on aarch64, `None` elsewhere.
#[cfg(target_arch = "aarch64")]
pub const SOURCE: Option<Source> = Some(Source::Mrs);
/// How the fast path reads counters on this target: `Some(Source::Rdpmc)` on x86_64,
/// `Some(Source::Mrs)` on aarch64, `None` elsewhere.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub const SOURCE: Option<Source> = None;

/// The register reader for this target (`None` where perfbench has none; then [`SOURCE`] is
/// `None` too). On x86_64 this is `rdpmc` without `lfence`, as in the kernel's reference loop.
///
/// Constructing it is harmless; reading through it is only allowed while an event's user page
/// says so, which [`FastReader`](super::userpage::FastReader) checks on every read.
///
/// ```
/// use perfbench::counters::arch::native;
///
/// // Some on x86_64 and aarch64 (rdpmc / mrs), None elsewhere. Having the reader does not
/// // mean the kernel lets this process use it: the user page says (`FastReader::capability`).
/// assert_eq!(native().is_some(), cfg!(any(target_arch = "x86_64", target_arch = "aarch64")));
/// ```
#[inline]
pub fn native() -> Option<Native> {
    #[cfg(target_arch = "x86_64")]
    return Some(Rdpmc::new());
    #[cfg(target_arch = "aarch64")]
    return Some(Mrs);
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    return None;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aarch64_mapping_every_index() {
        for index in 1..=31u32 {
            assert_eq!(
                aarch64_counter_register(index),
                Some(format!("PMEVCNTR{}_EL0", index - 1).as_str()),
                "index {index}"
            );
        }
        assert_eq!(aarch64_counter_register(32), Some("PMCCNTR_EL0"));
        assert_eq!(aarch64_counter_register(0), None);
        assert_eq!(aarch64_counter_register(33), None);
        assert_eq!(aarch64_counter_register(u32::MAX), None);
    }

    #[test]
    fn aarch64_mapping_around_the_known_public_typo() {
        assert_eq!(aarch64_counter_register(12), Some("PMEVCNTR11_EL0"));
        assert_eq!(aarch64_counter_register(13), Some("PMEVCNTR12_EL0"));
        assert_eq!(aarch64_counter_register(14), Some("PMEVCNTR13_EL0"));
        assert_eq!(aarch64_counter_register(32), Some("PMCCNTR_EL0"));
    }

    #[test]
    fn native_matches_source() {
        assert_eq!(native().is_some(), SOURCE.is_some());
        #[cfg(target_arch = "x86_64")]
        assert_eq!(SOURCE, Some(Source::Rdpmc));
        #[cfg(target_arch = "aarch64")]
        assert_eq!(SOURCE, Some(Source::Mrs));
    }
}
