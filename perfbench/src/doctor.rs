//! What this machine can count, and why not.
//!
//! [`Machine`] gathers the facts that decide whether perf counters open (PMUs in sysfs,
//! `perf_event_paranoid`, `kernel.perf_user_access`, the x86 `rdpmc` setting, hybrid core types,
//! seccomp, capabilities); [`explain`] turns a refused `perf_event_open` into a reason and a fix
//! for *this* machine; [`diagnose`] tries each counter and says through which [`Source`] it
//! would be read. `perfbench doctor` prints the result.
//!
//! This module only inspects and explains; it never changes a setting.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::counters::{arch, callgrind, userpage::FastReader, GroupOptions, Source};
use crate::events::{Event, Sysfs};
use crate::sys::{self, Errno, OpenFailure};

/// A reason a counter cannot be used, and what to do about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// What is wrong, in the user's terms.
    pub reason: String,
    /// What to do about it.
    pub fix: String,
}

impl Explanation {
    fn new(reason: impl Into<String>, fix: impl Into<String>) -> Explanation {
        Explanation {
            reason: reason.into(),
            fix: fix.into(),
        }
    }
}

/// The facts about this machine that decide what perfbench can count.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Machine {
    /// CPU model name (`/proc/cpuinfo`).
    pub cpu_model: String,
    /// `std::env::consts::ARCH`.
    pub arch: String,
    /// Online CPUs.
    pub cpus: usize,
    /// The CPU reports it runs under a hypervisor (x86 `hypervisor` flag).
    pub hypervisor: bool,
    /// Kernel release (`/proc/sys/kernel/osrelease`).
    pub kernel: String,
    /// Every PMU under `/sys/bus/event_source/devices`.
    pub pmus: Vec<String>,
    /// The PMUs that count CPU events (`cpu`, `cpu_core`, `cpu_atom`, `armv8_pmuv3_0`, ...).
    pub core_pmus: Vec<String>,
    /// `/proc/sys/kernel/perf_event_paranoid`.
    pub paranoid: Option<i32>,
    /// arm64 `/proc/sys/kernel/perf_user_access` (0: `mrs` traps; 1: allowed).
    pub perf_user_access: Option<i32>,
    /// x86 `/sys/bus/event_source/devices/cpu/rdpmc` (0 off, 1 while mmapped, 2 always).
    pub x86_rdpmc: Option<i32>,
    /// `/proc/sys/kernel/nmi_watchdog` (1: the watchdog holds one counter).
    pub nmi_watchdog: Option<i32>,
    /// `Seccomp:` of `/proc/self/status` (0 none, 1 strict, 2 filter).
    pub seccomp: Option<i32>,
    /// Effective user id.
    pub euid: u32,
    /// `CAP_PERFMON` (or `CAP_SYS_ADMIN`) is in the effective set.
    pub cap_perfmon: bool,
}

/// Where the machine facts are read from (injectable for tests).
#[derive(Clone, Debug)]
pub struct Roots {
    /// The event-source devices directory (`/sys/bus/event_source/devices`).
    pub sysfs: Sysfs,
    /// The procfs root (`/proc`).
    pub proc: PathBuf,
}

impl Default for Roots {
    fn default() -> Self {
        Roots {
            sysfs: Sysfs::system(),
            proc: PathBuf::from("/proc"),
        }
    }
}

fn read_int(path: &Path) -> Option<i32> {
    sys::read_text(path)?.parse().ok()
}

impl Machine {
    /// Reads this machine's facts.
    pub fn probe() -> Machine {
        Machine::probe_at(&Roots::default())
    }

