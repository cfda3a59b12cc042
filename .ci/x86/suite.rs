//! A perfbench suite for the x86 hardware check (`bash .ci/x86/run.sh`): `#[perfbench]`
//! functions whose bodies are straight-line inline asm of exactly k `add` instructions
//! (k = 0, 3, 37, 1001, 4099), a loop of exactly 2n instructions over a captured `n`, and
//! `iter_batched` (each `BatchSize`) and `iter_batched_ref` of a routine of exactly 37
//! instructions whose setup costs 4,097. The checker (`.ci/x86/check.rs`) runs this binary and
//! asserts that its JSON report shows exactly those counts per iteration, through `rdpmc` and
//! through `read(2)`.
//!
//! Only x86_64 has benchmarks; elsewhere the suite is empty.

#[cfg(target_arch = "x86_64")]
mod bodies {
    use perfbench::{perfbench, BatchSize, Bencher};

    macro_rules! straight_line {
        ($($name:ident => $k:literal),* $(,)?) => {
            $(
                #[doc = concat!("Exactly ", stringify!($k), " `add` instructions per iteration.")]
                #[perfbench(group = "x86")]
                fn $name(b: &mut Bencher) {
                    b.iter(|| {
                        // SAFETY: register-only arithmetic on a scratch register.
                        unsafe {
                            std::arch::asm!(
                                ".rept {k}",
                                "add {x}, 1",
                                ".endr",
                                x = out(reg) _,
                                k = const $k,
                                options(nostack),
                            )
                        }
                    });
                }
            )*
        };
    }

    straight_line!(add_0 => 0, add_3 => 3, add_37 => 37, add_1001 => 1001, add_4099 => 4099);

    /// A loop of exactly 2n instructions per iteration (`dec`, `jnz`, n times) over an `n`
    /// captured from outside `b.iter`.
    macro_rules! captured_loop {
        ($($name:ident => $n:literal),* $(,)?) => {
            $(
                #[doc = concat!("`dec`/`jnz` ", stringify!($n), " times over a captured `n`.")]
                #[perfbench(group = "x86")]
                fn $name(b: &mut Bencher) {
                    let n = std::hint::black_box($n as u64);
                    b.iter(|| {
                        // SAFETY: register-only arithmetic; `n >= 1`.
                        unsafe {
                            std::arch::asm!(
                                "2:",
                                "dec {n}",
                                "jnz 2b",
                                n = inout(reg) n => _,
                                options(nostack),
                            )
                        }
                    });
                }
            )*
        };
    }

    captured_loop!(captured_10 => 10, captured_20 => 20);

    /// A setup of 4,096 `add` instructions that returns 7: it costs more than the routines of
    /// the batched benchmarks, and must not show in their counts.
    #[inline(never)]
    fn costly_setup() -> u64 {
        let mut x = 7u64;
        // SAFETY: register-only arithmetic on `x`, then `x` is set back to 7.
        unsafe {
            std::arch::asm!(
                ".rept 4096",
                "add {x}, 1",
                ".endr",
                "mov {x}, 7",
                x = inout(reg) x,
                options(nostack),
            )
        }
        x
    }

    /// Exactly 37 `add` instructions, ignoring the input.
    #[inline(always)]
    fn routine_37() {
        // SAFETY: register-only arithmetic on a scratch register.
        unsafe {
            std::arch::asm!(
                ".rept 37",
                "add {x}, 1",
                ".endr",
                x = out(reg) _,
                options(nostack),
            )
        }
    }

    macro_rules! batched_37 {
        ($($name:ident => $size:expr),* $(,)?) => {
            $(
                #[doc = concat!("`iter_batched_with(costly_setup, 37 instructions, ", stringify!($size), ")`.")]
                #[perfbench(group = "x86")]
                fn $name(b: &mut Bencher) {
                    b.iter_batched_with(costly_setup, |_x: u64| routine_37(), $size);
                }
            )*
        };
    }

    batched_37!(
        batched_37 => BatchSize::Auto,
        batched_small_37 => BatchSize::SmallInput,
        batched_large_37 => BatchSize::LargeInput,
        batched_one_37 => BatchSize::PerIteration,
        batched_four_37 => BatchSize::NumBatches(4),
        batched_three_37 => BatchSize::NumIterations(3),
    );

    /// `iter_batched_ref(costly_setup, 37 instructions)`, batches chosen automatically.
    #[perfbench(group = "x86")]
    fn batched_ref_37(b: &mut Bencher) {
        b.iter_batched_ref(costly_setup, |_x: &mut u64| routine_37());
    }
}

perfbench::main!();
