//! The process under Callgrind of a `--simulate` run (`--perfbench-simulated DIR`): the one
//! benchmark its filter selects, a round per call of its function, and `DIR/result.json`, which
//! the driver ([`crate::runner::simulate`], in a full build or the `perfbench` tool) reads with
//! the dumps. It compiles in every build, the lean one included: the result is written by hand
//! ([`crate::harness::raw`]), so a lean build needs no JSON library for it.

use std::path::Path;
use std::process::ExitCode;

use super::cli::Args;
use super::{panic_message, planned, selected, Planned, NEVER_CALLED};
use crate::counters::{callgrind, Counters};
use crate::harness::bencher::Bencher;
use crate::harness::raw::{push_list, push_opt_str, push_throughput, Outcome};
use crate::harness::sampler::Sampler;
use crate::harness::simulate::{Region, SimSample, Simulation};
use crate::harness::Throughput;

/// Rounds (samples) per benchmark by default: counts are exact, so few are needed; more than
/// one shows code whose counts are not deterministic (a `HashMap` with `RandomState`).
pub const DEFAULT_ROUNDS: u32 = 5;

/// The child's account of its run, next to its dumps.
pub(crate) const RESULT_FILE: &str = "result.json";

/// The process under Callgrind (`--perfbench-simulated DIR`): runs the one benchmark its
/// filter selects, a round per call of its function, and writes `DIR/result.json`.
pub(crate) fn child(suite: &str, dir: &Path, args: &Args) -> ExitCode {
    if !callgrind::running_on_valgrind() {
        eprintln!(
            "error: --perfbench-simulated is for the process that --simulate starts under \
             Valgrind; run with --simulate instead"
        );
        return ExitCode::from(2);
    }
    let chosen: Vec<Planned> = planned(suite)
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
    let mut throughput = None;
    let json = match simulated_rounds(p, rounds, dir, &mut throughput) {
        Ok(samples) => result_json(Outcome::Measured, None, throughput, &samples),
        Err((outcome, error)) => result_json(outcome, Some(&error), throughput, &[]),
    };
    if let Err(e) = write_result(dir, json.as_bytes()) {
        eprintln!(
            "error: cannot write {}: {e}",
            dir.join(RESULT_FILE).display()
        );
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}

/// `DIR/result.json`, through a temporary file renamed over it: the driver never reads half of
/// one.
fn write_result(dir: &Path, contents: &[u8]) -> std::io::Result<()> {
    let tmp = dir.join(format!(".{RESULT_FILE}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, contents)?;
    std::fs::rename(&tmp, dir.join(RESULT_FILE))
}

/// The result as the driver reads it: `{"outcome": ..., "error": ..., "throughput": ...,
/// "samples": [{"n": N, "per_pair": B, "body": [REGION, REGION], "empty": [REGION, REGION]},
/// ...]}`, each region `{"dump": D, "iterations": N, "pairs": P}`.
pub(crate) fn result_json(
    outcome: Outcome,
    error: Option<&str>,
    throughput: Option<Throughput>,
    samples: &[SimSample],
) -> String {
    let region = |r: &Region| {
        format!(
            "{{\"dump\":{},\"iterations\":{},\"pairs\":{}}}",
            r.dump, r.iterations, r.pairs
        )
    };
    let mut out = format!("{{\"outcome\":\"{}\",\"error\":", outcome.as_str());
    push_opt_str(&mut out, error);
    out.push_str(",\"throughput\":");
    push_throughput(&mut out, throughput);
    out.push_str(",\"samples\":[");
    push_list(&mut out, samples, |out, s| {
        out.push_str(&format!(
            "{{\"n\":{},\"per_pair\":{},\"body\":[{},{}],\"empty\":[{},{}]}}",
            s.n,
            s.per_pair,
            region(&s.body[0]),
            region(&s.body[1]),
            region(&s.empty[0]),
            region(&s.empty[1])
        ));
    });
    out.push_str("]}");
    out
}

/// Runs benchmark `p` for `rounds` rounds under Callgrind (the child's work), its dumps in
/// `dir`; `throughput` gets what the body set. The samples, or how it ended instead.
fn simulated_rounds(
    p: &Planned,
    rounds: u32,
    dir: &Path,
    throughput: &mut Option<Throughput>,
) -> Result<Vec<SimSample>, (Outcome, String)> {
    let mut sampler = Box::new(Sampler::simulated(Simulation::new(dir.to_path_buf())));
    for _ in 0..rounds {
        let mut bencher = Bencher::measuring(sampler);
        let (run, arg) = (p.run, p.arg);
        let outcome =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&mut bencher, arg)));
        if let Err(payload) = outcome {
            return Err((Outcome::Panicked, panic_message(payload.as_ref())));
        }
        *throughput = bencher.throughput_set().or(*throughput);
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
