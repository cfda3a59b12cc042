//! Pinning the measuring thread to one core type on machines with several CPU PMUs.
//!
//! On an Intel hybrid machine (`cpu_core` + `cpu_atom`) or an arm64 big.LITTLE machine, each
//! core type has its own PMU, and a hardware event of one PMU counts only while the thread runs
//! on that PMU's CPUs. A benchmark thread that migrates would be counted part of the time (the
//! kernel reports it like multiplexing, and the scaled figure mixes two kinds of core). The
//! runner therefore pins the thread, for the duration of each benchmark, to the CPUs of the one
//! core PMU its hardware counters belong to, and binds generalized events (`instructions`) to
//! that PMU with the extended type (see [`extended_hw_config`]), which is what
//! `perf stat -e cpu_core/instructions/` does.
//!
//! [`plan`] is pure (sysfs and the allowed CPUs are inputs) so every case is tested with fake
//! sysfs trees; the affinity system calls are in [`crate::sys`].

use crate::events::{extended_hw_config, Event, EventKind, Pmu, Sysfs};
use crate::sys::raw;

/// What to measure a benchmark with on this machine: its events, maybe rebound, and where to
/// run.
#[derive(Clone, Debug, PartialEq)]
pub struct Pinning {
    /// The events to open: the input, with generalized hardware events bound to the chosen
    /// core PMU when there is one.
    pub events: Vec<Event>,
    /// The CPUs to pin the thread to, or `None` to leave it where it may run.
    pub cpus: Option<Vec<u32>>,
    /// The core PMU chosen, if any.
    pub pmu: Option<String>,
    /// A line for the user, when something was done or could not be.
    pub note: Option<String>,
}

impl Pinning {
    fn unchanged(events: &[Event], note: Option<String>) -> Pinning {
        Pinning {
            events: events.to_vec(),
            cpus: None,
            pmu: None,
            note,
        }
    }
}

/// Decides where to measure `events`, given the machine's PMUs and the CPUs the thread may
/// run on.
///
/// Nothing changes unless some hardware event is requested and some core PMU with a `cpus`
/// list does not serve every allowed CPU (a machine with one core type needs no pinning). Then:
/// - hardware events already bound to one core PMU (`cpu_atom/instructions/`, a raw event of
///   that PMU's type, an extended generalized event) choose it; events bound to two core PMUs
///   cannot be measured on one thread at once, and the note says so;
/// - otherwise `cpu_core` is chosen where it exists and the thread may run on it (the
///   performance cores), else the core PMU with the most allowed CPUs;
/// - the thread is pinned to that PMU's CPUs among the allowed ones, unless it is already
///   confined to them, and generalized events are bound to that PMU.
///
/// A hybrid machine, as a fake sysfs tree: the performance cores are chosen.
///
/// ```
/// use perfbench::events::{parse_list, Sysfs};
/// use perfbench::harness::affinity::plan;
///
/// # let root = std::env::temp_dir().join(format!("perfbench-doc-hybrid-{}", std::process::id()));
/// for (pmu, ty, cpus) in [("cpu_core", "4", "0-7"), ("cpu_atom", "8", "8-15")] {
///     std::fs::create_dir_all(root.join(pmu))?;
///     std::fs::write(root.join(pmu).join("type"), ty)?;
///     std::fs::write(root.join(pmu).join("cpus"), cpus)?;
/// }
/// let sysfs = Sysfs::new(&root);
/// let events = parse_list("instructions,wall-time", &sysfs)?;
/// let all: Vec<u32> = (0..16).collect();
/// let pinning = plan(&events, &sysfs, &all);
/// assert_eq!(pinning.pmu.as_deref(), Some("cpu_core"));
/// assert_eq!(pinning.cpus, Some((0..8).collect()));
/// // Software counters and wall time need no pinning.
/// let soft = parse_list("task-clock,wall-time", &sysfs)?;
/// assert_eq!(plan(&soft, &sysfs, &all).cpus, None);
/// # std::fs::remove_dir_all(&root)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn plan(events: &[Event], sysfs: &Sysfs, allowed: &[u32]) -> Pinning {
    if !events.iter().any(Event::needs_pmu) {
        return Pinning::unchanged(events, None);
    }
    let cores: Vec<(Pmu, Vec<u32>)> = sysfs
        .core_pmus()
        .into_iter()
        .filter_map(|p| {
            let cpus = p.cpu_ids()?;
            Some((p, cpus))
        })
        .collect();
    if cores
        .iter()
        .all(|(_, cpus)| allowed.iter().all(|c| cpus.contains(c)))
    {
        return Pinning::unchanged(events, None);
    }
    let mut bound: Vec<&str> = events.iter().filter_map(|e| bound_pmu(e, &cores)).collect();
    crate::sorting::sort_by(&mut bound, Ord::cmp);
    bound.dedup();
    let target = match bound.as_slice() {
        [one] => cores.iter().find(|(p, _)| p.name == *one),
        [] => {
            let usable = || {
                cores
                    .iter()
                    .filter(|(_, cpus)| cpus.iter().any(|c| allowed.contains(c)))
            };
            usable().find(|(p, _)| p.name == "cpu_core").or_else(|| {
                usable().max_by_key(|(p, cpus)| {
                    let n = cpus.iter().filter(|c| allowed.contains(c)).count();
                    // Most allowed CPUs; on a tie the first name (max_by_key keeps the last).
                    (n, std::cmp::Reverse(p.name.clone()))
                })
            })
        }
        several => {
            return Pinning::unchanged(
                events,
                Some(format!(
                    "counters of {} each count only while this thread runs on that PMU's CPUs; \
                     they are measured unpinned, part-time (measure each core type in its own run)",
                    several.join(" and ")
                )),
            )
        }
    };
    let Some((pmu, pmu_cpus)) = target else {
        return Pinning::unchanged(events, None);
    };
    let cpus: Vec<u32> = allowed
        .iter()
        .copied()
        .filter(|c| pmu_cpus.contains(c))
        .collect();
    if cpus.is_empty() {
        return Pinning::unchanged(
            events,
            Some(format!(
                "this thread may not run on {}'s CPUs ({}); its counters will read 0",
                pmu.name,
                cpu_list(pmu_cpus)
            )),
        );
    }
    let events = events.iter().map(|e| bind(e, pmu)).collect();
    let confined = cpus.len() == allowed.len();
    Pinning {
        events,
        note: (!confined).then(|| {
            format!(
                "hardware counters of {} count only on its CPUs: each benchmark runs pinned to \
                 CPUs {}",
                pmu.name,
                cpu_list(&cpus)
            )
        }),
        cpus: (!confined).then_some(cpus),
        pmu: Some(pmu.name.clone()),
    }
}

