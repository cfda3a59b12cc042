//! Where reports are kept between runs, for the bench binary's `--save-baseline`, `--baseline`
//! and the comparison with the previous run.
//!
//! It owns the files under the output directory and their locking; it never judges a change
//! ([`crate::verdict`]) or renders a report ([`crate::report`]).
//!
//! Under the output directory (`target/perfbench`):
//! - `<suite>.json`: the latest run of the suite, which the next run compares with by default
//!   (as criterion compares with its previous run). `--discard-baseline` leaves it as it was.
//! - `baselines/<NAME>/<suite>.json`: a saved baseline (`--save-baseline NAME`), the same
//!   document. Saved again from the same build (the same executable), it keeps the runs it had,
//!   up to [`BASELINE_RUNS`](crate::model::BASELINE_RUNS) in all, as `earlier_runs`
//!   ([`Report::keep_earlier_runs`]); from another build it is replaced. `perfbench compare`
//!   takes the directory.
//! - `history/<suite>.json`: the figures of the last runs of the current build, which widen
//!   its intervals ([`crate::history`]).
//! - `.<suite>.lock`: held for the whole run (`flock`), so two runs of one suite cannot
//!   interleave their writes; the second waits and says so.
//!
//! Every write is atomic ([`write_atomic`]): a full disk or a crash leaves the old file whole.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use crate::model::file::{load, write_atomic, LoadError, LoadProblem};
use crate::model::Report;

/// The reports of one output directory.
#[derive(Clone, Debug)]
pub struct Store {
    dir: PathBuf,
}

/// Why a baseline cannot be used. The message says what to do.
#[derive(Debug)]
pub enum BaselineError {
    /// The name cannot be a directory name.
    BadName(String),
    /// No baseline of that name holds this suite.
    Missing {
        /// The baseline's name.
        name: String,
        /// The file that was looked for.
        path: PathBuf,
        /// The baselines that exist for this suite.
        available: Vec<String>,
    },
    /// The file is there but does not read.
    Unreadable(LoadError),
    /// The file is a report of another suite.
    OtherSuite {
        /// The file.
        path: PathBuf,
        /// The suite it holds.
        found: String,
        /// The suite that was run.
        expected: String,
    },
}

impl fmt::Display for BaselineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BaselineError::BadName(name) => write!(
                f,
                "`{name}` cannot name a baseline: use letters, digits, `-`, `_` and `.` (not `.` or `..` alone)"
            ),
            BaselineError::Missing {
                name,
                path,
                available,
            } => {
                write!(
                    f,
                    "no baseline `{name}` for this suite ({} does not exist); save one with \
                     `cargo bench -- --save-baseline {name}`",
                    path.display()
                )?;
                if !available.is_empty() {
                    write!(f, "; saved baselines: {}", available.join(", "))?;
                }
                Ok(())
            }
            BaselineError::Unreadable(e) => write!(
                f,
                "{e}; save the baseline again (`--save-baseline`), or delete the file"
            ),
            BaselineError::OtherSuite {
                path,
                found,
                expected,
            } => write!(
                f,
                "{} is a report of suite `{found}`, not `{expected}`: save the baseline again",
                path.display()
            ),
        }
    }
}

impl std::error::Error for BaselineError {}

pub use perfbench::options::valid_name;

