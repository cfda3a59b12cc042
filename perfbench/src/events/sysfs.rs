//! sysfs PMU discovery: the kernel's performance monitoring units as listed under
//! `/sys/bus/event_source/devices`, one directory per PMU:
//!
//! ```text
//! <root>/<pmu>/type            dynamic attr.type, e.g. "4"
//! <root>/<pmu>/cpus            CPUs a core PMU serves, e.g. "0-15" (hybrid, arm64)
//! <root>/<pmu>/format/<term>   where a term's bits go, e.g. "config:8-15"
//! <root>/<pmu>/events/<name>   named events, e.g. "event=0xc0" (plus .scale/.unit files)
//! ```
//!
//! This module only reads that tree (the root is injectable so tests use fake trees); turning
//! names into attrs is [`parse`](super::parse()), opening them is [`counters`](crate::counters).
//! Nothing here panics on a malformed tree: unreadable or unparsable entries are skipped.

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use crate::sorting::sort_by;

/// Where the kernel lists its PMUs.
const SYSTEM_ROOT: &str = "/sys/bus/event_source/devices";

/// Most CPUs a [`Pmu::cpu_ids`] list may name; longer lists are treated as malformed.
const MAX_CPUS: usize = 1 << 16;

/// PMUs that are never CPU PMUs even if a kernel gives them a `cpus` file.
const NON_CORE_PMUS: &[&str] = &[
    "software",
    "tracepoint",
    "breakpoint",
    "uprobe",
    "kprobe",
    "msr",
    "power",
];

/// Where tracefs is usually mounted, in the order looked at.
const SYSTEM_TRACEFS: &[&str] = &["/sys/kernel/tracing", "/sys/kernel/debug/tracing"];

/// A sysfs event-source tree: `/sys/bus/event_source/devices` or a fake one in tests, and the
/// tracefs mounts that list tracepoints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sysfs {
    root: PathBuf,
    tracefs: Vec<PathBuf>,
}

