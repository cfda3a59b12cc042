//! Two runs compared: `perfbench compare BASE NEW`, and the data its outputs render.
//!
//! BASE and NEW are report files (`target/perfbench/<suite>.json`) or directories of them (a
//! baseline, `target/perfbench/baselines/NAME/`, or `target/perfbench` itself): [`load_side`]
//! reads either. [`compare`] matches suites by name, benchmarks by id and counters by name,
//! and judges every counter present on both sides with the library's
//! [`counter_change_over_runs`] (the rule a benchmark run applies to each counter, with the
//! same [`Settings`]; a side that holds earlier runs of its build, as a baseline saved several
//! times does, has them pooled with its own). Anything present on one side only is reported as added or removed, never as
//! a failure; counters that cannot be compared (different units, a benchmark that panicked on
//! one side) are reported with the reason. Different machine fingerprints
//! ([`Machine::differences`](perfbench_analysis::model::Machine::differences)), and a benchmark
//! whose body ran on another number of threads (its counters are sums over the threads), become
//! warnings.
//!
//! The result is the library's [`Comparison`] (the document type, whose schema
//! `perfbench-analysis/schema/compare-v1.schema.json` the library's tests generate), which
//! [`render`] renders as text, Markdown or JSON and [`html`] as HTML pages.
//!
//! This lives in the tool, not the library: a benchmark build never compiles it.

pub mod html;
pub mod render;

use std::fmt;
use std::path::{Path, PathBuf};

use perfbench_analysis::model::file::{self, LoadError};
use perfbench_analysis::model::{
    Benchmark, Change, CounterResult, Method, Outcome, Report, Verdict,
};
use perfbench_analysis::stats;
use perfbench_analysis::verdict::{
    as_runs, counter_change_over_runs, counter_runs, BenchComparison, Comparison,
    CounterComparison, Figure, Presence, Settings, SuiteComparison, Summary,
    COMPARISON_SCHEMA_VERSION,
};

/// One side of a comparison as given on the command line.
#[derive(Clone, Debug)]
pub struct Side {
    /// The path as given.
    pub path: PathBuf,
    /// Whether it is a directory of reports.
    pub directory: bool,
    /// Its reports, one per suite, with the file each came from.
    pub reports: Vec<(PathBuf, Report)>,
}

/// Why a comparison could not be made. Every variant names the file or directory at fault.
#[derive(Debug)]
pub enum CompareError {
    /// A report file could not be read.
    Load(LoadError),
    /// A directory could not be listed.
    Directory {
        /// The directory.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// A directory holds no report.
    Empty {
        /// The directory.
        path: PathBuf,
    },
    /// Two files of one directory are reports of the same suite.
    DuplicateSuite {
        /// The suite.
        suite: String,
        /// The two files.
        files: (PathBuf, PathBuf),
    },
    /// The two sides are reports of different suites, or a directory lacks the suite of a file.
    SuiteMismatch {
        /// What does not match, in words.
        message: String,
    },
}

impl fmt::Display for CompareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompareError::Load(e) => write!(f, "{e}"),
            CompareError::Directory { path, message } => {
                write!(f, "{}: cannot list the directory: {message}", path.display())
            }
            CompareError::Empty { path } => write!(
                f,
                "{}: no report (*.json) in this directory; save one with `cargo bench -- \
                 --save-baseline NAME`, or pass a report file",
                path.display()
            ),
            CompareError::DuplicateSuite { suite, files } => write!(
                f,
                "{} and {} are both reports of suite `{suite}`: a directory holds one report per suite",
                files.0.display(),
                files.1.display()
            ),
            CompareError::SuiteMismatch { message } => f.write_str(message),
        }
    }
}

impl std::error::Error for CompareError {}

