//! [`Bencher`]: what a benchmark body drives, and [`Meter`], the bracket that reads every
//! counter around the measured code.
//!
//! A benchmark function calls exactly one of [`Bencher::iter`], [`Bencher::iter_batched`],
//! [`Bencher::iter_custom`] and their kin (an async routine's through [`Bencher::to_async`], a
//! threaded one's [`Bencher::iter_threads`]); that call does all the work: warm-up, the sample
//! plan, overhead calibration and the samples of every measurement pass (see
//! [`crate::runner`]).

use std::hint::black_box;

use super::entry::Throughput;
use super::sampler::{Body, Brackets, Sampler};
use super::simulate::SimBracket;

/// Drives the code under measurement. A benchmark that takes `&mut Bencher` calls one of its
/// `iter*` methods exactly once.
pub struct Bencher {
    mode: Mode,
    calls: u32,
    throughput: Option<Throughput>,
    /// The thread count of an [`iter_threads`](Self::iter_threads) body, once it ran.
    threads: Option<u32>,
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
            threads: None,
        }
    }

    pub(crate) fn measuring(sampler: Box<Sampler>) -> Bencher {
        Bencher {
            mode: Mode::Measure(sampler),
            calls: 0,
            throughput: None,
            threads: None,
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

    /// How many threads an [`iter_threads`](Self::iter_threads) body ran on (the resolved
    /// count, 1 included); `None` for every other body.
    pub(crate) fn threads_set(&self) -> Option<u32> {
        self.threads
    }

    /// Records the thread count of a threaded body, for the report.
    pub(super) fn set_threads(&mut self, threads: usize) {
        self.threads = Some(u32::try_from(threads).unwrap_or(u32::MAX));
    }

    /// The sampler, with its results, after the benchmark ran.
    pub(crate) fn into_sampler(self) -> Option<Box<Sampler>> {
        match self.mode {
            Mode::Measure(s) => Some(s),
            Mode::Smoke => None,
        }
    }

    /// Measures `body`, calibrated by `empty` (or, in `--test` mode, runs `smoke` on `body`
    /// once): what every `iter*` method does, for the bodies of other modules.
    pub(super) fn drive<B: Body>(
        &mut self,
        body: &mut B,
        empty: &mut dyn Body,
        smoke: impl FnOnce(&mut B),
    ) {
        self.calls += 1;
        match &mut self.mode {
            Mode::Smoke => smoke(body),
            Mode::Measure(sampler) => sampler.run(body, empty),
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

    /// Measures `routine` on fresh inputs made by `setup`; neither `setup` nor dropping the
    /// inputs and outputs is counted. How many prepared inputs share one bracket is chosen
    /// from the warm-up ([`BatchSize::Auto`]): a routine that takes less than about 10 us runs
    /// in batches whose inputs are made beforehand, so the bracket's own cost (two counter
    /// reads, a few dozen instructions with the fast path, two system calls with `read(2)`)
    /// is spread over the batch instead of burying a routine of a few nanoseconds; a longer
    /// one is bracketed call by call. [`iter_batched_with`](Self::iter_batched_with) sets the
    /// batch size as criterion's `BatchSize` does.
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
        self.iter_batched_with(setup, routine, BatchSize::Auto);
    }

    /// [`iter_batched`](Self::iter_batched) with the inputs per bracket set by `size`
    /// (criterion's `iter_batched(setup, routine, BatchSize::SmallInput)`).
    ///
    /// ```
    /// use perfbench::BatchSize;
    /// # let mut b = perfbench::Bencher::smoke_test();
    /// b.iter_batched_with(|| vec![3u32, 1, 2], |mut v| v.sort_unstable(), BatchSize::SmallInput);
    /// ```
    pub fn iter_batched_with<I, O, S, R>(&mut self, setup: S, routine: R, size: BatchSize)
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
                    &mut Batched {
                        setup,
                        routine,
                        size: Batching::new(size),
                    },
                    &mut Batched {
                        setup: || (),
                        routine: |x: ()| x,
                        size: Batching::new(size),
                    },
                );
            }
        }
    }

    /// Like [`iter_batched`](Self::iter_batched), but `routine` borrows each input mutably
    /// (criterion's `iter_batched_ref`): neither `setup`, nor dropping the output, nor dropping
    /// the input afterwards is counted. For inputs that are costly to drop, or routines that
    /// work in place. Batches are chosen as for `iter_batched`.
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
        self.iter_batched_ref_with(setup, routine, BatchSize::Auto);
    }

    /// [`iter_batched_ref`](Self::iter_batched_ref) with the inputs per bracket set by `size`.
    ///
    /// ```
    /// use perfbench::BatchSize;
    /// # let mut b = perfbench::Bencher::smoke_test();
    /// b.iter_batched_ref_with(|| vec![3u32, 1, 2], |v| v.sort_unstable(), BatchSize::PerIteration);
    /// ```
    pub fn iter_batched_ref_with<I, O, S, R>(&mut self, setup: S, routine: R, size: BatchSize)
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
                    &mut BatchedRef {
                        setup,
                        routine,
                        size: Batching::new(size),
                    },
                    &mut BatchedRef {
                        setup: || (),
                        routine: |x: &mut ()| *x,
                        size: Batching::new(size),
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

    /// Measures a routine that times itself, as criterion's `iter_custom`: it is called with
    /// an iteration count `n`, runs `n` iterations and returns the time they took. That time is
    /// the benchmark's `wall-time`; the other counters have no figure for it (the run notes
    /// that they are not available). Under `--simulate` and `--profile`, where there is no
    /// wall time, the counters bracket the routine's whole call.
    ///
    /// ```
    /// use std::time::Instant;
    ///
    /// # let mut b = perfbench::Bencher::smoke_test();
    /// b.iter_timed(|n| {
    ///     let data: Vec<u64> = (0..n).collect(); // not timed
    ///     let start = Instant::now();
    ///     std::hint::black_box(data.iter().sum::<u64>());
    ///     start.elapsed()
    /// });
    /// ```
    pub fn iter_timed<F>(&mut self, routine: F)
    where
        F: FnMut(u64) -> std::time::Duration,
    {
        self.calls += 1;
        match &mut self.mode {
            Mode::Smoke => {
                let mut routine = routine;
                black_box(routine(1));
            }
            Mode::Measure(sampler) => {
                sampler.run(&mut Timed(routine), &mut Bracket);
            }
        }
    }
}

