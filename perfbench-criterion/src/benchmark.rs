//! criterion 0.3's way of defining benchmarks, deprecated there from 0.3.4 and gone from 0.4:
//! [`Benchmark`], [`ParameterizedBenchmark`] and [`Fun`], run by `Criterion::bench`,
//! `bench_function_over_inputs` and `bench_functions`. Each defines the benchmarks criterion
//! 0.3 defined, under its ids.
#![allow(deprecated)] // this module is the deprecated API

use std::fmt::Debug;
use std::time::Duration;

use crate::engine::{self, Config, Identity};
use crate::measurement::WallTime;
use crate::{Bencher, Criterion, PlotConfiguration, SamplingMode, Throughput};

/// A routine of a [`Benchmark`]: its name and its closure.
type Routine<M> = (String, Box<dyn FnMut(&mut Bencher<'_, M>)>);

/// A routine of a [`ParameterizedBenchmark`] or a [`Fun`]: its name and its closure.
type Parameterized<T, M> = (String, Box<dyn FnMut(&mut Bencher<'_, M>, &T)>);

/// A [`ParameterizedBenchmark`]'s throughput of an iteration, from its parameter.
type ThroughputOf<T> = Box<dyn Fn(&T) -> Throughput>;

/// What `Criterion::bench` runs: a [`Benchmark`] or a [`ParameterizedBenchmark`] (criterion
/// 0.3's trait).
pub trait BenchmarkDefinition<M = WallTime>: Sized {
    /// Defines its benchmarks in `c`, their ids beginning with `group_id`.
    #[doc(hidden)]
    fn run(self, group_id: &str, c: &mut Criterion<M>);
}

/// The settings criterion 0.3's benchmark definitions have: `sample_size`, `warm_up_time` and
/// `measurement_time` as `Criterion`'s (the times scaled the same way), the rest accepted with
/// no effect.
macro_rules! settings {
    () => {
        /// Samples of each of its benchmarks.
        #[must_use]
        pub fn sample_size(mut self, n: usize) -> Self {
            self.config.sample_size = Some(engine::sample_size(n));
            self
        }

        /// Warm-up time of each of its benchmarks, scaled as
        /// [`Criterion::warm_up_time`](crate::Criterion::warm_up_time) says.
        #[must_use]
        pub fn warm_up_time(mut self, dur: Duration) -> Self {
            self.config.warm_up_time = Some(engine::warm_up_time(dur));
            self
        }

        /// Measurement time of each of its benchmarks, scaled as
        /// [`Criterion::measurement_time`](crate::Criterion::measurement_time) says.
        #[must_use]
        pub fn measurement_time(mut self, dur: Duration) -> Self {
            self.config.measurement_time = Some(engine::measurement_time(dur));
            self
        }

        /// Accepted; no effect (see [`Criterion`]).
        #[must_use]
        pub fn nresamples(self, _n: usize) -> Self {
            self
        }

        /// Accepted; no effect (see [`Criterion`]).
        #[must_use]
        pub fn noise_threshold(self, _threshold: f64) -> Self {
            self
        }

        /// Accepted; no effect (see [`Criterion`]).
        #[must_use]
        pub fn confidence_level(self, _cl: f64) -> Self {
            self
        }

        /// Accepted; no effect (see [`Criterion`]).
        #[must_use]
        pub fn significance_level(self, _sl: f64) -> Self {
            self
        }

        /// Accepted; no effect (see [`Criterion`]).
        #[must_use]
        pub fn plot_config(self, _config: PlotConfiguration) -> Self {
            self
        }

        /// Accepted; no effect (see [`Criterion`]).
        #[must_use]
        pub fn sampling_mode(self, _mode: SamplingMode) -> Self {
            self
        }
    };
}

/// Benchmarks of routines without a parameter, under one group id (criterion 0.3).
///
/// ```no_run
/// # #![allow(deprecated)]
/// use perfbench_criterion::{Benchmark, Criterion};
///
/// fn bench(c: &mut Criterion) {
///     // Ids `shifts/left` and `shifts/right`.
///     c.bench(
///         "shifts",
///         Benchmark::new("left", |b| b.iter(|| 1u64 << 7))
///             .with_function("right", |b| b.iter(|| 128u64 >> 7))
///             .sample_size(50),
///     );
/// }
/// ```
#[deprecated(since = "0.3.4", note = "criterion's: use benchmark_group instead")]
pub struct Benchmark<M = WallTime> {
    config: Config,
    routines: Vec<Routine<M>>,
    throughput: Option<Throughput>,
}

impl<M> Benchmark<M> {
    settings!();

    /// A benchmark of the routine `f`, named `id`.
    pub fn new<S, F>(id: S, f: F) -> Benchmark<M>
    where
        S: Into<String>,
        F: FnMut(&mut Bencher<'_, M>) + 'static,
    {
        Benchmark {
            config: Config::default(),
            routines: Vec::new(),
            throughput: None,
        }
        .with_function(id, f)
    }

    /// Another routine, named `id`.
    #[must_use]
    pub fn with_function<S, F>(mut self, id: S, f: F) -> Benchmark<M>
    where
        S: Into<String>,
        F: FnMut(&mut Bencher<'_, M>) + 'static,
    {
        self.routines.push((id.into(), Box::new(f)));
        self
    }

    /// The throughput of each routine's iteration.
    #[must_use]
    pub fn throughput(mut self, throughput: Throughput) -> Benchmark<M> {
        self.throughput = Some(throughput);
        self
    }
}

impl<M> BenchmarkDefinition<M> for Benchmark<M> {
    fn run(self, group_id: &str, c: &mut Criterion<M>) {
        let config = Config {
            throughput: self.throughput,
            ..c.config.overridden_by(&self.config)
        };
        let single = self.routines.len() == 1;
        for (name, mut f) in self.routines {
            let function = (!single || name != group_id).then_some(name);
            let identity = Identity::of_parts(group_id, function, None);
            engine::bench(identity, &config, &mut |b: &mut Bencher<'_, M>| f(b));
        }
    }
}

/// Benchmarks of routines over parameters, under one group id (criterion 0.3): one benchmark
/// per routine and parameter, the parameter in the id as `{:?}` prints it.
///
/// ```no_run
/// # #![allow(deprecated)]
/// use perfbench_criterion::{Criterion, ParameterizedBenchmark, Throughput};
///
/// fn bench(c: &mut Criterion) {
///     // Ids `sum/iter/64`, `sum/iter/4096`, `sum/fold/64`, `sum/fold/4096`.
///     c.bench(
///         "sum",
///         ParameterizedBenchmark::new("iter", |b, &n| b.iter(|| (0..n).sum::<u64>()), [64, 4096])
///             .with_function("fold", |b, &n| b.iter(|| (0..n).fold(0, |a, x| a + x)))
///             .throughput(|&n| Throughput::Elements(n)),
///     );
/// }
/// ```
#[deprecated(since = "0.3.4", note = "criterion's: use benchmark_group instead")]
pub struct ParameterizedBenchmark<T, M = WallTime> {
    config: Config,
    values: Vec<T>,
    routines: Vec<Parameterized<T, M>>,
    throughput: Option<ThroughputOf<T>>,
}

impl<T: Debug, M> ParameterizedBenchmark<T, M> {
    settings!();

    /// A benchmark of the routine `f`, named `id`, over `parameters`.
    pub fn new<S, F, I>(id: S, f: F, parameters: I) -> ParameterizedBenchmark<T, M>
    where
        S: Into<String>,
        F: FnMut(&mut Bencher<'_, M>, &T) + 'static,
        I: IntoIterator<Item = T>,
    {
        ParameterizedBenchmark::with_functions(Vec::new(), parameters.into_iter().collect())
            .with_function(id, f)
    }

    fn with_functions(
        routines: Vec<Parameterized<T, M>>,
        values: Vec<T>,
    ) -> ParameterizedBenchmark<T, M> {
        ParameterizedBenchmark {
            config: Config::default(),
            values,
            routines,
            throughput: None,
        }
    }

    /// Another routine, named `id`, over the same parameters.
    #[must_use]
    pub fn with_function<S, F>(mut self, id: S, f: F) -> ParameterizedBenchmark<T, M>
    where
        S: Into<String>,
        F: FnMut(&mut Bencher<'_, M>, &T) + 'static,
    {
        self.routines.push((id.into(), Box::new(f)));
        self
    }

    /// The throughput of an iteration, from its parameter.
    #[must_use]
    pub fn throughput<F>(mut self, throughput: F) -> ParameterizedBenchmark<T, M>
    where
        F: Fn(&T) -> Throughput + 'static,
    {
        self.throughput = Some(Box::new(throughput));
        self
    }
}

impl<T: Debug, M> BenchmarkDefinition<M> for ParameterizedBenchmark<T, M> {
    fn run(self, group_id: &str, c: &mut Criterion<M>) {
        let config = c.config.overridden_by(&self.config);
        let single = self.routines.len() == 1;
        let one_value = self.values.len() == 1;
        for (name, mut f) in self.routines {
            let function = (!single || name != group_id).then_some(name);
            for value in &self.values {
                let parameter = (!one_value).then(|| format!("{value:?}"));
                let identity = Identity::of_parts(group_id, function.clone(), parameter);
                let config = Config {
                    throughput: self.throughput.as_ref().map(|t| t(value)),
                    ..config.clone()
                };
                engine::bench(identity, &config, &mut |b: &mut Bencher<'_, M>| f(b, value));
            }
        }
    }
}

/// A named routine over an input, for `Criterion::bench_functions` (criterion 0.3).
///
/// ```no_run
/// # #![allow(deprecated)]
/// use perfbench_criterion::{Criterion, Fun};
///
/// fn bench(c: &mut Criterion) {
///     // Ids `fib/recursive` and `fib/iterative`.
///     let recursive = Fun::new("recursive", |b, &n: &u64| b.iter(|| fib(n)));
///     let iterative = Fun::new("iterative", |b, &n: &u64| {
///         b.iter(|| (0..n).fold((0u64, 1u64), |(a, b), _| (b, a + b)).0)
///     });
///     c.bench_functions("fib", vec![recursive, iterative], 20);
/// }
///
/// fn fib(n: u64) -> u64 {
///     if n < 2 { n } else { fib(n - 1) + fib(n - 2) }
/// }
/// ```
#[deprecated(since = "0.3.4", note = "criterion's: use benchmark_group instead")]
pub struct Fun<I, M = WallTime> {
    routine: Parameterized<I, M>,
}

impl<I, M> Fun<I, M> {
    /// The routine `f`, named `name`.
    pub fn new<F>(name: &str, f: F) -> Fun<I, M>
    where
        F: FnMut(&mut Bencher<'_, M>, &I) + 'static,
    {
        Fun {
            routine: (name.to_owned(), Box::new(f)),
        }
    }
}

impl<M> Criterion<M> {
    /// Defines the benchmarks of `benchmark` (a [`Benchmark`] or a [`ParameterizedBenchmark`])
    /// under `group_id` (criterion 0.3).
    ///
    /// See [`Benchmark`] for an example.
    #[deprecated(since = "0.3.4", note = "criterion's: use benchmark_group instead")]
    pub fn bench<B: BenchmarkDefinition<M>>(
        &mut self,
        group_id: &str,
        benchmark: B,
    ) -> &mut Criterion<M> {
        benchmark.run(group_id, self);
        self
    }

    /// Defines a benchmark of `f` for each of `inputs`, ids `id/{input:?}` (criterion 0.3).
    ///
    /// ```no_run
    /// # #![allow(deprecated)]
    /// use perfbench_criterion::Criterion;
    ///
    /// fn bench(c: &mut Criterion) {
    ///     // Ids `fill/8` and `fill/64`.
    ///     c.bench_function_over_inputs("fill", |b, &n| b.iter(|| vec![0u8; n]), vec![8, 64]);
    /// }
    /// ```
    #[deprecated(since = "0.3.4", note = "criterion's: use benchmark_group instead")]
    pub fn bench_function_over_inputs<I, F>(
        &mut self,
        id: &str,
        f: F,
        inputs: I,
    ) -> &mut Criterion<M>
    where
        I: IntoIterator,
        I::Item: Debug + 'static,
        F: FnMut(&mut Bencher<'_, M>, &I::Item) + 'static,
    {
        self.bench(id, ParameterizedBenchmark::new(id, f, inputs))
    }

    /// Defines a benchmark of each of `funs` on `input`, ids `id/NAME` (criterion 0.3).
    ///
    /// See [`Fun`] for an example.
    #[deprecated(since = "0.3.4", note = "criterion's: use benchmark_group instead")]
    pub fn bench_functions<I>(
        &mut self,
        id: &str,
        funs: Vec<Fun<I, M>>,
        input: I,
    ) -> &mut Criterion<M>
    where
        I: Debug + 'static,
    {
        let routines = funs.into_iter().map(|fun| fun.routine).collect();
        self.bench(
            id,
            ParameterizedBenchmark::with_functions(routines, vec![input]),
        )
    }
}
