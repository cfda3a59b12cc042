//! Bodies of exactly k instructions per iteration (k - 2 `add`s, `subs`, `b.ne`), the empty
//! calibration body, and how many samples and iterations a measurement takes.

use std::arch::asm;

/// Samples per measurement: all must be equal.
pub(crate) const SAMPLES: usize = 10;
/// Loop iterations per sample.
pub(crate) const N: u64 = 1000;

macro_rules! k_loops {
    ($($name:ident => $k:literal),* $(,)?) => {
        $(
            /// Runs `n >= 1` iterations of a loop whose body is exactly
            #[doc = concat!(stringify!($k), " instructions. The function is the asm block")]
            /// and `ret`: no set-up instructions (`n` arrives in the register the loop
            /// counts down, the scratch register is never initialised).
            #[inline(never)]
            pub(crate) fn $name(n: u64) {
                // SAFETY: register-only arithmetic on the two operands; `n >= 1` is
                // checked by every caller (`n == 0` would loop 2^64 times, not fault).
                unsafe {
                    asm!(
                        "2:",
                        ".rept {adds}",
                        "add {x}, {x}, #1",
                        ".endr",
                        "subs {n}, {n}, #1",
                        "b.ne 2b",
                        n = inout(reg) n => _,
                        x = out(reg) _,
                        adds = const $k - 2,
                        options(nostack),
                    );
                }
            }
        )*
        /// `(k, loop)` pairs.
        pub(crate) const LOOPS: &[(u64, fn(u64))] = &[$(($k, $name as fn(u64))),*];
    };
}
k_loops!(loop2 => 2, loop3 => 3, loop4 => 4, loop5 => 5, loop8 => 8, loop16 => 16,
         loop64 => 64, loop256 => 256);

/// The calibration body: the same call and `ret` as the loops, no loop. (An asm block keeps
/// the call from being optimised away without adding an instruction.)
#[inline(never)]
pub(crate) fn empty(_n: u64) {
    // SAFETY: an empty asm block.
    unsafe { asm!("", options(nostack)) }
}

pub(crate) fn loop_k(k: u64) -> fn(u64) {
    LOOPS.iter().find(|l| l.0 == k).expect("k has a loop").1
}