pub use super::sampler::Meter;

/// `iter`: `n` calls between one pair of reads.
struct Loop<R>(R);

/// The harness's own bodies: one measuring loop, generic over the bracket, compiled once for
/// the [`Meter`] and once for the simulated bracket ([`SimBracket`]).
pub(super) trait Harnessed {
    /// Runs `n` iterations inside `meter`'s brackets.
    fn measure(&mut self, n: u64, meter: &mut impl Brackets);

    /// The batch size, for batched bodies.
    fn batching(&mut self) -> Option<&mut Batching> {
        None
    }

    /// As [`Body::per_pair`].
    fn per_pair(&self) -> bool {
        false
    }
}

impl<T: Harnessed> Body for T {
    #[inline(never)]
    fn run(&mut self, n: u64, meter: &mut Meter<'_>) {
        self.measure(n, meter);
    }

    #[inline(never)]
    fn run_simulated(&mut self, n: u64) -> (u64, Option<super::simulate::AllocCounts>) {
        // Under Callgrind a bracket costs nothing worth spreading over a batch: one input per
        // bracket, the form whose calibration cancels exactly (see `Body::single`).
        if let Some(b) = self.batching() {
            b.single = true;
        }
        let mut bracket = SimBracket::new();
        self.measure(n, &mut bracket);
        bracket.totals()
    }

    fn per_pair(&self) -> bool {
        Harnessed::per_pair(self)
    }

    fn plan_batch(&mut self, ns_per_iter: f64) -> Option<u64> {
        self.batching()?.plan(ns_per_iter)
    }

    fn use_batch(&mut self, batch: u64) {
        if let Some(b) = self.batching() {
            b.planned = batch;
        }
    }

    fn batch_at(&mut self, n: u64) -> u64 {
        self.batching().map_or(1, |b| b.batch(n))
    }

    fn single(&mut self, on: bool) {
        if let Some(b) = self.batching() {
            b.single = on;
        }
    }
}

impl<O, R: FnMut() -> O> Harnessed for Loop<R> {
    #[inline(always)]
    fn measure(&mut self, n: u64, meter: &mut impl Brackets) {
        let routine = &mut self.0;
        meter.start();
        for _ in 0..n {
            black_box(routine());
        }
        meter.stop();
    }
}

