//! Async bodies: [`Bencher::to_async`] runs a routine that returns a future on an
//! [`AsyncExecutor`] (a tokio `Runtime`, `SmolExecutor`, `FuturesExecutor`, or any type of
//! your own), the counters bracketing the awaited work.
//!
//! One sample enters the executor once (`block_on`), outside the bracket; inside it the
//! bracket is read, the `n` futures are made and awaited one after another, and the bracket is
//! read again. The calibration body is the same loop over futures that complete at once
//! (`async {}`), on the same executor: what the executor and the `async` machinery cost per
//! iteration is subtracted and reported as the counter's overhead, as the bracket's own cost
//! is for a synchronous body. A routine that waits (a timer, I/O) is measured with its waiting,
//! as criterion's `to_async` measures it.
//!
//! Each executor is behind a feature of its own, so nothing is compiled that a suite does not
//! ask for: `tokio` (an `impl AsyncExecutor` for `tokio::runtime::Runtime` and `&Runtime`,
//! current-thread or multi-thread), `smol` (`SmolExecutor`) and `futures`
//! (`FuturesExecutor`). The trait's one method is criterion's, so an executor written for
//! criterion's `to_async` works here.

use std::future::Future;
use std::hint::black_box;

use super::bencher::{Batching, Harnessed};
use super::sampler::Brackets;
use super::{BatchSize, Bencher};

/// Runs a future to completion on the calling thread: what [`Bencher::to_async`] needs of an
/// executor (criterion's `AsyncExecutor`, the same method).
///
/// ```
/// use perfbench::harness::executor::AsyncExecutor;
///
/// /// An executor of one's own: polls on the calling thread until the future is ready.
/// struct Spin;
///
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
/// # let mut b = perfbench::Bencher::smoke_test();
/// b.to_async(Spin).iter(|| async { 6 * 7 });
/// ```
pub trait AsyncExecutor {
    /// Runs `future` to completion and returns its output.
    fn block_on<T>(&self, future: impl Future<Output = T>) -> T;
}

impl<E: AsyncExecutor + ?Sized> AsyncExecutor for &E {
    fn block_on<T>(&self, future: impl Future<Output = T>) -> T {
        (**self).block_on(future)
    }
}

#[cfg(feature = "tokio")]
impl AsyncExecutor for tokio::runtime::Runtime {
    fn block_on<T>(&self, future: impl Future<Output = T>) -> T {
        tokio::runtime::Runtime::block_on(self, future)
    }
}

/// smol's executor (feature `smol`): `smol::block_on`, which drives smol's reactor too.
#[cfg(feature = "smol")]
#[derive(Clone, Copy, Debug, Default)]
pub struct SmolExecutor;

#[cfg(feature = "smol")]
impl AsyncExecutor for SmolExecutor {
    fn block_on<T>(&self, future: impl Future<Output = T>) -> T {
        smol::block_on(future)
    }
}

/// The `futures` crate's executor (feature `futures`): `futures::executor::block_on`.
#[cfg(feature = "futures")]
#[derive(Clone, Copy, Debug, Default)]
pub struct FuturesExecutor;

#[cfg(feature = "futures")]
impl AsyncExecutor for FuturesExecutor {
    fn block_on<T>(&self, future: impl Future<Output = T>) -> T {
        futures_executor::block_on(future)
    }
}

impl Bencher {
    /// This bencher, for a routine that returns a future, run on `executor` (criterion's
    /// `to_async`; see the [module](self)).
    ///
    /// ```
    /// # #[cfg(feature = "tokio")] {
    /// use perfbench::{perfbench, Bencher};
    ///
    /// #[perfbench]
    /// fn spawn_and_join(b: &mut Bencher) {
    ///     let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    ///     b.to_async(&runtime).iter(|| async { tokio::spawn(async { 7 }).await.unwrap() });
    /// }
    /// # }
    /// ```
    pub fn to_async<E: AsyncExecutor>(&mut self, executor: E) -> AsyncBencher<'_, E> {
        AsyncBencher {
            bencher: self,
            executor,
        }
    }
}

