//! The noise profiles, fitted to real runs of `bench-compare/verdict-suite` (docs/validation.md,
//! "Simulated runs"): each one's sample noise, spikes, disturbed rounds and run drift.

#[derive(Clone, Copy, Debug)]
pub(super) struct Profile {
    pub(super) name: &'static str,
    /// The sigma of the lognormal noise of every sample.
    pub(super) sample_noise: f64,
    /// The share of samples hit by a spike, and its largest size: a spike multiplies the
    /// sample by `1 + spike_max * U(0, 1)`.
    pub(super) spike_rate: f64,
    pub(super) spike_max: f64,
    /// The share of rounds that are disturbed, and the range of their factor (see
    /// `slow_shape`).
    pub(super) p_slow: f64,
    pub(super) slow: (f64, f64),
    /// The sigma of the lognormal factor of each run.
    pub(super) run_drift: f64,
    /// The share of runs in which every round is disturbed.
    pub(super) p_all_slow: f64,
    /// One-sided noise of each sample: a factor `exp(calm * sample_tail * E)`, `E` standard
    /// exponential (the noise of a shared machine only adds).
    pub(super) sample_tail: f64,
    /// One-sided noise of each round, in all its samples: `exp(round_tail * E)`.
    pub(super) round_tail: f64,
    /// The spread of the runs' noise levels: `calm = exp(noise_spread * N(0, 1))`, drawn per
    /// run, scales the samples' tail; 0: 1 in every run.
    pub(super) noise_spread: f64,
    /// 0: a disturbed round's factor is uniform on `slow`. Above 0: it is 1 plus a Pareto
    /// excess with this tail index from `slow.0 - 1` to `slow.1 - 1` (mostly small, now and
    /// then large).
    pub(super) slow_shape: f64,
    /// The share of disturbances that slow every sample of their round; each of the others
    /// slows each sample of its round with a chance drawn uniform on (0, 1), so that the
    /// round's smallest sample usually stays undisturbed. 1: every disturbance is whole.
    pub(super) whole: f64,
    /// The overdispersion of the run's own `whole` (Beta, mean `whole`): 0, the same in every
    /// run; towards 1, some runs' disturbances are all whole and others' none.
    pub(super) whole_spread: f64,
    /// The chance that a round goes on with the round before's disturbance (or quiet), factor
    /// and share included: disturbances that last longer than a round.
    pub(super) persist: f64,
    /// The process's level: with chance `p_high` a run is `high` times slower in every sample,
    /// and at each round after the first it switches level with chance `p_switch`.
    pub(super) p_high: f64,
    pub(super) high: f64,
    pub(super) p_switch: f64,
}

/// The fields that keep the first model's shape: every sample of a disturbed round slowed,
/// symmetric noise only, one level, no per-run state.
pub(super) const FIRST_SHAPE: Profile = Profile {
    name: "",
    sample_noise: 0.0,
    spike_rate: 0.0,
    spike_max: 0.0,
    p_slow: 0.0,
    slow: (1.0, 1.0),
    run_drift: 0.0,
    p_all_slow: 0.0,
    sample_tail: 0.0,
    round_tail: 0.0,
    noise_spread: 0.0,
    slow_shape: 0.0,
    whole: 1.0,
    whole_spread: 0.0,
    persist: 0.0,
    p_high: 0.0,
    high: 1.0,
    p_switch: 0.0,
};

/// `verdict/compute`, fitted 2026-11-26 to 21 runs of unchanged code on this VM with the
/// model's present shape: `VERDICT_WORK=/tmp/perfbench-noise RUNS=21 SLOWDOWNS=0 bash
/// bench-compare/verdict.sh && python3 bench-compare/noise_fit.py /tmp/perfbench-noise/runs`.
pub(super) const COMPUTE: Profile = Profile {
    name: "compute",
    sample_noise: 0.0000,
    spike_rate: 0.0486,
    spike_max: 0.2878,
    p_slow: 0.2115,
    slow: (1.050, 1.288),
    run_drift: 0.0009,
    p_all_slow: 0.0000,
    sample_tail: 0.0114,
    round_tail: 0.0030,
    noise_spread: 0.6393,
    slow_shape: 0.0139,
    whole: 0.0000,
    ..FIRST_SHAPE
};

