//! Which `perfbench` tool a benchmark binary hands its run to, and building it when the machine
//! has none of the library's version.
//!
//! A benchmark binary measures; the `perfbench` tool (the `perfbench-cli` crate) analyses,
//! compares and reports. The tool must be of the library's own version (the stream between them
//! is versioned: [`crate::protocol::stream::VERSION`]). [`tool`] looks, in this order, for
//! 1. `$PERFBENCH_TOOL`, a path, taken as it is (a tool of another version refuses the run and
//!    prints the one command that installs the right one);
//! 2. `perfbench` on `PATH`, in `$CARGO_HOME/bin` or in `~/.cargo/bin`, when `perfbench
//!    --version` is this library's version (`cargo install perfbench-cli` puts it there);
//! 3. the tool this library built earlier, in the per-version cache shared by every project on
//!    the machine: `$PERFBENCH_CACHE_DIR`, else `$XDG_CACHE_HOME/perfbench`, else
//!    `~/.cache/perfbench`, then `tool/VERSION/bin/perfbench`;
//! 4. none of these: it builds the tool into that cache, once, with `cargo install`, from the
//!    very source this library was built from: the `perfbench-cli` crate beside this crate's
//!    source when there is one (a path or git dependency; the cache is then keyed by that
//!    directory too, and rebuilt incrementally, in a target directory of its own, when its
//!    sources change), else
//!    `perfbench-cli` of exactly this version from the registry. It tries offline first (no
//!    network when cargo's cache has the crates), prints what it does while it does it, and
//!    holds a lock so that two benchmark binaries build it once.
//!
//! Where the tool cannot be had (building turned off with `PERFBENCH_BUILD_TOOL=0`, no cargo,
//! no network and the crates not in cargo's cache, a read-only cache directory), [`tool`] says
//! why in a [`Missing`], and the run prints its estimates without the rest (see
//! [`super::stream`]).

use std::ffi::OsString;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// This library's version: the tool's must be the same.
pub(crate) const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The directory of the source this library was built from.
const SOURCE: &str = env!("CARGO_MANIFEST_DIR");

/// The environment variable that names the `perfbench` tool to start (a path).
pub const TOOL_VAR: &str = "PERFBENCH_TOOL";

/// The environment variable that names the cache directory (default
/// `$XDG_CACHE_HOME/perfbench` or `~/.cache/perfbench`).
pub const CACHE_VAR: &str = "PERFBENCH_CACHE_DIR";

/// The environment variable that turns the build of a missing tool off (`0`, `no`, `never`).
pub const BUILD_VAR: &str = "PERFBENCH_BUILD_TOOL";

/// Why no tool of this version could be had, and how to get one: one line for the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Missing(pub(crate) String);

/// The tool to hand this run to: found, or built now (see the module's documentation).
pub(crate) fn tool() -> Result<PathBuf, Missing> {
    if let Some(tool) = std::env::var_os(TOOL_VAR).filter(|t| !t.is_empty()) {
        return Ok(PathBuf::from(tool));
    }
    if let Some(tool) = installed() {
        return Ok(tool);
    }
    let source = ToolCrate::here();
    let cache = Cache::locate(&source).map_err(Missing)?;
    let slot = cache.slot(&source);
    let stamp = source.stamp();
    if slot.is_current(&stamp) {
        return Ok(slot.exe());
    }
    if let Ok(off @ ("0" | "no" | "never")) = std::env::var(BUILD_VAR).as_deref() {
        return Err(Missing(format!(
            "no `perfbench` tool of version {VERSION} is installed, and {BUILD_VAR}={off} forbids \
             building one: install it with `{}`",
            source.install_command()
        )));
    }
    build(&slot, &source, &stamp)
}

/// `perfbench` on `PATH` (or in cargo's bin directories) of this library's version.
fn installed() -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    if let Some(home) = std::env::var_os("CARGO_HOME") {
        dirs.push(Path::new(&home).join("bin"));
    }
    if let Some(home) = std::env::var_os("HOME") {
        dirs.push(Path::new(&home).join(".cargo/bin"));
    }
    dirs.into_iter()
        .map(|d| d.join("perfbench"))
        .filter(|p| is_executable(p))
        .find(|p| version_of(p).as_deref() == Some(VERSION))
}

