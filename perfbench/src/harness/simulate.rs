//! The sampler's simulated mode: a benchmark measured under Callgrind (`--simulate`; the
//! tool's `simulate` module (perfbench-analysis) starts the process and reads the
//! results).
//!
//! Counts under Callgrind are exact, so a benchmark needs no hundred samples: each round
//! (one call of the benchmark function, with fresh setup) takes one sample made of four
//! collected regions, each dumped to a file of its own:
//!
//! 1. the body with `n` iterations, 2. the body with `2n`, 3. the empty body (the same bracket
//!    with nothing in it) with `n`, 4. the empty body with `2n`.
//!
//! The sample is `((body(2n) - empty(2n)) - (body(n) - empty(n))) / n` per counter: the empty
//! body cancels the loop and the bracket, and the difference of two iteration counts cancels
//! every per-sample constant, so a body of k instructions reads exactly k. (`iter_custom`'s
//! calibration is one empty bracket, subtracted once per start/stop pair the body made.)
//!
//! `n` is a power of two chosen once per benchmark from a probe (one whole iteration, its setup
//! and drops included, dumped and read back): about [`TARGET_INSTRUCTIONS`] per `n` iterations,
//! at most [`MAX_ITERATIONS`]. It depends only on the probe's count, so the same binary takes
//! the same plan every time; the probe's count is read from the dump's last bytes only
//! ([`Dump::tail_instructions`]), since its header holds the process id. Before each sample the
//! body and the empty body run once each, collected and then discarded (`ZERO_STATS`), warming
//! the simulated caches, the branch predictor and the bracket's own code for both, as the
//! wall-clock warm-up does.

use std::ffi::CString;
use std::path::PathBuf;

use super::sampler::{Body, Brackets, Meter};
use crate::counters::alloc::{self, AllocBracket, AllocCounter};
use crate::counters::callgrind::{self, Dump};

/// About this many instructions per sample's `n` iterations.
pub const TARGET_INSTRUCTIONS: u64 = 100_000;

/// The most iterations `n` may have.
pub const MAX_ITERATIONS: u64 = 1 << 20;

/// The file Callgrind writes dumps to (`--callgrind-out-file`, in the benchmark's directory):
/// dump `k` of the process (from 1) goes to `cg.out.k`.
pub const DUMP_FILE: &str = "cg.out";

/// The bracket of the harness's own bodies under Callgrind: turns collection on at
/// [`start`](Brackets::start) and off at [`stop`](Brackets::stop), so the collected region
/// holds the body and the request sequences' fixed instructions only; and, where this thread
/// counts allocations ([`alloc::counting`]), reads their counts outside the collected region.
#[derive(Debug, Default)]
pub(crate) struct SimBracket {
    pairs: u64,
    /// The allocation counts of the brackets so far (peak: the largest), when counted.
    allocs: Option<AllocCounts>,
    bracket: AllocBracket,
}

/// A region's allocation counts, in [`AllocCounter::ALL`]'s order: allocations, bytes,
/// deallocations and reallocations summed over its brackets, and the largest bracket's peak.
pub type AllocCounts = [u64; 5];

impl SimBracket {
    /// A bracket that reads the allocation counts too where this thread counts them.
    pub(crate) fn new() -> SimBracket {
        SimBracket {
            allocs: alloc::counting().then_some([0; 5]),
            ..SimBracket::default()
        }
    }

    /// The start/stop pairs made, and the allocation counts when counted.
    pub(crate) fn totals(&self) -> (u64, Option<AllocCounts>) {
        (self.pairs, self.allocs)
    }
}

impl Brackets for SimBracket {
    #[inline(always)]
    fn start(&mut self) {
        if self.allocs.is_some() {
            self.bracket.start();
        }
        callgrind::toggle_collect();
    }

    #[inline(always)]
    fn stop(&mut self) {
        callgrind::toggle_collect();
        self.pairs += 1;
        if let Some(sums) = self.allocs.as_mut() {
            self.bracket.stop(&AllocCounter::ALL, sums);
        }
    }
}