/// How many inputs [`Bencher::iter_batched_with`] and [`Bencher::iter_batched_ref_with`]
/// prepare before one bracket: the inputs of a batch are all made (uncounted), then the routine
/// runs on each inside one bracket, then the outputs and inputs are dropped (uncounted). Larger
/// batches spread the bracket's cost over more calls but hold more inputs in memory at once.
/// The variants other than `Auto` are criterion's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BatchSize {
    /// Chosen from the warm-up's time per iteration (setup, routine and drops together): about
    /// [`AUTO_BATCH_NS`] of them per batch, at most [`MAX_AUTO_BATCH`]; one per bracket for
    /// iterations that take longer than half of that.
    #[default]
    Auto,
    /// Ten batches per sample (inputs that are cheap to hold in memory).
    SmallInput,
    /// A thousand batches per sample (inputs too large to hold many of).
    LargeInput,
    /// One input per bracket.
    PerIteration,
    /// This many batches per sample.
    NumBatches(u64),
    /// This many inputs per batch.
    NumIterations(u64),
}

/// [`BatchSize::Auto`]'s target time for one batch, nanoseconds.
pub const AUTO_BATCH_NS: f64 = 20_000.0;

/// [`BatchSize::Auto`]'s largest batch.
pub const MAX_AUTO_BATCH: u64 = 4096;

impl BatchSize {
    /// The batch `Auto` chooses for iterations of `ns_per_iter` nanoseconds.
    ///
    /// ```
    /// use perfbench::harness::bencher::{AUTO_BATCH_NS, MAX_AUTO_BATCH};
    /// use perfbench::BatchSize;
    ///
    /// assert_eq!(BatchSize::auto(100.0), 200); // 20 us of 100 ns iterations in one bracket
    /// assert_eq!(BatchSize::auto(0.1), MAX_AUTO_BATCH);
    /// assert_eq!(BatchSize::auto(AUTO_BATCH_NS), 1); // long enough for a bracket each
    /// ```
    pub fn auto(ns_per_iter: f64) -> u64 {
        let fast = ns_per_iter > 0.0 && ns_per_iter * 2.0 < AUTO_BATCH_NS;
        if !fast {
            return 1;
        }
        ((AUTO_BATCH_NS / ns_per_iter).ceil() as u64).clamp(1, MAX_AUTO_BATCH)
    }
}

/// A batched body's batch size: the user's choice, and `Auto`'s once planned.
#[derive(Clone, Copy, Debug)]
pub(super) struct Batching {
    size: BatchSize,
    /// `Auto`'s batch (1 until the warm-up planned it).
    planned: u64,
    /// One input per bracket whatever `size` says: the exact counters' probes of a batched
    /// body, and every run under Callgrind (see [`Body::single`]).
    single: bool,
}

impl Batching {
    pub(super) fn new(size: BatchSize) -> Batching {
        Batching {
            size,
            planned: 1,
            single: false,
        }
    }

    /// Inputs per bracket in a run of `n` iterations.
    pub(super) fn batch(&self, n: u64) -> u64 {
        if self.single {
            return 1;
        }
        let n = n.max(1);
        let per = match self.size {
            BatchSize::Auto => self.planned,
            BatchSize::SmallInput => n.div_ceil(10),
            BatchSize::LargeInput => n.div_ceil(1000),
            BatchSize::PerIteration => 1,
            BatchSize::NumBatches(k) => n.div_ceil(k.max(1)),
            BatchSize::NumIterations(k) => k,
        };
        per.clamp(1, n)
    }

    fn plan(&mut self, ns_per_iter: f64) -> Option<u64> {
        (self.size == BatchSize::Auto).then(|| {
            self.planned = BatchSize::auto(ns_per_iter);
            self.planned
        })
    }
}

/// `iter_batched`: each batch's inputs made first, then one pair of reads around the routine's
/// calls on them (one call per pair for a batch of 1).
struct Batched<S, R> {
    setup: S,
    routine: R,
    size: Batching,
}

impl<I, O, S: FnMut() -> I, R: FnMut(I) -> O> Harnessed for Batched<S, R> {
    fn batching(&mut self) -> Option<&mut Batching> {
        Some(&mut self.size)
    }

