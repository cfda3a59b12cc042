//! The figures of a suite's recent runs of one build, so that a run's intervals show how far
//! runs of the same code stray from each other ([`stats::widen_by_runs`]).
//!
//! One process cannot see what stays the same for as long as it lives: on a shared machine a
//! run's figure can sit a few percent above or below the next run's for its whole life while
//! its own rounds agree. Runs of the same executable can: each counted run (not `--simulate`,
//! `--paired` or `--profile`, and not with `--discard-baseline`) appends each measured
//! counter's headline figure to `target/perfbench/history/<suite>.json`
//! ([`Store::history_path`](crate::baseline::Store::history_path)), and from the third
//! run of the same build on, every interval is widened to hold what those runs spread. The
//! file keeps the last [`KEPT_RUNS`] figures of each counter, and only for the executable that
//! wrote it: a rebuilt executable (another size, modification time or inode) starts afresh,
//! since an earlier build's figures say nothing about this one's repeatability.
//!
//! The file is a cache: one that does not read is replaced, with a note. This module owns that
//! file only; the widening itself is [`stats::widen_by_runs`]'s.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use serde_derive::{Deserialize, Serialize};

use crate::model::file::write_atomic;
use crate::model::{Benchmark, Outcome};
use crate::stats;

/// Figures kept per counter: the last ten runs', this one's included.
pub const KEPT_RUNS: usize = 10;

/// The version of the history file's layout.
pub const HISTORY_VERSION: u32 = 1;

pub use crate::model::Build;

/// A suite's recent figures, per benchmark id and counter name, oldest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct History {
    /// [`HISTORY_VERSION`].
    pub version: u32,
    /// The executable whose runs these are.
    pub build: Build,
    /// Benchmark id -> counter name -> the headline figures of its last runs.
    pub benchmarks: BTreeMap<String, BTreeMap<String, Vec<f64>>>,
}

impl History {
    /// An empty history of `build`.
    ///
    /// See [`History::widen`].
    pub fn new(build: Build) -> History {
        History {
            version: HISTORY_VERSION,
            build,
            benchmarks: BTreeMap::new(),
        }
    }

