//! x86_64: `rdpmc` for counters, `rdtsc` for the timestamp.

use std::arch::asm;

use crate::counters::userpage::Registers;

/// Reads counters with `rdpmc` (ECX = the user page's `index - 1`) and the timestamp with
/// `rdtsc`.
///
/// The kernel's `index` already carries the `rdpmc` encoding, so `index - 1` is also right for
/// fixed-function counters (`index - 1 = 1 << 30 | n` on Intel).
///
/// `rdpmc` is allowed in user space only while the kernel has set CR4.PCE for this task, which
/// with `/sys/bus/event_source/devices/cpu/rdpmc = 1` means only while an event is mmapped;
/// otherwise the CPU raises #GP and the process dies with SIGSEGV. Use it only through
/// [`FastReader`](crate::counters::userpage::FastReader), which checks the page first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rdpmc {
    /// Execute `lfence` before each `rdpmc`, so the read waits for earlier instructions to
    /// complete (`rdpmc` is not serialising). This makes the counted region sharper at the cost
    /// of a few cycles; the kernel's reference loop does not do it.
    pub serialize: bool,
}

impl Rdpmc {
    /// `rdpmc` without `lfence`.
    ///
    /// ```
    /// # #[cfg(target_arch = "x86_64")] {
    /// use perfbench::counters::arch::Rdpmc;
    ///
    /// assert!(!Rdpmc::new().serialize);
    /// assert!(Rdpmc::serialized().serialize); // lfence before each rdpmc
    /// # }
    /// ```
    pub const fn new() -> Rdpmc {
        Rdpmc { serialize: false }
    }

    /// `lfence; rdpmc`.
    ///
    /// See [`Rdpmc::new`] for an example.
    pub const fn serialized() -> Rdpmc {
        Rdpmc { serialize: true }
    }
}

// The asm blocks below deliberately omit `nomem`: a counter read must stay between the two
// loads of the page's `lock`, and without `nomem` the compiler treats each block as a memory
// access that it cannot move across those volatile loads and the seqlock's compiler fences.
impl Registers for Rdpmc {
    /// `None` for index 0 (no user read now), as the trait requires; `rdpmc` otherwise.
    #[inline(always)]
    fn read_counter(&self, index: u32) -> Option<u64> {
        if index == 0 {
            return None;
        }
        let ecx = index - 1;
        let (lo, hi): (u32, u32);
        if self.serialize {
            // SAFETY: `lfence` has no operands and no effect other than ordering; `rdpmc` reads
            // a counter into EDX:EAX and touches no memory. The caller (FastReader) only gets
            // here with the non-zero `index` of a user page (checked above), which the kernel
            // reports only for an event whose counter user space may read; if the
            // kernel still forbids the read the CPU faults and the process receives SIGSEGV,
            // which ends it but cannot corrupt memory.
            unsafe {
                asm!(
                    "lfence",
                    "rdpmc",
                    in("ecx") ecx,
                    out("eax") lo,
                    out("edx") hi,
                    options(nostack, preserves_flags),
                );
            }
        } else {
            // SAFETY: as above, without the `lfence`.
            unsafe {
                asm!(
                    "rdpmc",
                    in("ecx") ecx,
                    out("eax") lo,
                    out("edx") hi,
                    options(nostack, preserves_flags),
                );
            }
        }
        Some(u64::from(hi) << 32 | u64::from(lo))
    }

    #[inline(always)]
    fn read_timestamp(&self) -> u64 {
        let (lo, hi): (u32, u32);
        // SAFETY: `rdtsc` reads the time-stamp counter into EDX:EAX and touches no memory. Linux
        // leaves it enabled in user space unless the process opted out with PR_SET_TSC, and the
        // kernel only advertises `cap_user_time` when the TSC is usable.
        unsafe {
            asm!(
                "rdtsc",
                out("eax") lo,
                out("edx") hi,
                options(nostack, preserves_flags),
            );
        }
        u64::from(hi) << 32 | u64::from(lo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // `rdpmc` itself cannot run in tests: without an mmapped hardware event (and this machine
    // has no PMU) it raises SIGSEGV. `rdtsc` is always allowed.
    #[test]
    fn rdtsc_advances() {
        let r = Rdpmc::new();
        let a = r.read_timestamp();
        let mut x = 0u64;
        for i in 0..10_000u64 {
            x = std::hint::black_box(x.wrapping_add(i));
        }
        let b = r.read_timestamp();
        assert_ne!(a, 0);
        assert!(b > a, "TSC went from {a} to {b}");
    }

    #[test]
    fn constructors() {
        assert!(!Rdpmc::new().serialize);
        assert!(Rdpmc::serialized().serialize);
        assert_eq!(Rdpmc::default(), Rdpmc::new());
    }
}