    #[inline(always)]
    fn measure(&mut self, n: u64, meter: &mut impl Brackets) {
        let batch = self.size.batch(n);
        if batch == 1 {
            for _ in 0..n {
                let input = black_box((self.setup)());
                meter.start();
                let output = (self.routine)(input);
                meter.stop();
                drop(black_box(output));
            }
            return;
        }
        let mut inputs: Vec<I> = Vec::with_capacity(batch as usize);
        let mut outputs: Vec<O> = Vec::with_capacity(batch as usize);
        let mut left = n;
        while left > 0 {
            let k = batch.min(left);
            inputs.extend((0..k).map(|_| (self.setup)()));
            let inputs = black_box(&mut inputs);
            meter.start();
            // `drain` leaves the buffer allocated: nothing is freed inside the bracket.
            for input in inputs.drain(..) {
                outputs.push((self.routine)(input));
            }
            meter.stop();
            black_box(&mut outputs).clear();
            left -= k;
        }
    }
}

/// `iter_batched_ref`: as [`Batched`], the routine borrowing the inputs; the inputs are
/// dropped after the bracket, with the outputs.
struct BatchedRef<S, R> {
    setup: S,
    routine: R,
    size: Batching,
}

impl<I, O, S: FnMut() -> I, R: FnMut(&mut I) -> O> Harnessed for BatchedRef<S, R> {
    fn batching(&mut self) -> Option<&mut Batching> {
        Some(&mut self.size)
    }