/// The core PMU (among `cores`) an event is already bound to, if any.
fn bound_pmu<'a>(event: &Event, cores: &'a [(Pmu, Vec<u32>)]) -> Option<&'a str> {
    let p = event.perf()?;
    if !event.needs_pmu() {
        return None;
    }
    let by_type = |t: u32| cores.iter().find(|(c, _)| c.type_ == t);
    let found = if let Some(name) = &p.pmu {
        cores.iter().find(|(c, _)| &c.name == name)
    } else if generalized(p.type_) {
        match (p.config >> 32) as u32 {
            0 => None,
            t => by_type(t),
        }
    } else {
        by_type(p.type_)
    };
    found.map(|(c, _)| c.name.as_str())
}

fn generalized(type_: u32) -> bool {
    type_ == raw::PERF_TYPE_HARDWARE || type_ == raw::PERF_TYPE_HW_CACHE
}

/// `event`, with a generalized hardware event that names no PMU bound to `pmu`.
fn bind(event: &Event, pmu: &Pmu) -> Event {
    let mut out = event.clone();
    if let EventKind::Perf(p) = &mut out.kind {
        if generalized(p.type_) && p.pmu.is_none() && p.config >> 32 == 0 && pmu.name != "cpu" {
            p.config = extended_hw_config(pmu.type_, p.config);
            p.pmu = Some(pmu.name.clone());
        }
    }
    out
}