/// Reads one side: a report file, or every `*.json` report directly inside a directory (in file
/// name order; subdirectories such as `baselines/` are not entered).
pub fn load_side(path: &Path) -> Result<Side, CompareError> {
    if !path.is_dir() {
        let report = file::load(path).map_err(CompareError::Load)?;
        return Ok(Side {
            path: path.to_path_buf(),
            directory: false,
            reports: vec![(path.to_path_buf(), report)],
        });
    }
    let entries = std::fs::read_dir(path).map_err(|e| CompareError::Directory {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json") && p.is_file())
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(CompareError::Empty {
            path: path.to_path_buf(),
        });
    }
    let mut reports: Vec<(PathBuf, Report)> = Vec::new();
    for f in files {
        let report = file::load(&f).map_err(CompareError::Load)?;
        if let Some((other, _)) = reports.iter().find(|(_, r)| r.suite == report.suite) {
            return Err(CompareError::DuplicateSuite {
                suite: report.suite,
                files: (other.clone(), f),
            });
        }
        reports.push((f, report));
    }
    Ok(Side {
        path: path.to_path_buf(),
        directory: true,
        reports,
    })
}

/// Compares two sides. Errors when two report files are of different suites, or when a
/// directory lacks the suite of a file on the other side.
pub fn compare(base: &Side, new: &Side, settings: &Settings) -> Result<Comparison, CompareError> {
    let pairs = pair_suites(base, new)?;
    let mut warnings = Vec::new();
    let mut suites = Vec::new();
    for (b, n) in pairs {
        match (b, n) {
            (Some(b), Some(n)) => {
                let diffs = b.machine.differences(&n.machine);
                if !diffs.is_empty() {
                    warnings.push(format!(
                        "suite `{}` ran on different machines ({}): its counts may differ for that reason alone",
                        n.suite,
                        diffs.join("; ")
                    ));
                }
                warnings.extend(thread_differences(b, n));
                suites.push(compare_suite(b, n, settings));
            }
            (None, Some(n)) => suites.push(one_sided(n, Presence::Added)),
            (Some(b), None) => suites.push(one_sided(b, Presence::Removed)),
            (None, None) => {}
        }
    }
    let summary = summarize(&suites);
    Ok(Comparison {
        schema_version: COMPARISON_SCHEMA_VERSION,
        perfbench_version: env!("CARGO_PKG_VERSION").to_owned(),
        base: base.path.display().to_string(),
        new: new.path.display().to_string(),
        warnings,
        summary,
        suites,
    })
}

/// A warning for each benchmark of both reports whose body ran on another number of threads
/// (a body that is not threaded counts as one): its counters are summed over the threads, so
/// they differ for that reason alone.
fn thread_differences(base: &Report, new: &Report) -> Vec<String> {
    let count = |b: &Benchmark| b.threads.unwrap_or(1);
    let on = |n: u32| match n {
        1 => "on one thread".to_owned(),
        n => format!("on {n} threads"),
    };
    new.benchmarks
        .iter()
        .filter_map(|n| {
            let b = base.bench(&n.id)?;
            (count(b) != count(n)).then(|| {
                format!(
                    "suite `{}`: {} ran {} in BASE and {} in NEW: its counters are summed over \
                     the threads, so they differ for that reason alone",
                    new.suite,
                    n.id,
                    on(count(b)),
                    on(count(n))
                )
            })
        })
        .collect()
}

/// How many counters and benchmarks of `suites` ended each way.
fn summarize(suites: &[SuiteComparison]) -> Summary {
    let mut summary = Summary::default();
    for b in suites.iter().flat_map(|s| &s.benchmarks) {
        match b.presence {
            Presence::Added => summary.added += 1,
            Presence::Removed => summary.removed += 1,
            Presence::NotComparable => summary.not_comparable += 1,
            Presence::Compared => {
                for c in &b.counters {
                    match (c.presence, c.verdict()) {
                        (_, Some(Verdict::Regressed)) => summary.regressed += 1,
                        (_, Some(Verdict::Improved)) => summary.improved += 1,
                        (_, Some(Verdict::Unchanged)) => summary.unchanged += 1,
                        (Presence::NotComparable, None) => summary.not_comparable += 1,
                        _ => {}
                    }
                }
            }
        }
    }
    summary
}

/// The comparisons a side's reports carry themselves: the changes a run recorded when it was
/// compared as it ran (with the previous run, `--baseline NAME`, or `--paired NAME`, whose
/// paired verdict no pair of reports can recompute). BASE is the baseline each report names.
/// A counter without a recorded change is reported as not comparable; a report without any is
/// an error that says what to give instead.
pub fn recorded(side: &Side) -> Result<Comparison, CompareError> {
    let mut warnings = Vec::new();
    let mut suites = Vec::new();
    let mut names = Vec::new();
    for (path, report) in &side.reports {
        let any = report
            .benchmarks
            .iter()
            .flat_map(|b| &b.counters)
            .any(|c| c.change.is_some());
        let Some(base) = report.baseline.as_ref().filter(|_| any) else {
            return Err(CompareError::SuiteMismatch {
                message: format!(
                    "{}: this report carries no comparison (it ran without a baseline, a previous \
                     run or --paired): give two reports, BASE and NEW",
                    path.display()
                ),
            });
        };
        if !names.contains(&base.name) {
            names.push(base.name.clone());
        }
        warnings.extend(
            base.warnings
                .iter()
                .map(|w| format!("suite `{}`: {w}", report.suite)),
        );
        let benchmarks = report
            .benchmarks
            .iter()
            .map(|b| {
                if let Some(reason) = unmeasured(b, "NEW") {
                    return BenchComparison {
                        id: b.id.clone(),
                        presence: Presence::NotComparable,
                        reason: Some(reason),
                        counters: Vec::new(),
                    };
                }
                let counters = b.counters.iter().map(recorded_counter).collect();
                BenchComparison {
                    id: b.id.clone(),
                    presence: Presence::Compared,
                    reason: None,
                    counters,
                }
            })
            .collect();
        suites.push(SuiteComparison {
            suite: report.suite.clone(),
            presence: Presence::Compared,
            benchmarks,
            base_runs: base.runs as usize,
            new_runs: 1,
        });
    }
    Ok(Comparison {
        schema_version: COMPARISON_SCHEMA_VERSION,
        perfbench_version: env!("CARGO_PKG_VERSION").to_owned(),
        base: names.join(", "),
        new: side.path.display().to_string(),
        warnings,
        summary: summarize(&suites),
        suites,
    })
}

/// A counter's recorded change. The figures are the ones the change holds: the baseline's
/// (`change.baseline`, with no interval of its own) and the new one implied by the ratio (with
/// the ratio's interval), or the new run's estimate where there is no ratio.
fn recorded_counter(c: &CounterResult) -> CounterComparison {
    let Some(change) = c.change else {
        return CounterComparison {
            name: c.name.clone(),
            unit: c.unit.clone(),
            presence: Presence::NotComparable,
            reason: Some("no change recorded for this counter".to_owned()),
            base: None,
            new: figure(c),
            change: None,
        };
    };
    let base = change.baseline;
    let new = match change.ratio {
        Some(r) => Some(Figure {
            point: base * r,
            ci_low: base * change.ci_low.unwrap_or(r),
            ci_high: base * change.ci_high.unwrap_or(r),
        }),
        None => figure(c),
    };
    CounterComparison {
        name: c.name.clone(),
        unit: c.unit.clone(),
        presence: Presence::Compared,
        reason: None,
        base: Some(Figure {
            point: base,
            ci_low: base,
            ci_high: base,
        }),
        new,
        change: Some(change),
    }
}

type Pair<'a> = (Option<&'a Report>, Option<&'a Report>);

/// The suites of both sides, matched by name: NEW's order, then BASE's leftovers.
fn pair_suites<'a>(base: &'a Side, new: &'a Side) -> Result<Vec<Pair<'a>>, CompareError> {
    let find = |side: &'a Side, suite: &str| {
        side.reports
            .iter()
            .map(|(_, r)| r)
            .find(|r| r.suite == suite)
    };
    match (base.directory, new.directory) {
        (false, false) => {
            let (b, n) = (&base.reports[0].1, &new.reports[0].1);
            if b.suite != n.suite {
                return Err(CompareError::SuiteMismatch {
                    message: format!(
                        "{} is a report of suite `{}` but {} of suite `{}`: compare two reports \
                         of one suite, or two baseline directories",
                        base.path.display(),
                        b.suite,
                        new.path.display(),
                        n.suite
                    ),
                });
            }
            Ok(vec![(Some(b), Some(n))])
        }
        (true, false) | (false, true) => {
            let (file, dir) = if base.directory {
                (new, base)
            } else {
                (base, new)
            };
            let report = &file.reports[0].1;
            let other = find(dir, &report.suite).ok_or_else(|| CompareError::SuiteMismatch {
                message: format!(
                    "{} has no report of suite `{}` (the suite of {}); it has: {}",
                    dir.path.display(),
                    report.suite,
                    file.path.display(),
                    suite_list(dir)
                ),
            })?;
            Ok(if base.directory {
                vec![(Some(other), Some(report))]
            } else {
                vec![(Some(report), Some(other))]
            })
        }
        (true, true) => {
            let mut pairs: Vec<Pair<'a>> = new
                .reports
                .iter()
                .map(|(_, n)| (find(base, &n.suite), Some(n)))
                .collect();
            for (_, b) in &base.reports {
                if find(new, &b.suite).is_none() {
                    pairs.push((Some(b), None));
                }
            }
            Ok(pairs)
        }
    }
}