/// `verdict/memory`, fitted as [`COMPUTE`].
pub(super) const MEMORY: Profile = Profile {
    name: "memory",
    sample_noise: 0.0000,
    spike_rate: 0.0562,
    spike_max: 0.6432,
    p_slow: 0.5941,
    slow: (1.050, 2.151),
    run_drift: 0.0073,
    p_all_slow: 0.0000,
    sample_tail: 0.0250,
    round_tail: 0.0057,
    noise_spread: 1.0441,
    slow_shape: 0.9202,
    whole: 0.4067,
    whole_spread: 0.6774,
    persist: 0.3029,
    p_high: 0.4286,
    high: 1.0463,
    ..FIRST_SHAPE
};

/// `verdict/sort`, fitted as [`COMPUTE`].
pub(super) const SORT: Profile = Profile {
    name: "sort",
    sample_noise: 0.0000,
    spike_rate: 0.0784,
    spike_max: 0.5026,
    p_slow: 0.5217,
    slow: (1.050, 1.491),
    run_drift: 0.0026,
    p_all_slow: 0.0000,
    sample_tail: 0.0185,
    round_tail: 0.0053,
    noise_spread: 0.8761,
    slow_shape: 0.3581,
    whole: 0.0670,
    whole_spread: 0.9000,
    persist: 0.0869,
    ..FIRST_SHAPE
};

/// The first fit of `verdict/compute` (2026-11-26, the same 21 runs as [`COMPUTE`]), with the
/// first model's shape: rounds read from their medians, every sample of a disturbed round
/// slowed.
pub(super) const FIRST_COMPUTE: Profile = Profile {
    name: "first compute",
    sample_noise: 0.0071,
    spike_rate: 0.096,
    spike_max: 0.22,
    p_slow: 0.17,
    slow: (1.03, 1.38),
    run_drift: 0.0071,
    p_all_slow: 0.0,
    ..FIRST_SHAPE
};

/// The first fit of `verdict/memory`, as [`FIRST_COMPUTE`].
pub(super) const FIRST_MEMORY: Profile = Profile {
    name: "first memory",
    sample_noise: 0.0268,
    spike_rate: 0.129,
    spike_max: 0.43,
    p_slow: 0.56,
    slow: (1.04, 1.81),
    run_drift: 0.0411,
    p_all_slow: 0.0,
    ..FIRST_SHAPE
};

/// The first fit of `verdict/sort`, as [`FIRST_COMPUTE`].
pub(super) const FIRST_SORT: Profile = Profile {
    name: "first sort",
    sample_noise: 0.0224,
    spike_rate: 0.136,
    spike_max: 0.39,
    p_slow: 0.43,
    slow: (1.04, 1.45),
    run_drift: 0.0102,
    p_all_slow: 0.10,
    ..FIRST_SHAPE
};

/// The earlier VM's computation: steady rounds.
pub(super) const EARLIER_STEADY: Profile = Profile {
    name: "earlier steady",
    sample_noise: 0.01,
    spike_rate: 0.03,
    spike_max: 0.5,
    p_slow: 0.1,
    slow: (1.02, 1.08),
    run_drift: 0.005,
    p_all_slow: 0.0,
    ..FIRST_SHAPE
};

/// The earlier VM's sort: half the rounds disturbed.
pub(super) const EARLIER_CONTENDED: Profile = Profile {
    name: "earlier contended",
    sample_noise: 0.02,
    spike_rate: 0.03,
    spike_max: 0.5,
    p_slow: 0.5,
    slow: (1.3, 1.5),
    run_drift: 0.01,
    p_all_slow: 0.0,
    ..FIRST_SHAPE
};

/// The earlier VM's memory scan: most rounds disturbed, and a run now and then with no quiet
/// round.
pub(super) const EARLIER_BIMODAL: Profile = Profile {
    name: "earlier bimodal",
    sample_noise: 0.02,
    spike_rate: 0.03,
    spike_max: 0.5,
    p_slow: 0.6,
    slow: (1.5, 1.6),
    run_drift: 0.01,
    p_all_slow: 0.05,
    ..FIRST_SHAPE
};

/// Every profile, the fitted ones first, each with the index of its seeds (the first fits
/// keep theirs from when they were the fitted profiles; no two profiles share a seed).
pub(super) const PROFILES: [(usize, Profile); 9] = [
    (11, COMPUTE),
    (12, MEMORY),
    (13, SORT),
    (3, FIRST_COMPUTE),
    (4, FIRST_MEMORY),
    (5, FIRST_SORT),
    (0, EARLIER_STEADY),
    (1, EARLIER_CONTENDED),
    (2, EARLIER_BIMODAL),
];
