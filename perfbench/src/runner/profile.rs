//! `--profile`: each selected benchmark measured as usual, with a sampling event switched on
//! at the start of every measured bracket and off at its end, so the samples fall in the
//! measured region only (not the warm-up, the setup of batched inputs, or the harness between
//! samples). The samples go to `target/perfbench/profile/ID/perf.data`, which `perf report -i`
//! opens; the run prints each benchmark's hottest functions.
//!
//! The event is `cycles` where the machine has a CPU PMU and `cpu-clock` (the thread's CPU
//! time) otherwise, or `--profile-counter NAME`, at `--profile-frequency HZ` (4000 by default).
//! A profiled run writes no report and no baseline: switching the event costs two system calls
//! per bracket, which its own counts carry.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use super::{output_dir, Job, RunCounters};
use crate::events::{self, Sysfs};
use crate::harness::bencher::Bencher;
use crate::harness::raw::{failure_text, Outcome};
use crate::machine::Machine;
use crate::profile::branch::BranchFilter;
use crate::profile::perfdata::{self, Features, Writer};
use crate::profile::symbols::Symbolizer;
use crate::profile::{Period, Sampler, SamplingOptions};
use crate::runner::cli::Args;

/// How often the ring buffer is drained while the benchmark runs.
const DRAIN_EVERY: Duration = Duration::from_millis(20);
/// Functions listed per benchmark.
const HOTTEST: usize = 10;

/// `target/perfbench/profile/GROUP/NAME[/PARAMS]`: each part of the id made safe for a path.
///
/// ```
/// use perfbench::runner::{output_dir, profile::profile_dir};
///
/// let dir = profile_dir("quickstart/sum/64");
/// assert_eq!(dir, output_dir().join("profile/quickstart/sum/64"));
/// assert!(profile_dir("g/../etc").starts_with(output_dir().join("profile"))); // made safe
/// ```
pub fn profile_dir(id: &str) -> PathBuf {
    let mut dir = output_dir().join("profile");
    for part in id.split('/') {
        let safe: String = part
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        dir.push(match safe.as_str() {
            "" | "." | ".." => "_".to_owned(),
            _ => safe,
        });
    }
    dir
}

/// Profiles `chosen`. Exit 0, 1 when a benchmark failed or panicked, 2 when sampling could not
/// start or a file could not be written.
pub(crate) fn run(chosen: &[Job], args: &Args, sysfs: &Sysfs, machine: &Machine) -> ExitCode {
    if chosen.is_empty() {
        eprintln!("error: --profile: no benchmark matches the filter");
        return ExitCode::from(2);
    }
    let event = match &args.profile_counter {
        Some(name) => match events::parse(name, sysfs) {
            Ok(e) => Some(e),
            Err(e) => {
                eprintln!("error: --profile-counter: {e}");
                return ExitCode::from(2);
            }
        },
        None if machine.has_cpu_pmu() => events::parse("cycles", sysfs).ok(),
        None => None,
    };
    let branch_sample_type = match &args.branch_filter {
        Some(list) => match BranchFilter::parse(list) {
            Ok(f) => f.bits(),
            Err(e) => {
                eprintln!("error: --branch-filter: {e}");
                return ExitCode::from(2);
            }
        },
        None => 0,
    };
    let options = SamplingOptions {
        event,
        period: Period::Frequency(args.profile_frequency.unwrap_or(4000)),
        branch_sample_type,
        ..SamplingOptions::default()
    };
    let mut counted = match RunCounters::prepare(args, chosen, sysfs, machine) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let config = super::RunPlan::of(args);
    let mut status = ExitCode::SUCCESS;
    let missing = super::for_each_body(chosen, &mut |p, body| {
        if status == ExitCode::from(2) {
            return;
        }
        match profile_one(p, &options, &mut counted, sysfs, &config, body) {
            Ok(true) => {}
            Ok(false) => status = ExitCode::from(1),
            Err(e) => {
                eprintln!("error: {}: {e}", p.id);
                status = ExitCode::from(2);
            }
        }
    });
    if status == ExitCode::from(2) {
        return status;
    }
    for (p, why) in missing {
        println!(
            "{}: {}",
            p.id,
            failure_text(Outcome::Failed, Some(&why)).unwrap_or(why)
        );
        status = ExitCode::from(1);
    }
    status
}

/// Profiles one benchmark; `Ok(false)` when it failed or panicked.
fn profile_one(
    p: &Job,
    options: &SamplingOptions,
    counted: &mut RunCounters,
    sysfs: &Sysfs,
    config: &super::RunPlan,
    body: &mut dyn FnMut(&mut Bencher),
) -> Result<bool, String> {
    let sampler = Sampler::open(options).map_err(|e| e.to_string())?;
    let event_name = sampler.event_name().to_owned();
    let path = profile_dir(&p.id).join("perf.data");
    let mut writer = Writer::create(&path, vec![sampler.event_desc(&p.id)])
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let maps = writer
        .this_process()
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let (gate, recording) = sampler.record(writer, DRAIN_EVERY);
    counted.gate = Some(gate);
    let result = counted.measure_body(p, sysfs, config, body);
    counted.gate = None;
    let recorded = recording.finish()?;
    let features = Features {
        sample_time: recorded.time,
        build_ids: perfdata::build_ids(&maps),
        branch_stack: options.branch_sample_type != 0,
        ..Features::of_this_machine()
    };
    let path = recorded
        .writer
        .finish(&features)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let ok = result
        .iter()
        .all(|b| !matches!(b.outcome, Outcome::Panicked | Outcome::Failed));
    if let Some(b) = &result {
        if let Some(f) = failure_text(b.outcome, b.error.as_deref()) {
            println!("{}: {f}", p.id);
        }
    }
    let s = recorded.stats;
    println!(
        "{}: {} samples of {event_name} in the measured region -> {}",
        p.id,
        s.samples,
        path.display()
    );
    if s.lost > 0 || s.throttled > 0 || s.unthrottled > 0 {
        println!(
            "  {} samples lost in {} LOST records (the buffer was full); the kernel throttled \
             the sampling {} times and unthrottled it {} times",
            s.lost, s.lost_records, s.throttled, s.unthrottled
        );
    }
    let mut symbols = Symbolizer::new(maps);
    let total = recorded.ips.len().max(1) as f64;
    for (name, n) in symbols.hottest(&recorded.ips, HOTTEST) {
        println!("  {:5.1}%  {name}", 100.0 * n as f64 / total);
    }
    if options.branch_sample_type != 0 {
        let taken: u64 = recorded.branches.iter().map(|b| b.1).sum();
        println!("  hottest taken branches ({taken} in the samples' branch stacks):");
        for ((from, to), n) in recorded.branches.iter().take(HOTTEST / 2) {
            println!(
                "  {n:7}  {} -> {}",
                symbols.name_at(*from),
                symbols.name_at(*to)
            );
        }
        let missed: u64 = recorded.mispredicted.iter().map(|b| b.1).sum();
        println!("  top misprediction sites ({missed} mispredicted):");
        for (from, n) in recorded.mispredicted.iter().take(HOTTEST / 2) {
            println!("  {n:7}  {}", symbols.name_at(*from));
        }
    }
    Ok(ok)
}
