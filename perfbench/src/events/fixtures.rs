//! Fake sysfs trees for tests: a builder that writes `<root>/<pmu>/type`, `cpus`, `format/*`
//! and `events/*` into a fresh directory under the system temp dir, removed on drop, plus the
//! layouts of real kernels (Intel, AMD, Intel hybrid, arm64).
//!
//! Test-only (`#[cfg(test)]`); other modules' tests may use it through
//! `crate::events::fixtures::FakeSysfs`.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::Sysfs;

/// Tells apart the trees of one test process.
static NEXT_TREE: AtomicUsize = AtomicUsize::new(0);

/// A fake `/sys/bus/event_source/devices` in a temp dir, deleted on drop.
#[derive(Debug)]
pub(crate) struct FakeSysfs {
    root: PathBuf,
}

impl FakeSysfs {
    /// An empty tree.
    pub(crate) fn new() -> FakeSysfs {
        let n = NEXT_TREE.fetch_add(1, Ordering::Relaxed);
        let root =
            std::env::temp_dir().join(format!("perfbench-fake-sysfs-{}-{n}", std::process::id()));
        // A leftover from a crashed run with a recycled pid would mix trees.
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(&root).expect("create fake sysfs root");
        FakeSysfs { root }
    }

    /// The tree's root directory.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// A [`Sysfs`] reading this tree, with the tracefs of [`FakeSysfs::tracepoint`] (absent
    /// until one is added).
    pub(crate) fn sysfs(&self) -> Sysfs {
        Sysfs::new(&self.root).with_tracefs(self.root.join(".tracing"))
    }

    /// Adds tracepoint `system:name` with `id` to the fake tracefs (`.tracing/events/...`, a
    /// directory the PMU listing skips: it has no `type`).
    pub(crate) fn tracepoint(&self, system: &str, name: &str, id: u64) {
        self.file(
            &format!(".tracing/events/{system}/{name}/id"),
            &format!("{id}\n"),
        );
    }

    /// Adds PMU `name` with dynamic type `type_`; returns a builder for its files.
    pub(crate) fn pmu(&self, name: &str, type_: u32) -> FakePmu {
        let pmu = FakePmu {
            dir: self.root.join(name),
        };
        pmu.file("type", &format!("{type_}\n"))
    }

    /// Writes `<root>/<rel>` (creating parent directories).
    pub(crate) fn file(&self, rel: &str, content: &str) {
        write(&self.root.join(rel), content);
    }

    /// The kernel's pseudo PMUs every machine has.
    pub(crate) fn with_pseudo_pmus(self) -> FakeSysfs {
        self.pmu("software", 1);
        self.pmu("tracepoint", 2);
        self
    }

    /// A non-hybrid Intel machine: `cpu` (type 4, no `cpus` file), `software`, `tracepoint`.
    pub(crate) fn intel() -> FakeSysfs {
        let fake = FakeSysfs::new().with_pseudo_pmus();
        fake.pmu("cpu", 4)
            .intel_formats()
            .event("instructions", "event=0xc0")
            .event("cpu-cycles", "event=0x3c")
            .event("ref-cycles", "event=0x00,umask=0x03")
            .event("branch-instructions", "event=0xc4")
            .event("branch-misses", "event=0xc5")
            .event("bus-cycles", "event=0x3c,umask=0x01")
            .event("cache-references", "event=0x2e,umask=0x4f")
            .event("cache-misses", "event=0x2e,umask=0x41")
            .event("mem-loads", "event=0xcd,umask=0x1,ldlat=3")
            .event("cycles-ct", "event=0x3c,in_tx=1,in_tx_cp=1")
            .event("topdown-total-slots", "event=0x3c,umask=0x00,any=1")
            .event("needs-value", "event=0x3c,umask=?")
            .format("ldlat", "config1:0-15")
            .format("in_tx", "config:32")
            .format("in_tx_cp", "config:33")
            .format("any", "config:21");
        fake
    }