impl Sysfs {
    /// A tree rooted at `root` (a directory holding one directory per PMU), without tracefs.
    ///
    /// A fake tree, as tests use (`<root>/cpu/type`, `format/`, `events/`):
    ///
    /// ```
    /// use perfbench::events::{parse, Sysfs};
    ///
    /// # let root = std::env::temp_dir().join(format!("perfbench-doc-sysfs-{}", std::process::id()));
    /// # std::fs::create_dir_all(root.join("cpu/format"))?;
    /// # std::fs::create_dir_all(root.join("cpu/events"))?;
    /// # std::fs::write(root.join("cpu/type"), "4\n")?;
    /// # std::fs::write(root.join("cpu/format/event"), "config:0-7\n")?;
    /// # std::fs::write(root.join("cpu/format/umask"), "config:8-15\n")?;
    /// # std::fs::write(root.join("cpu/events/instructions"), "event=0xc0\n")?;
    /// # std::fs::create_dir_all(root.join("software"))?;
    /// # std::fs::write(root.join("software/type"), "1\n")?;
    /// let sysfs = Sysfs::new(&root);
    /// let e = parse("cpu/event=0x3c,umask=0x1/", &sysfs)?;
    /// let p = e.perf().unwrap();
    /// assert_eq!((p.type_, p.config, p.pmu.as_deref()), (4, 0x13c, Some("cpu")));
    /// # std::fs::remove_dir_all(&root)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(root: impl Into<PathBuf>) -> Sysfs {
        Sysfs {
            root: root.into(),
            tracefs: Vec::new(),
        }
    }

    /// This machine's tree, `/sys/bus/event_source/devices`, with tracefs at
    /// `/sys/kernel/tracing` or `/sys/kernel/debug/tracing`.
    ///
    /// ```
    /// use perfbench::events::Sysfs;
    ///
    /// let sysfs = Sysfs::system();
    /// assert_eq!(sysfs.root(), std::path::Path::new("/sys/bus/event_source/devices"));
    /// // Empty in a VM without a hardware PMU.
    /// for pmu in sysfs.core_pmus() {
    ///     println!("{} (type {})", pmu.name, pmu.type_);
    /// }
    /// ```
    pub fn system() -> Sysfs {
        Sysfs {
            root: SYSTEM_ROOT.into(),
            tracefs: SYSTEM_TRACEFS.iter().map(PathBuf::from).collect(),
        }
    }

    /// The same tree, looking for tracepoints under `dir` (a tracefs mount: `dir/events/...`).
    ///
    /// ```
    /// use perfbench::events::{Sysfs, TracepointError};
    ///
    /// # let dir = std::env::temp_dir().join(format!("perfbench-doc-tracefs-{}", std::process::id()));
    /// std::fs::create_dir_all(dir.join("events/sched/sched_switch"))?;
    /// std::fs::write(dir.join("events/sched/sched_switch/id"), "316\n")?;
    /// let sysfs = Sysfs::new("/nonexistent").with_tracefs(&dir);
    /// assert_eq!(sysfs.tracepoint_id("sched", "sched_switch"), Ok(316));
    /// assert!(matches!(
    ///     sysfs.tracepoint_id("sched", "no_such_event"),
    ///     Err(TracepointError::UnknownEvent { .. })
    /// ));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn with_tracefs(mut self, dir: impl Into<PathBuf>) -> Sysfs {
        self.tracefs = vec![dir.into()];
        self
    }

    /// The `id` of tracepoint `system:name` (`attr.config` for `PERF_TYPE_TRACEPOINT`), read
    /// from `<tracefs>/events/<system>/<name>/id`.
    ///
    /// See [`with_tracefs`](Sysfs::with_tracefs) for an example.
    pub fn tracepoint_id(&self, system: &str, name: &str) -> Result<u64, TracepointError> {
        let mut unreadable = None;
        for root in &self.tracefs {
            let events = root.join("events");
            match fs::read_dir(&events) {
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                    unreadable.get_or_insert_with(|| root.clone());
                    continue;
                }
                Err(_) => continue,
            }
            if !is_tracepoint_name(system) || !events.join(system).is_dir() {
                return Err(TracepointError::UnknownSystem {
                    known: dir_names(&events),
                });
            }
            let dir = events.join(system);
            if !is_tracepoint_name(name) {
                return Err(TracepointError::UnknownEvent {
                    known: dir_names(&dir),
                });
            }
            return match read_trimmed(&dir.join(name).join("id")).map(|id| id.parse::<u64>()) {
                Some(Ok(id)) => Ok(id),
                _ => Err(TracepointError::UnknownEvent {
                    known: dir_names(&dir),
                }),
            };
        }
        Err(match unreadable {
            Some(root) => TracepointError::Unreadable { root },
            None => TracepointError::NoTracefs {
                looked: self.tracefs.clone(),
            },
        })
    }

    /// The directory holding one directory per PMU.
    ///
    /// ```
    /// use perfbench::events::Sysfs;
    ///
    /// assert_eq!(Sysfs::new("/tmp/fake").root(), std::path::Path::new("/tmp/fake"));
    /// ```
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Every readable PMU, sorted by name. Entries without a readable numeric `type` are
    /// skipped; a missing root gives an empty list.
    ///
    /// ```
    /// use perfbench::events::Sysfs;
    ///
    /// # let root = std::env::temp_dir().join(format!("perfbench-doc-sysfs-{}", std::process::id()));
    /// # std::fs::create_dir_all(root.join("cpu/format"))?;
    /// # std::fs::create_dir_all(root.join("cpu/events"))?;
    /// # std::fs::write(root.join("cpu/type"), "4\n")?;
    /// # std::fs::write(root.join("cpu/format/event"), "config:0-7\n")?;
    /// # std::fs::write(root.join("cpu/format/umask"), "config:8-15\n")?;
    /// # std::fs::write(root.join("cpu/events/instructions"), "event=0xc0\n")?;
    /// # std::fs::create_dir_all(root.join("software"))?;
    /// # std::fs::write(root.join("software/type"), "1\n")?;
    /// let names: Vec<String> = Sysfs::new(&root).pmus().into_iter().map(|p| p.name).collect();
    /// assert_eq!(names, ["cpu", "software"]);
    /// assert!(Sysfs::new("/nonexistent").pmus().is_empty());
    /// # std::fs::remove_dir_all(&root)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn pmus(&self) -> Vec<Pmu> {
        let Ok(dir) = fs::read_dir(&self.root) else {
            return Vec::new();
        };
        let mut pmus: Vec<Pmu> = dir
            .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
            .filter_map(|name| self.pmu(&name))
            .collect();
        sort_by(&mut pmus, |a, b| a.name.cmp(&b.name));
        pmus
    }

    /// The PMU called `name`, if it exists and is readable. Names that are not a single path
    /// component (`..`, `a/b`, empty) are never looked up.
    ///
    /// ```
    /// use perfbench::events::Sysfs;
    ///
    /// # let root = std::env::temp_dir().join(format!("perfbench-doc-sysfs-{}", std::process::id()));
    /// # std::fs::create_dir_all(root.join("cpu/format"))?;
    /// # std::fs::create_dir_all(root.join("cpu/events"))?;
    /// # std::fs::write(root.join("cpu/type"), "4\n")?;
    /// # std::fs::write(root.join("cpu/format/event"), "config:0-7\n")?;
    /// # std::fs::write(root.join("cpu/format/umask"), "config:8-15\n")?;
    /// # std::fs::write(root.join("cpu/events/instructions"), "event=0xc0\n")?;
    /// # std::fs::create_dir_all(root.join("software"))?;
    /// # std::fs::write(root.join("software/type"), "1\n")?;
    /// let cpu = Sysfs::new(&root).pmu("cpu").unwrap();
    /// assert_eq!(cpu.events["instructions"], "event=0xc0");
    /// assert!(Sysfs::new(&root).pmu("..").is_none());
    /// # std::fs::remove_dir_all(&root)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn pmu(&self, name: &str) -> Option<Pmu> {
        if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\0']) {
            return None;
        }
        Pmu::read(name, &self.root.join(name))
    }

    /// The CPU ("core") PMUs: the ones that count what a thread executes and accept the
    /// generalized hardware events. See [`Pmu::is_core`] for the rule. Sorted by name; empty on a
    /// machine without a hardware PMU (most VMs).
    ///
    /// ```
    /// use perfbench::events::Sysfs;
    ///
    /// # let root = std::env::temp_dir().join(format!("perfbench-doc-sysfs-{}", std::process::id()));
    /// # std::fs::create_dir_all(root.join("cpu/format"))?;
    /// # std::fs::create_dir_all(root.join("cpu/events"))?;
    /// # std::fs::write(root.join("cpu/type"), "4\n")?;
    /// # std::fs::write(root.join("cpu/format/event"), "config:0-7\n")?;
    /// # std::fs::write(root.join("cpu/format/umask"), "config:8-15\n")?;
    /// # std::fs::write(root.join("cpu/events/instructions"), "event=0xc0\n")?;
    /// # std::fs::create_dir_all(root.join("software"))?;
    /// # std::fs::write(root.join("software/type"), "1\n")?;
    /// let core: Vec<String> = Sysfs::new(&root).core_pmus().into_iter().map(|p| p.name).collect();
    /// assert_eq!(core, ["cpu"]); // `software` is not a CPU PMU
    /// # std::fs::remove_dir_all(&root)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn core_pmus(&self) -> Vec<Pmu> {
        self.pmus().into_iter().filter(Pmu::is_core).collect()
    }
}

