//! Report files on disk: [`load`] reads one with every check a file from a user needs, and
//! [`write_atomic`] writes report and baseline files so that a reader never sees half a file.

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::json::{from_json, ReportError};
use super::Report;

/// The largest report file [`load`] reads: 256 MiB. A suite of 1,000 benchmarks with 5
/// counters of 100 samples each writes about 20 MiB; anything far larger is not a report.
pub const MAX_REPORT_BYTES: u64 = 256 << 20;

/// Why a report file could not be read. [`fmt::Display`] names the file and the problem.
#[derive(Debug)]
pub struct LoadError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong with it.
    pub problem: LoadProblem,
}

/// What is wrong with a report file.
#[derive(Debug)]
pub enum LoadProblem {
    /// It does not exist.
    Missing,
    /// It is a directory.
    Directory,
    /// It could not be read (permissions, I/O error).
    Io(io::Error),
    /// It is larger than [`MAX_REPORT_BYTES`].
    TooLarge {
        /// Its size in bytes (for a file that grows while read, the bytes read: one past the
        /// limit).
        bytes: u64,
    },
    /// It is not UTF-8 text: the first invalid byte is at this line and column.
    NotUtf8 {
        /// 1-based line.
        line: usize,
        /// 1-based column, in bytes.
        column: usize,
    },
    /// It is text but not a report this perfbench reads.
    Report(ReportError),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        match &self.problem {
            LoadProblem::Missing => write!(f, "{path}: no such file"),
            LoadProblem::Directory => write!(
                f,
                "{path}: is a directory, not a report file (a report is `target/perfbench/<suite>.json`)"
            ),
            LoadProblem::Io(e) => write!(f, "{path}: cannot read: {e}"),
            LoadProblem::TooLarge { bytes } => write!(
                f,
                "{path}: {bytes} bytes or more, larger than a report may be ({} MiB): not a perfbench report",
                MAX_REPORT_BYTES >> 20
            ),
            LoadProblem::NotUtf8 { line, column } => write!(
                f,
                "{path}: not UTF-8 text (invalid byte at line {line}, column {column}): not a perfbench report"
            ),
            LoadProblem::Report(e) => write!(f, "{path}: {e}"),
        }
    }
}

impl std::error::Error for LoadError {}

/// Reads the report at `path`: a missing file, a directory, a file over
/// [`MAX_REPORT_BYTES`], bytes that are not UTF-8 and every problem [`from_json`] finds are
/// each a [`LoadError`] that names the file. Never panics.
///
/// ```
/// use perfbench_analysis::model::file::{load, write_atomic, LoadProblem};
/// use perfbench_analysis::model::json::to_json;
/// # use perfbench_analysis::model::{Benchmark, Config, CounterResult, Machine, Outcome, Report, Source};
/// # use perfbench_analysis::stats::{estimate, StatsConfig};
/// # fn wall(values: &[f64]) -> CounterResult {
/// #     CounterResult {
/// #         name: "wall-time".into(), unit: "ns".into(), source: Source::Clock,
/// #         multiplexed: false, per_iteration: values.to_vec(), iterations: vec![1000; values.len()],
/// #         rounds: Vec::new(), overhead: 0.0,
/// #         estimate: estimate(values, None, &StatsConfig::default()), change: None,
/// #     }
/// # }
/// # let mut fib = Benchmark::new("quickstart/fib", "quickstart", "fib", None, Outcome::Measured);
/// # fib.counters.push(wall(&[10.0, 10.5, 9.5, 10.0]));
/// # let report = Report::new("quickstart", Machine::default(), Config::default(), vec![fib]);
/// # let dir = std::env::temp_dir().join(format!("perfbench-doc-load-{}", std::process::id()));
/// let path = dir.join("quickstart.json");
/// write_atomic(&path, to_json(&report).as_bytes())?;
/// assert_eq!(load(&path)?, report);
///
/// let missing = load(&dir.join("nothing.json")).unwrap_err();
/// assert!(matches!(missing.problem, LoadProblem::Missing));
/// assert!(missing.to_string().ends_with("nothing.json: no such file"));
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn load(path: &Path) -> Result<Report, LoadError> {
    let fail = |problem| LoadError {
        path: path.to_path_buf(),
        problem,
    };
    let bytes = read_limited(path).map_err(fail)?;
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        let (line, column) = position(&bytes[..e.valid_up_to()]);
        fail(LoadProblem::NotUtf8 { line, column })
    })?;
    from_json(text).map_err(|e| fail(LoadProblem::Report(e)))
}

