//! criterion's `Bencher`, driving perfbench's.

use std::hint::black_box;
use std::marker::PhantomData;

use crate::measurement::{Measurement, WallTime};
use crate::BatchSize;

/// What a benchmark's closure gets: calls one of its `iter*` methods once, which perfbench
/// measures (counters around batches of calls, rounds, the verdict).
pub struct Bencher<'a, M = WallTime> {
    pub(crate) inner: &'a mut perfbench::Bencher,
    measurement: PhantomData<M>,
}

impl<'a, M> Bencher<'a, M> {
    pub(crate) fn new(inner: &'a mut perfbench::Bencher) -> Bencher<'a, M> {
        Bencher {
            inner,
            measurement: PhantomData,
        }
    }

    /// Measures `routine`: counters are read around batches of calls, and each result goes
    /// through [`black_box`] so that the call is not optimised away.
    ///
    /// ```no_run
    /// use perfbench_criterion::{black_box, Criterion};
    ///
    /// fn bench(c: &mut Criterion) {
    ///     c.bench_function("shift", |b| b.iter(|| black_box(1u64) << 7));
    ///     c.bench_function("a large drop", |b| b.iter_with_large_drop(|| vec![0u8; 1 << 16]));
    ///     c.bench_function("with setup", |b| {
    ///         b.iter_with_setup(|| vec![3u8; 64], |v| v.iter().map(|&x| u64::from(x)).sum::<u64>())
    ///     });
    /// }
    /// ```
    pub fn iter<O, R>(&mut self, routine: R)
    where
        R: FnMut() -> O,
    {
        self.inner.iter(routine);
    }

    /// Measures `routine` on an input `setup` makes for each call (`BatchSize::PerIteration`).
    ///
    /// See [`Bencher::iter`] for an example.
    pub fn iter_with_setup<I, O, S, R>(&mut self, setup: S, routine: R)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> O,
    {
        self.iter_batched(setup, routine, BatchSize::PerIteration);
    }

    /// Measures `routine`, whose outputs are dropped outside the measurement.
    ///
    /// See [`Bencher::iter`] for an example.
    pub fn iter_with_large_drop<O, R>(&mut self, mut routine: R)
    where
        R: FnMut() -> O,
    {
        self.iter_batched(|| (), |()| routine(), BatchSize::SmallInput);
    }

    /// Measures `routine` on inputs `setup` makes in one batch per sample (criterion 0.3).
    pub fn iter_with_large_setup<I, O, S, R>(&mut self, setup: S, routine: R)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> O,
    {
        self.iter_batched(setup, routine, BatchSize::NumBatches(1));
    }

    /// Measures `routine` on inputs `setup` makes, `size` of them before each bracket; making
    /// the inputs and dropping the outputs is not measured.
    ///
    /// ```no_run
    /// use perfbench_criterion::{BatchSize, Criterion};
    ///
    /// fn bench(c: &mut Criterion) {
    ///     let unsorted: Vec<u32> = (0..1000).map(|i| i * 7919 % 1000).collect();
    ///     c.bench_function("sort", |b| {
    ///         b.iter_batched(|| unsorted.clone(), |mut v| v.sort_unstable(), BatchSize::SmallInput)
    ///     });
    ///     c.bench_function("sort in place", |b| {
    ///         b.iter_batched_ref(|| unsorted.clone(), |v| v.sort_unstable(), BatchSize::LargeInput)
    ///     });
    /// }
    /// ```
    pub fn iter_batched<I, O, S, R>(&mut self, setup: S, routine: R, size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> O,
    {
        self.inner
            .iter_batched_with(setup, routine, size.to_perfbench());
    }

    /// As [`Bencher::iter_batched`], the routine borrowing each input mutably.
    ///
    /// See [`Bencher::iter_batched`] for an example.
    pub fn iter_batched_ref<I, O, S, R>(&mut self, setup: S, routine: R, size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(&mut I) -> O,
    {
        self.inner
            .iter_batched_ref_with(setup, routine, size.to_perfbench());
    }

    /// Calls `routine(iters)`, which runs the code `iters` times and returns what it measured
    /// itself. With criterion's default measurement ([`WallTime`]) the returned time is the
    /// benchmark's wall time, and the other counters have no figure for it (the run notes that
    /// they are not available; under `--simulate` and `--profile` the counters bracket the
    /// whole call). With a custom measurement the returned value is not used: the counters
    /// bracket the whole call, whatever the routine does besides the measured code included.
    ///
    /// ```no_run
    /// use std::time::Instant;
    /// use perfbench_criterion::{black_box, Criterion};
    ///
    /// fn bench(c: &mut Criterion) {
    ///     c.bench_function("custom", |b| {
    ///         b.iter_custom(|iters| {
    ///             let start = Instant::now();
    ///             for i in 0..iters {
    ///                 black_box(i * 3);
    ///             }
    ///             start.elapsed()
    ///         })
    ///     });
    /// }
    /// ```
    pub fn iter_custom<R>(&mut self, mut routine: R)
    where
        M: Measurement,
        R: FnMut(u64) -> M::Value,
    {
        match M::__as_duration() {
            Some(as_duration) => self.inner.iter_timed(|iters| as_duration(&routine(iters))),
            None => self.inner.iter_custom(|iters, meter| {
                meter.start();
                let value = routine(iters);
                meter.stop();
                drop(black_box(value));
            }),
        }
    }
}