/// Why a tracepoint could not be looked up ([`Sysfs::tracepoint_id`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TracepointError {
    /// No tracefs is mounted where looked.
    NoTracefs {
        /// The directories looked at.
        looked: Vec<PathBuf>,
    },
    /// tracefs is mounted but this user may not read it (it is root-only by default).
    Unreadable {
        /// The mount.
        root: PathBuf,
    },
    /// No such tracepoint system; the systems there are.
    UnknownSystem {
        /// The systems tracefs lists, sorted.
        known: Vec<String>,
    },
    /// No such tracepoint in the system; the tracepoints it has.
    UnknownEvent {
        /// The system's tracepoints, sorted.
        known: Vec<String>,
    },
}

/// Whether `s` can be a tracepoint system or event name: ASCII letters, digits and `_`, so it is
/// one path component and never `.` or `..`.
pub(crate) fn is_tracepoint_name(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The names of the subdirectories of `dir`, sorted; empty if unreadable.
fn dir_names(dir: &Path) -> Vec<String> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| {
            let e = e.ok()?;
            e.file_type().ok()?.is_dir().then_some(())?;
            e.file_name().into_string().ok()
        })
        .collect();
    sort_by(&mut names, Ord::cmp);
    names
}

impl Default for Sysfs {
    fn default() -> Sysfs {
        Sysfs::system()
    }
}