/// The version `tool --version` prints (`perfbench 0.1.0`), if it runs.
fn version_of(tool: &Path) -> Option<String> {
    let out = Command::new(tool)
        .arg("--version")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let version = text.trim().strip_prefix("perfbench ")?;
    Some(version.split_whitespace().next()?.to_owned())
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Where this library's source came from, and so where the tool's comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
enum ToolCrate {
    /// `perfbench-cli` beside this crate (this workspace, a path or git dependency).
    Path(PathBuf),
    /// A registry: `perfbench-cli` of exactly [`VERSION`].
    Registry,
}

impl ToolCrate {
    fn here() -> ToolCrate {
        ToolCrate::beside(Path::new(SOURCE))
    }

    /// The `perfbench-cli` crate of this version beside `source` (this crate's directory), if any.
    fn beside(source: &Path) -> ToolCrate {
        let Some(dir) = source.parent().map(|p| p.join("perfbench-cli")) else {
            return ToolCrate::Registry;
        };
        let manifest = fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
        if manifest.contains("name = \"perfbench-cli\"") {
            ToolCrate::Path(dir)
        } else {
            ToolCrate::Registry
        }
    }

    /// What identifies the tool built from this source: the version, and for a path the
    /// directory and a fingerprint of its crates' files (sizes and times), which changes when
    /// they are edited.
    fn stamp(&self) -> String {
        match self {
            ToolCrate::Registry => format!("perfbench-cli {VERSION} (registry)\n"),
            ToolCrate::Path(dir) => {
                let root = dir.parent().unwrap_or(dir);
                let mut hash = Fnv::new();
                for krate in [
                    "perfbench",
                    "perfbench-macros",
                    "perfbench-analysis",
                    "perfbench-cli",
                ] {
                    fingerprint(&root.join(krate), &mut hash);
                }
                format!(
                    "perfbench-cli {VERSION} (path {})\nsources {:016x}\n",
                    dir.display(),
                    hash.0
                )
            }
        }
    }

    /// The cache slot's name: the version, and for a path a hash of the directory.
    fn slot_name(&self) -> String {
        match self {
            ToolCrate::Registry => VERSION.to_owned(),
            ToolCrate::Path(dir) => {
                let mut hash = Fnv::new();
                hash.write(dir.as_os_str().as_encoded_bytes());
                format!("{VERSION}-path-{:08x}", hash.0 as u32)
            }
        }
    }

    /// The command that installs the tool from this source.
    fn install_command(&self) -> String {
        match self {
            ToolCrate::Path(dir) => format!("cargo install --path {}", dir.display()),
            ToolCrate::Registry => format!("cargo install perfbench-cli --version ={VERSION}"),
        }
    }

    /// `cargo install`'s arguments that name this source.
    fn install_args(&self) -> Vec<OsString> {
        match self {
            ToolCrate::Path(dir) => vec!["--path".into(), dir.into()],
            ToolCrate::Registry => vec![
                "perfbench-cli".into(),
                "--version".into(),
                format!("={VERSION}").into(),
            ],
        }
    }
}

/// Adds the names, sizes and modification times of `Cargo.toml` and every file under `src/` of
/// the crate at `dir` to `hash`, in a fixed order.
fn fingerprint(dir: &Path, hash: &mut Fnv) {
    fn walk(path: &Path, hash: &mut Fnv) {
        let Ok(meta) = fs::metadata(path) else {
            return;
        };
        if meta.is_dir() {
            let mut entries: Vec<PathBuf> = fs::read_dir(path)
                .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
                .unwrap_or_default();
            entries.sort();
            for e in entries {
                walk(&e, hash);
            }
        } else {
            use std::os::unix::fs::MetadataExt;
            hash.write(path.as_os_str().as_encoded_bytes());
            hash.write(&meta.len().to_le_bytes());
            hash.write(&meta.mtime().to_le_bytes());
            hash.write(&meta.mtime_nsec().to_le_bytes());
        }
    }
    walk(&dir.join("Cargo.toml"), hash);
    walk(&dir.join("src"), hash);
}

/// FNV-1a, 64 bits: a fingerprint that is the same in every build of this library.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// The cache directory shared by every project on the machine.
struct Cache {
    root: PathBuf,
}

impl Cache {
    /// `$PERFBENCH_CACHE_DIR`, else `$XDG_CACHE_HOME/perfbench`, else `~/.cache/perfbench`.
    fn locate(source: &ToolCrate) -> Result<Cache, String> {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        let root = var(CACHE_VAR)
            .map(PathBuf::from)
            .or_else(|| var("XDG_CACHE_HOME").map(|d| Path::new(&d).join("perfbench")))
            .or_else(|| var("HOME").map(|d| Path::new(&d).join(".cache/perfbench")))
            .ok_or_else(|| {
                format!(
                    "no cache directory for the `perfbench` tool (neither {CACHE_VAR}, \
                     XDG_CACHE_HOME nor HOME is set): set {CACHE_VAR}, or install the tool with \
                     `{}`",
                    source.install_command()
                )
            })?;
        Ok(Cache { root })
    }

    fn slot(&self, source: &ToolCrate) -> Slot {
        Slot {
            dir: self.root.join("tool").join(source.slot_name()),
        }
    }
}

/// One version's tool in the cache: `DIR/bin/perfbench` and `DIR/source`, the stamp of the
/// source it was built from (written last: a slot without it is not built).
struct Slot {
    dir: PathBuf,
}

impl Slot {
    fn exe(&self) -> PathBuf {
        self.dir.join("bin").join("perfbench")
    }

    fn stamp_file(&self) -> PathBuf {
        self.dir.join("source")
    }

    /// The slot's own target directory, kept so that a rebuild is incremental. Never shared
    /// between slots: cargo judges a path crate fresh by its files' times, relative to the
    /// crate's directory, so two checkouts of this library built into one target directory
    /// could each get the other's compiled crates.
    fn target(&self) -> PathBuf {
        self.dir.join("target")
    }

    fn is_current(&self, stamp: &str) -> bool {
        is_executable(&self.exe())
            && fs::read_to_string(self.stamp_file()).is_ok_and(|s| s == stamp)
    }
}

/// Builds the tool into `slot` (under a lock: a second binary waits, then finds it built).
fn build(slot: &Slot, source: &ToolCrate, stamp: &str) -> Result<PathBuf, Missing> {
    let install = source.install_command();
    let cannot = |what: String| Missing(format!("{what}: install the tool with `{install}`"));
    fs::create_dir_all(&slot.dir).map_err(|e| {
        cannot(format!(
            "cannot create the `perfbench` tool's cache directory {}: {e}",
            slot.dir.display()
        ))
    })?;
    let lock_path = slot.dir.with_extension("lock");
    let _lock = Lock::take(&lock_path).map_err(|e| {
        cannot(format!(
            "cannot lock {} to build the `perfbench` tool: {e}",
            lock_path.display()
        ))
    })?;
    // Another benchmark binary may have built it while this one waited.
    if slot.is_current(stamp) {
        return Ok(slot.exe());
    }
    let _ = fs::remove_file(slot.stamp_file());
    eprintln!(
        "perfbench: building the `perfbench` tool {VERSION}, which analyses and reports the \
         runs, once for this version (from {}) into {} ...",
        match source {
            ToolCrate::Path(dir) => dir.display().to_string(),
            ToolCrate::Registry => format!("perfbench-cli {VERSION}"),
        },
        slot.dir.display()
    );
    let started = Instant::now();
    let mut outcome = cargo_install(slot, source, true);
    if let Err(Failure::Offline) = outcome {
        eprintln!("perfbench: cargo's cache lacks some of the tool's crates: fetching them");
        outcome = cargo_install(slot, source, false);
    }
    match outcome {
        Ok(()) => {}
        Err(Failure::Spawn(e)) => {
            return Err(cannot(format!(
                "cannot run cargo to build the `perfbench` tool: {e}"
            )))
        }
        Err(Failure::Offline | Failure::Failed) => {
            return Err(cannot(
                "building the `perfbench` tool failed (cargo's messages are above)".to_owned(),
            ))
        }
    }
    write_stamp(&slot.stamp_file(), stamp)
        .map_err(|e| cannot(format!("cannot write {}: {e}", slot.stamp_file().display())))?;
    eprintln!(
        "perfbench: built the `perfbench` tool in {:.1} s: {}",
        started.elapsed().as_secs_f64(),
        slot.exe().display()
    );
    Ok(slot.exe())
}

/// Writes the stamp through a temporary file and a rename: a slot has its whole stamp or none.
fn write_stamp(path: &Path, stamp: &str) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp");
    fs::write(&tmp, stamp)?;
    fs::rename(&tmp, path)
}

