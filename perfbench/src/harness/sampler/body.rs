//! What the sampler measures: a [`Body`] runs `n` iterations inside a [`Meter`]'s brackets
//! ([`Brackets`]); the harness's bodies (plain, batched, self-timed) implement it.

use super::meter::Meter;

/// A bracket around measured code: a [`Meter`], or, under Callgrind, the collection toggle
/// ([`SimBracket`](crate::harness::simulate::SimBracket)). The harness's bodies are generic over it, so
/// each kind of bracket is compiled into the body without a run-time choice.
pub(crate) trait Brackets {
    /// Starts a measured stretch.
    fn start(&mut self);
    /// Ends it.
    fn stop(&mut self);
}

/// Code the sampler runs `n` times inside a [`Meter`].
pub(crate) trait Body {
    /// Runs `n` iterations, bracketing what counts with `meter`.
    fn run(&mut self, n: u64, meter: &mut Meter<'_>);

    /// Runs `n` iterations under Callgrind, the brackets turning collection on and off; returns
    /// the start/stop pairs made and, where allocations are counted, their counts. By default
    /// through a simulating [`Meter`] (`iter_custom`'s user code takes a `Meter`), which counts
    /// no allocations; the harness's own bodies use
    /// [`SimBracket`](crate::harness::simulate::SimBracket), which does.
    fn run_simulated(&mut self, n: u64) -> (u64, Option<crate::harness::simulate::AllocCounts>) {
        let mut meter = Meter::simulating();
        self.run(n, &mut meter);
        (meter.pairs(), None)
    }

    /// `true` for a calibration body that brackets once whatever `n` is: its overhead is per
    /// start/stop pair, not per sample.
    fn per_pair(&self) -> bool {
        false
    }

    /// A batched body whose batch size is chosen from the warm-up ([`BatchSize::Auto`]):
    /// chooses it from the time per iteration and returns it; `None` for other bodies.
    ///
    /// [`BatchSize::Auto`]: crate::harness::bencher::BatchSize::Auto
    fn plan_batch(&mut self, _ns_per_iter: f64) -> Option<u64> {
        None
    }

    /// Uses `batch` inputs per bracket (a batch planned in an earlier round, or the measured
    /// body's, for its calibration body).
    fn use_batch(&mut self, _batch: u64) {}

    /// Inputs per bracket in a run of `n` iterations: more than 1 for a batched body.
    fn batch_at(&mut self, _n: u64) -> u64 {
        1
    }

    /// With `on`, a batched body takes one input per bracket until called again with `false`.
    ///
    /// A batch's bracket holds the batch's loop as well as the routine: its per-iteration and
    /// per-batch code depends on the inputs' and outputs' types, which the calibration body
    /// (unit inputs, an empty routine) does not share, so an exact counter of a batched sample
    /// reads a fraction more than the routine costs. With one input per bracket there is no
    /// loop inside the bracket, and the calibration cancels the bracket exactly: an exact
    /// counter's slope is taken from such readings ([`PassState::single`](super::pass::PassState::single)).
    fn single(&mut self, _on: bool) {}
}