/// One collected region: which dump holds it, and what ran in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde_derive::Serialize, serde_derive::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Region {
    /// The dump's number: its trigger is `perfbench-<dump>` and its file `cg.out.<dump>`.
    pub dump: u32,
    /// Iterations the body was asked for.
    pub iterations: u64,
    /// Start/stop pairs the body made.
    pub pairs: u64,
    /// The allocation counts of its brackets ([`AllocCounts`]), where the benchmark binary
    /// counts allocations.
    pub allocs: Option<AllocCounts>,
}

/// One simulated sample: the body and the empty body, each with `n` and `2n` iterations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde_derive::Serialize, serde_derive::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct SimSample {
    /// The iterations the sample's difference covers.
    pub n: u64,
    /// The calibration is one bracket per start/stop pair (`iter_custom`), not per sample.
    pub per_pair: bool,
    /// The body with `n`, then `2n` iterations.
    pub body: [Region; 2],
    /// The empty body with `n`, then `2n` iterations.
    pub empty: [Region; 2],
}

impl SimSample {
    /// The sample's per-iteration value of a counter, given how to read the counter's value
    /// in a region's dump.
    ///
    /// ```
    /// use perfbench::harness::simulate::{Region, SimSample};
    ///
    /// let region = |dump, iterations| Region { dump, iterations, pairs: 1, allocs: None };
    /// let sample = SimSample {
    ///     n: 100,
    ///     per_pair: false,
    ///     body: [region(0, 100), region(1, 200)],
    ///     empty: [region(2, 100), region(3, 200)],
    /// };
    /// // What Callgrind counted in each dump: 7 per iteration plus 50 set-up instructions per
    /// // sample, and a bracket of 30 plus 1 per iteration of the empty loop.
    /// let counted = |r: &Region| match r.dump {
    ///     0 | 1 => 50.0 + 7.0 * r.iterations as f64 + 30.0 + r.iterations as f64,
    ///     _ => 30.0 + r.iterations as f64,
    /// };
    /// assert_eq!(sample.value(counted), 7.0); // the per-sample constants cancel
    /// ```
    pub fn value(&self, mut count: impl FnMut(&Region) -> f64) -> f64 {
        let mut net = |i: usize| {
            let body = count(&self.body[i]);
            let overhead = if self.per_pair {
                self.body[i].pairs as f64 * count(&self.empty[0])
            } else {
                count(&self.empty[i])
            };
            body - overhead
        };
        let (short, long) = (net(0), net(1));
        (long - short) / self.n.max(1) as f64
    }
}

/// A benchmark's simulated measurement, across its rounds.
#[derive(Debug)]
pub struct Simulation {
    /// Where Callgrind writes this process's dumps.
    dir: PathBuf,
    /// Dumps made so far.
    dumps: u32,
    /// `n`, once the probe chose it.
    n: Option<u64>,
    /// The samples so far.
    samples: Vec<SimSample>,
}

impl Simulation {
    /// A simulation whose dumps Callgrind writes to `dir`/[`DUMP_FILE`]`.k`.
    ///
    /// ```
    /// use perfbench::harness::simulate::Simulation;
    ///
    /// let sim = Simulation::new(std::env::temp_dir());
    /// assert!(sim.samples().is_empty());
    /// ```
    pub fn new(dir: PathBuf) -> Simulation {
        Simulation {
            dir,
            dumps: 0,
            n: None,
            samples: Vec::new(),
        }
    }

    /// The samples taken.
    ///
    /// See [`Simulation::new`].
    pub fn samples(&self) -> &[SimSample] {
        &self.samples
    }

    /// One round's sample of `body` (see the [module documentation](self)).
    pub(crate) fn sample(
        &mut self,
        body: &mut dyn Body,
        empty: &mut dyn Body,
    ) -> Result<(), String> {
        let n = match self.n {
            Some(n) => n,
            None => {
                body.run(1, &mut Meter::idle());
                // The probe counts the whole iteration, setup and drops included: they run
                // (uncollected) in every sample too, and take the simulator's time.
                callgrind::toggle_collect();
                body.run(1, &mut Meter::idle());
                callgrind::toggle_collect();
                let probe = self.dump()?;
                // Only the dump's tail: see `Dump::tail_instructions`.
                let path = self.dir.join(format!("{DUMP_FILE}.{probe}"));
                let n = iterations_for(Dump::tail_instructions(&path)?);
                self.n = Some(n);
                n
            }
        };
        // Warm-up: one collected run of each (caches, branch predictor and the bracket's own
        // code warm for both), then discarded.
        body.run_simulated(1);
        empty.run_simulated(1);
        callgrind::zero_stats();
        let body_regions = [self.region(body, n)?, self.region(body, 2 * n)?];
        let empty_regions = [self.region(empty, n)?, self.region(empty, 2 * n)?];
        self.samples.push(SimSample {
            n,
            per_pair: empty.per_pair(),
            body: body_regions,
            empty: empty_regions,
        });
        Ok(())
    }