fn suite_list(side: &Side) -> String {
    let names: Vec<String> = side
        .reports
        .iter()
        .map(|(_, r)| format!("`{}`", r.suite))
        .collect();
    names.join(", ")
}

/// A suite on one side only: every benchmark added or removed.
fn one_sided(report: &Report, presence: Presence) -> SuiteComparison {
    let (base_runs, new_runs) = match presence {
        Presence::Removed => (report.runs(), 0),
        _ => (0, report.runs()),
    };
    SuiteComparison {
        suite: report.suite.clone(),
        presence,
        base_runs,
        new_runs,
        benchmarks: report
            .benchmarks
            .iter()
            .map(|b| BenchComparison {
                id: b.id.clone(),
                presence,
                reason: None,
                counters: Vec::new(),
            })
            .collect(),
    }
}

fn compare_suite(base: &Report, new: &Report, settings: &Settings) -> SuiteComparison {
    let mut benchmarks: Vec<BenchComparison> = new
        .benchmarks
        .iter()
        .map(|n| match base.bench(&n.id) {
            Some(b) => compare_bench((base, b), (new, n), settings),
            None => BenchComparison {
                id: n.id.clone(),
                presence: Presence::Added,
                reason: None,
                counters: Vec::new(),
            },
        })
        .collect();
    for b in &base.benchmarks {
        if new.bench(&b.id).is_none() {
            benchmarks.push(BenchComparison {
                id: b.id.clone(),
                presence: Presence::Removed,
                reason: None,
                counters: Vec::new(),
            });
        }
    }
    SuiteComparison {
        suite: new.suite.clone(),
        presence: Presence::Compared,
        benchmarks,
        base_runs: base.runs(),
        new_runs: new.runs(),
    }
}