    /// The facts, cached for the life of the process (explanations need them on error paths).
    pub fn cached() -> &'static Machine {
        static MACHINE: OnceLock<Machine> = OnceLock::new();
        MACHINE.get_or_init(Machine::probe)
    }

    /// Reads the facts from the given roots.
    pub fn probe_at(roots: &Roots) -> Machine {
        let cpuinfo = std::fs::read_to_string(roots.proc.join("cpuinfo")).unwrap_or_default();
        let cpu_model = cpuinfo
            .lines()
            .find(|l| l.starts_with("model name") || l.starts_with("Model"))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_owned())
            .or_else(|| arm_cpu_name(&cpuinfo))
            .unwrap_or_else(|| "unknown".to_owned());
        let hypervisor = cpuinfo
            .lines()
            .filter(|l| l.starts_with("flags"))
            .any(|l| l.split_whitespace().any(|f| f == "hypervisor"));
        let status = std::fs::read_to_string(roots.proc.join("self/status")).unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .map(|v| v.trim().to_owned())
        };
        let seccomp = field("Seccomp:").and_then(|v| v.parse().ok());
        let cap_eff = field("CapEff:")
            .and_then(|v| u64::from_str_radix(&v, 16).ok())
            .unwrap_or(0);
        const CAP_SYS_ADMIN: u64 = 21;
        const CAP_PERFMON: u64 = 38;
        let cap_perfmon = cap_eff & (1 << CAP_PERFMON | 1 << CAP_SYS_ADMIN) != 0;
        let sysctl = |name: &str| read_int(&roots.proc.join("sys/kernel").join(name));
        let pmus: Vec<String> = roots.sysfs.pmus().into_iter().map(|p| p.name).collect();
        let core_pmus: Vec<String> = roots
            .sysfs
            .core_pmus()
            .into_iter()
            .map(|p| p.name)
            .collect();
        Machine {
            cpu_model,
            arch: std::env::consts::ARCH.to_owned(),
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            hypervisor,
            kernel: sys::read_text(&roots.proc.join("sys/kernel/osrelease"))
                .unwrap_or_else(|| "unknown".to_owned()),
            x86_rdpmc: read_int(&roots.sysfs.root().join("cpu/rdpmc")),
            pmus,
            core_pmus,
            paranoid: sysctl("perf_event_paranoid"),
            perf_user_access: sysctl("perf_user_access"),
            nmi_watchdog: sysctl("nmi_watchdog"),
            seccomp,
            euid: sys::geteuid(),
            cap_perfmon,
        }
    }

    /// Whether any PMU that counts CPU events exists.
    pub fn has_cpu_pmu(&self) -> bool {
        !self.core_pmus.is_empty()
    }

    /// Intel hybrid (`cpu_core` + `cpu_atom`) or several arm64 PMUs (big.LITTLE).
    pub fn hybrid(&self) -> bool {
        self.core_pmus.len() > 1
    }

    /// Whether this process is privileged for perf (root or `CAP_PERFMON`/`CAP_SYS_ADMIN`).
    pub fn privileged(&self) -> bool {
        self.euid == 0 || self.cap_perfmon
    }

    /// A sentence on what `perf_event_paranoid` allows this process.
    pub fn paranoid_meaning(&self) -> String {
        match self.paranoid {
            None => "unknown (no /proc/sys/kernel/perf_event_paranoid)".to_owned(),
            Some(p) if self.privileged() => {
                format!("{p} (does not restrict this process: it is privileged)")
            }
            Some(p) if p <= -1 => format!("{p} (no restrictions)"),
            Some(0) => "0 (user and kernel counting; no raw tracepoints)".to_owned(),
            Some(1) => "1 (user and kernel counting for this process)".to_owned(),
            Some(2) => "2 (user-space counting only: perfbench excludes the kernel)".to_owned(),
            Some(p) => format!("{p} (perf_event_open is refused to unprivileged users)"),
        }
    }
}

/// arm64 `/proc/cpuinfo` has no model name: name the core by its implementer and part numbers.
fn arm_cpu_name(cpuinfo: &str) -> Option<String> {
    let field = |name: &str| {
        cpuinfo
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_owned())
    };
    let implementer = field("CPU implementer")?;
    let part = field("CPU part")?;
    let vendor = match implementer.as_str() {
        "0x41" => "Arm",
        "0x51" => "Qualcomm",
        "0x61" => "Apple",
        "0xc0" => "Ampere",
        "0x48" => "HiSilicon",
        "0x4e" => "NVIDIA",
        _ => "arm64",
    };
    Some(format!(
        "{vendor} core (implementer {implementer}, part {part})"
    ))
}

/// Explains a failed `perf_event_open` of `event` on the cached [`Machine`].
pub fn explain_open_failure(event: &Event, failure: &OpenFailure) -> Explanation {
    if let Some(m) = failure.size_mismatch {
        return Explanation::new(
            format!(
                "the kernel understands a {}-byte perf_event_attr, perfbench sends {} bytes and \
                 uses a field the kernel does not know",
                m.kernel, m.ours
            ),
            "drop the event modifier or option that needs the newer field, or run on a newer \
             kernel",
        );
    }
    explain(failure.errno, event, Machine::cached())
}