/// One PMU directory: its dynamic type, the CPUs it serves, its format terms and named events.
#[derive(Clone, Debug, PartialEq)]
pub struct Pmu {
    /// The directory name: `cpu`, `cpu_core`, `armv8_pmuv3_0`, `software`, ...
    pub name: String,
    /// The `type` file: the value for `attr.type` when opening this PMU's events.
    pub type_: u32,
    /// The `cpus` file (e.g. `"0-15"`), present on hybrid x86 and arm64 core PMUs.
    pub cpus: Option<String>,
    /// The `format/*` files, sorted by name: how `name=value` terms map onto config bits.
    pub formats: Vec<FormatField>,
    /// The `events/*` files (without `.scale`, `.unit` and other metadata files): event name
    /// to its term string, e.g. `instructions` -> `event=0xc0`.
    pub events: BTreeMap<String, String>,
    /// The `events/<name>.unit` files: event name to the unit of its values (e.g. `Joules`).
    pub units: BTreeMap<String, String>,
    /// The `events/<name>.scale` files: event name to the factor that turns counts into
    /// [`units`](Pmu::units).
    pub scales: BTreeMap<String, f64>,
}

impl Pmu {
    /// Reads the PMU directory `dir`; `None` without a readable numeric `type`.
    fn read(name: &str, dir: &Path) -> Option<Pmu> {
        let type_ = read_trimmed(&dir.join("type"))?.parse().ok()?;
        let cpus = read_trimmed(&dir.join("cpus"));

        let mut formats: Vec<FormatField> = read_files(&dir.join("format"))
            .into_iter()
            .filter_map(|(term, spec)| FormatField::parse(&term, &spec))
            .collect();
        sort_by(&mut formats, |a, b| a.name.cmp(&b.name));

        let mut events = BTreeMap::new();
        let mut units = BTreeMap::new();
        let mut scales = BTreeMap::new();
        for (file, value) in read_files(&dir.join("events")) {
            if let Some(event) = file.strip_suffix(".unit") {
                units.insert(event.to_owned(), value);
            } else if let Some(event) = file.strip_suffix(".scale") {
                if let Ok(scale) = value.parse() {
                    scales.insert(event.to_owned(), scale);
                }
            } else if !file.ends_with(".per-pkg") && !file.ends_with(".snapshot") {
                events.insert(file, value);
            }
        }

        Some(Pmu {
            name: name.to_owned(),
            type_,
            cpus,
            formats,
            events,
            units,
            scales,
        })
    }