/// A [`Bencher`] whose routines return futures, awaited on an [`AsyncExecutor`] (made by
/// [`Bencher::to_async`]). Its methods are [`Bencher`]'s; a benchmark calls exactly one.
#[derive(Debug)]
pub struct AsyncBencher<'b, E> {
    bencher: &'b mut Bencher,
    executor: E,
}

impl<E: AsyncExecutor> AsyncBencher<'_, E> {
    /// Measures the futures `routine` returns, awaited one after another (as
    /// [`Bencher::iter`]).
    ///
    /// ```
    /// use perfbench::harness::executor::AsyncExecutor;
    /// # struct Spin;
    /// # impl AsyncExecutor for Spin {
    /// #     fn block_on<T>(&self, f: impl std::future::Future<Output = T>) -> T {
    /// #         let mut f = std::pin::pin!(f);
    /// #         let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    /// #         loop { if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; } }
    /// #     }
    /// # }
    /// # let mut b = perfbench::Bencher::smoke_test();
    /// b.to_async(Spin).iter(|| async { (0..100u64).sum::<u64>() });
    /// ```
    pub fn iter<O, F, R>(self, routine: R)
    where
        F: Future<Output = O>,
        R: FnMut() -> F,
    {
        let exec = &self.executor;
        let mut body = AsyncLoop { exec, routine };
        let mut empty = AsyncLoop {
            exec,
            routine: || async {},
        };
        self.bencher.drive(&mut body, &mut empty, |body| {
            body.exec
                .block_on(async { black_box((body.routine)().await) });
        });
    }

    /// Measures the futures `routine` returns for inputs `setup` makes, batches chosen as
    /// [`Bencher::iter_batched`]'s; neither `setup` nor dropping inputs and outputs is counted.
    pub fn iter_batched<I, O, F, S, R>(self, setup: S, routine: R)
    where
        F: Future<Output = O>,
        S: FnMut() -> I,
        R: FnMut(I) -> F,
    {
        self.iter_batched_with(setup, routine, BatchSize::Auto);
    }

    /// [`iter_batched`](Self::iter_batched) with the inputs per bracket set by `size`.
    pub fn iter_batched_with<I, O, F, S, R>(self, setup: S, routine: R, size: BatchSize)
    where
        F: Future<Output = O>,
        S: FnMut() -> I,
        R: FnMut(I) -> F,
    {
        let exec = &self.executor;
        let mut body = AsyncBatched {
            exec,
            setup,
            routine,
            size: Batching::new(size),
        };
        let mut empty = AsyncBatched {
            exec,
            setup: || (),
            routine: |x: ()| async move { x },
            size: Batching::new(size),
        };
        self.bencher.drive(&mut body, &mut empty, |body| {
            let input = (body.setup)();
            body.exec
                .block_on(async { black_box((body.routine)(input).await) });
        });
    }

    /// As [`iter_batched`](Self::iter_batched), the routine borrowing each input mutably
    /// (criterion's `iter_batched_ref`).
    pub fn iter_batched_ref<I, O, F, S, R>(self, setup: S, routine: R)
    where
        F: Future<Output = O>,
        S: FnMut() -> I,
        R: FnMut(&mut I) -> F,
    {
        self.iter_batched_ref_with(setup, routine, BatchSize::Auto);
    }

    /// [`iter_batched_ref`](Self::iter_batched_ref) with the inputs per bracket set by `size`.
    pub fn iter_batched_ref_with<I, O, F, S, R>(self, setup: S, routine: R, size: BatchSize)
    where
        F: Future<Output = O>,
        S: FnMut() -> I,
        R: FnMut(&mut I) -> F,
    {
        let exec = &self.executor;
        let mut body = AsyncBatchedRef {
            exec,
            setup,
            routine,
            size: Batching::new(size),
        };
        let mut empty = AsyncBatchedRef {
            exec,
            setup: || (),
            routine: |_: &mut ()| async {},
            size: Batching::new(size),
        };
        self.bencher.drive(&mut body, &mut empty, |body| {
            let mut input = (body.setup)();
            body.exec
                .block_on(async { black_box((body.routine)(&mut input).await) });
        });
    }

    /// Measures a routine that times itself (as [`Bencher::iter_timed`], criterion's async
    /// `iter_custom`): called with `n`, its future runs `n` iterations and returns the time
    /// they took, which is the benchmark's `wall-time`.
    pub fn iter_timed<F, R>(self, mut routine: R)
    where
        F: Future<Output = std::time::Duration>,
        R: FnMut(u64) -> F,
    {
        let exec = self.executor;
        self.bencher.iter_timed(move |n| exec.block_on(routine(n)));
    }
}