impl Store {
    /// The store in `dir` (usually `target/perfbench`).
    ///
    /// ```
    /// use perfbench_analysis::baseline::Store;
    /// use std::path::Path;
    ///
    /// let store = Store::new("target/perfbench");
    /// assert_eq!(store.latest_path("suite"), Path::new("target/perfbench/suite.json"));
    /// assert_eq!(store.baseline_path("main", "suite"), Path::new("target/perfbench/baselines/main/suite.json"));
    /// assert_eq!(store.executable_path("main", "suite"), Path::new("target/perfbench/baselines/main/suite.exe"));
    /// ```
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Store { dir: dir.into() }
    }

    /// `<dir>/<suite>.json`: the latest run.
    ///
    /// See [`Store::new`].
    pub fn latest_path(&self, suite: &str) -> PathBuf {
        self.dir.join(format!("{suite}.json"))
    }

    /// `<dir>/history/<suite>.json`: the run history ([`crate::history`]).
    ///
    /// ```
    /// use perfbench_analysis::baseline::Store;
    /// use std::path::Path;
    ///
    /// let store = Store::new("target/perfbench");
    /// assert_eq!(store.history_path("quickstart"), Path::new("target/perfbench/history/quickstart.json"));
    /// ```
    pub fn history_path(&self, suite: &str) -> PathBuf {
        self.dir.join("history").join(format!("{suite}.json"))
    }

    /// `<dir>/baselines/<name>/<suite>.json`.
    ///
    /// See [`Store::new`].
    pub fn baseline_path(&self, name: &str, suite: &str) -> PathBuf {
        self.dir
            .join("baselines")
            .join(name)
            .join(format!("{suite}.json"))
    }

    /// `<dir>/baselines/<name>/<suite>.exe`: the bench executable that saved the baseline, which
    /// `--paired NAME` runs beside the new build.
    ///
    /// See [`Store::new`].
    pub fn executable_path(&self, name: &str, suite: &str) -> PathBuf {
        self.dir
            .join("baselines")
            .join(name)
            .join(format!("{suite}.exe"))
    }

    /// Saves a copy of the executable `exe` with baseline `name` of `suite`, atomically.
    ///
    /// ```
    /// use perfbench_analysis::baseline::Store;
    ///
    /// # let dir = std::env::temp_dir().join(format!("perfbench-doc-exe-store-{}", std::process::id()));
    /// let store = Store::new(&dir);
    /// let copy = store.save_executable("main", "suite", &std::env::current_exe()?)?;
    /// assert_eq!(copy, store.executable_path("main", "suite"));
    /// assert_eq!(std::fs::read(&copy)?, std::fs::read(std::env::current_exe()?)?);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn save_executable(&self, name: &str, suite: &str, exe: &Path) -> std::io::Result<PathBuf> {
        let path = self.executable_path(name, suite);
        let bytes = std::fs::read(exe).map_err(|e| {
            std::io::Error::new(e.kind(), format!("cannot read {}: {e}", exe.display()))
        })?;
        crate::model::file::write_atomic_executable(&path, &bytes)?;
        Ok(path)
    }

    /// The baselines that hold `suite`, by name, sorted.
    ///
    /// ```
    /// use perfbench_analysis::baseline::{BaselineError, Store};
    /// use perfbench_analysis::model::{json::to_json, Config, Machine, Report};
    ///
    /// # let dir = std::env::temp_dir().join(format!("perfbench-doc-store-{}", std::process::id()));
    /// let store = Store::new(&dir);
    /// let report = Report::new("suite", Machine::default(), Config::default(), Vec::new());
    /// store.save_baseline("main", "suite", &to_json(&report))?;
    /// store.save_baseline("v1", "suite", &to_json(&report))?;
    /// assert_eq!(store.baselines("suite"), ["main", "v1"]);
    /// assert_eq!(store.baseline("main", "suite")?, report);
    /// let missing = store.baseline("nope", "suite").unwrap_err();
    /// assert!(matches!(&missing, BaselineError::Missing { available, .. } if available.len() == 2));
    /// assert!(store.previous("suite").is_none()); // no run has finished in `dir`
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn baselines(&self, suite: &str) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.dir.join("baselines"))
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok())
            .filter(|e| e.path().join(format!("{suite}.json")).is_file())
            .filter_map(|e| e.file_name().into_string().ok())
            .collect();
        perfbench::sorting::sort_by(&mut names, Ord::cmp);
        names
    }

    /// The previous run of `suite`: `None` when there is none; an error when its file does not
    /// read (the caller decides whether that matters).
    ///
    /// ```
    /// use perfbench_analysis::baseline::Store;
    /// use perfbench_analysis::model::{file::write_atomic, json::to_json, Config, Machine, Report};
    ///
    /// # let dir = std::env::temp_dir().join(format!("perfbench-doc-previous-{}", std::process::id()));
    /// let store = Store::new(&dir);
    /// assert!(store.previous("suite").is_none());
    /// let report = Report::new("suite", Machine::default(), Config::default(), Vec::new());
    /// write_atomic(&store.latest_path("suite"), to_json(&report).as_bytes())?;
    /// assert_eq!(store.previous("suite").unwrap()?, report);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn previous(&self, suite: &str) -> Option<Result<Report, BaselineError>> {
        let path = self.latest_path(suite);
        match load(&path) {
            Err(LoadError {
                problem: LoadProblem::Missing,
                ..
            }) => None,
            other => Some(check_suite(other, &path, suite)),
        }
    }

    /// The saved baseline `name` of `suite`.
    ///
    /// See [`Store::baselines`].
    pub fn baseline(&self, name: &str, suite: &str) -> Result<Report, BaselineError> {
        if !valid_name(name) {
            return Err(BaselineError::BadName(name.to_owned()));
        }
        let path = self.baseline_path(name, suite);
        match load(&path) {
            Err(LoadError {
                problem: LoadProblem::Missing,
                ..
            }) => Err(BaselineError::Missing {
                name: name.to_owned(),
                path,
                available: self.baselines(suite),
            }),
            other => check_suite(other, &path, suite),
        }
    }

    /// Saves `json` (a report of `suite`) as baseline `name`, atomically.
    ///
    /// See [`Store::baselines`].
    pub fn save_baseline(&self, name: &str, suite: &str, json: &str) -> std::io::Result<PathBuf> {
        if !valid_name(name) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                BaselineError::BadName(name.to_owned()).to_string(),
            ));
        }
        let path = self.baseline_path(name, suite);
        write_atomic(&path, json.as_bytes())?;
        Ok(path)
    }

    /// Takes the suite's lock, waiting for another run that holds it (`waiting` is called once
    /// before waiting). The lock is released when the returned value is dropped.
    ///
    /// ```
    /// use perfbench_analysis::baseline::Store;
    ///
    /// # let dir = std::env::temp_dir().join(format!("perfbench-doc-lock-{}", std::process::id()));
    /// let store = Store::new(&dir);
    /// let lock = store.lock("suite", |path| eprintln!("waiting for {}", path.display()))?;
    /// drop(lock); // released: the next run of the suite may write
    /// let _again = store.lock("suite", |_| unreachable!("nobody holds it"))?;
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn lock(&self, suite: &str, waiting: impl FnOnce(&Path)) -> std::io::Result<SuiteLock> {
        std::fs::create_dir_all(&self.dir)?;
        let path = self.dir.join(format!(".{suite}.lock"));
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)?;
        if !perfbench::sys::flock(&file, false)? {
            waiting(&path);
            perfbench::sys::flock(&file, true)?;
        }
        Ok(SuiteLock { _file: file })
    }
}

