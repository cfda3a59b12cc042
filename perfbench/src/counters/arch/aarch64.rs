//! aarch64: `mrs PMEVCNTR<n>_EL0` / `PMCCNTR_EL0` for counters, `CNTVCT_EL0` for the timestamp.

use std::arch::asm;

use crate::counters::userpage::Registers;

/// Reads counters with `mrs` of the register [`aarch64_counter_register`] names for the user
/// page's `index`, and the timestamp from the virtual counter `CNTVCT_EL0`.
///
/// Counter reads need `sysctl kernel.perf_user_access=1` and events opened with
/// `attr.config1 |= 2`; without user access `mrs` traps and the process receives SIGILL. Use it
/// only through [`FastReader`](crate::counters::userpage::FastReader), which checks the page
/// first (with `perf_user_access=0` the page can show `cap_user_rdpmc=1` but `index=0`).
///
/// [`aarch64_counter_register`]: super::aarch64_counter_register
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mrs;

// `mrs` needs the register name at compile time, so the read is a `match` with one arm per
// register, generated from the same list as `aarch64_counter_register` (see
// `with_aarch64_counter_registers!` in `arch/mod.rs`).
//
// The asm blocks deliberately omit `nomem`: a counter read must stay between the two loads of
// the page's `lock`, and without `nomem` the compiler treats each block as a memory access that
// it cannot move across those volatile loads and the seqlock's compiler fences.
macro_rules! mrs_match {
    ($($index:literal => $name:literal,)*) => {
        #[inline(always)]
        fn read_counter_register(index: u32) -> Option<u64> {
            match index {
                $(
                    $index => {
                        let value: u64;
                        // SAFETY: `mrs` copies one system register into a general register and
                        // touches no memory. FastReader only gets here with this non-zero
                        // `index` read from a user page, which the kernel reports only for an
                        // event whose counter user space may read; if the kernel
                        // still forbids the read the CPU traps and the process receives SIGILL,
                        // which ends it but cannot corrupt memory.
                        unsafe {
                            asm!(
                                concat!("mrs {}, ", $name),
                                out(reg) value,
                                options(nostack, preserves_flags),
                            );
                        }
                        Some(value)
                    }
                )*
                _ => None,
            }
        }
    };
}
with_aarch64_counter_registers!(mrs_match);

impl Registers for Mrs {
    #[inline(always)]
    fn read_counter(&self, index: u32) -> Option<u64> {
        read_counter_register(index)
    }

    #[inline(always)]
    fn read_timestamp(&self) -> u64 {
        let value: u64;
        // SAFETY: `mrs` of CNTVCT_EL0 touches no memory; Linux enables EL0 access to the
        // virtual counter (CNTKCTL_EL1.EL0VCTEN) on every arm64 system it runs on, as the vDSO
        // relies on it.
        unsafe {
            asm!(
                "mrs {}, CNTVCT_EL0",
                out(reg) value,
                options(nostack, preserves_flags),
            );
        }
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Counter registers cannot be read in tests (SIGILL without perf_user_access and a live
    // event); the virtual counter is always readable.
    #[test]
    fn cntvct_advances() {
        let a = Mrs.read_timestamp();
        let mut x = 0u64;
        for i in 0..100_000u64 {
            x = std::hint::black_box(x.wrapping_add(i));
        }
        let b = Mrs.read_timestamp();
        assert!(b >= a, "CNTVCT went from {a} to {b}");
    }

    #[test]
    fn out_of_range_indices_read_nothing() {
        // These arms execute no instruction, so they are safe to run anywhere.
        assert_eq!(Mrs.read_counter(0), None);
        assert_eq!(Mrs.read_counter(33), None);
    }
}
