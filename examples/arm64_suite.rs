//! A whole perfbench suite for the arm64 guest (`bash .ci/arm64/run.sh`): `#[perfbench]`
//! functions whose bodies are straight-line inline asm of exactly k `add` instructions (k = 0
//! is an empty body), run by
//! `perfbench::main!()` like any `cargo bench` suite. The guest test (`examples/arm64_guest.rs`,
//! `--suite=`) runs this binary and asserts that its JSON report shows exactly k instructions per
//! iteration, read through `mrs`.
//!
//! Only aarch64 has benchmarks; elsewhere the suite is empty.

#[cfg(target_arch = "aarch64")]
mod bodies {
    use perfbench::{perfbench, Bencher};

    macro_rules! straight_line {
        ($($name:ident => $k:literal),* $(,)?) => {
            $(
                #[doc = concat!("Exactly ", stringify!($k), " `add` instructions per iteration.")]
                #[perfbench(group = "arm64")]
                fn $name(b: &mut Bencher) {
                    b.iter(|| {
                        // SAFETY: register-only arithmetic on a scratch register.
                        unsafe {
                            std::arch::asm!(
                                ".rept {k}",
                                "add {x}, {x}, #1",
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

    straight_line!(add_0 => 0, add_1 => 1, add_2 => 2, add_4 => 4, add_16 => 16, add_64 => 64);
}

perfbench::main!();