/// Explains why `perf_event_open` of `event` failed with `errno` on `machine`.
pub fn explain(errno: Errno, event: &Event, machine: &Machine) -> Explanation {
    let needs_pmu = event.needs_pmu();
    let kernel = event.perf().is_some_and(|p| p.kernel);
    let pmu_named = event.perf().and_then(|p| p.pmu.clone());
    match errno.0 {
        libc::ENOENT if needs_pmu && !machine.has_cpu_pmu() => Explanation::new(
            format!(
                "no hardware PMU: /sys/bus/event_source/devices has no CPU PMU (only {}){}",
                list_or_none(&machine.pmus),
                if machine.hypervisor {
                    "; this is a virtual machine that does not expose a virtual PMU"
                } else {
                    ""
                }
            ),
            "run on bare metal or on a VM with a virtual PMU (KVM/QEMU `-cpu host,pmu=on`; on a \
             cloud, a metal or PMU-enabled instance type); meanwhile measure wall-time and \
             software counters (task-clock, page-faults, context-switches), perfbench's \
             default here",
        ),
        libc::ENOENT if needs_pmu => Explanation::new(
            format!(
                "the {} PMU does not support `{}` (the kernel has no mapping for this event on \
                 this CPU)",
                pmu_named
                    .as_deref()
                    .unwrap_or_else(|| machine.core_pmus.first().map_or("CPU", String::as_str)),
                event.name
            ),
            "list what this CPU offers with `perfbench list` and pick another event, or give a \
             raw event code (`rNNNN`)",
        ),
        libc::ENOENT => Explanation::new(
            format!("the kernel does not know the event `{}`", event.name),
            "check the name with `perfbench list`",
        ),
        libc::EACCES | libc::EPERM if machine.seccomp == Some(2) && !needs_pmu => {
            seccomp_explanation(errno)
        }
        libc::EACCES | libc::EPERM => {
            let mut reason = match machine.paranoid {
                Some(p) if p >= 3 => format!(
                    "kernel.perf_event_paranoid is {p}: perf_event_open is refused to \
                     unprivileged users"
                ),
                Some(p) if p >= 2 && event.perf().is_some_and(|e| e.happens_in_kernel()) => {
                    format!(
                        "`{}` happens only in the kernel, and kernel.perf_event_paranoid = {p} \
                         refuses kernel-mode counting to unprivileged users (counted in user \
                         space only it would always read 0)",
                        event.name
                    )
                }
                Some(p) if kernel && p >= 2 => format!(
                    "`{}` counts kernel code, which kernel.perf_event_paranoid = {p} refuses to \
                     unprivileged users",
                    event.name
                ),
                Some(p) => format!(
                    "permission denied with kernel.perf_event_paranoid = {p}{}",
                    if machine.seccomp == Some(2) {
                        " under a seccomp filter"
                    } else {
                        ""
                    }
                ),
                None => "permission denied".to_owned(),
            };
            if needs_pmu && !machine.has_cpu_pmu() {
                reason.push_str(
                    "; besides, this machine has no hardware PMU (an unprivileged user is refused \
                     before the kernel looks for the PMU), so hardware counters would not open \
                     for root either",
                );
            }
            let fix = if event
                .perf()
                .is_some_and(|e| e.happens_in_kernel() && e.kernel)
            {
                "run as root or with CAP_PERFMON (`setcap cap_perfmon+ep BINARY`), or \
                 `sysctl -w kernel.perf_event_paranoid=1`"
            } else if kernel {
                "drop the `:k` modifier (perfbench counts user space by default), or run as root \
                 / with CAP_PERFMON, or `sysctl -w kernel.perf_event_paranoid=1`"
            } else {
                "`sysctl -w kernel.perf_event_paranoid=2` (user-space counting for everyone), or \
                 grant CAP_PERFMON (`setcap cap_perfmon+ep BINARY`), or run as root"
            };
            Explanation::new(reason, fix)
        }
        libc::ENOSYS => seccomp_explanation(errno),
        libc::EINVAL => Explanation::new(
            format!(
                "the kernel rejected the attributes of `{}`: a config value this PMU does not \
                 accept, a modifier it does not support (e.g. `:p` precision), or a group that \
                 can never fit its counters",
                event.name
            ),
            "check the event's terms against `perfbench list`, remove modifiers, or measure fewer \
             events at once",
        ),
        libc::EOPNOTSUPP if event.perf().is_some_and(|p| p.config1 & 1 != 0) => Explanation::new(
            format!(
                "`{}` asks for 64-bit counters (`config1` bit 0, the `long` term), which need an \
                 arm64 PMU with PMUv3p5",
                event.name
            ),
            "drop the `long` term: perfbench handles 32-bit counter overflow exactly",
        ),
        libc::EOPNOTSUPP => Explanation::new(
            format!(
                "the PMU lacks a feature `{}` needs: 64-bit counters (`config1` bit 0 needs \
                 arm64 PMUv3p5), exclusion of user/kernel that this PMU cannot do, sampling \
                 interrupts, or branch stacks (LBR/BRBE)",
                event.name
            ),
            "drop the option that needs the feature, or use a CPU that has it",
        ),
        libc::EBUSY => Explanation::new(
            "the counter is in exclusive use by another tool (a pinned or exclusive perf \
             session, a profiler, or the NMI watchdog holding a counter)",
            format!(
                "stop other profilers{}",
                if machine.nmi_watchdog == Some(1) {
                    "; free the watchdog's counter with `sysctl -w kernel.nmi_watchdog=0`"
                } else {
                    ""
                }
            ),
        ),
        libc::EMFILE | libc::ENFILE => Explanation::new(
            "too many open files: every counter uses one file descriptor",
            "raise the limit (`ulimit -n 4096`) or measure fewer counters at once",
        ),
        libc::E2BIG => Explanation::new(
            "the kernel is older than perfbench's perf_event_attr and a field it does not know \
             is in use",
            "drop the option that needs the newer field, or run on a newer kernel",
        ),
        libc::ENODEV => Explanation::new(
            format!(
                "`{}` is not supported on the CPU this thread runs on{}",
                event.name,
                if machine.hybrid() {
                    " (a hybrid machine: each core type has its own PMU)"
                } else {
                    ""
                }
            ),
            "pin the benchmark to a core of the PMU's type (`taskset -c CPUS`, CPUS from \
             /sys/bus/event_source/devices/PMU/cpus) or name the PMU (`cpu_core/instructions/`)",
        ),
        libc::ENOSPC => Explanation::new(
            "the PMU has no free counter for this event (too many events or breakpoints)",
            "measure fewer counters at once",
        ),
        _ => Explanation::new(
            format!("perf_event_open failed: {}", errno.description()),
            "run `perfbench doctor` for this machine's details",
        ),
    }
}

