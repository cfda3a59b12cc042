//! [`Bencher`]: what a benchmark body drives, and [`Meter`], the bracket that reads every
//! counter around the measured code.
//!
//! A benchmark function calls exactly one of [`Bencher::iter`], [`Bencher::iter_batched`] or
//! [`Bencher::iter_custom`]; that call does all the work: warm-up, the sample plan, overhead
//! calibration and the samples of every measurement pass (see [`crate::runner`]).

use std::hint::black_box;

use super::sampler::{Body, Sampler};
use crate::model::Throughput;

/// Drives the code under measurement. A benchmark that takes `&mut Bencher` calls one of its
/// `iter*` methods exactly once.
pub struct Bencher {
    mode: Mode,
    calls: u32,
    throughput: Option<Throughput>,
}

enum Mode {
    /// `--test`: run the routine once.
    Smoke,
    /// Measure with this sampler.
    Measure(Box<Sampler>),
}

impl std::fmt::Debug for Bencher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bencher")
            .field("smoke", &matches!(self.mode, Mode::Smoke))
            .field("calls", &self.calls)
            .finish()
    }
}

impl Bencher {
    /// A bencher that runs each routine once (`--test` mode).
    #[doc(hidden)]
    pub fn smoke_test() -> Bencher {
        Bencher {
            mode: Mode::Smoke,
            calls: 0,
            throughput: None,
        }
    }

    pub(crate) fn measuring(sampler: Box<Sampler>) -> Bencher {
        Bencher {
            mode: Mode::Measure(sampler),
            calls: 0,
            throughput: None,
        }
    }

    /// Sets the work one iteration does, for the throughput figure, from the benchmark's body:
    /// for a benchmark with `args`, each argument's own (criterion's `Throughput` per input).
    /// It wins over the attribute's `throughput` option.
    ///
    /// ```
    /// use perfbench::{perfbench, Bencher, Throughput};
    ///
    /// #[perfbench(args = [64, 65536])]
    /// fn checksum(b: &mut Bencher, len: usize) {
    ///     let data = vec![1u8; len];
    ///     b.throughput(Throughput::Bytes(len as u64));
    ///     b.iter(|| data.iter().map(|&x| u64::from(x)).sum::<u64>());
    /// }
    /// # fn main() {}
    /// ```
    pub fn throughput(&mut self, throughput: Throughput) {
        self.throughput = Some(throughput);
    }

    /// What [`throughput`](Self::throughput) set, if anything.
    pub(crate) fn throughput_set(&self) -> Option<Throughput> {
        self.throughput
    }

    /// The sampler, with its results, after the benchmark ran.
    pub(crate) fn into_sampler(self) -> Option<Box<Sampler>> {
        match self.mode {
            Mode::Measure(s) => Some(s),
            Mode::Smoke => None,
        }
    }

    /// How many `iter*` calls the benchmark made (exactly one is expected).
    #[doc(hidden)]
    pub fn iterations_run(&self) -> u64 {
        u64::from(self.calls)
    }

    /// Measures `routine`: counters are read around batches of calls, and each result goes
    /// through [`black_box`] so the call is not optimised away.
    ///
    /// ```
    /// # let mut b = perfbench::Bencher::smoke_test();
    /// let v: Vec<u64> = (0..1000).collect();
    /// b.iter(|| v.iter().sum::<u64>());
    /// ```
    pub fn iter<O, R>(&mut self, routine: R)
    where
        R: FnMut() -> O,
    {
        self.calls += 1;
        match &mut self.mode {
            Mode::Smoke => {
                let mut routine = routine;
                black_box(routine());
            }
            Mode::Measure(sampler) => {
                sampler.run(&mut Loop(routine), &mut Loop(|| ()));
            }
        }
    }

    /// Measures `routine` on fresh inputs made by `setup`. Each call is bracketed on its own:
    /// neither `setup` nor dropping the output is counted.
    ///
    /// Per-call bracketing costs two counter reads per iteration. With the fast path that is a
    /// few dozen instructions; with the `read(2)` fallback it is two system calls (about a
    /// microsecond on a VM), which calibration subtracts but which adds noise to routines much
    /// shorter than that.
    ///
    /// ```
    /// # let mut b = perfbench::Bencher::smoke_test();
    /// b.iter_batched(|| vec![3u32, 1, 2], |mut v| v.sort_unstable());
    /// ```
    pub fn iter_batched<I, O, S, R>(&mut self, setup: S, routine: R)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> O,
    {
        self.calls += 1;
        match &mut self.mode {
            Mode::Smoke => {
                let (mut setup, mut routine) = (setup, routine);
                let input = setup();
                black_box(routine(black_box(input)));
            }
            Mode::Measure(sampler) => {
                sampler.run(
                    &mut Batched { setup, routine },
                    &mut Batched {
                        setup: || (),
                        routine: |x: ()| x,
                    },
                );
            }
        }
    }

