//! The process under Callgrind of a `--simulate` run (`--perfbench-simulated DIR`): the one
//! benchmark its filter selects, a round per call of its function, and `DIR/result.json`
//! ([`crate::protocol::sim::Result`], written by hand: a benchmark build needs no JSON library
//! for it), which the driver in the `perfbench` tool reads with the dumps.

use std::path::Path;
use std::process::ExitCode;

use super::cli::Args;
use super::{for_each_body, jobs, panic_message, selected, Job, NEVER_CALLED};
use crate::counters::{callgrind, Counters};
use crate::harness::bencher::Bencher;
use crate::harness::raw::Outcome;
use crate::harness::sampler::Sampler;
use crate::harness::simulate::{SimSample, Simulation};
use crate::harness::Throughput;
use crate::protocol::sim;

/// Rounds (samples) per benchmark by default: counts are exact, so few are needed; more than
/// one shows code whose counts are not deterministic (a `HashMap` with `RandomState`).
pub const DEFAULT_ROUNDS: u32 = 5;

/// The process under Callgrind (`--perfbench-simulated DIR`): runs the one benchmark its
/// filter selects, a round per call of its function, and writes `DIR/result.json`.
pub fn child(suite: &str, dir: &Path, args: &Args) -> ExitCode {
    if !callgrind::running_on_valgrind() {
        eprintln!(
            "error: --perfbench-simulated is for the process that --simulate starts under \
             Valgrind; run with --simulate instead"
        );
        return ExitCode::from(2);
    }
    let chosen: Vec<Job> = jobs(suite)
        .into_iter()
        .filter(|p| selected(p, args))
        .collect();
    let [p] = chosen.as_slice() else {
        eprintln!(
            "error: --perfbench-simulated runs one benchmark; the filter selects {}",
            chosen.len()
        );
        return ExitCode::from(2);
    };
    let rounds = args.rounds.unwrap_or(DEFAULT_ROUNDS);
    // Where the suite installs perfbench's counting allocator, the regions carry its counts
    // (this turns counting on for this thread, the one that measures).
    crate::counters::alloc::installed();
    let (mut throughput, mut threads) = (None, None);
    let mut simulated = None;
    let missing = for_each_body(std::slice::from_ref(p), &mut |_, body| {
        simulated = Some(simulated_rounds(
            rounds,
            dir,
            &mut throughput,
            &mut threads,
            body,
        ));
    });
    let simulated = match (simulated, missing.into_iter().next()) {
        (Some(s), _) => s,
        (None, Some((_, why))) => Err((Outcome::Failed, why)),
        (None, None) => Err((Outcome::Failed, NEVER_CALLED.to_owned())),
    };
    let result = match simulated {
        Ok(samples) => sim::Result {
            outcome: Outcome::Measured,
            error: None,
            throughput,
            threads,
            samples,
        },
        Err((outcome, error)) => sim::Result {
            outcome,
            error: Some(error),
            throughput,
            threads,
            samples: Vec::new(),
        },
    };
    if let Err(e) = write_result(dir, result.encode().as_bytes()) {
        eprintln!("error: cannot write {}: {e}", dir.join(sim::FILE).display());
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}

/// `DIR/result.json`, through a temporary file renamed over it: the driver never reads half of
/// one.
fn write_result(dir: &Path, contents: &[u8]) -> std::io::Result<()> {
    let tmp = dir.join(format!(".{}.{}.tmp", sim::FILE, std::process::id()));
    std::fs::write(&tmp, contents)?;
    std::fs::rename(&tmp, dir.join(sim::FILE))
}

/// Runs a benchmark's `body` for `rounds` rounds under Callgrind (the child's work), its dumps
/// in `dir`; `throughput` gets what the body set, `threads` the thread count of a threaded
/// body. The samples, or how it ended instead.
fn simulated_rounds(
    rounds: u32,
    dir: &Path,
    throughput: &mut Option<Throughput>,
    threads: &mut Option<u32>,
    body: &mut dyn FnMut(&mut Bencher),
) -> Result<Vec<SimSample>, (Outcome, String)> {
    let mut sampler = Box::new(Sampler::simulated(Simulation::new(dir.to_path_buf())));
    for _ in 0..rounds {
        let mut bencher = Bencher::measuring(sampler);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(&mut bencher)));
        if let Err(payload) = outcome {
            return Err((Outcome::Panicked, panic_message(payload.as_ref())));
        }
        *throughput = bencher.throughput_set().or(*throughput);
        *threads = bencher.threads_set().or(*threads);
        let Some(mut s) = bencher.into_sampler() else {
            return Err((Outcome::Failed, NEVER_CALLED.to_owned()));
        };
        match s.round_result() {
            Ok(true) => {}
            Ok(false) => return Err((Outcome::Failed, NEVER_CALLED.to_owned())),
            Err(e) => return Err((Outcome::Failed, e)),
        }
        s.next_round(Counters::empty());
        sampler = s;
    }
    Ok(sampler
        .simulation()
        .map(|sim| sim.samples().to_vec())
        .unwrap_or_default())
}