    #[inline(always)]
    fn measure(&mut self, n: u64, meter: &mut impl Brackets) {
        let batch = self.size.batch(n);
        if batch == 1 {
            for _ in 0..n {
                let mut input = black_box((self.setup)());
                meter.start();
                let output = (self.routine)(&mut input);
                meter.stop();
                drop(black_box(output));
                drop(input);
            }
            return;
        }
        let mut inputs: Vec<I> = Vec::with_capacity(batch as usize);
        let mut outputs: Vec<O> = Vec::with_capacity(batch as usize);
        let mut left = n;
        while left > 0 {
            let k = batch.min(left);
            inputs.extend((0..k).map(|_| (self.setup)()));
            let inputs = black_box(&mut inputs);
            meter.start();
            for input in inputs.iter_mut() {
                outputs.push((self.routine)(input));
            }
            meter.stop();
            black_box(&mut outputs).clear();
            inputs.clear();
            left -= k;
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

/// `iter_timed`: the routine's own time as the sample's wall time; its whole call bracketed
/// where the brackets do more than read counters (under Callgrind, in profile mode).
struct Timed<F>(F);

impl<F: FnMut(u64) -> std::time::Duration> Body for Timed<F> {
    fn run(&mut self, n: u64, meter: &mut Meter<'_>) {
        if meter.is_special() {
            meter.start();
            let elapsed = (self.0)(n);
            meter.stop();
            black_box(elapsed);
        } else {
            let elapsed = (self.0)(n);
            meter.elapsed(elapsed);
        }
    }
}

/// Calibration for `iter_custom` and `iter_timed`: one empty bracket (scaled by the pairs the
/// body used).
struct Bracket;

impl Harnessed for Bracket {
    #[inline(always)]
    fn measure(&mut self, _n: u64, meter: &mut impl Brackets) {
        meter.start();
        meter.stop();
    }

    fn per_pair(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::rc::Rc;

    #[test]
    fn auto_batches_spread_the_bracket_over_short_iterations() {
        assert_eq!(BatchSize::auto(20.0), 1000);
        assert_eq!(BatchSize::auto(0.5), MAX_AUTO_BATCH);
        assert_eq!(BatchSize::auto(9_000.0), 3);
        // Iterations of half the target or more, and nonsense, are bracketed one by one.
        assert_eq!(BatchSize::auto(10_000.0), 1);
        assert_eq!(BatchSize::auto(1e9), 1);
        assert_eq!(BatchSize::auto(0.0), 1);
        assert_eq!(BatchSize::auto(f64::NAN), 1);
    }

    #[test]
    fn criterions_sizes_divide_the_sample_as_criterion_does() {
        let at = |size, n| Batching::new(size).batch(n);
        assert_eq!(at(BatchSize::SmallInput, 95), 10);
        assert_eq!(at(BatchSize::LargeInput, 95), 1);
        assert_eq!(at(BatchSize::LargeInput, 5000), 5);
        assert_eq!(at(BatchSize::PerIteration, 95), 1);
        assert_eq!(at(BatchSize::NumBatches(4), 10), 3);
        assert_eq!(at(BatchSize::NumIterations(64), 10), 10);
        assert_eq!(at(BatchSize::NumIterations(0), 10), 1);
        // Auto: 1 until planned, then the plan.
        let mut auto = Batching::new(BatchSize::Auto);
        assert_eq!(auto.batch(100), 1);
        assert_eq!(auto.plan(40.0), Some(500));
        assert_eq!(auto.batch(100), 100);
        assert_eq!(auto.batch(1000), 500);
        assert_eq!(Batching::new(BatchSize::SmallInput).plan(40.0), None);
    }

    /// A batched body's events, in order: `s` setup, `r` routine, `d` output dropped.
    fn batched_events(size: BatchSize, n: u64) -> (String, u64) {
        let log = Rc::new(RefCell::new(String::new()));
        struct Out(Rc<RefCell<String>>);
        impl Drop for Out {
            fn drop(&mut self) {
                self.0.borrow_mut().push('d');
            }
        }
        let (l1, l2) = (log.clone(), log.clone());
        let mut body = Batched {
            setup: move || l1.borrow_mut().push('s'),
            routine: move |()| {
                l2.borrow_mut().push('r');
                Out(l2.clone())
            },
            size: Batching::new(size),
        };
        let mut meter = Meter::idle();
        body.run(n, &mut meter);
        let events = log.borrow().clone();
        (events, meter.pairs())
    }

    /// A measuring bencher over `counters` (one round of 10 samples), and the notes it makes.
    fn measuring(counters: &str) -> (Bencher, Rc<RefCell<Vec<String>>>) {
        use crate::counters::{Counters, GroupOptions};
        use crate::events::{parse_list, Sysfs};
        use crate::harness::sampler::Plan;
        let events = parse_list(counters, &Sysfs::system()).unwrap();
        let counters = Counters::open(&events, &GroupOptions::default()).unwrap();
        let plan = Plan {
            sample_size: 10,
            warm_up_ns: 1_000_000,
            measurement_ns: 5_000_000,
            linear: false,
            rounds: 1,
            precision: None,
        };
        let mut sampler = Box::new(Sampler::new(counters, plan));
        let notes = Rc::new(RefCell::new(Vec::new()));
        let kept = notes.clone();
        sampler.on_note(move |n| kept.borrow_mut().push(n));
        (Bencher::measuring(sampler), notes)
    }

    #[test]
    fn a_self_timed_routine_reads_its_own_time_and_nothing_else() {
        let (mut b, notes) = measuring("page-faults,wall-time");
        b.iter_timed(|n| std::time::Duration::from_nanos(250 * n));
        let sampler = b.into_sampler().unwrap();
        assert_eq!(sampler.round_result(), Ok(true));
        let measured = sampler.into_measured().unwrap();
        let names: Vec<&str> = measured.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["wall-time"]);
        // No bracket to calibrate away: the routine's own time, exactly.
        let wall = &measured[0].per_iteration;
        assert!(
            !wall.is_empty() && wall.iter().all(|&v| v == 250.0),
            "{wall:?}"
        );
        let notes = notes.borrow();
        assert!(
            notes.iter().any(|n| n.contains("not available")),
            "{notes:?}"
        );

        // Without wall time, such a routine has no counter at all: said, not measured.
        let (mut b, _) = measuring("page-faults");
        b.iter_timed(std::time::Duration::from_nanos);
        let e = b.into_sampler().unwrap().round_result().unwrap_err();
        assert!(e.contains("add it to --counters"), "{e}");
    }

    #[test]
    fn a_batch_makes_its_inputs_first_and_drops_its_outputs_after_the_bracket() {
        let (events, pairs) = batched_events(BatchSize::NumIterations(4), 10);
        assert_eq!(events, "ssssrrrrddddssssrrrrddddssrrdd");
        assert_eq!(pairs, 3);
        let (events, pairs) = batched_events(BatchSize::PerIteration, 3);
        assert_eq!(events, "srdsrdsrd");
        assert_eq!(pairs, 3);
    }
}
