//! criterion's small setting types.

/// Work done per iteration, for the throughput figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Throughput {
    /// Bits per iteration; perfbench reports them as elements.
    Bits(u64),
    /// Bytes per iteration (shown with binary prefixes).
    Bytes(u64),
    /// Bytes per iteration (criterion shows them with decimal prefixes; perfbench shows every
    /// byte rate one way).
    BytesDecimal(u64),
    /// Elements per iteration.
    Elements(u64),
    /// Both; perfbench reports the elements.
    ElementsAndBytes {
        /// Elements per iteration.
        elements: u64,
        /// Bytes per iteration.
        bytes: u64,
    },
}

impl Throughput {
    /// perfbench's throughput of this one.
    pub(crate) fn to_perfbench(self) -> perfbench::Throughput {
        match self {
            Throughput::Bytes(n) | Throughput::BytesDecimal(n) => perfbench::Throughput::Bytes(n),
            Throughput::Bits(n)
            | Throughput::Elements(n)
            | Throughput::ElementsAndBytes { elements: n, .. } => {
                perfbench::Throughput::Elements(n)
            }
        }
    }
}

/// How many inputs `iter_batched` and `iter_batched_ref` prepare before one bracket: the
/// inputs of a batch are made (unmeasured), the routine runs on each inside one bracket, then
/// the outputs are dropped (unmeasured). perfbench's exact counters read the routine's own
/// cost whatever the size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BatchSize {
    /// Ten batches per sample: inputs cheap to hold in memory.
    SmallInput,
    /// A thousand batches per sample: inputs too large to hold many of.
    LargeInput,
    /// One input per bracket.
    PerIteration,
    /// This many batches per sample.
    NumBatches(u64),
    /// This many inputs per batch.
    NumIterations(u64),
}

impl BatchSize {
    pub(crate) fn to_perfbench(self) -> perfbench::BatchSize {
        match self {
            BatchSize::SmallInput => perfbench::BatchSize::SmallInput,
            BatchSize::LargeInput => perfbench::BatchSize::LargeInput,
            BatchSize::PerIteration => perfbench::BatchSize::PerIteration,
            BatchSize::NumBatches(n) => perfbench::BatchSize::NumBatches(n),
            BatchSize::NumIterations(n) => perfbench::BatchSize::NumIterations(n),
        }
    }
}

/// criterion's choice of sampling. Accepted; perfbench samples flat unless the run says
/// `--sampling linear`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SamplingMode {
    /// criterion's default.
    #[default]
    Auto,
    /// Iterations growing linearly from sample to sample.
    Linear,
    /// The same iterations in every sample.
    Flat,
}

/// An axis scale of criterion's plots. Accepted; perfbench draws no summary plots.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AxisScale {
    /// Linear.
    #[default]
    Linear,
    /// Logarithmic.
    Logarithmic,
}

/// criterion's plot settings of a group. Accepted; perfbench draws no summary plots.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlotConfiguration {
    summary_scale: AxisScale,
}

impl PlotConfiguration {
    /// Sets the summary plots' axis scale.
    ///
    /// ```
    /// use perfbench_criterion::{AxisScale, PlotConfiguration};
    ///
    /// let plots = PlotConfiguration::default().summary_scale(AxisScale::Logarithmic);
    /// assert_ne!(plots, PlotConfiguration::default());
    /// ```
    #[must_use]
    pub fn summary_scale(mut self, new_scale: AxisScale) -> PlotConfiguration {
        self.summary_scale = new_scale;
        self
    }
}

/// criterion's plotting backends. Accepted; perfbench's HTML report draws its own charts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlottingBackend {
    /// gnuplot.
    Gnuplot,
    /// The plotters crate.
    Plotters,
    /// No plots.
    None,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throughputs_and_batch_sizes_become_perfbenchs() {
        use perfbench::Throughput as P;
        assert_eq!(Throughput::Bytes(8).to_perfbench(), P::Bytes(8));
        assert_eq!(
            Throughput::BytesDecimal(1000).to_perfbench(),
            P::Bytes(1000)
        );
        assert_eq!(Throughput::Elements(3).to_perfbench(), P::Elements(3));
        assert_eq!(Throughput::Bits(64).to_perfbench(), P::Elements(64));
        let both = Throughput::ElementsAndBytes {
            elements: 2,
            bytes: 16,
        };
        assert_eq!(both.to_perfbench(), P::Elements(2));
        use perfbench::BatchSize as B;
        assert_eq!(BatchSize::SmallInput.to_perfbench(), B::SmallInput);
        assert_eq!(BatchSize::LargeInput.to_perfbench(), B::LargeInput);
        assert_eq!(BatchSize::PerIteration.to_perfbench(), B::PerIteration);
        assert_eq!(BatchSize::NumBatches(4).to_perfbench(), B::NumBatches(4));
        assert_eq!(
            BatchSize::NumIterations(9).to_perfbench(),
            B::NumIterations(9)
        );
    }
}
