//! A paired run's driver, as a worker's sampler sees it: [`Remote`] gives it [`Command`]s.

/// What a paired run's driver tells a worker's sampler to do next (see [`Remote`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// Take one sample of `n` iterations (with its calibration run) in every pass.
    Sample(u64),
    /// Stop sampling: the benchmark's `iter*` call returns with the samples taken.
    Finish,
}

/// The driver of a paired run, as a worker's sampler sees it (the runner's worker implements it
/// over its pipe): the sampler reports the end of its warm-up, then asks for commands.
pub trait Remote {
    /// The warm-up is done; `ns_per_iter` is what it measured an iteration of a sample to cost
    /// (the body's time, and the empty body's for the sample's share of calibration runs).
    fn ready(&mut self, ns_per_iter: f64) -> Result<(), String>;
    /// The next command (blocks until the driver sends one).
    fn next(&mut self) -> Result<Command, String>;
    /// The sample asked for is taken.
    fn sampled(&mut self) -> Result<(), String>;
}
