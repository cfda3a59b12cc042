//! What this machine can count, and why not.
//!
//! [`diagnose`] tries each counter and says through which [`Source`] it would be read, with
//! the facts of [`Machine`] and the explanations of [`explain`] (both from
//! [`machine`](perfbench::machine), re-exported here), and whether `--simulate` and `--profile`
//! work. `perfbench doctor` prints the result.
//!
//! This module only inspects and explains; it never changes a setting.

use std::fmt;

use perfbench::counters::{arch, callgrind, userpage::FastReader, GroupOptions, Source};
use perfbench::events::Event;
use perfbench::machine::list_or_none;
pub use perfbench::machine::{explain, explain_open_failure, Explanation, Machine, Roots};
use perfbench::sys::{self, Errno};

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
///
/// ```
/// use perfbench_analysis::doctor::{diagnose, Machine, Status, DOCTOR_COUNTERS};
/// use perfbench::events::{parse, Sysfs};
///
/// let sysfs = Sysfs::system();
/// let events: Vec<_> = DOCTOR_COUNTERS.iter().map(|n| parse(n, &sysfs).unwrap()).collect();
/// let report = diagnose(&events, Machine::probe());
/// let wall = report.counters.iter().find(|c| c.name == "wall-time").unwrap();
/// assert!(matches!(wall.status, Status::Available { .. })); // always
/// println!("{report}"); // what `perfbench doctor` prints
/// ```
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
    let group = match perfbench::counters::Group::open(
        std::slice::from_ref(event),
        &GroupOptions::default(),
    ) {
        Ok(g) => g,
        Err(perfbench::counters::CounterError::Open {
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

fn why_no_fast_path(
    event: &Event,
    group: &perfbench::counters::Group,
    machine: &Machine,
) -> String {
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
        return "the x86 rdpmc setting is 0 (/sys/bus/event_source/devices/cpu/rdpmc, or \
                cpu_core/rdpmc and cpu_atom/rdpmc on a hybrid machine); fix: `echo 1 >` each \
                of those files"
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
    ///
    /// ```
    /// use perfbench_analysis::doctor::{diagnose, Machine};
    /// use perfbench::events::{parse, Sysfs};
    ///
    /// let instructions = parse("instructions", &Sysfs::system()).unwrap();
    /// let report = diagnose(&[instructions], Machine::probe());
    /// if !report.machine.has_cpu_pmu() {
    ///     // A VM without a PMU: the counter's `Unavailable` explanation says why.
    ///     assert!(!report.hardware_available());
    /// }
    /// ```
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
                // The default core type, as harness::affinity::plan chooses it.
                let default = if m.core_pmus.iter().any(|p| p == "cpu_core") {
                    "cpu_core"
                } else {
                    "the one with the most CPUs"
                };
                format!(
                    "{} (hybrid: one PMU per core type; benchmarks run pinned to the CPUs of \
                     their counters' core type, {default} unless a counter names another)",
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
                    0 => {
                        "rdpmc disabled: `echo 1 > /sys/bus/event_source/devices/cpu/rdpmc` \
                         (on a hybrid machine: cpu_core/rdpmc and cpu_atom/rdpmc)"
                    }
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
    use perfbench::events::{self, Sysfs};
    use perfbench::machine::arm_cpu_name;

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
            // In a container with a seccomp filter, what the paranoid level refuses is blamed
            // on the paranoid level, not on the filter.
            (
                libc::EACCES,
                ev("context-switches"),
                Machine {
                    seccomp: Some(2),
                    ..nobody(metal())
                },
                "happens only in the kernel",
            ),
            (
                libc::EACCES,
                ev("task-clock"),
                Machine {
                    seccomp: Some(2),
                    paranoid: Some(3),
                    ..nobody(metal())
                },
                "refused to unprivileged users",
            ),
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
        assert!(seen.len() >= 15, "messages are distinct");
    }

    #[test]
    fn a_hybrid_machine_names_its_own_default_core_type() {
        let report = |arch: &str, core_pmus: &[&str]| {
            let m = Machine {
                arch: arch.into(),
                core_pmus: core_pmus.iter().map(|p| p.to_string()).collect(),
                ..metal()
            };
            Report {
                machine: m,
                counters: Vec::new(),
                simulation: Err("not tried".into()),
                cpu_clock_sampling: Err("not tried".into()),
                branch_stacks: Err("not tried".into()),
            }
            .to_string()
        };
        let intel = report("x86_64", &["cpu_atom", "cpu_core"]);
        assert!(
            intel.contains("cpu_core unless a counter names another"),
            "{intel}"
        );
        let big_little = report("aarch64", &["armv8_pmuv3_0", "armv8_pmuv3_1"]);
        assert!(big_little.contains("hybrid"), "{big_little}");
        assert!(!big_little.contains("cpu_core"), "{big_little}");
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