/// The file's bytes, at most [`MAX_REPORT_BYTES`] of them.
fn read_limited(path: &Path) -> Result<Vec<u8>, LoadProblem> {
    let file = File::open(path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => LoadProblem::Missing,
        _ => LoadProblem::Io(e),
    })?;
    let meta = file.metadata().map_err(LoadProblem::Io)?;
    if meta.is_dir() {
        return Err(LoadProblem::Directory);
    }
    if meta.len() > MAX_REPORT_BYTES {
        return Err(LoadProblem::TooLarge { bytes: meta.len() });
    }
    let mut bytes = Vec::new();
    file.take(MAX_REPORT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::EISDIR) => LoadProblem::Directory,
            _ => LoadProblem::Io(e),
        })?;
    if bytes.len() as u64 > MAX_REPORT_BYTES {
        return Err(LoadProblem::TooLarge {
            bytes: bytes.len() as u64,
        });
    }
    Ok(bytes)
}

/// The 1-based line and column just after `prefix`.
fn position(prefix: &[u8]) -> (usize, usize) {
    let line = 1 + prefix.iter().filter(|&&b| b == b'\n').count();
    let column = 1 + prefix.len()
        - prefix
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
    (line, column)
}

/// Replaces the file at `path` with `contents` atomically: a reader (or a crash) sees either the
/// old file or the new one, never a mix.
///
/// Creates `path`'s parent directories, writes a temporary file next to `path` (same directory,
/// hence same file system), flushes it to disk (`fsync`), and renames it over `path`; then
/// flushes the directory so the rename itself survives a crash. On any error the temporary file
/// is removed and the old file, if any, is left untouched; the error says which step failed.
///
/// ```
/// use perfbench_analysis::model::file::write_atomic;
///
/// # let dir = std::env::temp_dir().join(format!("perfbench-doc-atomic-{}", std::process::id()));
/// let path = dir.join("baselines/main/suite.json"); // parent directories are created
/// write_atomic(&path, b"{}")?;
/// write_atomic(&path, b"{\"schema_version\": 1}")?; // replaces it in one rename
/// assert_eq!(std::fs::read(&path)?, b"{\"schema_version\": 1}");
/// assert_eq!(std::fs::read_dir(path.parent().unwrap())?.count(), 1); // no temporary left
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn write_atomic(path: &Path, contents: &[u8]) -> io::Result<()> {
    write_atomic_mode(path, contents, None)
}

/// [`write_atomic`] for a program: the file is executable (mode 0755) from the moment it
/// appears at `path`.
///
/// ```
/// use perfbench_analysis::model::file::write_atomic_executable;
/// use std::os::unix::fs::PermissionsExt;
///
/// # let dir = std::env::temp_dir().join(format!("perfbench-doc-exe-{}", std::process::id()));
/// let path = dir.join("bench-exe");
/// write_atomic_executable(&path, b"#!/bin/sh\n")?;
/// assert_eq!(std::fs::metadata(&path)?.permissions().mode() & 0o777, 0o755);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn write_atomic_executable(path: &Path, contents: &[u8]) -> io::Result<()> {
    write_atomic_mode(path, contents, Some(0o755))
}

fn write_atomic_mode(path: &Path, contents: &[u8], mode: Option<u32>) -> io::Result<()> {
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("`{}` does not name a file", path.display()),
        )
    })?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    fs::create_dir_all(dir).map_err(|e| context(e, "create the directory", dir))?;
    let (tmp, file) = create_temp(dir, name)?;
    let result = set_mode(&file, mode)
        .and_then(|()| fill(file, contents))
        .map_err(|e| context(e, "write", &tmp))
        .and_then(|()| fs::rename(&tmp, path).map_err(|e| context(e, "rename over", path)));
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    // Persist the directory entry. Not every file system supports syncing a directory, and
    // the data is already in place, so a failure here is not an error.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// `.NAME.PID.N.tmp` in `dir`, created exclusively (never clobbers another writer's file).
fn create_temp(dir: &Path, name: &std::ffi::OsStr) -> io::Result<(PathBuf, File)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let pid = std::process::id();
    let mut attempts = 0;
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(format!(".{pid}.{n}.tmp"));
        let tmp = dir.join(tmp_name);
        attempts += 1;
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            // A stale file from a crashed run with the same pid: try the next name.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempts < 100 => continue,
            Err(e) => return Err(context(e, "create a temporary file", &tmp)),
        }
    }
}

fn set_mode(file: &File, mode: Option<u32>) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    match mode {
        Some(m) => file.set_permissions(fs::Permissions::from_mode(m)),
        None => Ok(()),
    }
}