fn seccomp_explanation(errno: Errno) -> Explanation {
    Explanation::new(
        format!(
            "perf_event_open is blocked by a seccomp filter ({}; container runtimes' default \
             profiles block it)",
            errno.name()
        ),
        "run the container with `--security-opt seccomp=unconfined` or a profile that allows \
         perf_event_open, and `--cap-add PERFMON`",
    )
}

fn list_or_none(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(", ")
    }
}

/// The result of trying one counter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// The counter opens and is read through `source`.
    Available {
        /// How it is read.
        source: Source,
        /// Why the fast path is not used, when the source is `read`.
        no_fast_path: Option<String>,
    },
    /// The counter does not open.
    Unavailable {
        /// The kernel's answer.
        errno: Errno,
        /// What it means here.
        explanation: Explanation,
    },
}

/// One line of the doctor's report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CounterStatus {
    /// The counter's name.
    pub name: String,
    /// Whether the counter needs a hardware PMU.
    pub needs_pmu: bool,
    /// Whether and how it can be read.
    pub status: Status,
}

/// `perfbench doctor`'s report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The machine's facts.
    pub machine: Machine,
    /// One entry per counter tried.
    pub counters: Vec<CounterStatus>,
    /// Whether `--simulate` works here: the Valgrind it would use, or why not.
    pub simulation: Result<callgrind::Valgrind, String>,
    /// Whether `--profile` can sample on `cpu-clock` here, or why not.
    pub cpu_clock_sampling: Result<(), String>,
    /// Whether branch stacks (LBR on x86, BRBE on arm64) can be sampled here, or why not.
    pub branch_stacks: Result<(), String>,
}

/// The counters `perfbench doctor` tries by default.
pub const DOCTOR_COUNTERS: &[&str] = &[
    "instructions",
    "cycles",
    "branches",
    "branch-misses",
    "cache-misses",
    "wall-time",
    "task-clock",
    "page-faults",
    "context-switches",
];

