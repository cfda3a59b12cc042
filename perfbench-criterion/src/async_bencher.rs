//! criterion's `AsyncBencher` (`b.to_async(executor)`), driving perfbench's.

use std::future::Future;

use perfbench::harness::executor::AsyncExecutor;

use crate::measurement::{Measurement, WallTime};
use crate::{BatchSize, Bencher};

impl<'a, M> Bencher<'a, M> {
    /// This bencher, for routines that return futures, awaited on `runner` (a tokio
    /// `Runtime` with the `async_tokio` feature, `FuturesExecutor` with `async_futures`,
    /// `SmolExecutor` with `async_smol`, or an executor of one's own). The counters bracket
    /// the awaited work; what the executor costs per iteration is calibrated away.
    ///
    /// ```no_run
    /// use perfbench_criterion::async_executor::AsyncExecutor;
    /// use perfbench_criterion::Criterion;
    ///
    /// struct Spin;
    /// impl AsyncExecutor for Spin {
    ///     fn block_on<T>(&self, future: impl std::future::Future<Output = T>) -> T {
    ///         let mut future = std::pin::pin!(future);
    ///         let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    ///         loop {
    ///             if let std::task::Poll::Ready(v) = future.as_mut().poll(&mut cx) {
    ///                 return v;
    ///             }
    ///         }
    ///     }
    /// }
    ///
    /// fn bench(c: &mut Criterion) {
    ///     c.bench_function("ready", |b| b.to_async(Spin).iter(|| async { 6 * 7 }));
    /// }
    /// ```
    pub fn to_async<'b, A: AsyncExecutor>(&'b mut self, runner: A) -> AsyncBencher<'a, 'b, A, M> {
        AsyncBencher { b: self, runner }
    }
}

/// criterion's `AsyncBencher`: [`Bencher`]'s methods for routines that return futures.
pub struct AsyncBencher<'a, 'b, A: AsyncExecutor, M = WallTime> {
    b: &'b mut Bencher<'a, M>,
    runner: A,
}

impl<A: AsyncExecutor, M> AsyncBencher<'_, '_, A, M> {
    /// Measures the futures `routine` returns, awaited one after another.
    pub fn iter<O, R, F>(&mut self, routine: R)
    where
        R: FnMut() -> F,
        F: Future<Output = O>,
    {
        self.b.inner.to_async(&self.runner).iter(routine);
    }

    /// A routine that times itself: its future runs `iters` iterations and returns their
    /// time (with criterion's default measurement, wall time; with another measurement, the
    /// counters bracket the whole call).
    pub fn iter_custom<R, F>(&mut self, mut routine: R)
    where
        M: Measurement,
        R: FnMut(u64) -> F,
        F: Future<Output = M::Value>,
    {
        let runner = &self.runner;
        match M::__as_duration() {
            Some(as_duration) => self.b.inner.to_async(runner).iter_timed(|iters| {
                let future = routine(iters);
                async move { as_duration(&future.await) }
            }),
            None => self.b.inner.iter_custom(|iters, meter| {
                meter.start();
                let value = runner.block_on(routine(iters));
                meter.stop();
                drop(std::hint::black_box(value));
            }),
        }
    }

    /// Measures `routine` on inputs `setup` makes; neither is `setup` counted, nor dropping
    /// the inputs and outputs.
    pub fn iter_batched<I, O, S, R, F>(&mut self, setup: S, routine: R, size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> F,
        F: Future<Output = O>,
    {
        self.b
            .inner
            .to_async(&self.runner)
            .iter_batched_with(setup, routine, size.to_perfbench());
    }

    /// As [`AsyncBencher::iter_batched`], the routine borrowing each input mutably.
    pub fn iter_batched_ref<I, O, S, R, F>(&mut self, setup: S, routine: R, size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(&mut I) -> F,
        F: Future<Output = O>,
    {
        self.b.inner.to_async(&self.runner).iter_batched_ref_with(
            setup,
            routine,
            size.to_perfbench(),
        );
    }

    /// Measures `routine` on an input `setup` makes for each call (criterion 0.3).
    pub fn iter_with_setup<I, O, S, R, F>(&mut self, setup: S, routine: R)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> F,
        F: Future<Output = O>,
    {
        self.iter_batched(setup, routine, BatchSize::PerIteration);
    }

    /// Measures `routine`, whose outputs are dropped outside the measurement.
    pub fn iter_with_large_drop<O, R, F>(&mut self, mut routine: R)
    where
        R: FnMut() -> F,
        F: Future<Output = O>,
    {
        self.iter_batched(|| (), |()| routine(), BatchSize::SmallInput);
    }
}

impl<A: AsyncExecutor, M> std::fmt::Debug for AsyncBencher<'_, '_, A, M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AsyncBencher").finish_non_exhaustive()
    }
}
