//! The paired run's driver ([`Driver`]): rounds of pairs over fresh workers, the sample plan,
//! and the samples of each benchmark merged over its rounds.

use super::*;

/// What one paired benchmark gave.
pub(super) struct PairedBench {
    pub(super) result: Benchmark,
    /// The baseline build's side of it (its samples, for the HTML report's overlays).
    pub(super) base: Option<Benchmark>,
    /// Counters whose verdict the null control refused, with the null comparison's ratio.
    pub(super) refused: Vec<(String, Option<f64>)>,
}

/// The paired run proper: the workers of the current round and the settings.
pub(super) struct Driver {
    /// Where the round's copies of the executables go (removed when the run ends).
    pub(super) scratch: PathBuf,
    pub(super) builds: Builds,
    pub(super) suite: String,
    pub(super) timeout: Duration,
    /// The workers of this round: base, new (and null).
    pub(super) sides: Vec<Worker>,
    pub(super) args: Args,
    pub(super) config: model::Config,
}

impl Drop for Driver {
    fn drop(&mut self) {
        // The workers first: they run from the copies.
        self.sides.clear();
        let _ = std::fs::remove_dir_all(&self.scratch);
    }
}

/// A benchmark between the rounds of a paired run.
pub(super) struct PairedJob {
    pub(super) listed: ListedBench,
    /// Each side's samples so far, round by round.
    pub(super) measured: Vec<Vec<CounterResult>>,
    pub(super) throughput: Option<Throughput>,
    /// Each side's thread count, for a threaded body (see [`Benchmark::threads`]).
    pub(super) threads: Vec<Option<u32>>,
    pub(super) plan: SamplePlan,
    /// Pairs taken so far (the next pair's index, which sets its order).
    pub(super) pairs_done: usize,
    /// Why it stopped, when it failed or panicked on a side.
    pub(super) failed: Option<(Outcome, String)>,
}