/// Tries each counter alone and reports whether it opens and through which source.
pub fn diagnose(events: &[Event], machine: Machine) -> Report {
    let counters = events
        .iter()
        .map(|e| CounterStatus {
            name: e.name.clone(),
            needs_pmu: e.needs_pmu(),
            status: try_counter(e, &machine),
        })
        .collect();
    let simulation = if callgrind::SUPPORTED {
        callgrind::find_valgrind()
    } else {
        Err(format!(
            "no Valgrind client requests for {} in this build",
            machine.arch
        ))
    };
    let (cpu_clock_sampling, branch_stacks) = probe_sampling(&machine);
    Report {
        machine,
        counters,
        simulation,
        cpu_clock_sampling,
        branch_stacks,
    }
}

/// Opens (disabled, on this thread) a `cpu-clock` sampling event, and a `cycles` one taking
/// user-space branch stacks: what profile mode needs.
fn probe_sampling(machine: &Machine) -> (Result<(), String>, Result<(), String>) {
    let open = |type_: u32, config: u64, branches: bool| {
        let mut attr = sys::new_attr();
        attr.type_ = type_;
        attr.config = config;
        attr.__bindgen_anon_1.sample_period = 100_000;
        attr.sample_type = u64::from(sys::raw::PERF_SAMPLE_IP);
        attr.set_disabled(1);
        attr.set_exclude_kernel(1);
        attr.set_exclude_hv(1);
        if branches {
            attr.sample_type |= u64::from(sys::raw::PERF_SAMPLE_BRANCH_STACK);
            attr.branch_sample_type =
                u64::from(sys::raw::PERF_SAMPLE_BRANCH_ANY | sys::raw::PERF_SAMPLE_BRANCH_USER);
        }
        sys::EventFd::open(&mut attr, 0, -1, None).map(drop)
    };
    let clock = open(
        sys::raw::PERF_TYPE_SOFTWARE,
        u64::from(sys::raw::PERF_COUNT_SW_CPU_CLOCK),
        false,
    )
    .map_err(|f| {
        format!(
            "{}: {}",
            f.errno,
            if f.errno.0 == libc::EACCES {
                "perf_event_paranoid forbids sampling this thread"
            } else {
                "the kernel refused a cpu-clock sampling event"
            }
        )
    });
    let branches = if !machine.has_cpu_pmu() {
        Err(
            "no CPU PMU here, so no branch record (LBR on x86, BRBE on arm64) to sample; \
             profile mode samples cpu-clock without branch stacks"
                .to_owned(),
        )
    } else {
        open(
            sys::raw::PERF_TYPE_HARDWARE,
            u64::from(sys::raw::PERF_COUNT_HW_CPU_CYCLES),
            true,
        )
        .map_err(|f| match f.errno.0 {
            libc::EOPNOTSUPP | libc::ENOENT | libc::EINVAL => format!(
                "{}: this CPU's PMU offers no branch stacks (no LBR or BRBE, or a VM hides it)",
                f.errno
            ),
            libc::EACCES | libc::EPERM => format!(
                "{}: branch stacks are not allowed at this perf_event_paranoid level",
                f.errno
            ),
            _ => format!(
                "{}: the kernel refused a branch-stack sampling event",
                f.errno
            ),
        })
    };
    (clock, branches)
}

fn try_counter(event: &Event, machine: &Machine) -> Status {
    if event.perf().is_none() {
        return Status::Available {
            source: Source::Clock,
            no_fast_path: None,
        };
    }
    let group =
        match crate::counters::Group::open(std::slice::from_ref(event), &GroupOptions::default()) {
            Ok(g) => g,
            Err(crate::counters::CounterError::Open {
                errno, explanation, ..
            }) => return Status::Unavailable { errno, explanation },
            Err(other) => {
                return Status::Unavailable {
                    errno: Errno(0),
                    explanation: Explanation::new(other.to_string(), "report this as a bug"),
                }
            }
        };
    let source = group.source();
    let no_fast_path = match source {
        Source::Read => Some(why_no_fast_path(event, &group, machine)),
        _ => None,
    };
    Status::Available {
        source,
        no_fast_path,
    }
}