    /// Runs `body` for `n` iterations with collection on inside its brackets, and dumps.
    fn region(&mut self, body: &mut dyn Body, n: u64) -> Result<Region, String> {
        let (pairs, allocs) = body.run_simulated(n);
        Ok(Region {
            dump: self.dump()?,
            iterations: n,
            pairs,
            allocs,
        })
    }

    /// Dumps what was collected since the last dump; returns the dump's number.
    fn dump(&mut self) -> Result<u32, String> {
        self.dumps += 1;
        let name = CString::new(format!("perfbench-{}", self.dumps))
            .map_err(|e| format!("dump name: {e}"))?;
        callgrind::dump_stats_at(&name);
        Ok(self.dumps)
    }
}

/// The iterations per sample for a body whose probe (one whole iteration) counted
/// `instructions`: the largest power of two with about [`TARGET_INSTRUCTIONS`] in all, at least
/// 1, at most [`MAX_ITERATIONS`].
///
/// ```
/// use perfbench::harness::simulate::iterations_for;
///
/// assert_eq!(iterations_for(1_000), 64); // 100 would reach the target: the power of two below
/// assert_eq!(iterations_for(5_000_000), 1);
/// assert_eq!(iterations_for(1), 65_536); // at most about 100,000 instructions
/// ```
pub fn iterations_for(instructions: u64) -> u64 {
    let n = TARGET_INSTRUCTIONS / instructions.max(1);
    if n <= 1 {
        return 1;
    }
    (1u64 << (63 - n.leading_zeros())).min(MAX_ITERATIONS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterations_are_powers_of_two_near_the_target() {
        assert_eq!(iterations_for(0), 65_536);
        assert_eq!(iterations_for(1), 65_536);
        assert_eq!(iterations_for(30), 2048);
        assert_eq!(iterations_for(100_000), 1);
        assert_eq!(iterations_for(10_000_000), 1);
        assert!((1..50_000).all(|k| {
            let n = iterations_for(k);
            n.is_power_of_two() && n * k <= TARGET_INSTRUCTIONS.max(k)
        }));
    }

    fn region(dump: u32, iterations: u64, pairs: u64) -> Region {
        Region {
            dump,
            iterations,
            pairs,
            allocs: None,
        }
    }

    #[test]
    fn a_sample_cancels_the_bracket_and_the_constants() {
        // Body: 7 per iteration + 3 per iteration of loop + 40 of bracket and setup.
        // Empty: 3 per iteration of loop + 25 of bracket.
        let counts = |r: &Region| match r.dump {
            1 | 2 => 40.0 + 10.0 * r.iterations as f64,
            _ => 25.0 + 3.0 * r.iterations as f64,
        };
        let s = SimSample {
            n: 8,
            per_pair: false,
            body: [region(1, 8, 1), region(2, 16, 1)],
            empty: [region(3, 8, 1), region(4, 16, 1)],
        };
        assert_eq!(s.value(counts), 7.0);
    }

    #[test]
    fn a_per_pair_sample_subtracts_one_bracket_per_pair() {
        // iter_custom: each pair costs 12, each iteration 5, plus 9 outside the pairs' count.
        let counts = |r: &Region| match r.dump {
            1 | 2 => 9.0 + 12.0 * r.pairs as f64 + 5.0 * r.iterations as f64,
            _ => 12.0,
        };
        let s = SimSample {
            n: 4,
            per_pair: true,
            body: [region(1, 4, 4), region(2, 8, 8)],
            empty: [region(3, 4, 1), region(4, 8, 1)],
        };
        assert_eq!(s.value(counts), 5.0);
    }
}
