//! What the tests that build a throwaway downstream crate share (`tests/new_user.rs`,
//! `tests/downstream_forms.rs`): the workspace's target directory, where their crates live;
//! writes that keep cargo's fingerprints fresh; one test at a time within a test process; and
//! a command's output for a failure message.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::{Mutex, MutexGuard};

static SERIAL: Mutex<()> = Mutex::new(());

/// Serialises the tests of one test process (runs must not share the machine's cores, nor the
/// suite's reports); a poisoned lock (a failed test) does not fail the others.
pub fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// The workspace's target directory (the parent of `CARGO_TARGET_TMPDIR`).
pub fn workspace_target() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Writes `contents` to `path` unless it already holds them (an unchanged mtime keeps cargo's
/// fingerprints fresh).
pub fn write_if_changed(path: &Path, contents: &str) {
    if fs::read_to_string(path).ok().as_deref() != Some(contents) {
        fs::write(path, contents).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
    }
}

/// A command's status, stdout and stderr, for a failure message.
pub fn show(out: &Output) -> String {
    format!(
        "status: {}\n--- stdout\n{}--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