fn why_no_fast_path(event: &Event, group: &crate::counters::Group, machine: &Machine) -> String {
    if !event.needs_pmu() {
        return "software events are kept by the kernel, not in a PMU register".to_owned();
    }
    let Some(src) = arch::SOURCE else {
        return format!("no user-space counter instruction on {}", machine.arch);
    };
    if src == Source::Mrs && machine.perf_user_access == Some(0) {
        return "kernel.perf_user_access is 0, so `mrs` of PMU registers traps; fix: `sysctl -w \
                kernel.perf_user_access=1`"
            .to_owned();
    }
    if src == Source::Rdpmc && machine.x86_rdpmc == Some(0) {
        return "/sys/bus/event_source/devices/cpu/rdpmc is 0; fix: `echo 1 > \
                /sys/bus/event_source/devices/cpu/rdpmc`"
            .to_owned();
    }
    if !group.options().fast_path {
        return "the fast path was turned off".to_owned();
    }
    let detail = group
        .fds_for_doctor()
        .first()
        .and_then(|fd| Some((fd.map_user_page().ok()?, arch::native()?)))
        .map(|(page, regs)| {
            // Probe while counting: `index` is 0 whenever the event is off the PMU.
            let _ = group.enable();
            let capability = FastReader::new(vec![page], regs).capability();
            let _ = group.disable();
            capability.to_string()
        })
        .unwrap_or_else(|| "the user page could not be mapped".to_owned());
    format!("the kernel does not grant user-space reads of this counter ({detail})")
}