    /// The history at `path` if `build` wrote it, else an empty one for `build`. The `Err`
    /// carries the empty history and why the file did not read (a missing file is not an
    /// error; nor is a history of another build, which is simply replaced).
    ///
    /// ```
    /// use perfbench_analysis::history::{Build, History};
    ///
    /// let dir = std::env::temp_dir().join(format!("perfbench-doc-history-{}", std::process::id()));
    /// let path = dir.join("history").join("suite.json");
    /// let build = Build { len: 1, modified_ns: 2, inode: 3 };
    /// assert_eq!(History::load(&path, build), Ok(History::new(build)));
    /// std::fs::create_dir_all(path.parent().unwrap())?;
    /// std::fs::write(&path, "{ not json")?;
    /// let (empty, why) = History::load(&path, build).unwrap_err();
    /// assert_eq!(empty, History::new(build));
    /// assert!(why.contains("suite.json"), "{why}");
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn load(path: &Path, build: Build) -> Result<History, (History, String)> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(History::new(build)),
            Err(e) => return Err((History::new(build), format!("{}: {e}", path.display()))),
        };
        match serde_json::from_str::<History>(&text) {
            Ok(h) if h.version == HISTORY_VERSION && h.build == build => Ok(h),
            Ok(_) => Ok(History::new(build)),
            Err(e) => Err((History::new(build), format!("{}: {e}", path.display()))),
        }
    }

    /// The figures of earlier runs of counter `counter` of benchmark `id`, oldest first.
    ///
    /// See [`History::record`].
    pub fn earlier(&self, id: &str, counter: &str) -> &[f64] {
        self.benchmarks
            .get(id)
            .and_then(|c| c.get(counter))
            .map_or(&[], Vec::as_slice)
    }

    /// Widens the interval of every counter of `b` by the spread of its figures in this
    /// history and this run ([`stats::widen_by_runs`]).
    ///
    /// ```
    /// use perfbench_analysis::history::{Build, History};
    /// use perfbench_analysis::model::{Benchmark, CounterResult, Outcome};
    /// use perfbench_analysis::stats::{estimate, StatsConfig};
    /// use perfbench::Source;
    ///
    /// let run = |level: f64| {
    ///     let values: Vec<f64> = (0..30).map(|i| level + f64::from(i % 3) * 0.01).collect();
    ///     let mut b = Benchmark::new("s/f", "s", "f", None, Outcome::Measured);
    ///     b.counters.push(CounterResult {
    ///         name: "wall-time".into(), unit: "ns".into(), source: Source::Clock,
    ///         multiplexed: false, rounds: vec![30], iterations: vec![1; 30], overhead: 0.0,
    ///         estimate: estimate(&values, None, &StatsConfig::default()),
    ///         per_iteration: values, change: None,
    ///     });
    ///     b
    /// };
    /// let mut history = History::new(Build { len: 1, modified_ns: 2, inode: 3 });
    /// for level in [10.0, 10.4] {
    ///     history.record(&[run(level)]);
    /// }
    /// assert_eq!(history.earlier("s/f", "wall-time").len(), 2);
    /// let mut third = run(10.2);
    /// history.widen(&mut third);
    /// let e = third.counters[0].estimate.unwrap();
    /// assert_eq!(e.runs.unwrap().runs, 3);
    /// assert!(e.ci_low < 10.0 && e.ci_high > 10.4);
    /// ```
    pub fn widen(&self, b: &mut Benchmark) {
        for c in &mut b.counters {
            if let Some(e) = c.estimate.as_mut() {
                stats::widen_by_runs(e, self.earlier(&b.id, &c.name));
            }
        }
    }

    /// Appends the headline figure of every counter of every measured benchmark, keeping the
    /// last [`KEPT_RUNS`] of each.
    ///
    /// See [`History::widen`].
    pub fn record(&mut self, benchmarks: &[Benchmark]) {
        for b in benchmarks.iter().filter(|b| b.outcome == Outcome::Measured) {
            for c in &b.counters {
                let Some(point) = c.estimate.map(|e| e.point).filter(|p| p.is_finite()) else {
                    continue;
                };
                let figures = self
                    .benchmarks
                    .entry(b.id.clone())
                    .or_default()
                    .entry(c.name.clone())
                    .or_default();
                figures.push(point);
                // With the next run's own figure: the last KEPT_RUNS.
                if figures.len() > KEPT_RUNS - 1 {
                    figures.drain(..figures.len() - (KEPT_RUNS - 1));
                }
            }
        }
    }

    /// Writes the history to `path` atomically (creating its directory).
    ///
    /// See [`History::load`].
    pub fn save(&self, path: &Path) -> io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let json = serde_json::to_string(self).map_err(io::Error::other)?;
        write_atomic(path, json.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build() -> Build {
        Build {
            len: 10,
            modified_ns: 20,
            inode: 30,
        }
    }

    fn bench(id: &str, outcome: Outcome, points: &[(&str, f64)]) -> Benchmark {
        let mut b = Benchmark::new(id, "s", id, None, outcome);
        for &(name, point) in points {
            let values = vec![point; 5];
            b.counters.push(crate::model::CounterResult {
                name: name.into(),
                unit: "ns".into(),
                source: perfbench::Source::Clock,
                multiplexed: false,
                rounds: vec![5],
                iterations: vec![1; 5],
                overhead: 0.0,
                estimate: stats::estimate(&values, None, &stats::StatsConfig::default()),
                per_iteration: values,
                change: None,
            });
        }
        b
    }

    #[test]
    fn keeps_the_last_runs_of_measured_benchmarks_only() {
        let mut h = History::new(build());
        for i in 0..25 {
            h.record(&[
                bench("s/a", Outcome::Measured, &[("wall-time", f64::from(i))]),
                bench("s/p", Outcome::Panicked, &[("wall-time", 1.0)]),
            ]);
        }
        // Nine earlier figures: with this run's, the spread of the last ten.
        let kept: Vec<f64> = (16..25).map(f64::from).collect();
        assert_eq!(h.earlier("s/a", "wall-time"), kept);
        assert!(h.earlier("s/p", "wall-time").is_empty());
        assert!(h.earlier("s/a", "instructions").is_empty());
    }

    #[test]
    fn another_build_starts_afresh_and_a_round_trip_keeps_everything() {
        let dir = std::env::temp_dir().join(format!("perfbench-history-{}", std::process::id()));
        let path = dir.join("history").join("s.json");
        let mut h = History::new(build());
        h.record(&[bench("s/a", Outcome::Measured, &[("wall-time", 5.0)])]);
        h.save(&path).unwrap();
        assert_eq!(History::load(&path, build()), Ok(h.clone()));
        let other = Build {
            inode: 31,
            ..build()
        };
        assert_eq!(History::load(&path, other), Ok(History::new(other)));
        std::fs::write(&path, r#"{"version": 99}"#).unwrap();
        assert!(History::load(&path, build()).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_third_run_widens_by_the_spread_and_never_narrows() {
        let mut h = History::new(build());
        h.record(&[bench("s/a", Outcome::Measured, &[("wall-time", 100.0)])]);
        let mut second = bench("s/a", Outcome::Measured, &[("wall-time", 104.0)]);
        let before = second.counters[0].estimate;
        h.widen(&mut second);
        assert_eq!(
            second.counters[0].estimate, before,
            "two runs: nothing to tell"
        );
        h.record(&[second]);
        let mut third = bench("s/a", Outcome::Measured, &[("wall-time", 102.0)]);
        h.widen(&mut third);
        let e = third.counters[0].estimate.unwrap();
        let runs = e.runs.unwrap();
        assert_eq!(runs.runs, 3);
        // ln(100), ln(104), ln(102): standard deviation 0.0196; t(0.975, 2) = 4.303.
        assert!((runs.spread - 0.019_61).abs() < 1e-4, "{runs:?}");
        let half = 4.303 * runs.spread;
        assert!((e.ci_low - 102.0 * (-half).exp()).abs() < 0.01, "{e:?}");
        assert!((e.ci_high - 102.0 * half.exp()).abs() < 0.01, "{e:?}");
        // Runs that agree exactly leave the within-run interval as it was.
        let mut same = History::new(build());
        for _ in 0..3 {
            same.record(&[bench("s/a", Outcome::Measured, &[("wall-time", 7.0)])]);
        }
        let mut next = bench("s/a", Outcome::Measured, &[("wall-time", 7.0)]);
        let before = next.counters[0].estimate;
        same.widen(&mut next);
        let after = next.counters[0].estimate.unwrap();
        assert_eq!((after.ci_low, after.ci_high), {
            let b = before.unwrap();
            (b.ci_low, b.ci_high)
        });
        assert_eq!(after.runs.unwrap().spread, 0.0);
    }
}
