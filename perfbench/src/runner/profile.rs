//! `--profile`: each selected benchmark measured as usual, with a sampling event switched on
//! at the start of every measured bracket and off at its end, so the samples fall in the
//! measured region only (not the warm-up, the setup of batched inputs, or the harness between
//! samples). The samples go to `target/perfbench/profile/ID/perf.data`, which `perf report -i`
//! opens; the run prints each benchmark's hottest functions.
//!
//! Beside it: `stacks.folded`, the samples' call stacks from the benchmark down (the harness's
//! frames cut, see [`crate::profile::stacks`]), and `flame.svg`, their flame graph, which the
//! `perfbench` tool draws (`perfbench flame`; a benchmark binary does not link a renderer). Where
//! there is no tool the run prints the command that draws it. With `--branch-filter`,
//! `branches.txt` lists the hot taken branches and misprediction sites.
//!
//! The event is `cycles` where the machine has a CPU PMU and `cpu-clock` (the thread's CPU
//! time) otherwise, or `--profile-counter NAME`, at `--profile-frequency HZ` (4000 by default).
//! A profiled run writes no report and no baseline: switching the event costs two system calls
//! per bracket, which its own counts carry.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

use super::{output_dir, Job, RunCounters};
use crate::events::{self, Sysfs};
use crate::harness::bencher::Bencher;
use crate::harness::raw::{failure_text, Outcome};
use crate::machine::Machine;
use crate::profile::branch::BranchFilter;
use crate::profile::perfdata::{self, Features, Writer};
use crate::profile::stacks;
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
    let mut flames = FlameTool::default();
    let missing = super::for_each_body(chosen, &mut |p, body| {
        if status == ExitCode::from(2) {
            return;
        }
        match profile_one(p, &options, &mut counted, sysfs, &config, body, &mut flames) {
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
    flames: &mut FlameTool,
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
    let dir = path.parent().unwrap_or(Path::new("."));
    write_stacks(
        &p.id,
        &event_name,
        &recorded.chains,
        &mut symbols,
        dir,
        flames,
    )?;
    if options.branch_sample_type != 0 {
        let list = dir.join("branches.txt");
        let text = stacks::branches_text(&recorded.branches, &recorded.mispredicted, |a| {
            symbols.name_at(a)
        });
        std::fs::write(&list, text).map_err(|e| format!("cannot write {}: {e}", list.display()))?;
        println!("  branches: {}", list.display());
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

/// Folds the samples' call chains into `dir/stacks.folded` and has the tool draw them into
/// `dir/flame.svg`, saying where each went (or the command that draws it, without a tool).
fn write_stacks(
    id: &str,
    event: &str,
    chains: &stacks::Chains,
    symbols: &mut Symbolizer,
    dir: &Path,
    flames: &mut FlameTool,
) -> Result<(), String> {
    let folded = stacks::fold(id, chains, |a| symbols.name(a));
    let stacks_path = dir.join("stacks.folded");
    std::fs::write(&stacks_path, folded.text())
        .map_err(|e| format!("cannot write {}: {e}", stacks_path.display()))?;
    let svg = dir.join("flame.svg");
    // A graph of an earlier run must not pass for this one's.
    let _ = std::fs::remove_file(&svg);
    if folded.broken > 0 {
        println!(
            "  {} of {} samples ({:.1}%) have a call chain that reaches no harness frame (build \
             with RUSTFLAGS=\"-C force-frame-pointers=yes\"); they show under \"{}\"",
            folded.broken,
            folded.samples,
            100.0 * folded.broken as f64 / folded.samples.max(1) as f64,
            stacks::NO_HARNESS_FRAME
        );
    }
    if folded.samples == 0 {
        println!(
            "  stacks: {} (no samples: no flame graph)",
            stacks_path.display()
        );
        return Ok(());
    }
    let subtitle = format!(
        "{} samples of {event} in the measured region, harness frames cut",
        folded.samples
    );
    let flame = FlameArgs {
        folded: &stacks_path,
        svg: &svg,
        title: id,
        subtitle: &subtitle,
    };
    match flames.draw(&flame) {
        Ok(()) => println!(
            "  flame graph: {} (stacks: {})",
            svg.display(),
            stacks_path.display()
        ),
        Err(why) => println!(
            "  stacks: {}\n  no flame graph: {why}; draw it with\n    {}",
            stacks_path.display(),
            flame.command_line(Path::new("perfbench"))
        ),
    }
    Ok(())
}

/// What `perfbench flame` is asked to draw.
struct FlameArgs<'a> {
    folded: &'a Path,
    svg: &'a Path,
    title: &'a str,
    subtitle: &'a str,
}

impl FlameArgs<'_> {
    fn args(&self) -> Vec<std::ffi::OsString> {
        vec![
            "flame".into(),
            self.folded.into(),
            "-o".into(),
            self.svg.into(),
            "--title".into(),
            self.title.into(),
            "--subtitle".into(),
            self.subtitle.into(),
            "--count-name".into(),
            "samples".into(),
        ]
    }

    /// The command as a shell takes it.
    fn command_line(&self, tool: &Path) -> String {
        std::iter::once(tool.as_os_str().to_owned())
            .chain(self.args())
            .map(|a| shell_quoted(&a.to_string_lossy()))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// `s` as one word of a POSIX shell's command line.
fn shell_quoted(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c));
    if plain {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The `perfbench` tool that draws the flame graphs: looked for (or built) once, when the first
/// benchmark's stacks are written, as a normal run looks for it
/// ([`provision::tool`](super::provision)).
#[derive(Default)]
struct FlameTool {
    tool: Option<Result<PathBuf, String>>,
}

impl FlameTool {
    /// Runs `perfbench flame`; `Err` says why no graph was drawn.
    fn draw(&mut self, flame: &FlameArgs<'_>) -> Result<(), String> {
        let tool = self
            .tool
            .get_or_insert_with(|| super::provision::tool().map_err(|m| m.0))
            .clone()?;
        let out = Command::new(&tool)
            .args(flame.args())
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run {}: {e}", tool.display()))?;
        if out.status.success() && flame.svg.is_file() {
            Ok(())
        } else {
            let err = String::from_utf8_lossy(&out.stderr);
            Err(format!(
                "{} flame failed ({}): {}",
                tool.display(),
                out.status,
                err.lines().next().unwrap_or("").trim()
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_that_draws_a_flame_graph_is_quoted_for_a_shell() {
        let flame = FlameArgs {
            folded: Path::new("target/perfbench/profile/s/it's/stacks.folded"),
            svg: Path::new("target/perfbench/profile/s/it's/flame.svg"),
            title: "s/it's",
            subtitle: "12 samples of cpu-clock",
        };
        assert_eq!(
            flame.command_line(Path::new("perfbench")),
            "perfbench flame 'target/perfbench/profile/s/it'\\''s/stacks.folded' -o \
             'target/perfbench/profile/s/it'\\''s/flame.svg' --title 's/it'\\''s' \
             --subtitle '12 samples of cpu-clock' --count-name samples"
        );
        assert_eq!(shell_quoted(""), "''");
    }

    #[test]
    fn branches_txt_lists_the_sampled_branches_by_name() {
        use crate::profile::perfdata::executable_mappings;
        let maps = executable_mappings(&std::fs::read_to_string("/proc/self/maps").unwrap());
        let mut symbols = Symbolizer::new(maps);
        let here = shell_quoted as *const () as usize as u64;
        let text = stacks::branches_text(&[((here + 1, here + 2), 3)], &[(here + 1, 1)], |a| {
            symbols.name_at(a)
        });
        assert!(
            text.contains("shell_quoted+0x1 -> ") && text.contains("shell_quoted+0x2\n"),
            "{text}"
        );
    }
}