/// Why `cargo install` did not install the tool.
enum Failure {
    /// cargo could not be started.
    Spawn(std::io::Error),
    /// Offline, cargo's cache lacked a crate.
    Offline,
    /// Anything else (cargo said what).
    Failed,
}

/// Runs `cargo install` of the tool into `slot`, its messages shown as they come.
fn cargo_install(slot: &Slot, source: &ToolCrate, offline: bool) -> Result<(), Failure> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .arg("install")
        .args(source.install_args())
        .arg("--root")
        .arg(&slot.dir)
        .arg("--force")
        .env("CARGO_TARGET_DIR", slot.target())
        // A tool for people, not for a debugger: no debug info (a shorter build).
        .env("CARGO_PROFILE_RELEASE_DEBUG", "0")
        .env("CARGO_TERM_PROGRESS_WHEN", "never")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    // The benchmark's own build settings are not the tool's.
    for var in ["CARGO_BUILD_TARGET", "CARGO_ENCODED_RUSTFLAGS", "RUSTFLAGS"] {
        command.env_remove(var);
    }
    if offline {
        command.arg("--offline");
    }
    let mut child = command.spawn().map_err(Failure::Spawn)?;
    // cargo's messages go to this process's standard error as they come; kept to tell a crate
    // missing offline from another failure.
    let mut missing_offline = false;
    if let Some(stderr) = child.stderr.take() {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            missing_offline |= offline && line.contains("offline");
            eprintln!("{line}");
        }
    }
    match child.wait() {
        Ok(status) if status.success() => Ok(()),
        Ok(_) if missing_offline => Err(Failure::Offline),
        Ok(_) => Err(Failure::Failed),
        Err(e) => Err(Failure::Spawn(e)),
    }
}

