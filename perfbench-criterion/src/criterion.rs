//! The benchmark manager, `Criterion`.

use std::time::Duration;

use crate::engine::{self, Config, Identity};
use std::path::Path;

use crate::measurement::WallTime;
use crate::{Bencher, BenchmarkGroup, BenchmarkId, PlottingBackend};

/// criterion's benchmark manager: its builder methods set the defaults of the benchmarks it
/// defines, and `bench_function`, `bench_with_input` and `benchmark_group` define them.
///
/// The settings perfbench uses: `sample_size`, `warm_up_time` and `measurement_time` (each
/// benchmark's, spread over its rounds), and a group's `throughput`. Where a suite sets none
/// of them, perfbench's defaults hold (100 samples in 10 rounds, 1.5 s of measurement), not
/// criterion's (100 samples, 5 s). The rest are accepted and have no effect:
/// plots and their backend (the HTML report is always written), resamples, confidence and
/// significance levels, the noise threshold (`--noise-threshold`, `--threshold` and the
/// verdict's own rules set what counts as a change), baselines set in code (the command line's
/// `--save-baseline` and `--baseline` work), filters set in code, colour, profilers (perfbench
/// has `--profile`) and the measurement (perfbench measures its counters, wall time among
/// them).
pub struct Criterion<M = WallTime> {
    pub(crate) config: Config,
    /// The measurement named; perfbench measures its counters whatever it is.
    _measurement: M,
}

impl Default for Criterion {
    /// No settings: perfbench's defaults and the command line decide.
    fn default() -> Criterion {
        Criterion {
            config: Config::default(),
            _measurement: WallTime,
        }
    }
}

impl<M> Criterion<M> {
    /// Another measurement: accepted, so that suites with custom measurements compile;
    /// perfbench measures its counters (see the type's docs).
    #[must_use]
    pub fn with_measurement<M2>(self, m: M2) -> Criterion<M2> {
        Criterion {
            config: self.config,
            _measurement: m,
        }
    }

    /// Samples of each benchmark, over all its rounds (perfbench's `sample_size`).
    ///
    /// ```
    /// use std::time::Duration;
    /// use perfbench_criterion::Criterion;
    ///
    /// // What criterion_group!'s `config = ...` usually holds.
    /// let _c = Criterion::default()
    ///     .sample_size(20)
    ///     .warm_up_time(Duration::from_millis(500))
    ///     .measurement_time(Duration::from_secs(3))
    ///     .noise_threshold(0.05) // accepted; no effect (see the type's docs)
    ///     .without_plots();
    /// ```
    #[must_use]
    pub fn sample_size(mut self, n: usize) -> Criterion<M> {
        self.config.sample_size = Some(engine::sample_size(n));
        self
    }

    /// Warm-up time of each benchmark, read against criterion's default (3 s) and applied to
    /// perfbench's (0.3 s): 10 s warms up for 1 s.
    ///
    /// See [`Criterion::sample_size`] for an example.
    #[must_use]
    pub fn warm_up_time(mut self, dur: Duration) -> Criterion<M> {
        self.config.warm_up_time = Some(engine::warm_up_time(dur));
        self
    }

    /// Measurement time of each benchmark, over all its rounds, read against criterion's
    /// default (5 s) and applied to perfbench's (1.5 s): 10 s measures for 3 s.
    ///
    /// See [`Criterion::sample_size`] for an example.
    #[must_use]
    pub fn measurement_time(mut self, dur: Duration) -> Criterion<M> {
        self.config.measurement_time = Some(engine::measurement_time(dur));
        self
    }

    /// Accepted; no effect (perfbench's intervals take their own resamples).
    #[must_use]
    pub fn nresamples(self, _n: usize) -> Criterion<M> {
        self
    }

    /// Accepted; no effect (see the type's docs).
    ///
    /// See [`Criterion::sample_size`] for an example.
    #[must_use]
    pub fn noise_threshold(self, _threshold: f64) -> Criterion<M> {
        self
    }

    /// Accepted; no effect (perfbench's intervals are 95%).
    #[must_use]
    pub fn confidence_level(self, _cl: f64) -> Criterion<M> {
        self
    }

    /// Accepted; no effect (perfbench's verdict has its own rules).
    #[must_use]
    pub fn significance_level(self, _sl: f64) -> Criterion<M> {
        self
    }

    /// Accepted; no effect (the HTML report is always written).
    #[must_use]
    pub fn with_plots(self) -> Criterion<M> {
        self
    }

    /// Accepted; no effect (the HTML report is always written).
    ///
    /// See [`Criterion::sample_size`] for an example.
    #[must_use]
    pub fn without_plots(self) -> Criterion<M> {
        self
    }

    /// Accepted; no effect.
    #[must_use]
    pub fn plotting_backend(self, _backend: PlottingBackend) -> Criterion<M> {
        self
    }

    /// Accepted; no effect: the command line (`cargo bench -- ...`) is read by perfbench's
    /// runner, with the flags a `#[perfbench]` suite takes.
    #[must_use]
    pub fn configure_from_args(self) -> Criterion<M> {
        self
    }

    /// Accepted; no effect: save a baseline with `cargo bench -- --save-baseline NAME`.
    #[must_use]
    pub fn save_baseline(self, _baseline: String) -> Criterion<M> {
        self
    }

