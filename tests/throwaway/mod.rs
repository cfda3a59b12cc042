//! What the tests that build a throwaway downstream crate share (`tests/new_user.rs`,
//! `tests/downstream_forms.rs`, `tests/ci_workflow.rs`): the workspace's target directory, where
//! their crates live; the `perfbench` tool their lean bench binaries hand their runs to; writes
//! that keep cargo's fingerprints fresh; one test at a time within a test process; and a
//! command's output for a failure message.

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

/// Builds this checkout's `perfbench` tool (the `perfbench-cli` crate) in the running test's
/// profile and returns its directory, for `PATH`. (`CARGO_BIN_EXE_perfbench` exists only in the
/// `perfbench-cli` package's own tests.)
pub fn perfbench_tool_dir() -> PathBuf {
    // The test runs as target/<profile dir>/deps/<test>-HASH.
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(Path::parent).unwrap();
    let dir_name = profile_dir.file_name().unwrap().to_str().unwrap();
    let profile = if dir_name == "debug" { "dev" } else { dir_name };
    let workspace = env!("CARGO_MANIFEST_DIR");
    let out =
        std::process::Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .current_dir(workspace)
            .env("CARGO_TARGET_DIR", workspace_target())
            .env("CARGO_TERM_COLOR", "never")
            .args([
                "build",
                "--quiet",
                "-p",
                "perfbench-cli",
                "--bin",
                "perfbench",
            ])
            .args(["--profile", profile])
            .output()
            .unwrap();
    assert!(
        out.status.success(),
        "building the perfbench tool failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = workspace_target().join(dir_name);
    assert!(
        dir.join("perfbench").is_file(),
        "no {}/perfbench",
        dir.display()
    );
    dir
}

/// `PATH` with `dir` first.
pub fn path_with(dir: &Path) -> std::ffi::OsString {
    path_before(dir, &std::env::var_os("PATH").unwrap_or_default())
}

/// A `PATH` of `dir` and then `rest` (a `PATH` itself).
pub fn path_before(dir: &Path, rest: &std::ffi::OsStr) -> std::ffi::OsString {
    let mut path = std::ffi::OsString::from(dir);
    path.push(":");
    path.push(rest);
    path
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

/// A throwaway crate's directory, its target directory and the `PATH` its commands run with.
pub struct Crate {
    /// The crate's directory (its `Cargo.toml`).
    pub dir: PathBuf,
    /// Its `CARGO_TARGET_DIR`.
    pub target: PathBuf,
    /// `PATH` for its commands (with this checkout's `perfbench` tool first).
    pub path: std::ffi::OsString,
    /// No registry access: every dependency is in the lock file and cargo's cache.
    pub offline: bool,
}

impl Crate {
    /// `cargo ARGS` in the crate, without colour or backtraces.
    pub fn cargo(&self, args: &[&str]) -> Output {
        let mut command =
            std::process::Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        command
            .args(args)
            .current_dir(&self.dir)
            .env("PATH", &self.path)
            .env("CARGO_TARGET_DIR", &self.target)
            .env("CARGO_TERM_COLOR", "never")
            .env_remove("RUST_BACKTRACE");
        if self.offline {
            command.env("CARGO_NET_OFFLINE", "true");
        }
        command.output().unwrap()
    }

    /// A path for a JSON report under the target directory, unique to this test process, with
    /// nothing there yet.
    pub fn json_path(&self, what: &str) -> PathBuf {
        let path = self
            .target
            .join(format!("{what}-{}.json", std::process::id()));
        let _ = fs::remove_file(&path);
        path
    }
}