    /// An AMD Zen machine: `cpu` (type 4) whose `event` format is split over two ranges.
    pub(crate) fn amd() -> FakeSysfs {
        let fake = FakeSysfs::new().with_pseudo_pmus();
        fake.pmu("cpu", 4)
            .format("event", "config:0-7,32-35")
            .format("umask", "config:8-15")
            .format("edge", "config:18")
            .format("inv", "config:23")
            .format("cmask", "config:24-31");
        fake.pmu("amd_l3", 11)
            .file("cpumask", "0")
            .format("event", "config:0-7")
            .format("umask", "config:8-15");
        fake
    }

    /// An Intel hybrid machine: `cpu_core` (type 4, CPUs 0-15) and `cpu_atom` (type 10,
    /// CPUs 16-23), no `cpu`.
    pub(crate) fn hybrid() -> FakeSysfs {
        let fake = FakeSysfs::new().with_pseudo_pmus();
        fake.pmu("cpu_core", 4)
            .cpus("0-15")
            .intel_formats()
            .event("instructions", "event=0xc0")
            .event("cpu-cycles", "event=0x3c")
            .event("ref-cycles", "event=0x00,umask=0x03")
            .event("branch-instructions", "event=0xc4")
            .event("branch-misses", "event=0xc5")
            .event("topdown-retiring", "event=0x00,umask=0x80");
        fake.pmu("cpu_atom", 10)
            .cpus("16-23")
            .intel_formats()
            .event("instructions", "event=0xc0")
            .event("cpu-cycles", "event=0x3c")
            .event("topdown-retiring", "event=0xc2,umask=0x02");
        fake
    }

    /// An arm64 machine: `armv8_pmuv3_0` (type 8, CPUs 0-3).
    pub(crate) fn arm64() -> FakeSysfs {
        let fake = FakeSysfs::new().with_pseudo_pmus();
        fake.pmu("armv8_pmuv3_0", 8)
            .cpus("0-3")
            .format("event", "config:0-15")
            .format("long", "config1:0")
            .format("rdpmc", "config1:1")
            .event("inst_retired", "event=0x0008")
            .event("cpu_cycles", "event=0x0011")
            .event("br_mis_pred", "event=0x0010");
        fake
    }
}

impl Drop for FakeSysfs {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

/// Builder for the files of one fake PMU directory.
#[derive(Debug)]
pub(crate) struct FakePmu {
    dir: PathBuf,
}

impl FakePmu {
    /// Writes `<pmu>/<rel>`.
    pub(crate) fn file(self, rel: &str, content: &str) -> FakePmu {
        write(&self.dir.join(rel), content);
        self
    }

    /// Removes `<pmu>/<rel>`.
    pub(crate) fn remove(self, rel: &str) -> FakePmu {
        fs::remove_file(self.dir.join(rel)).expect("remove fake sysfs file");
        self
    }

    /// Writes the `cpus` file.
    pub(crate) fn cpus(self, list: &str) -> FakePmu {
        self.file("cpus", &format!("{list}\n"))
    }

    /// Writes `format/<name>`.
    pub(crate) fn format(self, name: &str, spec: &str) -> FakePmu {
        self.file(&format!("format/{name}"), &format!("{spec}\n"))
    }

    /// Writes `events/<name>`.
    pub(crate) fn event(self, name: &str, value: &str) -> FakePmu {
        self.file(&format!("events/{name}"), &format!("{value}\n"))
    }

    /// The format files of Intel's core PMUs.
    fn intel_formats(self) -> FakePmu {
        self.format("event", "config:0-7")
            .format("umask", "config:8-15")
            .format("edge", "config:18")
            .format("inv", "config:23")
            .format("cmask", "config:24-31")
    }
}

/// Writes `path`, creating its parent directories.
fn write(path: &Path, content: &str) {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("create fake sysfs dir");
    }
    fs::write(path, content).expect("write fake sysfs file");
}