    /// The format term called `name` (`event`, `umask`, ...).
    ///
    /// ```
    /// use perfbench::events::{ConfigWord, Sysfs};
    ///
    /// # let root = std::env::temp_dir().join(format!("perfbench-doc-sysfs-{}", std::process::id()));
    /// # std::fs::create_dir_all(root.join("cpu/format"))?;
    /// # std::fs::create_dir_all(root.join("cpu/events"))?;
    /// # std::fs::write(root.join("cpu/type"), "4\n")?;
    /// # std::fs::write(root.join("cpu/format/event"), "config:0-7\n")?;
    /// # std::fs::write(root.join("cpu/format/umask"), "config:8-15\n")?;
    /// # std::fs::write(root.join("cpu/events/instructions"), "event=0xc0\n")?;
    /// # std::fs::create_dir_all(root.join("software"))?;
    /// # std::fs::write(root.join("software/type"), "1\n")?;
    /// let cpu = Sysfs::new(&root).pmu("cpu").unwrap();
    /// let umask = cpu.format("umask").unwrap();
    /// assert_eq!((umask.target, umask.bits.as_slice()), (ConfigWord::Config, &[(8, 15)][..]));
    /// # std::fs::remove_dir_all(&root)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn format(&self, name: &str) -> Option<&FormatField> {
        self.formats.iter().find(|f| f.name == name)
    }

    /// Whether this is a CPU ("core") PMU, one that counts what a thread executes and accepts
    /// the generalized hardware events (with an extended type on hybrid machines).
    ///
    /// The rule follows perf's `is_pmu_core`: a PMU is a core PMU if it is called `cpu` (x86
    /// without hybrid cores, which has no `cpus` file) or `cpum_cf` (s390), if it is one of the
    /// well-known per-core-type PMUs (`cpu_core`, `cpu_atom`, `armv8_*`, `armv9_*`), or if it
    /// has a `cpus` file (which the kernel gives exactly the core PMUs of hybrid x86, arm64 and
    /// riscv). Uncore PMUs have a `cpumask` file instead and are never core PMUs, and neither are
    /// the kernel's pseudo PMUs (`software`, `tracepoint`, `breakpoint`, `uprobe`, `kprobe`,
    /// `msr`, `power`).
    ///
    /// ```
    /// use perfbench::events::Pmu;
    ///
    /// let pmu = |name: &str, cpus: Option<&str>| Pmu {
    ///     name: name.into(),
    ///     type_: 4,
    ///     cpus: cpus.map(Into::into),
    ///     formats: Vec::new(),
    ///     events: Default::default(),
    ///     units: Default::default(),
    ///     scales: Default::default(),
    /// };
    /// assert!(pmu("cpu", None).is_core());
    /// assert!(pmu("armv8_pmuv3_0", Some("0-3")).is_core());
    /// assert!(!pmu("uncore_imc_0", None).is_core());
    /// assert!(!pmu("software", None).is_core());
    /// ```
    pub fn is_core(&self) -> bool {
        let name = self.name.as_str();
        if NON_CORE_PMUS.contains(&name) {
            return false;
        }
        matches!(name, "cpu" | "cpum_cf" | "cpu_core" | "cpu_atom")
            || name.starts_with("armv8_")
            || name.starts_with("armv9_")
            || self.cpus.is_some()
    }

    /// The CPUs of the [`cpus`](Pmu::cpus) list (`"0-3,8"` -> `[0, 1, 2, 3, 8]`), ascending and
    /// without duplicates; `None` without a `cpus` file or if it is malformed.
    ///
    /// ```
    /// use perfbench::events::Pmu;
    ///
    /// let pmu = Pmu {
    ///     name: "cpu_core".into(),
    ///     type_: 4,
    ///     cpus: Some("0-3,8".into()),
    ///     formats: Vec::new(),
    ///     events: Default::default(),
    ///     units: Default::default(),
    ///     scales: Default::default(),
    /// };
    /// assert_eq!(pmu.cpu_ids(), Some(vec![0, 1, 2, 3, 8]));
    /// ```
    pub fn cpu_ids(&self) -> Option<Vec<u32>> {
        parse_cpu_list(self.cpus.as_deref()?)
    }
}

