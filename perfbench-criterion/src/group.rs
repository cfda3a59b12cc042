//! Benchmark groups and benchmark ids.

use std::fmt;
use std::time::Duration;

use crate::engine::{self, Config, Identity};
use crate::{Bencher, Criterion, PlotConfiguration, SamplingMode, Throughput};

/// A benchmark's id within its group: a function name, a parameter, or both
/// (`function/parameter`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BenchmarkId {
    pub(crate) function: Option<String>,
    pub(crate) parameter: Option<String>,
}

impl BenchmarkId {
    /// The id `function_name/parameter`.
    ///
    /// ```
    /// use perfbench_criterion::BenchmarkId;
    ///
    /// assert_eq!(BenchmarkId::new("sort", 1000).to_string(), "sort/1000");
    /// assert_eq!(BenchmarkId::from_parameter("4 KiB").to_string(), "4 KiB");
    /// ```
    pub fn new<S: Into<String>, P: fmt::Display>(function_name: S, parameter: P) -> BenchmarkId {
        BenchmarkId {
            function: Some(function_name.into()),
            parameter: Some(parameter.to_string()),
        }
    }

    /// The id `parameter`, for a group whose benchmarks differ by their input only.
    ///
    /// See [`BenchmarkId::new`] for an example.
    pub fn from_parameter<P: fmt::Display>(parameter: P) -> BenchmarkId {
        BenchmarkId {
            function: None,
            parameter: Some(parameter.to_string()),
        }
    }
}

impl fmt::Display for BenchmarkId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.function, &self.parameter) {
            (Some(func), Some(p)) => write!(f, "{func}/{p}"),
            (Some(s), None) | (None, Some(s)) => f.write_str(s),
            (None, None) => Ok(()),
        }
    }
}

/// What a group's `bench_function` and `bench_with_input` take as an id: a [`BenchmarkId`] or
/// a function name (`&str`, `String`).
pub trait IntoBenchmarkId {
    /// The id.
    fn into_benchmark_id(self) -> BenchmarkId;
}

impl IntoBenchmarkId for BenchmarkId {
    fn into_benchmark_id(self) -> BenchmarkId {
        self
    }
}

impl<S: Into<String>> IntoBenchmarkId for S {
    fn into_benchmark_id(self) -> BenchmarkId {
        BenchmarkId {
            function: Some(self.into()),
            parameter: None,
        }
    }
}

/// Benchmarks whose ids begin with the group's name (`group/function/parameter`), with
/// settings of their own. Made by [`Criterion::benchmark_group`]; its settings apply to the
/// benchmarks defined after them. Which settings perfbench uses: see [`Criterion`].
pub struct BenchmarkGroup<'a, M> {
    /// Borrowed while the group lives, as criterion's group borrows it.
    _criterion: &'a mut Criterion<M>,
    name: String,
    config: Config,
}

impl<'a, M> BenchmarkGroup<'a, M> {
    pub(crate) fn new(criterion: &'a mut Criterion<M>, name: String) -> BenchmarkGroup<'a, M> {
        let config = criterion.config.clone();
        BenchmarkGroup {
            _criterion: criterion,
            name,
            config,
        }
    }

    /// Samples of each of the group's benchmarks, over all its rounds.
    ///
    /// ```no_run
    /// use std::time::Duration;
    /// use perfbench_criterion::{Criterion, SamplingMode, Throughput};
    ///
    /// fn slow(c: &mut Criterion) {
    ///     let mut group = c.benchmark_group("slow");
    ///     group
    ///         .sample_size(10)
    ///         .measurement_time(Duration::from_secs(4))
    ///         .throughput(Throughput::Bytes(1 << 20))
    ///         .sampling_mode(SamplingMode::Flat); // accepted; no effect
    ///     group.bench_function("copy 1 MiB", |b| {
    ///         let src = vec![1u8; 1 << 20];
    ///         b.iter(|| src.clone())
    ///     });
    ///     group.finish();
    /// }
    /// ```
    pub fn sample_size(&mut self, n: usize) -> &mut Self {
        self.config.sample_size = Some(engine::sample_size(n));
        self
    }

    /// Warm-up time of each of the group's benchmarks, scaled as
    /// [`Criterion::warm_up_time`](crate::Criterion::warm_up_time) says.
    ///
    /// See [`BenchmarkGroup::sample_size`] for an example.
    pub fn warm_up_time(&mut self, dur: Duration) -> &mut Self {
        self.config.warm_up_time = Some(engine::warm_up_time(dur));
        self
    }

    /// Measurement time of each of the group's benchmarks, over all its rounds, scaled as
    /// [`Criterion::measurement_time`](crate::Criterion::measurement_time) says.
    ///
    /// See [`BenchmarkGroup::sample_size`] for an example.
    pub fn measurement_time(&mut self, dur: Duration) -> &mut Self {
        self.config.measurement_time = Some(engine::measurement_time(dur));
        self
    }

    /// Accepted; no effect (see [`Criterion`]).
    pub fn nresamples(&mut self, _n: usize) -> &mut Self {
        self
    }

    /// Accepted; no effect (see [`Criterion`]).
    pub fn noise_threshold(&mut self, _threshold: f64) -> &mut Self {
        self
    }

    /// Accepted; no effect (see [`Criterion`]).
    pub fn confidence_level(&mut self, _cl: f64) -> &mut Self {
        self
    }

    /// Accepted; no effect (see [`Criterion`]).
    pub fn significance_level(&mut self, _sl: f64) -> &mut Self {
        self
    }

    /// The work one iteration of the benchmarks defined after this does, for the throughput
    /// figure.
    ///
    /// See [`BenchmarkGroup::sample_size`] for an example.
    pub fn throughput(&mut self, throughput: Throughput) -> &mut Self {
        self.config.throughput = Some(throughput);
        self
    }

    /// Accepted; no effect: perfbench samples flat unless the run says `--sampling linear`.
    ///
    /// See [`BenchmarkGroup::sample_size`] for an example.
    pub fn sampling_mode(&mut self, _mode: SamplingMode) -> &mut Self {
        self
    }

    /// Accepted; no effect (perfbench draws no summary plots).
    pub fn plot_config(&mut self, _config: PlotConfiguration) -> &mut Self {
        self
    }

    /// Defines the benchmark `group/id`.
    ///
    /// See [`Criterion::benchmark_group`] for an example.
    pub fn bench_function<ID, F>(&mut self, id: ID, mut f: F) -> &mut Self
    where
        ID: IntoBenchmarkId,
        F: FnMut(&mut Bencher<'_, M>),
    {
        let identity = Identity::of_id(Some(self.name.clone()), id.into_benchmark_id());
        engine::bench(identity, &self.config, &mut f);
        self
    }

    /// Defines the benchmark `group/id` over `input`.
    ///
    /// See [`Criterion::benchmark_group`] for an example.
    pub fn bench_with_input<ID, F, I>(&mut self, id: ID, input: &I, mut f: F) -> &mut Self
    where
        ID: IntoBenchmarkId,
        F: FnMut(&mut Bencher<'_, M>, &I),
        I: ?Sized,
    {
        let identity = Identity::of_id(Some(self.name.clone()), id.into_benchmark_id());
        let mut with_input = |b: &mut Bencher<'_, M>| f(b, input);
        engine::bench(identity, &self.config, &mut with_input);
        self
    }

    /// Ends the group (dropping it unfinished does the same).
    ///
    /// See [`Criterion::benchmark_group`] for an example.
    pub fn finish(self) {}
}