    /// Like [`iter_batched`](Self::iter_batched), but `routine` borrows each input mutably
    /// (criterion's `iter_batched_ref`): neither `setup`, nor dropping the output, nor dropping
    /// the input afterwards is counted. For inputs that are costly to drop, or routines that
    /// work in place.
    ///
    /// ```
    /// # let mut b = perfbench::Bencher::smoke_test();
    /// b.iter_batched_ref(|| vec![3u32, 1, 2], |v| v.sort_unstable());
    /// ```
    pub fn iter_batched_ref<I, O, S, R>(&mut self, setup: S, routine: R)
    where
        S: FnMut() -> I,
        R: FnMut(&mut I) -> O,
    {
        self.calls += 1;
        match &mut self.mode {
            Mode::Smoke => {
                let (mut setup, mut routine) = (setup, routine);
                let mut input = setup();
                black_box(routine(black_box(&mut input)));
            }
            Mode::Measure(sampler) => {
                sampler.run(
                    &mut BatchedRef { setup, routine },
                    &mut BatchedRef {
                        setup: || (),
                        routine: |x: &mut ()| *x,
                    },
                );
            }
        }
    }

    /// Measures what `routine` brackets itself: it is called with an iteration count `n` and a
    /// [`Meter`], runs `n` iterations, and calls [`Meter::start`]/[`Meter::stop`] around what
    /// should count (any number of times; the deltas add up). Calibration subtracts the cost
    /// of each start/stop pair.
    ///
    /// ```
    /// # let mut b = perfbench::Bencher::smoke_test();
    /// b.iter_custom(|n, meter| {
    ///     let data: Vec<u64> = (0..n).collect(); // not measured
    ///     meter.start();
    ///     let s: u64 = data.iter().sum();
    ///     meter.stop();
    ///     std::hint::black_box(s);
    /// });
    /// ```
    pub fn iter_custom<F>(&mut self, routine: F)
    where
        F: FnMut(u64, &mut Meter<'_>),
    {
        self.calls += 1;
        match &mut self.mode {
            Mode::Smoke => {
                let mut routine = routine;
                let mut meter = Meter::idle();
                routine(1, &mut meter);
            }
            Mode::Measure(sampler) => {
                sampler.run(&mut Custom(routine), &mut Bracket);
            }
        }
    }
}

pub use super::sampler::Meter;

/// `iter`: `n` calls between one pair of reads.
struct Loop<R>(R);

impl<O, R: FnMut() -> O> Body for Loop<R> {
    #[inline(never)]
    fn run(&mut self, n: u64, meter: &mut Meter<'_>) {
        let routine = &mut self.0;
        meter.start();
        for _ in 0..n {
            black_box(routine());
        }
        meter.stop();
    }
}

/// `iter_batched`: a pair of reads around each call.
struct Batched<S, R> {
    setup: S,
    routine: R,
}

impl<I, O, S: FnMut() -> I, R: FnMut(I) -> O> Body for Batched<S, R> {
    #[inline(never)]
    fn run(&mut self, n: u64, meter: &mut Meter<'_>) {
        for _ in 0..n {
            let input = black_box((self.setup)());
            meter.start();
            let output = (self.routine)(input);
            meter.stop();
            drop(black_box(output));
        }
    }
}

/// `iter_batched_ref`: as [`Batched`], the routine borrowing the input; the input is dropped
/// after the bracket, with the output.
struct BatchedRef<S, R> {
    setup: S,
    routine: R,
}

impl<I, O, S: FnMut() -> I, R: FnMut(&mut I) -> O> Body for BatchedRef<S, R> {
    #[inline(never)]
    fn run(&mut self, n: u64, meter: &mut Meter<'_>) {
        for _ in 0..n {
            let mut input = black_box((self.setup)());
            meter.start();
            let output = (self.routine)(&mut input);
            meter.stop();
            drop(black_box(output));
            drop(input);
        }
    }
}

/// `iter_custom`: the user's own brackets.
struct Custom<F>(F);

impl<F: FnMut(u64, &mut Meter<'_>)> Body for Custom<F> {
    fn run(&mut self, n: u64, meter: &mut Meter<'_>) {
        (self.0)(n, meter);
    }
}

/// Calibration for `iter_custom`: one empty bracket (scaled by the pairs the body used).
struct Bracket;

impl Body for Bracket {
    #[inline(never)]
    fn run(&mut self, _n: u64, meter: &mut Meter<'_>) {
        meter.start();
        meter.stop();
    }

    fn per_pair(&self) -> bool {
        true
    }
}