/// `0-15,20,22-23`: a CPU list as the kernel writes one.
///
/// ```
/// use perfbench::harness::affinity::cpu_list;
///
/// assert_eq!(cpu_list(&[0, 1, 2, 3, 8, 10, 11]), "0-3,8,10-11");
/// ```
pub fn cpu_list(cpus: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let start = cpus[i];
        let mut end = start;
        while i + 1 < cpus.len() && cpus[i + 1] == end + 1 {
            end += 1;
            i += 1;
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::fixtures::FakeSysfs;
    use crate::events::parse_list;

    fn all_cpus() -> Vec<u32> {
        (0..24).collect()
    }

    #[test]
    fn cpu_lists() {
        assert_eq!(cpu_list(&[]), "");
        assert_eq!(cpu_list(&[3]), "3");
        assert_eq!(cpu_list(&[0, 1, 2, 3, 8, 10, 11]), "0-3,8,10-11");
    }

    #[test]
    fn generalized_events_go_to_the_performance_cores_on_hybrid_intel() {
        let fake = FakeSysfs::hybrid();
        let sysfs = fake.sysfs();
        let events =
            parse_list("instructions,branch-misses,wall-time,page-faults", &sysfs).unwrap();
        let p = plan(&events, &sysfs, &all_cpus());
        assert_eq!(p.pmu.as_deref(), Some("cpu_core"));
        assert_eq!(p.cpus, Some((0..16).collect()));
        assert!(p.note.unwrap().contains("CPUs 0-15"));
        // Bound with cpu_core's type (4) in the config's high bits; names unchanged.
        let instructions = p.events[0].perf().unwrap();
        assert_eq!(
            instructions.config,
            extended_hw_config(4, u64::from(raw::PERF_COUNT_HW_INSTRUCTIONS))
        );
        assert_eq!(instructions.pmu.as_deref(), Some("cpu_core"));
        assert_eq!(p.events[0].name, "instructions");
        // wall-time and software events are untouched.
        assert_eq!(p.events[2..], events[2..]);
    }

    #[test]
    fn an_event_bound_to_one_core_type_chooses_it() {
        let fake = FakeSysfs::hybrid();
        let sysfs = fake.sysfs();
        let events = parse_list("cpu_atom/instructions/,cycles", &sysfs).unwrap();
        let p = plan(&events, &sysfs, &all_cpus());
        assert_eq!(p.pmu.as_deref(), Some("cpu_atom"));
        assert_eq!(p.cpus, Some((16..24).collect()));
        // `cycles` follows onto cpu_atom (type 10).
        assert_eq!(p.events[1].perf().unwrap().config >> 32, 10);
    }

    #[test]
    fn events_of_two_core_types_are_not_pinned_and_say_why() {
        let fake = FakeSysfs::hybrid();
        let sysfs = fake.sysfs();
        let events = parse_list("cpu_atom/instructions/,cpu_core/instructions/", &sysfs).unwrap();
        let p = plan(&events, &sysfs, &all_cpus());
        assert_eq!((p.cpus, p.pmu), (None, None));
        assert_eq!(p.events, events);
        assert!(p.note.unwrap().contains("cpu_atom and cpu_core"));
    }

    #[test]
    fn a_thread_already_confined_is_not_re_pinned_and_one_kept_off_is_told() {
        let fake = FakeSysfs::hybrid();
        let sysfs = fake.sysfs();
        let events = parse_list("instructions", &sysfs).unwrap();
        // taskset -c 2-5: already on performance cores.
        let p = plan(&events, &sysfs, &[2, 3, 4, 5]);
        assert_eq!((p.cpus, p.note), (None, None));
        assert_eq!(p.pmu.as_deref(), Some("cpu_core"));
        assert_ne!(p.events, events, "still bound to cpu_core");
        // taskset -c 16-23 with a cpu_core event: no CPU to run on.
        let events = parse_list("cpu_core/instructions/", &sysfs).unwrap();
        let p = plan(&events, &sysfs, &[16, 17]);
        assert_eq!(p.cpus, None);
        assert!(p
            .note
            .unwrap()
            .contains("may not run on cpu_core's CPUs (0-15)"));
        // Only atom CPUs allowed and nothing bound: the atom PMU is the one with CPUs.
        let events = parse_list("instructions", &sysfs).unwrap();
        let p = plan(&events, &sysfs, &[16, 17]);
        assert_eq!(p.pmu.as_deref(), Some("cpu_atom"));
        assert_eq!(p.cpus, None);
    }

    #[test]
    fn one_core_type_and_software_only_runs_change_nothing() {
        for fake in [FakeSysfs::intel(), FakeSysfs::arm64(), FakeSysfs::new()] {
            let sysfs = fake.sysfs();
            let events = parse_list("instructions,wall-time", &sysfs).unwrap();
            let p = plan(&events, &sysfs, &[0, 1, 2, 3]);
            assert_eq!(p, Pinning::unchanged(&events, None));
        }
        let fake = FakeSysfs::hybrid();
        let sysfs = fake.sysfs();
        let events = parse_list("task-clock,page-faults,wall-time", &sysfs).unwrap();
        assert_eq!(
            plan(&events, &sysfs, &all_cpus()),
            Pinning::unchanged(&events, None)
        );
    }

    #[test]
    fn big_little_arm64_picks_the_cluster_with_more_cpus() {
        let fake = FakeSysfs::new().with_pseudo_pmus();
        fake.pmu("armv8_cortex_a53", 8).cpus("0-3");
        fake.pmu("armv8_cortex_a72", 9).cpus("4-5");
        let sysfs = fake.sysfs();
        let events = parse_list("instructions", &sysfs).unwrap();
        let p = plan(&events, &sysfs, &[0, 1, 2, 3, 4, 5]);
        assert_eq!(p.pmu.as_deref(), Some("armv8_cortex_a53"));
        assert_eq!(p.cpus, Some(vec![0, 1, 2, 3]));
        assert_eq!(p.events[0].perf().unwrap().config >> 32, 8);
    }
}