    /// Accepted; no effect: compare with `cargo bench -- --baseline NAME`.
    #[must_use]
    pub fn retain_baseline(self, _baseline: String, _strict: bool) -> Criterion<M> {
        self
    }

    /// Accepted; no effect: filter on the command line (`cargo bench -- FILTER`).
    #[must_use]
    pub fn with_filter<S: Into<String>>(self, _filter: S) -> Criterion<M> {
        self
    }

    /// Accepted; no effect.
    #[must_use]
    pub fn with_output_color(self, _enabled: bool) -> Criterion<M> {
        self
    }

    /// Accepted; no effect: perfbench's profile mode is `cargo bench -- --profile`.
    #[must_use]
    pub fn profile_time(self, _profile_time: Option<Duration>) -> Criterion<M> {
        self
    }

    /// Accepted; the profiler is never called: perfbench's profile mode is
    /// `cargo bench -- --profile`. Any profiler is taken, a
    /// [`Profiler`](crate::profiler::Profiler) or one written for criterion itself (pprof's).
    #[must_use]
    pub fn with_profiler<P: 'static>(self, _profiler: P) -> Criterion<M> {
        self
    }

    /// Accepted; no effect: perfbench writes under `target/perfbench/`.
    #[must_use]
    pub fn output_directory(self, _path: &Path) -> Criterion<M> {
        self
    }

    /// `false`: perfbench draws no criterion plots (its HTML report has its own charts).
    pub fn can_plot(&self) -> bool {
        false
    }

    /// Ends a hand-written `main`: runs the groups it called (which, outside
    /// `criterion_main!`, only record themselves) as `criterion_main!` would, and exits with the
    /// run's exit code. Under `criterion_main!` it does nothing (perfbench prints its summary when
    /// the run ends).
    ///
    /// ```no_run
    /// use perfbench_criterion::{criterion_group, Criterion};
    ///
    /// fn bench(c: &mut Criterion) {
    ///     c.bench_function("add", |b| b.iter(|| 2 + 2));
    /// }
    /// criterion_group!(benches, bench);
    ///
    /// fn main() {
    ///     // A suite's own main, as some write it instead of criterion_main!.
    ///     benches();
    ///     Criterion::default().configure_from_args().final_summary();
    /// }
    /// ```
    pub fn final_summary(&self) {
        engine::run_recorded();
    }

    /// A group of benchmarks whose ids begin with `group_name`, with settings of its own.
    ///
    /// ```no_run
    /// use perfbench_criterion::{BenchmarkId, Criterion, Throughput};
    ///
    /// fn sums(c: &mut Criterion) {
    ///     let mut group = c.benchmark_group("sum"); // ids sum/iter/64, sum/iter/4096
    ///     for n in [64u64, 4096] {
    ///         let v: Vec<u64> = (0..n).collect();
    ///         group.throughput(Throughput::Elements(n));
    ///         group.bench_with_input(BenchmarkId::new("iter", n), &v, |b, v| {
    ///             b.iter(|| v.iter().sum::<u64>())
    ///         });
    ///     }
    ///     group.finish();
    /// }
    /// ```
    pub fn benchmark_group<S: Into<String>>(&mut self, group_name: S) -> BenchmarkGroup<'_, M> {
        BenchmarkGroup::new(self, group_name.into())
    }

    /// Defines the benchmark `id` (its id as written; perfbench groups it under the suite).
    ///
    /// ```no_run
    /// use perfbench_criterion::{black_box, Criterion};
    ///
    /// fn bench(c: &mut Criterion) {
    ///     c.bench_function("sort 1000", |b| {
    ///         let v: Vec<u32> = (0..1000).rev().collect();
    ///         b.iter_batched(|| v.clone(), |mut v| v.sort(), perfbench_criterion::BatchSize::SmallInput)
    ///     });
    ///     c.bench_function("add", |b| b.iter(|| black_box(2) + 2));
    /// }
    /// ```
    pub fn bench_function<F>(&mut self, id: &str, mut f: F) -> &mut Criterion<M>
    where
        F: FnMut(&mut Bencher<'_, M>),
    {
        let identity = Identity::top(id.to_owned());
        engine::bench(identity, &self.config, &mut f);
        self
    }

    /// Defines the benchmark `id` over `input` (its id `function/parameter`).
    ///
    /// ```no_run
    /// use perfbench_criterion::{BenchmarkId, Criterion};
    ///
    /// fn bench(c: &mut Criterion) {
    ///     let v: Vec<u64> = (0..1024).collect();
    ///     c.bench_with_input(BenchmarkId::new("sum", v.len()), &v, |b, v| {
    ///         b.iter(|| v.iter().sum::<u64>())
    ///     });
    /// }
    /// ```
    pub fn bench_with_input<F, I>(
        &mut self,
        id: BenchmarkId,
        input: &I,
        mut f: F,
    ) -> &mut Criterion<M>
    where
        F: FnMut(&mut Bencher<'_, M>, &I),
        I: ?Sized,
    {
        let identity = Identity::of_id(None, id);
        engine::bench(identity, &self.config, &mut |b: &mut Bencher<'_, M>| {
            f(b, input)
        });
        self
    }
}
