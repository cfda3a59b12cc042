//! Writing report and baseline files so that a reader never sees half a file.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Replaces the file at `path` with `contents` atomically: a reader (or a crash) sees either the
/// old file or the new one, never a mix.
///
/// Creates `path`'s parent directories, writes a temporary file next to `path` (same directory,
/// hence same file system), flushes it to disk (`fsync`), and renames it over `path`; then
/// flushes the directory so the rename itself survives a crash. On any error the temporary file
/// is removed and the old file, if any, is left untouched; the error says which step failed.
pub fn write_atomic(path: &Path, contents: &[u8]) -> io::Result<()> {
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
    let result = fill(file, contents)
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
}
