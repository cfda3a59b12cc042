//! [`Registers`]: the counter registers and the timestamp the fast path reads, and the sign
//! extension of a counter of `pmc_width` bits.

/// Reads hardware counters and the timestamp counter of the current CPU.
///
/// Real implementations are in [`arch`](crate::counters::arch) (`Rdpmc`, `Mrs`); [`sim::SimRegisters`](super::sim::SimRegisters)
/// simulates them.
pub trait Registers {
    /// The raw value of the counter that a user page with this `index` describes. `index` is the
    /// page's value as is (1-based, the kernel's hardware index + 1); the implementation maps it
    /// to its instruction (x86: `rdpmc` with ECX = `index - 1`; arm64: the register
    /// [`aarch64_counter_register`](crate::counters::arch::aarch64_counter_register) names).
    ///
    /// `None` for index 0 (the page's "no user read right now", which the reader relies on this
    /// method to decline: it does not test `index` itself) and for any index this
    /// implementation cannot read (for example arm64's index 33, the FEAT_PMUv3_ICNTR
    /// instruction counter); the reader then falls back.
    fn read_counter(&self, index: u32) -> Option<u64>;

    /// The timestamp counter that the page's `time_*` conversion applies to (x86 TSC, arm64
    /// `CNTVCT_EL0`).
    fn read_timestamp(&self) -> u64;
}

impl<R: Registers + ?Sized> Registers for &R {
    #[inline(always)]
    fn read_counter(&self, index: u32) -> Option<u64> {
        (**self).read_counter(index)
    }

    #[inline(always)]
    fn read_timestamp(&self) -> u64 {
        (**self).read_timestamp()
    }
}

/// Sign-extends the low `width` bits of a raw hardware counter value:
/// `((raw << (64 - width)) as i64) >> (64 - width)`.
///
/// The kernel programs counters with negative start values (`-period`) and subtracts the
/// 64-bit sign-extended start value in `offset`. A 48-bit counter therefore reads, say,
/// `0xFFFF_FFFF_FFF0` for -16; adding it to `offset` without sign extension is off by exactly
/// 2^48, a known bug in public implementations.
///
/// The shift is `(64 - width) mod 64`, which is what the shift instructions of both targets
/// compute from a register anyway, so this is two shifts and a negation, no branch: `width` 64
/// and `width` 0 (a page that does not fill in `pmc_width`) both mean no shift, the raw value
/// as is. A width above 64, which no kernel reports (`pmc_width` is the width of a counter of
/// at most 64 bits), gives a defined but meaningless value, never a panic.
///
/// ```
/// use perfbench::counters::userpage::sign_extend;
///
/// assert_eq!(sign_extend(0xFFFF_FFFF_FFF0, 48), -16); // a 48-bit counter programmed at -16
/// assert_eq!(sign_extend(0x7FFF_FFFF_FFFF, 48), 0x7FFF_FFFF_FFFF);
/// assert_eq!(sign_extend(u64::MAX, 64), -1);
/// ```
#[inline(always)]
pub const fn sign_extend(raw: u64, width: u16) -> i64 {
    let shift = 64u32.wrapping_sub(width as u32);
    (raw.wrapping_shl(shift) as i64).wrapping_shr(shift)
}