/// `to_async(..).iter`: one `block_on` per sample, the bracket around the awaited loop.
struct AsyncLoop<'e, E, R> {
    exec: &'e E,
    routine: R,
}

impl<E: AsyncExecutor, O, F: Future<Output = O>, R: FnMut() -> F> Harnessed
    for AsyncLoop<'_, E, R>
{
    #[inline(always)]
    fn measure(&mut self, n: u64, meter: &mut impl Brackets) {
        let routine = &mut self.routine;
        self.exec.block_on(async {
            meter.start();
            for _ in 0..n {
                black_box(routine().await);
            }
            meter.stop();
        });
    }
}

/// `to_async(..).iter_batched`: as the synchronous batched body, each batch awaited inside one
/// `block_on` and one bracket.
struct AsyncBatched<'e, E, S, R> {
    exec: &'e E,
    setup: S,
    routine: R,
    size: Batching,
}

impl<E, I, O, F, S, R> Harnessed for AsyncBatched<'_, E, S, R>
where
    E: AsyncExecutor,
    F: Future<Output = O>,
    S: FnMut() -> I,
    R: FnMut(I) -> F,
{
    fn batching(&mut self) -> Option<&mut Batching> {
        Some(&mut self.size)
    }

    #[inline(always)]
    fn measure(&mut self, n: u64, meter: &mut impl Brackets) {
        let batch = self.size.batch(n);
        let mut inputs: Vec<I> = Vec::with_capacity(batch as usize);
        let mut outputs: Vec<O> = Vec::with_capacity(batch as usize);
        let (exec, setup, routine) = (self.exec, &mut self.setup, &mut self.routine);
        let mut left = n;
        while left > 0 {
            let k = batch.min(left);
            inputs.extend((0..k).map(|_| setup()));
            let inputs = black_box(&mut inputs);
            exec.block_on(async {
                meter.start();
                // `drain` leaves the buffer allocated: nothing is freed inside the bracket.
                for input in inputs.drain(..) {
                    outputs.push(routine(input).await);
                }
                meter.stop();
            });
            black_box(&mut outputs).clear();
            left -= k;
        }
    }
}

/// `to_async(..).iter_batched_ref`: as [`AsyncBatched`], the routine borrowing the inputs,
/// which are dropped after the bracket with the outputs.
struct AsyncBatchedRef<'e, E, S, R> {
    exec: &'e E,
    setup: S,
    routine: R,
    size: Batching,
}

impl<E, I, O, F, S, R> Harnessed for AsyncBatchedRef<'_, E, S, R>
where
    E: AsyncExecutor,
    F: Future<Output = O>,
    S: FnMut() -> I,
    R: FnMut(&mut I) -> F,
{
    fn batching(&mut self) -> Option<&mut Batching> {
        Some(&mut self.size)
    }

    #[inline(always)]
    fn measure(&mut self, n: u64, meter: &mut impl Brackets) {
        let batch = self.size.batch(n);
        let mut inputs: Vec<I> = Vec::with_capacity(batch as usize);
        let mut outputs: Vec<O> = Vec::with_capacity(batch as usize);
        let (exec, setup, routine) = (self.exec, &mut self.setup, &mut self.routine);
        let mut left = n;
        while left > 0 {
            let k = batch.min(left);
            inputs.extend((0..k).map(|_| setup()));
            let inputs = black_box(&mut inputs);
            exec.block_on(async {
                meter.start();
                for input in inputs.iter_mut() {
                    outputs.push(routine(input).await);
                }
                meter.stop();
            });
            black_box(&mut outputs).clear();
            inputs.clear();
            left -= k;
        }
    }
}