/// An exclusive `flock(2)` on a file, held until dropped.
struct Lock {
    _file: fs::File,
}

impl Lock {
    fn take(path: &Path) -> std::io::Result<Lock> {
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)?;
        crate::sys::flock(&file, true)?;
        Ok(Lock { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_checkout_is_a_path_source_with_the_cli_beside_it() {
        let ToolCrate::Path(dir) = ToolCrate::here() else {
            panic!("this workspace has perfbench-cli beside perfbench");
        };
        assert!(dir.ends_with("perfbench-cli"), "{}", dir.display());
        let install = ToolCrate::here().install_command();
        assert!(install.starts_with("cargo install --path "), "{install}");
        assert!(install.ends_with("perfbench-cli"), "{install}");
    }

    #[test]
    fn a_crate_without_the_cli_beside_it_comes_from_the_registry() {
        let dir = std::env::temp_dir().join(format!("perfbench-provision-{}", std::process::id()));
        let krate = dir.join("perfbench-0.1.0");
        fs::create_dir_all(&krate).unwrap();
        assert_eq!(ToolCrate::beside(&krate), ToolCrate::Registry);
        // A directory named perfbench-cli that is another crate is not the tool's source.
        fs::create_dir_all(dir.join("perfbench-cli")).unwrap();
        fs::write(
            dir.join("perfbench-cli/Cargo.toml"),
            "[package]\nname = \"other\"\n",
        )
        .unwrap();
        assert_eq!(ToolCrate::beside(&krate), ToolCrate::Registry);
        fs::write(
            dir.join("perfbench-cli/Cargo.toml"),
            "[package]\nname = \"perfbench-cli\"\n",
        )
        .unwrap();
        assert_eq!(
            ToolCrate::beside(&krate),
            ToolCrate::Path(dir.join("perfbench-cli"))
        );
        let args = ToolCrate::Registry.install_args();
        assert_eq!(args[0], "perfbench-cli");
        assert_eq!(args[2], OsString::from(format!("={VERSION}")));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_path_sources_stamp_changes_when_a_file_changes_and_its_slot_names_the_directory() {
        let dir = std::env::temp_dir().join(format!("perfbench-stamp-{}", std::process::id()));
        let cli = dir.join("perfbench-cli");
        fs::create_dir_all(cli.join("src")).unwrap();
        fs::write(
            cli.join("Cargo.toml"),
            "[package]\nname = \"perfbench-cli\"\n",
        )
        .unwrap();
        fs::write(cli.join("src/main.rs"), "fn main() {}\n").unwrap();
        let source = ToolCrate::Path(cli.clone());
        let before = source.stamp();
        assert_eq!(source.stamp(), before, "the same files, the same stamp");
        fs::write(cli.join("src/main.rs"), "fn main() { println!(); }\n").unwrap();
        assert_ne!(source.stamp(), before, "an edit changes the stamp");
        let other = ToolCrate::Path(dir.join("elsewhere/perfbench-cli"));
        assert_ne!(source.slot_name(), other.slot_name());
        assert!(source.slot_name().starts_with(&format!("{VERSION}-path-")));
        assert_eq!(ToolCrate::Registry.slot_name(), VERSION);
        // Each slot builds in a target directory of its own.
        let cache = Cache {
            root: dir.join("cache"),
        };
        let (mine, theirs) = (cache.slot(&source), cache.slot(&other));
        assert_ne!(mine.target(), theirs.target());
        assert!(mine.target().starts_with(&mine.dir));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_slot_is_current_only_with_its_executable_and_the_same_stamp() {
        let dir = std::env::temp_dir().join(format!("perfbench-slot-{}", std::process::id()));
        let slot = Slot { dir: dir.clone() };
        assert!(!slot.is_current("s"));
        fs::create_dir_all(dir.join("bin")).unwrap();
        fs::write(slot.exe(), "#!/bin/sh\necho perfbench 0.0.0\n").unwrap();
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(slot.exe(), fs::Permissions::from_mode(0o755)).unwrap();
        }
        assert!(!slot.is_current("s"), "no stamp: not built");
        fs::write(slot.stamp_file(), "s").unwrap();
        assert!(slot.is_current("s"));
        assert!(!slot.is_current("t"), "another source");
        assert_eq!(version_of(&slot.exe()).as_deref(), Some("0.0.0"));
        fs::remove_dir_all(&dir).unwrap();
    }
}