fn fill(mut file: File, contents: &[u8]) -> io::Result<()> {
    file.write_all(contents)?;
    file.sync_all()
}

fn context(e: io::Error, action: &str, path: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("cannot {action} {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixtures::synthetic_report;
    use crate::model::json::to_json;

    fn scratch(test: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("perfbench-report-{test}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn leftovers(dir: &Path) -> Vec<String> {
        fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect()
    }

    #[test]
    fn writes_replaces_and_creates_parents() {
        let dir = scratch("replace");
        let path = dir.join("a/b/report.json");
        write_atomic(&path, b"old").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"old");
        write_atomic(&path, b"new contents").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new contents");
        write_atomic(&path, b"").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"");
        assert!(leftovers(&dir.join("a/b")).is_empty());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn paths_without_a_file_name() {
        let e = write_atomic(Path::new(""), b"x").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        let e = write_atomic(Path::new("/"), b"x").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        let e = write_atomic(Path::new("a/.."), b"x").unwrap_err();
        assert!(e.to_string().contains("does not name a file"), "{e}");
    }

    #[test]
    fn errors_leave_the_old_file_and_no_temporary() {
        let dir = scratch("errors");
        // A parent that is a regular file: even root cannot create a directory there.
        let blocker = dir.join("blocker");
        fs::write(&blocker, b"i am a file").unwrap();
        let e = write_atomic(&blocker.join("report.json"), b"x").unwrap_err();
        assert!(e.to_string().contains("cannot create the directory"), "{e}");
        assert_eq!(fs::read(&blocker).unwrap(), b"i am a file");

        // The target is a non-empty directory: the rename fails after the temporary file was
        // written; the directory is untouched and the temporary file is gone.
        let target = dir.join("target.json");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("keep"), b"keep").unwrap();
        let e = write_atomic(&target, b"x").unwrap_err();
        assert!(e.to_string().contains("cannot rename over"), "{e}");
        assert_eq!(fs::read(target.join("keep")).unwrap(), b"keep");
        assert!(leftovers(&dir).is_empty(), "{:?}", leftovers(&dir));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn load_reads_a_report_and_names_the_file_in_every_error() {
        let dir = scratch("load");
        let good = dir.join("demo.json");
        let text = to_json(&synthetic_report());
        write_atomic(&good, text.as_bytes()).unwrap();
        assert_eq!(to_json(&load(&good).unwrap()), text);

        let e = |path: &Path| load(path).unwrap_err().to_string();
        let missing = dir.join("missing.json");
        assert_eq!(e(&missing), format!("{}: no such file", missing.display()));
        assert!(
            e(&dir).contains("is a directory, not a report file"),
            "{}",
            e(&dir)
        );

        let empty = dir.join("empty.json");
        fs::write(&empty, b"").unwrap();
        assert!(e(&empty).starts_with(&format!("{}: not valid JSON", empty.display())));

        let binary = dir.join("binary.json");
        fs::write(&binary, b"{\n  \"suite\": \"a\xff\"\n}").unwrap();
        assert!(
            e(&binary).ends_with(
                "not UTF-8 text (invalid byte at line 2, column 14): not a perfbench report"
            ),
            "{}",
            e(&binary)
        );

        let truncated = dir.join("truncated.json");
        fs::write(&truncated, &text.as_bytes()[..text.len() - 10]).unwrap();
        assert!(e(&truncated).contains("truncated"), "{}", e(&truncated));

        let newer = dir.join("newer.json");
        fs::write(
            &newer,
            text.replacen("\"schema_version\": 1", "\"schema_version\": 7", 1),
        )
        .unwrap();
        assert!(e(&newer).contains("unsupported report schema_version 7"));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn load_refuses_a_huge_file_without_reading_it_all() {
        let dir = scratch("huge");
        let huge = dir.join("huge.json");
        let f = File::create(&huge).unwrap();
        // Sparse: no disk space used.
        f.set_len(MAX_REPORT_BYTES + 4096).unwrap();
        let err = load(&huge).unwrap_err();
        assert!(
            matches!(err.problem, LoadProblem::TooLarge { bytes } if bytes == MAX_REPORT_BYTES + 4096)
        );
        assert!(err
            .to_string()
            .contains("larger than a report may be (256 MiB)"));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn positions_count_lines_and_bytes() {
        assert_eq!(position(b""), (1, 1));
        assert_eq!(position(b"ab"), (1, 3));
        assert_eq!(position(b"ab\n"), (2, 1));
        assert_eq!(position(b"ab\ncd"), (2, 3));
    }
}