impl Driver {
    /// Starts the workers of a round (those of the last round, if any, quit first).
    /// Starts the workers of round `round` (those of the last round quit first), each from a
    /// fresh copy of its build's executable in a scratch directory: two files with the same
    /// bytes still differ in where the kernel put their pages, which moves a memory-bound
    /// benchmark by a percent or two here; a fresh copy every round makes that noise between
    /// rounds, and gives the null side a file of its own.
    pub(super) fn spawn(&mut self, round: usize) -> Result<(), String> {
        self.sides.clear();
        let _ = std::fs::remove_dir_all(&self.scratch);
        let mut specs: Vec<(&'static str, &Path)> =
            vec![("base", &self.builds.base), ("new", &self.builds.new)];
        if self.args.null_control {
            specs.push(("null", &self.builds.new));
        }
        // Started in the reverse order every other round, as they warm up (see `round`):
        // nothing about being first is the same side's every time.
        let mut order: Vec<usize> = (0..specs.len()).collect();
        if round % 2 == 1 {
            order.reverse();
        }
        let mut started: Vec<Option<Worker>> = (0..specs.len()).map(|_| None).collect();
        for &i in &order {
            let (label, exe) = specs[i];
            let copy = self
                .scratch
                .join(label)
                .join(exe.file_name().unwrap_or_default());
            std::fs::create_dir_all(self.scratch.join(label))
                .and_then(|()| std::fs::copy(exe, &copy).map(drop))
                .map_err(|e| {
                    format!(
                        "cannot copy the {label} build {} to {}: {e}",
                        exe.display(),
                        copy.display()
                    )
                })?;
            started[i] = Some(Worker::spawn(label, exe, &copy, &self.suite, self.timeout)?);
        }
        let mut sides: Vec<Worker> = started.into_iter().flatten().collect();
        let fix = protocol_fix(&self.builds);
        for w in sides.iter_mut() {
            w.greet(&fix)?;
        }
        self.sides = sides;
        Ok(())
    }

    /// Round `r` of benchmark `b`: its share of the pairs, in this round's workers. `Err` only
    /// when a worker broke (the run stops); a benchmark that fails or panics on a side is kept
    /// in `b.failed`.
    pub(super) fn bench_round(&mut self, b: &mut PairedJob, r: usize) -> Result<(), String> {
        let rounds = self.config.rounds.max(1) as usize;
        let pairs = (self.config.sample_size.max(2) as usize).max(rounds);
        // As in a plain run: half the warm-up before the first round (which also times the
        // body), the other half shared by the later rounds.
        let warm = secs_to_ns(self.config.warm_up_time);
        let warm_up_ns = match (rounds, r) {
            (1, _) => warm,
            (_, 0) => warm / 2,
            _ => warm / 2 / (rounds as u64 - 1),
        };
        let round_pairs = pairs * (r + 1) / rounds - pairs * r / rounds;
        match self.round(
            &b.listed,
            warm_up_ns,
            &mut b.plan,
            b.pairs_done,
            round_pairs,
        )? {
            Ok(per_side) => {
                if b.measured.len() < per_side.len() {
                    b.measured.resize(per_side.len(), Vec::new());
                    b.threads.resize(per_side.len(), None);
                }
                let sides = b.measured.iter_mut().zip(b.threads.iter_mut());
                for ((all, threads), done) in sides.zip(per_side) {
                    merge(all, done.counters);
                    b.throughput = b.throughput.or(done.throughput);
                    *threads = threads.or(done.threads);
                }
            }
            Err(failure) => b.failed = Some(failure),
        }
        b.pairs_done += round_pairs;
        Ok(())
    }

    /// Whether benchmark `b` takes another round after `done` of at most `most`: a judged
    /// counter's paired change has an interval holding an edge of its threshold
    /// ([`stats::paired::undecided`]), so more rounds could still tell a change from none,
    /// and is not so wide that `most` rounds would leave it holding both edges
    /// ([`stats::paired::futile`]). A failed benchmark is settled.
    pub(super) fn open(&self, b: &PairedJob, done: usize, most: usize) -> bool {
        let (Some(old), Some(new), None) = (b.measured.first(), b.measured.get(1), &b.failed)
        else {
            return false;
        };
        new.iter().any(|c| {
            let settings = self.args.thresholds.config_for(&c.name);
            paired_change(old, c, &settings).is_some_and(|change| {
                stats::paired::undecided(&change)
                    && !stats::paired::futile(&change, done, most, settings.confidence)
            })
        })
    }

    /// The benchmark's result after its last round: the new build's estimates, each counter's
    /// paired change, and the counters whose verdict the null control refused.
    pub(super) fn result(&self, b: PairedJob) -> PairedBench {
        let p = &b.listed;
        let base = Benchmark::new(
            &p.id,
            &p.group,
            &p.name,
            p.params.as_deref(),
            Outcome::Measured,
        );
        if let Some((outcome, error)) = b.failed {
            return PairedBench {
                result: Benchmark {
                    error: Some(error),
                    outcome,
                    ..base
                },
                base: None,
                refused: Vec::new(),
            };
        }
        let cfg = StatsConfig::default();
        let empty = Vec::new();
        let side = |i: usize| b.measured.get(i).unwrap_or(&empty);
        let (old, new) = (side(0), side(1));
        let null = b.measured.get(2);
        let mut refused = Vec::new();
        let counters: Vec<CounterResult> = new
            .iter()
            .map(|c| {
                let mut c = CounterResult {
                    estimate: stats::estimate(
                        &c.per_iteration,
                        None,
                        &StatsConfig::for_counter(&c.name),
                    ),
                    ..c.clone()
                };
                let settings = self.args.thresholds.config_for(&c.name);
                c.change = paired_change(old, &c, &settings);
                if let Some(n) = null.and_then(|n| n.iter().find(|x| x.name == c.name)) {
                    if let Some(ratio) = null_refusal(&c, n, &settings) {
                        refused.push((c.name.clone(), ratio));
                        c.change = None;
                    }
                }
                c
            })
            .collect();
        let derived = derived_metrics(&counters, &cfg);
        let threads = |i: usize| b.threads.get(i).copied().flatten();
        let base_side = Benchmark {
            threads: threads(0),
            counters: old
                .iter()
                .map(|c| CounterResult {
                    estimate: stats::estimate(
                        &c.per_iteration,
                        None,
                        &StatsConfig::for_counter(&c.name),
                    ),
                    ..c.clone()
                })
                .collect(),
            ..base.clone()
        };
        PairedBench {
            result: Benchmark {
                counters,
                derived,
                throughput: b.throughput,
                threads: threads(1),
                ..base
            },
            base: Some(base_side),
            refused,
        }
    }

    /// One round: every side calls the benchmark function afresh and warms up, then `pairs`
    /// blocks of one sample per side (pair `k0` first, in the alternating order), then every
    /// side finishes. The first round also sizes the samples (`plan`). Each side's samples of
    /// the round, as its worker sent them (no estimates). The inner `Err` is a benchmark that
    /// failed or panicked on a side (the other sides are told to finish).
    pub(super) fn round(
        &mut self,
        p: &ListedBench,
        warm_up_ns: u64,
        plan: &mut SamplePlan,
        k0: usize,
        pairs: usize,
    ) -> Result<Result<Vec<Benchmark>, (Outcome, String)>, String> {
        let run = Request::Run {
            warm_up_ns,
            counters: self.args.counters.clone(),
            id: p.id.clone(),
        };
        let finish = &Request::Finish;
        let mut ready: Vec<f64> = Vec::new();
        let mut warm: Vec<usize> = Vec::new();
        let mut failed: Option<(Outcome, String)> = None;
        // Warmed up in the order of the round's first pair: the side that warms up last is the
        // first to sample, so neither side's first sample follows the other's warm-up.
        let mut order: Vec<usize> = (0..self.sides.len()).collect();
        if k0 % 2 == 0 {
            order.reverse();
        }
        for i in order {
            let answer = self.sides[i].request(&run, Duration::from_nanos(warm_up_ns))?;
            if let Some((outcome, e)) = failure(&answer) {
                failed = Some((outcome, format!("{} build: {e}", self.sides[i].label)));
                break;
            }
            match answer {
                Answer::Ready(ns) => {
                    ready.push(ns);
                    warm.push(i);
                }
                other => return Err(self.sides[i].broken(format!("answered `run` with {other:?}"))),
            }
        }
        if plan.n == 0 && failed.is_none() {
            let total_pairs = self.config.sample_size.max(2) as f64;
            let slowest = ready.iter().copied().fold(0.01_f64, f64::max);
            // `measurement_time` is each side's: the run takes that times the number of sides.
            let per_sample_ns = self.config.measurement_time * 1e9 / total_pairs;
            plan.n = ((per_sample_ns / slowest).ceil() as u64).max(1);
            // Generous: ten times what a sample should take, on top of the timeout.
            plan.slack = Duration::from_nanos((10.0 * plan.n as f64 * slowest) as u64);
        }
        let sample = Request::Sample(plan.n);
        if failed.is_none() {
            for k in k0..k0 + pairs {
                let order: Vec<usize> = if k % 2 == 0 {
                    (0..self.sides.len()).collect()
                } else {
                    (0..self.sides.len()).rev().collect()
                };
                for i in order {
                    let answer = self.sides[i].request(&sample, plan.slack)?;
                    if let Some((outcome, e)) = failure(&answer) {
                        failed = Some((outcome, format!("{} build: {e}", self.sides[i].label)));
                        // This side has left its benchmark; the others are told to finish.
                        for j in (0..self.sides.len()).filter(|&j| j != i) {
                            self.sides[j].request(finish, plan.slack)?;
                        }
                        return Ok(Err(failed.unwrap_or((Outcome::Failed, String::new()))));
                    }
                    if answer != Answer::Sampled {
                        return Err(
                            self.sides[i].broken(format!("answered `sample` with {answer:?}"))
                        );
                    }
                }
            }
        } else {
            // The sides that got ready are waiting in their benchmark: let them finish.
            for i in warm {
                self.sides[i].request(finish, plan.slack)?;
            }
            return Ok(Err(failed.unwrap_or((Outcome::Failed, String::new()))));
        }
        let mut out = Vec::new();
        let mut failed = None;
        for i in 0..self.sides.len() {
            let answer = self.sides[i].request(finish, plan.slack)?;
            if let Some((outcome, e)) = failure(&answer) {
                failed = failed.or(Some((
                    outcome,
                    format!("{} build: {e}", self.sides[i].label),
                )));
                continue;
            }
            let Answer::Samples(raw) = answer else {
                return Err(self.sides[i].broken(format!("answered `finish` with {answer:?}")));
            };
            out.push(Benchmark::from(raw));
        }
        Ok(match failed {
            Some(f) => Err(f),
            None => Ok(out),
        })
    }
}

/// The null control's objection to a verdict on counter `new`: `Some(ratio)` (the null ratio,
/// when defined) when `new` paired with `null` (a second copy of the new build, measured in the
/// same run) is itself flagged, so a verdict against the baseline cannot be told from the noise
/// of this machine now; `None` when the null comparison is unchanged.
pub(super) fn null_refusal(
    new: &CounterResult,
    null: &CounterResult,
    settings: &stats::CompareConfig,
) -> Option<Option<f64>> {
    let control = stats::compare_paired_rounds(&new.round_values(), &null.round_values(), settings);
    (control.verdict != Verdict::Unchanged).then_some(control.ratio)
}

/// The iteration count of every sample of a paired benchmark, fixed by its first round.
#[derive(Default)]
pub(super) struct SamplePlan {
    /// Iterations per sample (0 before the first round has timed the sides).
    pub(super) n: u64,
    /// How much longer than the worker timeout a sample may take.
    pub(super) slack: Duration,
}

/// Adds a round's counters to those of the earlier rounds (`rounds` gets the round's length).
pub(super) fn merge(all: &mut Vec<CounterResult>, round: Vec<CounterResult>) {
    for mut c in round {
        match all.iter_mut().find(|a| a.name == c.name) {
            Some(a) => {
                a.rounds.push(c.per_iteration.len() as u32);
                a.per_iteration.extend(c.per_iteration);
                a.iterations.extend(c.iterations);
                a.multiplexed |= c.multiplexed;
            }
            None => {
                c.rounds = vec![c.per_iteration.len() as u32];
                all.push(c);
            }
        }
    }
}

/// The paired change of the new build's counter `c` against the same counter (name and unit)
/// of the base build's `old`, judged with `settings` (the counter's, from `--threshold` and its
/// kind); `None` when the base build has no such counter.
fn paired_change(
    old: &[CounterResult],
    c: &CounterResult,
    settings: &stats::CompareConfig,
) -> Option<stats::Change> {
    let o = old.iter().find(|o| o.name == c.name && o.unit == c.unit)?;
    Some(stats::compare_paired_rounds(
        &o.round_values(),
        &c.round_values(),
        settings,
    ))
}
