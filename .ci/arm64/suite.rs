//! A whole perfbench suite for the arm64 guest (`bash .ci/arm64/run.sh`): `#[perfbench]`
//! functions whose bodies are straight-line inline asm of exactly k `add` instructions (k = 0
//! is an empty body), run by
//! `perfbench::main!()` like any `cargo bench` suite. The guest test (`.ci/arm64/guest/`,
//! `--suite=`) runs this binary and asserts that its JSON report shows exactly k instructions per
//! iteration, read through `mrs`.
//!
//! `ARM64_SUITE_EXTRA=add_37,add_4` (names of the functions below, or `all`) gives each named
//! benchmark one more `add` per iteration, k + 1, without changing its id: the change the guest
//! test compares with a baseline of the same suite run without it. The variable is read once;
//! the choice between the two bodies is made outside `b.iter`, so the measured body is
//! straight-line asm either way. With `ARM64_SUITE_EXTRA_IN=PATH` as well, only the copy of this
//! executable at PATH takes the extra instruction: a paired run's two workers (both children
//! of the driver, with its environment) then act as two builds, k and k + 1.
//!
//! Two more kinds of body: `captured_10`/`captured_20`, loops of 2n instructions per iteration
//! over an `n` captured from outside `b.iter` (work the compiled sample loop does once per
//! sample must not show in an exact count), `batched_empty`, an empty `iter_batched` with
//! one input per bracket (its calibration overhead per iteration is the harness's bracket), and
//! `batched_*37`, `iter_batched` (each `BatchSize`) and `iter_batched_ref` of a routine of
//! exactly 37 instructions whose setup costs 4,097 (neither the setup nor the batch's own loop
//! may show in an exact count).
//!
//! Only aarch64 has benchmarks; elsewhere the suite is empty.

#[cfg(target_arch = "aarch64")]
mod bodies {
    use std::sync::OnceLock;

    use perfbench::{perfbench, Bencher};

    /// The variable naming the benchmarks that get one more instruction per iteration.
    const EXTRA: &str = "ARM64_SUITE_EXTRA";

    /// The variable that limits [`EXTRA`] to the executable at its path.
    const EXTRA_IN: &str = "ARM64_SUITE_EXTRA_IN";

    /// Whether this executable is the one `ARM64_SUITE_EXTRA_IN` names (any, when unset).
    fn extra_here() -> bool {
        static HERE: OnceLock<bool> = OnceLock::new();
        *HERE.get_or_init(|| match std::env::var_os(EXTRA_IN) {
            None => true,
            Some(path) => {
                let canonical = |p: &std::path::Path| p.canonicalize().ok();
                // A paired run's worker runs from a copy; this names the build itself.
                let me = std::env::var_os("PERFBENCH_WORKER_EXE")
                    .map(std::path::PathBuf::from)
                    .or_else(|| std::env::current_exe().ok());
                me.as_deref().and_then(canonical).is_some()
                    && me.as_deref().and_then(canonical) == canonical(std::path::Path::new(&path))
            }
        })
    }

    /// Whether the benchmark function `name` gets one more instruction per iteration.
    fn extra(name: &str) -> bool {
        if !extra_here() {
            return false;
        }
        static NAMES: OnceLock<Vec<String>> = OnceLock::new();
        let names = NAMES.get_or_init(|| {
            std::env::var(EXTRA)
                .unwrap_or_default()
                .split(',')
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(str::to_owned)
                .collect()
        });
        names.iter().any(|n| n == name || n == "all")
    }