/// Why a benchmark has nothing to compare on one side, if so.
fn unmeasured(b: &Benchmark, side: &str) -> Option<String> {
    match b.outcome {
        Outcome::Measured => None,
        Outcome::Tested => Some(format!("{side} ran it as a test only (no measurement)")),
        Outcome::Panicked | Outcome::Failed => {
            Some(format!("{side}: {}", b.failure().unwrap_or_default()))
        }
    }
}

/// One benchmark, each side given with its report (whose earlier runs of the same build are
/// pooled with it).
fn compare_bench(
    (base_report, base): (&Report, &Benchmark),
    (new_report, new): (&Report, &Benchmark),
    settings: &Settings,
) -> BenchComparison {
    if let Some(reason) = unmeasured(base, "BASE").or_else(|| unmeasured(new, "NEW")) {
        return BenchComparison {
            id: new.id.clone(),
            presence: Presence::NotComparable,
            reason: Some(reason),
            counters: Vec::new(),
        };
    }
    let judged_here = judged_against(new_report, base_report);
    let mut counters: Vec<CounterComparison> = new
        .counters
        .iter()
        .map(|n| match base.counter(&n.name) {
            Some(b) => compare_counter(
                (b, &base_report.earlier_figures(&base.id, &b.name)),
                (n, &new_report.earlier_figures(&new.id, &n.name)),
                settings,
                n.change
                    .filter(|c| judged_here && c.method == Method::Paired),
            ),
            None => CounterComparison {
                name: n.name.clone(),
                unit: n.unit.clone(),
                presence: Presence::Added,
                reason: None,
                base: None,
                new: figure(n),
                change: None,
            },
        })
        .collect();
    for b in &base.counters {
        if new.counter(&b.name).is_none() {
            counters.push(CounterComparison {
                name: b.name.clone(),
                unit: b.unit.clone(),
                presence: Presence::Removed,
                reason: None,
                base: figure(b),
                new: None,
                change: None,
            });
        }
    }
    BenchComparison {
        id: new.id.clone(),
        presence: Presence::Compared,
        reason: None,
        counters,
    }
}