impl Report {
    /// Whether any counter that needs a PMU opened.
    pub fn hardware_available(&self) -> bool {
        self.counters
            .iter()
            .any(|c| c.needs_pmu && matches!(c.status, Status::Available { .. }))
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = &self.machine;
        writeln!(f, "perfbench doctor: what this machine can count\n")?;
        writeln!(f, "machine")?;
        writeln!(
            f,
            "  cpu                  {} ({}, {} CPUs{})",
            m.cpu_model,
            m.arch,
            m.cpus,
            if m.hypervisor {
                ", under a hypervisor"
            } else {
                ""
            }
        )?;
        writeln!(f, "  kernel               {}", m.kernel)?;
        writeln!(f, "  PMUs                 {}", list_or_none(&m.pmus))?;
        writeln!(
            f,
            "  CPU PMU              {}",
            if m.core_pmus.is_empty() {
                "none: hardware counters cannot be opened on this machine".to_owned()
            } else if m.hybrid() {
                format!(
                    "{} (hybrid: one PMU per core type; benchmarks run pinned to the CPUs of \
                     their counters' core type, cpu_core unless a counter names another)",
                    m.core_pmus.join(", ")
                )
            } else {
                m.core_pmus.join(", ")
            }
        )?;
        writeln!(f, "  perf_event_paranoid  {}", m.paranoid_meaning())?;
        match (arch::SOURCE, m.perf_user_access, m.x86_rdpmc) {
            (Some(Source::Mrs), Some(v), _) => writeln!(
                f,
                "  perf_user_access     {v} ({})",
                if v == 0 {
                    "`mrs` reads trap: perfbench falls back to read(2); `sysctl -w \
                     kernel.perf_user_access=1` enables the fast path"
                } else {
                    "user-space `mrs` reads of PMU counters allowed"
                }
            )?,
            (Some(Source::Rdpmc), _, Some(v)) => writeln!(
                f,
                "  x86 rdpmc            {v} ({})",
                match v {
                    0 => "rdpmc disabled: `echo 1 > /sys/bus/event_source/devices/cpu/rdpmc`",
                    1 => "allowed while a counter is mapped: perfbench's fast path works",
                    _ => "allowed always",
                }
            )?,
            (Some(src), _, _) => writeln!(
                f,
                "  user-space reads     {src}: no setting found (no CPU PMU exposes one)"
            )?,
            (None, _, _) => writeln!(
                f,
                "  user-space reads     none on {}: counters are read with read(2)",
                m.arch
            )?,
        }
        if let Some(w) = m.nmi_watchdog {
            writeln!(
                f,
                "  nmi_watchdog         {w}{}",
                if w == 1 && m.has_cpu_pmu() {
                    " (holds one hardware counter)"
                } else {
                    ""
                }
            )?;
        }
        writeln!(
            f,
            "  seccomp              {}",
            match m.seccomp {
                Some(0) | None => "none",
                Some(1) => "strict",
                _ => "filter (containers may block perf_event_open)",
            }
        )?;
        writeln!(
            f,
            "  running as           uid {}{}",
            m.euid,
            if m.euid == 0 {
                " (root)"
            } else if m.cap_perfmon {
                " with CAP_PERFMON"
            } else {
                " (unprivileged)"
            }
        )?;
        writeln!(f, "\ncounters")?;
        let mut previous: Option<&Explanation> = None;
        for c in &self.counters {
            match &c.status {
                Status::Available {
                    source,
                    no_fast_path,
                } => {
                    writeln!(f, "  {:<18} yes  via {source}", c.name)?;
                    if let Some(why) = no_fast_path {
                        writeln!(f, "  {:<18}      no fast path: {why}", "")?;
                    }
                }
                Status::Unavailable { errno, explanation } => {
                    if previous == Some(explanation) {
                        writeln!(f, "  {:<18} no   {errno}: same reason as above", c.name)?;
                    } else {
                        writeln!(f, "  {:<18} no   {errno}: {}", c.name, explanation.reason)?;
                        writeln!(f, "  {:<18}      fix: {}", "", explanation.fix)?;
                    }
                    previous = Some(explanation);
                    continue;
                }
            }
            previous = None;
        }
        let unavailable: Vec<&str> = self
            .counters
            .iter()
            .filter(|c| matches!(c.status, Status::Unavailable { .. }))
            .map(|c| c.name.as_str())
            .collect();
        writeln!(f, "\nsimulation (--simulate)")?;
        match &self.simulation {
            Ok(v) => writeln!(
                f,
                "  callgrind            yes  Valgrind {} ({}): exact simulated counts of the \
                 code, its branches and its cache misses",
                v.version,
                v.path.display()
            )?,
            Err(why) => writeln!(f, "  callgrind            no   {why}")?,
        }
        writeln!(f, "\nprofiling (--profile, feature `profile`)")?;
        match &self.cpu_clock_sampling {
            Ok(()) => writeln!(
                f,
                "  cpu-clock sampling   yes  samples this thread's CPU time into perf.data"
            )?,
            Err(why) => writeln!(f, "  cpu-clock sampling   no   {why}")?,
        }
        match &self.branch_stacks {
            Ok(()) => writeln!(
                f,
                "  branch stacks        yes  --branch-filter samples taken branches with cycles"
            )?,
            Err(why) => writeln!(f, "  branch stacks        no   {why}")?,
        }
        writeln!(f)?;
        let hardware_missing = !unavailable.is_empty() && !self.hardware_available();
        let simulate_hint = match (&self.simulation, hardware_missing) {
            (Ok(_), true) => "; `cargo bench -- --simulate` gives exact simulated counts instead",
            (Err(_), true) => {
                "; with Valgrind installed, `cargo bench -- --simulate` gives exact simulated \
                 counts instead"
            }
            _ => "",
        };
        if unavailable.is_empty() {
            writeln!(f, "verdict: every counter tried is available")
        } else if !m.has_cpu_pmu() {
            writeln!(
                f,
                "verdict: no hardware counters here (no CPU PMU); benchmarks measure wall-time \
                 and software counters{simulate_hint}"
            )
        } else {
            writeln!(
                f,
                "verdict: unavailable: {}{simulate_hint}",
                unavailable.join(", ")
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events;

    fn ev(name: &str) -> Event {
        events::parse(name, &Sysfs::system()).unwrap()
    }

    fn vm() -> Machine {
        Machine {
            cpu_model: "Test CPU".into(),
            arch: "x86_64".into(),
            cpus: 2,
            hypervisor: true,
            kernel: "6.1.0".into(),
            pmus: vec!["software".into(), "tracepoint".into()],
            core_pmus: vec![],
            paranoid: Some(2),
            perf_user_access: None,
            x86_rdpmc: None,
            nmi_watchdog: Some(0),
            seccomp: Some(0),
            euid: 0,
            cap_perfmon: true,
        }
    }

    fn metal() -> Machine {
        Machine {
            hypervisor: false,
            pmus: vec!["cpu".into(), "software".into()],
            core_pmus: vec!["cpu".into()],
            x86_rdpmc: Some(1),
            ..vm()
        }
    }

    fn nobody(m: Machine) -> Machine {
        Machine {
            euid: 65534,
            cap_perfmon: false,
            ..m
        }
    }

    #[test]
    fn every_errno_has_its_own_message() {
        let cases: Vec<(i32, Event, Machine, &str)> = vec![
            (libc::ENOENT, ev("instructions"), vm(), "no hardware PMU"),
            (
                libc::ENOENT,
                ev("instructions"),
                metal(),
                "does not support",
            ),
            (
                libc::EACCES,
                ev("instructions"),
                nobody(vm()),
                "no hardware PMU",
            ),
            (
                libc::EACCES,
                ev("instructions"),
                nobody(Machine {
                    paranoid: Some(3),
                    ..metal()
                }),
                "refused to unprivileged users",
            ),
            (
                libc::EACCES,
                ev("cycles:k"),
                nobody(metal()),
                "counts kernel code",
            ),
            (
                libc::EACCES,
                ev("context-switches"),
                nobody(metal()),
                "happens only in the kernel",
            ),
            (
                libc::EPERM,
                ev("task-clock"),
                Machine {
                    seccomp: Some(2),
                    ..nobody(metal())
                },
                "seccomp",
            ),
            (libc::ENOSYS, ev("task-clock"), metal(), "seccomp"),
            (
                libc::EINVAL,
                ev("instructions"),
                metal(),
                "rejected the attributes",
            ),
            (libc::EOPNOTSUPP, ev("instructions"), metal(), "PMUv3p5"),
            (
                libc::EBUSY,
                ev("instructions"),
                Machine {
                    nmi_watchdog: Some(1),
                    ..metal()
                },
                "exclusive use",
            ),
            (libc::EMFILE, ev("instructions"), metal(), "file descriptor"),
            (
                libc::E2BIG,
                ev("instructions"),
                metal(),
                "older than perfbench",
            ),
            (
                libc::ENODEV,
                ev("instructions"),
                metal(),
                "not supported on the CPU",
            ),
        ];
        let mut seen = std::collections::HashSet::new();
        for (errno, event, machine, needle) in cases {
            let e = explain(Errno(errno), &event, &machine);
            assert!(
                e.reason.contains(needle),
                "{}: `{}` lacks `{needle}`",
                Errno(errno),
                e.reason
            );
            assert!(!e.fix.is_empty());
            seen.insert(e.reason);
        }
        assert!(seen.len() >= 13, "messages are distinct");
    }

    #[test]
    fn arm64_cpus_are_named_by_implementer_and_part() {
        let info =
            "processor\t: 0\nBogoMIPS\t: 125.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd08\n";
        assert_eq!(
            arm_cpu_name(info).as_deref(),
            Some("Arm core (implementer 0x41, part 0xd08)")
        );
        assert_eq!(arm_cpu_name("model name : x"), None);
    }

    #[test]
    fn ebusy_fix_mentions_the_watchdog_only_when_it_runs() {
        let on = Machine {
            nmi_watchdog: Some(1),
            ..metal()
        };
        assert!(explain(Errno(libc::EBUSY), &ev("cycles"), &on)
            .fix
            .contains("nmi_watchdog"));
        assert!(!explain(Errno(libc::EBUSY), &ev("cycles"), &metal())
            .fix
            .contains("nmi_watchdog"));
    }

    #[test]
    fn this_machine_is_described_truthfully() {
        let m = Machine::probe();
        let sysfs = Sysfs::system();
        assert_eq!(m.core_pmus.is_empty(), sysfs.core_pmus().is_empty());
        let report = diagnose(&[ev("task-clock"), Event::wall_time()], m);
        assert!(matches!(
            report.counters[0].status,
            Status::Available {
                source: Source::Read,
                ..
            }
        ));
        assert!(matches!(
            report.counters[1].status,
            Status::Available {
                source: Source::Clock,
                ..
            }
        ));
    }

    #[test]
    fn hardware_counters_open_exactly_when_a_cpu_pmu_exists() {
        let machine = Machine::probe();
        let has_pmu = machine.has_cpu_pmu();
        let report = diagnose(&[ev("instructions")], machine);
        match &report.counters[0].status {
            Status::Unavailable { errno, explanation } => {
                assert!(
                    !has_pmu,
                    "a CPU PMU exists but instructions failed: {errno}"
                );
                if errno.0 == libc::ENOENT {
                    assert!(explanation.reason.contains("no hardware PMU"));
                }
            }
            Status::Available { .. } => assert!(has_pmu),
        }
        assert_eq!(report.hardware_available(), has_pmu);
        let text = report.to_string();
        assert!(text.contains("instructions"));
        if !has_pmu {
            assert!(text.contains("no hardware counters here"), "{text}");
        }
    }
}