    macro_rules! straight_line {
        ($($name:ident => $k:literal),* $(,)?) => {
            $(
                #[doc = concat!("Exactly ", stringify!($k), " `add` instructions per iteration")]
                #[doc = concat!("(one more when `ARM64_SUITE_EXTRA` names `", stringify!($name), "`).")]
                #[perfbench(group = "arm64")]
                fn $name(b: &mut Bencher) {
                    if extra(stringify!($name)) {
                        b.iter(|| {
                            // SAFETY: register-only arithmetic on a scratch register.
                            unsafe {
                                std::arch::asm!(
                                    ".rept {k}",
                                    "add {x}, {x}, #1",
                                    ".endr",
                                    x = out(reg) _,
                                    k = const $k + 1,
                                    options(nostack),
                                )
                            }
                        });
                    } else {
                        b.iter(|| {
                            // SAFETY: as above.
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
                }
            )*
        };
    }

    /// A loop of exactly 2n instructions per iteration (`subs`, `b.ne`, n times) over an `n`
    /// captured from outside `b.iter`, plus whatever the compiler adds per iteration to feed it:
    /// the compiled sample loop can load the captured value once per sample, which calibration
    /// (an empty body) cannot see. perfbench reads such an exact counter's per-iteration value
    /// as the slope in the iteration count, so it still reads a whole number.
    macro_rules! captured_loop {
        ($($name:ident => $n:literal),* $(,)?) => {
            $(
                #[doc = concat!("`subs`/`b.ne` ", stringify!($n), " times over a captured `n`.")]
                #[perfbench(group = "arm64")]
                fn $name(b: &mut Bencher) {
                    let n = std::hint::black_box($n as u64);
                    b.iter(|| {
                        // SAFETY: register-only arithmetic; `n >= 1`.
                        unsafe {
                            std::arch::asm!(
                                "2:",
                                "subs {n}, {n}, #1",
                                "b.ne 2b",
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

    /// `iter_batched` with nothing to do, one input per bracket: its instructions per
    /// iteration are exactly 0, and the calibration's overhead per iteration is the bracket
    /// itself (two fast-path group reads, through the harness's `Meter`).
    #[perfbench(group = "arm64")]
    fn batched_empty(b: &mut Bencher) {
        b.iter_batched_with(|| (), |x| x, perfbench::BatchSize::PerIteration);
    }

    /// A setup of 4,096 `add` instructions that returns 7: it costs more than the routines of
    /// the batched benchmarks below, and must not show in their counts.
    #[inline(never)]
    fn costly_setup() -> u64 {
        let mut x = 7u64;
        // SAFETY: register-only arithmetic on `x`, then `x` is set back to 7.
        unsafe {
            std::arch::asm!(
                ".rept 4096",
                "add {x}, {x}, #1",
                ".endr",
                "mov {x}, #7",
                x = inout(reg) x,
                options(nostack),
            )
        }
        x
    }

    /// Exactly 37 `add` instructions, ignoring the input (the routine of the batched
    /// benchmarks).
    #[inline(always)]
    fn routine_37() {
        // SAFETY: register-only arithmetic on a scratch register.
        unsafe {
            std::arch::asm!(
                ".rept 37",
                "add {x}, {x}, #1",
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
                #[perfbench(group = "arm64")]
                fn $name(b: &mut Bencher) {
                    b.iter_batched_with(costly_setup, |_x: u64| routine_37(), $size);
                }
            )*
        };
    }

    batched_37!(
        batched_37 => perfbench::BatchSize::Auto,
        batched_small_37 => perfbench::BatchSize::SmallInput,
        batched_large_37 => perfbench::BatchSize::LargeInput,
        batched_one_37 => perfbench::BatchSize::PerIteration,
        batched_four_37 => perfbench::BatchSize::NumBatches(4),
        batched_three_37 => perfbench::BatchSize::NumIterations(3),
    );

    /// `iter_batched_ref(costly_setup, 37 instructions)`, batches chosen automatically.
    #[perfbench(group = "arm64")]
    fn batched_ref_37(b: &mut Bencher) {
        b.iter_batched_ref(costly_setup, |_x: &mut u64| routine_37());
    }

    straight_line!(
        add_0 => 0,
        add_1 => 1,
        add_2 => 2,
        add_4 => 4,
        add_16 => 16,
        add_37 => 37,
        add_64 => 64,
        add_1001 => 1001,
    );
}

perfbench::main!();