fn check_suite(
    loaded: Result<Report, LoadError>,
    path: &Path,
    suite: &str,
) -> Result<Report, BaselineError> {
    let report = loaded.map_err(BaselineError::Unreadable)?;
    if report.suite != suite {
        return Err(BaselineError::OtherSuite {
            path: path.to_path_buf(),
            found: report.suite,
            expected: suite.to_owned(),
        });
    }
    Ok(report)
}

/// The lock of one suite's files, held while this value lives.
#[derive(Debug)]
pub struct SuiteLock {
    _file: File,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixtures::synthetic_report;
    use crate::model::json::to_json;

    fn scratch(name: &str) -> Store {
        let dir =
            std::env::temp_dir().join(format!("perfbench-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Store::new(dir)
    }

    #[test]
    fn baselines_are_saved_listed_and_loaded() {
        let store = scratch("save");
        let report = synthetic_report();
        let json = to_json(&report);
        assert!(store.previous("demo").is_none());
        let path = store.save_baseline("main", "demo", &json).unwrap();
        assert!(path.ends_with("baselines/main/demo.json"));
        store.save_baseline("v1.2_rc-3", "demo", &json).unwrap();
        assert_eq!(store.baselines("demo"), ["main", "v1.2_rc-3"]);
        assert!(store.baselines("other").is_empty());
        assert_eq!(to_json(&store.baseline("main", "demo").unwrap()), json);

        let e = store.baseline("feature", "demo").unwrap_err().to_string();
        assert!(e.contains("no baseline `feature` for this suite"), "{e}");
        assert!(e.contains("--save-baseline feature"), "{e}");
        assert!(e.ends_with("saved baselines: main, v1.2_rc-3"), "{e}");
        for bad in ["", ".", "..", "a/b", "../x", "sp ace"] {
            assert!(!valid_name(bad), "{bad:?}");
            assert!(matches!(
                store.baseline(bad, "demo"),
                Err(BaselineError::BadName(_))
            ));
            assert!(store.save_baseline(bad, "demo", &json).is_err());
        }
        let e = store.baseline("main", "other").unwrap_err().to_string();
        assert!(e.contains("no baseline `main`"), "{e}");
        std::fs::remove_dir_all(&store.dir).unwrap();
    }

    #[test]
    fn a_bad_baseline_is_an_error_that_says_what_to_do_and_is_left_alone() {
        let store = scratch("bad");
        let path = store.baseline_path("main", "demo");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, b"{\"schema_version\": 9}").unwrap();
        let e = store.baseline("main", "demo").unwrap_err().to_string();
        assert!(e.contains("unsupported report schema_version 9"), "{e}");
        assert!(e.contains("save the baseline again"), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), b"{\"schema_version\": 9}");
        // Another suite's report under this suite's name.
        std::fs::write(&path, to_json(&synthetic_report())).unwrap();
        let e = store.baseline("main", "quickstart");
        assert!(e.is_err());
        std::fs::copy(&path, store.baseline_path("main", "quickstart")).unwrap();
        let e = store
            .baseline("main", "quickstart")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("is a report of suite `demo`, not `quickstart`"),
            "{e}"
        );
        // A directory where the file should be.
        std::fs::create_dir_all(store.latest_path("demo")).unwrap();
        let e = store.previous("demo").unwrap().unwrap_err().to_string();
        assert!(e.contains("is a directory"), "{e}");
        std::fs::remove_dir_all(&store.dir).unwrap();
    }

    #[test]
    fn the_lock_makes_a_second_run_wait() {
        let store = scratch("lock");
        let first = store
            .lock("demo", |_| panic!("nothing holds it yet"))
            .unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let other = store.clone();
        let waiter = std::thread::spawn(move || {
            let _second = other
                .lock("demo", |path| tx.send(path.to_path_buf()).unwrap())
                .unwrap();
        });
        let path = rx.recv().unwrap();
        assert!(path.ends_with(".demo.lock"));
        // Another suite is not blocked.
        drop(
            store
                .lock("other", |_| panic!("another suite's lock is free"))
                .unwrap(),
        );
        drop(first);
        waiter.join().unwrap();
        std::fs::remove_dir_all(&store.dir).unwrap();
    }
}