/// Parses a kernel CPU list such as `0-3,8,10-11`; `None` if malformed or absurdly long.
fn parse_cpu_list(list: &str) -> Option<Vec<u32>> {
    let mut cpus = Vec::new();
    for part in list.trim().split(',').map(str::trim) {
        if part.is_empty() {
            continue;
        }
        let (lo, hi) = match part.split_once('-') {
            Some((lo, hi)) => (
                lo.trim().parse::<u32>().ok()?,
                hi.trim().parse::<u32>().ok()?,
            ),
            None => {
                let cpu = part.parse::<u32>().ok()?;
                (cpu, cpu)
            }
        };
        if lo > hi || cpus.len() as u64 + u64::from(hi - lo) >= MAX_CPUS as u64 {
            return None;
        }
        cpus.extend(lo..=hi);
    }
    sort_by(&mut cpus, Ord::cmp);
    cpus.dedup();
    Some(cpus)
}

/// Which attr config word a [`FormatField`] writes into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ConfigWord {
    /// `attr.config`.
    Config,
    /// `attr.config1` (e.g. arm64's `long` and `rdpmc` bits).
    Config1,
    /// `attr.config2`.
    Config2,
    /// `attr.config3`.
    Config3,
}

impl ConfigWord {
    /// All four words, in attr order.
    pub const ALL: [ConfigWord; 4] = [
        ConfigWord::Config,
        ConfigWord::Config1,
        ConfigWord::Config2,
        ConfigWord::Config3,
    ];

    /// The name sysfs and perf use: `config`, `config1`, `config2`, `config3`.
    ///
    /// ```
    /// use perfbench::events::ConfigWord;
    ///
    /// assert_eq!(ConfigWord::Config1.name(), "config1");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            ConfigWord::Config => "config",
            ConfigWord::Config1 => "config1",
            ConfigWord::Config2 => "config2",
            ConfigWord::Config3 => "config3",
        }
    }

    /// The word called `name` (`config`, `config1`, `config2`, `config3`).
    ///
    /// ```
    /// use perfbench::events::ConfigWord;
    ///
    /// assert_eq!(ConfigWord::from_name("config2"), Some(ConfigWord::Config2));
    /// assert_eq!(ConfigWord::from_name("config9"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<ConfigWord> {
        ConfigWord::ALL.into_iter().find(|w| w.name() == name)
    }

    /// The position of this word in [`ConfigWord::ALL`] (0 for `config`).
    ///
    /// ```
    /// use perfbench::events::ConfigWord;
    ///
    /// assert_eq!(ConfigWord::Config3.index(), 3);
    /// assert_eq!(ConfigWord::ALL[ConfigWord::Config1.index()], ConfigWord::Config1);
    /// ```
    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for ConfigWord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One `format/<name>` file: which bits of which config word a PMU term sets. For example
/// `umask` -> `config:8-15`, arm64's `rdpmc` -> `config1:1`, AMD's `event` -> `config:0-7,32-35`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FormatField {
    /// The term name (the file name): `event`, `umask`, `rdpmc`, ...
    pub name: String,
    /// The config word the bits belong to.
    pub target: ConfigWord,
    /// Inclusive bit ranges `(low, high)`, ascending and disjoint. A value's low bits fill the
    /// first range, its next bits the second, and so on (as perf does).
    pub bits: Vec<(u32, u32)>,
}

impl FormatField {
    /// Parses a format file's content such as `config:0-7,32-35` or `config1:1`; `None` if it
    /// is not of that form, names an unknown word, has a bit above 63 or overlapping ranges.
    ///
    /// ```
    /// use perfbench::events::{ConfigWord, FormatField};
    ///
    /// let amd_event = FormatField::parse("event", "config:0-7,32-35").unwrap();
    /// assert_eq!(amd_event.target, ConfigWord::Config);
    /// assert_eq!(amd_event.bits, [(0, 7), (32, 35)]);
    /// assert!(FormatField::parse("bad", "config:5-70").is_none()); // bit above 63
    /// ```
    pub fn parse(name: &str, spec: &str) -> Option<FormatField> {
        let (word, ranges) = spec.trim().split_once(':')?;
        let target = ConfigWord::from_name(word.trim())?;
        let mut bits = Vec::new();
        for range in ranges.split(',').map(str::trim) {
            let (lo, hi) = match range.split_once('-') {
                Some((lo, hi)) => (lo.trim().parse().ok()?, hi.trim().parse().ok()?),
                None => {
                    let bit = range.parse().ok()?;
                    (bit, bit)
                }
            };
            if lo > hi || hi > 63 {
                return None;
            }
            bits.push((lo, hi));
        }
        sort_by(&mut bits, Ord::cmp);
        if bits.windows(2).any(|w| w[0].1 >= w[1].0) {
            return None;
        }
        Some(FormatField {
            name: name.to_owned(),
            target,
            bits,
        })
    }