fn figure(c: &CounterResult) -> Option<Figure> {
    c.estimate.map(|e| Figure {
        point: e.point,
        ci_low: e.ci_low,
        ci_high: e.ci_high,
    })
}

/// Whether `new_report` was judged as it ran against `base_report` itself: the baseline it
/// names has `base_report`'s build ([`BaselineRef::build`](perfbench_analysis::model::BaselineRef::build)).
fn judged_against(new_report: &Report, base_report: &Report) -> bool {
    let named = new_report.baseline.as_ref().and_then(|b| b.build);
    named.is_some() && named == base_report.build
}

/// One counter, each side with the round figures of its earlier runs of the same build;
/// `paired`: the change a paired run settled as the new side ran against this very baseline
/// (`runner::undecided`), which stands: no pair of reports recomputes it.
fn compare_counter(
    (base, base_earlier): (&CounterResult, &[&[f64]]),
    (new, new_earlier): (&CounterResult, &[&[f64]]),
    settings: &Settings,
    paired: Option<Change>,
) -> CounterComparison {
    let (presence, reason, change) = match paired {
        Some(change) => (Presence::Compared, None, Some(change)),
        None => match counter_change_over_runs(base, base_earlier, new, new_earlier, settings) {
            Ok(change) => (Presence::Compared, None, Some(change)),
            Err(reason) => (Presence::NotComparable, Some(reason), None),
        },
    };
    // With rounds on both sides the change compares the floors (over each side's runs): show
    // those.
    let floor = |c: &CounterResult, earlier: &[&[f64]]| {
        stats::rounds::floor_of_runs(&as_runs(&counter_runs(c, earlier)))
    };
    let floors = match (floor(base, base_earlier), floor(new, new_earlier)) {
        (Some(b), Some(n)) => Some((b, n)),
        _ => None,
    };
    let with_floor = |c: &CounterResult, floor: Option<f64>| {
        figure(c).map(|f| Figure {
            point: floor.unwrap_or(f.point),
            ..f
        })
    };
    CounterComparison {
        name: new.name.clone(),
        unit: new.unit.clone(),
        presence,
        reason,
        base: with_floor(base, floors.map(|f| f.0)),
        new: with_floor(new, floors.map(|f| f.1)),
        change,
    }
}

#[cfg(test)]
mod tests;
