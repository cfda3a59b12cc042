//! Facts about this machine that decide whether perf counters open, and why
//! `perf_event_open` refused one.
//!
//! [`Machine`] gathers the facts (PMUs in sysfs, `perf_event_paranoid`,
//! `kernel.perf_user_access`, the x86 `rdpmc` setting, hybrid core types, seccomp,
//! capabilities); [`explain`] and [`explain_open_failure`] turn a refused `perf_event_open`
//! into a reason and a fix for *this* machine.
//!
//! It sits below [`counters`](crate::counters) (which explains its open failures with it) and
//! `doctor` (perfbench-analysis, which renders a whole diagnosis), above [`sys`](mod@crate::sys)
//! and [`events`](crate::events). It only inspects and explains; it never changes a setting.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

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
    /// A reason and its fix.
    pub fn new(reason: impl Into<String>, fix: impl Into<String>) -> Explanation {
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
    /// x86 `/sys/bus/event_source/devices/cpu/rdpmc` (0 off, 1 while mmapped, 2 always); on a
    /// hybrid machine, where each core PMU has its own (`cpu_core/rdpmc`, `cpu_atom/rdpmc`),
    /// the lowest of them.
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

/// The x86 `rdpmc` setting: `cpu/rdpmc`, else the lowest of the core PMUs' own files (hybrid
/// machines have `cpu_core/rdpmc` and `cpu_atom/rdpmc`; the fast path needs every core type's
/// permission).
fn x86_rdpmc(devices: &Path, core_pmus: &[String]) -> Option<i32> {
    read_int(&devices.join("cpu/rdpmc")).or_else(|| {
        core_pmus
            .iter()
            .filter_map(|p| read_int(&devices.join(p).join("rdpmc")))
            .min()
    })
}

impl Machine {
    /// Reads this machine's facts.
    ///
    /// ```
    /// use perfbench::machine::Machine;
    ///
    /// let m = Machine::probe();
    /// assert_eq!(m.arch, std::env::consts::ARCH);
    /// assert!(m.cpus >= 1);
    /// println!("{} on {}: {} CPU PMU(s)", m.cpu_model, m.kernel, m.core_pmus.len());
    /// ```
    pub fn probe() -> Machine {
        Machine::probe_at(&Roots::default())
    }

    /// The facts, cached for the life of the process (explanations need them on error paths).
    ///
    /// ```
    /// use perfbench::machine::Machine;
    ///
    /// assert!(std::ptr::eq(Machine::cached(), Machine::cached()));
    /// ```
    pub fn cached() -> &'static Machine {
        static MACHINE: OnceLock<Machine> = OnceLock::new();
        MACHINE.get_or_init(Machine::probe)
    }

    /// Reads the facts from the given roots.
    ///
    /// A fake machine, as the tests read one:
    ///
    /// ```
    /// use perfbench::events::Sysfs;
    /// use perfbench::machine::{Machine, Roots};
    ///
    /// # let dir = std::env::temp_dir().join(format!("perfbench-doc-machine-{}", std::process::id()));
    /// std::fs::create_dir_all(dir.join("proc/sys/kernel"))?;
    /// std::fs::write(dir.join("proc/sys/kernel/perf_event_paranoid"), "1\n")?;
    /// std::fs::create_dir_all(dir.join("sys/cpu"))?;
    /// std::fs::write(dir.join("sys/cpu/type"), "4\n")?;
    /// let m = Machine::probe_at(&Roots { sysfs: Sysfs::new(dir.join("sys")), proc: dir.join("proc") });
    /// assert_eq!((m.paranoid, m.core_pmus.as_slice()), (Some(1), &["cpu".to_string()][..]));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
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
            x86_rdpmc: x86_rdpmc(roots.sysfs.root(), &core_pmus),
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
    ///
    /// ```
    /// # use perfbench::machine::Machine;
    /// let vm = Machine {
    ///     arch: "x86_64".into(),
    ///     hypervisor: true,
    ///     pmus: vec!["software".into(), "tracepoint".into()],
    ///     paranoid: Some(2),
    ///     euid: 1000,
    ///     ..Machine::default()
    /// };
    /// assert!(!vm.has_cpu_pmu());
    /// ```
    pub fn has_cpu_pmu(&self) -> bool {
        !self.core_pmus.is_empty()
    }

    /// Intel hybrid (`cpu_core` + `cpu_atom`) or several arm64 PMUs (big.LITTLE).
    ///
    /// ```
    /// use perfbench::machine::Machine;
    ///
    /// let alder_lake = Machine { core_pmus: vec!["cpu_atom".into(), "cpu_core".into()], ..Machine::default() };
    /// assert!(alder_lake.hybrid());
    /// assert!(!Machine { core_pmus: vec!["cpu".into()], ..Machine::default() }.hybrid());
    /// ```
    pub fn hybrid(&self) -> bool {
        self.core_pmus.len() > 1
    }

    /// Whether this process is privileged for perf (root or `CAP_PERFMON`/`CAP_SYS_ADMIN`).
    ///
    /// ```
    /// use perfbench::machine::Machine;
    ///
    /// assert!(Machine { euid: 0, ..Machine::default() }.privileged());
    /// assert!(!Machine { euid: 1000, ..Machine::default() }.privileged());
    /// assert!(Machine { euid: 1000, cap_perfmon: true, ..Machine::default() }.privileged());
    /// ```
    pub fn privileged(&self) -> bool {
        self.euid == 0 || self.cap_perfmon
    }

    /// A sentence on what `perf_event_paranoid` allows this process.
    ///
    /// ```
    /// # use perfbench::machine::Machine;
    /// let vm = Machine {
    ///     arch: "x86_64".into(),
    ///     hypervisor: true,
    ///     pmus: vec!["software".into(), "tracepoint".into()],
    ///     paranoid: Some(2),
    ///     euid: 1000,
    ///     ..Machine::default()
    /// };
    /// println!("{}", vm.paranoid_meaning());
    /// assert!(vm.paranoid_meaning().contains('2'));
    /// ```
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
#[doc(hidden)] // for the doctor's tests
pub fn arm_cpu_name(cpuinfo: &str) -> Option<String> {
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
///
/// ```
/// use perfbench::events::{parse, Sysfs};
/// use perfbench::machine::explain_open_failure;
/// use perfbench::sys::{Errno, OpenFailure};
///
/// let cycles = parse("cycles", &Sysfs::system())?;
/// let failure = OpenFailure { errno: Errno(libc::EACCES), size_mismatch: None };
/// let why = explain_open_failure(&cycles, &failure); // on this machine's facts
/// assert!(!why.reason.is_empty() && !why.fix.is_empty());
/// # Ok::<(), perfbench::events::EventError>(())
/// ```
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
///
/// ```
/// use perfbench::events::{parse, Sysfs};
/// use perfbench::machine::explain;
/// use perfbench::sys::Errno;
/// use perfbench::machine::Machine;
/// let vm = Machine {
///     arch: "x86_64".into(),
///     hypervisor: true,
///     pmus: vec!["software".into(), "tracepoint".into()],
///     paranoid: Some(2),
///     euid: 1000,
///     ..Machine::default()
/// };
/// let instructions = parse("instructions", &Sysfs::system())?;
/// let why = explain(Errno(libc::ENOENT), &instructions, &vm);
/// assert!(why.reason.starts_with("no hardware PMU"), "{}", why.reason);
/// assert!(why.reason.contains("virtual machine"));
/// # Ok::<(), perfbench::events::EventError>(())
/// ```
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
        // Under a seccomp filter a refusal is the filter's only when the paranoid level
        // allows the request: otherwise the kernel refuses it whatever the filter says.
        libc::EACCES | libc::EPERM
            if machine.seccomp == Some(2)
                && !needs_pmu
                && !paranoid_refuses(machine, event, kernel) =>
        {
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
            if machine.seccomp == Some(2) && paranoid_refuses(machine, event, kernel) {
                reason.push_str(
                    " (a seccomp filter is active too: if the fix below does not help, it may \
                     block perf_event_open as well)",
                );
            }
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

/// Whether `kernel.perf_event_paranoid` alone refuses `event` to this process: unprivileged,
/// and level 3 or more, or level 2 or more for kernel-mode counting (`kernel`: the `:k`
/// modifier, or an event that only happens in the kernel, counted there by default).
fn paranoid_refuses(machine: &Machine, event: &Event, kernel: bool) -> bool {
    let kernel = kernel || event.perf().is_some_and(|e| e.happens_in_kernel());
    !machine.privileged()
        && match machine.paranoid {
            Some(p) => p >= 3 || (p >= 2 && kernel),
            None => false,
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

/// The items of a list, or `none`.
pub fn list_or_none(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::fixtures::FakeSysfs;

    #[test]
    fn the_rdpmc_setting_is_read_on_plain_and_hybrid_machines() {
        let intel = FakeSysfs::intel();
        intel.file("cpu/rdpmc", "2\n");
        assert_eq!(x86_rdpmc(intel.root(), &["cpu".to_owned()]), Some(2));
        let hybrid = FakeSysfs::hybrid();
        let cores = ["cpu_atom".to_owned(), "cpu_core".to_owned()];
        assert_eq!(x86_rdpmc(hybrid.root(), &cores), None, "no file: unknown");
        hybrid.file("cpu_core/rdpmc", "1\n");
        assert_eq!(x86_rdpmc(hybrid.root(), &cores), Some(1));
        hybrid.file("cpu_atom/rdpmc", "0\n");
        assert_eq!(x86_rdpmc(hybrid.root(), &cores), Some(0), "the lowest wins");
    }
}