    /// How many bits the field has.
    ///
    /// ```
    /// use perfbench::events::FormatField;
    ///
    /// assert_eq!(FormatField::parse("event", "config:0-7,32-35").unwrap().width(), 12);
    /// ```
    pub fn width(&self) -> u32 {
        self.bits.iter().map(|&(lo, hi)| hi - lo + 1).sum()
    }

    /// The largest value the field holds.
    ///
    /// ```
    /// use perfbench::events::FormatField;
    ///
    /// assert_eq!(FormatField::parse("umask", "config:8-15").unwrap().max_value(), 0xff);
    /// ```
    pub fn max_value(&self) -> u64 {
        low_bits(self.width())
    }

    /// The bits of [`target`](FormatField::target) this field covers.
    ///
    /// ```
    /// use perfbench::events::FormatField;
    ///
    /// assert_eq!(FormatField::parse("umask", "config:8-15").unwrap().mask(), 0xff00);
    /// ```
    pub fn mask(&self) -> u64 {
        self.bits
            .iter()
            .fold(0, |mask, &(lo, hi)| mask | (low_bits(hi - lo + 1) << lo))
    }

    /// `value` spread over the field's bits, to be or-ed into [`target`](FormatField::target)
    /// (after clearing [`mask`](FormatField::mask)). A value wider than the field is an error,
    /// never silently truncated.
    ///
    /// ```
    /// use perfbench::events::FormatField;
    ///
    /// let event = FormatField::parse("event", "config:0-7,32-35").unwrap();
    /// assert_eq!(event.place(0x1c0), Ok(0x1_0000_00c0)); // low 8 bits, then bits 32-35
    /// assert!(event.place(0x1000).is_err()); // 13 bits do not fit in 12
    /// ```
    pub fn place(&self, value: u64) -> Result<u64, ValueTooWide> {
        if value > self.max_value() {
            return Err(ValueTooWide {
                field: self.name.clone(),
                value,
                max: self.max_value(),
            });
        }
        let mut rest = value;
        let mut word = 0;
        for &(lo, hi) in &self.bits {
            let len = hi - lo + 1;
            word |= (rest & low_bits(len)) << lo;
            rest = rest.checked_shr(len).unwrap_or(0);
        }
        Ok(word)
    }
}

/// A value that does not fit a [`FormatField`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueTooWide {
    /// The field's name.
    pub field: String,
    /// The value given.
    pub value: u64,
    /// The largest value the field holds.
    pub max: u64,
}

impl fmt::Display for ValueTooWide {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "value {:#x} is too wide for `{}`, which holds 0 to {:#x}",
            self.value, self.field, self.max
        )
    }
}

impl std::error::Error for ValueTooWide {}

/// A mask of the `n` low bits (`n` <= 64).
fn low_bits(n: u32) -> u64 {
    u64::MAX.checked_shr(64 - n.min(64)).unwrap_or(0)
}

/// A file's content, trimmed; `None` if missing, unreadable or not UTF-8.
fn read_trimmed(path: &Path) -> Option<String> {
    fs::read_to_string(path).ok().map(|s| s.trim().to_owned())
}

/// `(file name, trimmed content)` of every readable file in `dir`; empty if `dir` is missing.
fn read_files(dir: &Path) -> Vec<(String, String)> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let name = entry.file_name().into_string().ok()?;
            Some((name, read_trimmed(&entry.path())?))
        })
        .collect()
}

#[cfg(test)]
mod tests;
