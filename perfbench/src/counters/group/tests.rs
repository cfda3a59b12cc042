use super::*;
use crate::events::PerfEvent;
use crate::sys::raw;

fn sw(name: &str, config: u32) -> Event {
    Event {
        name: name.to_owned(),
        kind: EventKind::Perf(PerfEvent {
            type_: raw::PERF_TYPE_SOFTWARE,
            config: config as u64,
            config1: 0,
            config2: 0,
            config3: 0,
            pmu: None,
            user: true,
            kernel: false,
            hypervisor: false,
            precise_ip: 0,
        }),
    }
}

/// Runs the page-touching code once, so that a count of page faults that follows sees only
/// the fresh data pages, not a first fault on the code's own text.
fn warm_up() {
    sys::AnonMapping::new(1).unwrap().touch_every_page();
}

fn software_trio() -> Vec<Event> {
    vec![
        sw("page-faults", raw::PERF_COUNT_SW_PAGE_FAULTS),
        sw("task-clock", raw::PERF_COUNT_SW_TASK_CLOCK),
        sw("context-switches", raw::PERF_COUNT_SW_CONTEXT_SWITCHES),
    ]
}

#[test]
fn touching_k_fresh_pages_reads_exactly_k_page_faults() {
    let mut group = Group::open(&software_trio(), &GroupOptions::default()).unwrap();
    assert_eq!(
        group.source(),
        Source::Read,
        "software events have no fast path"
    );
    let mut r = Reading::with_len(3);
    warm_up();
    for k in [1usize, 7, 64, 300] {
        let mut map = sys::AnonMapping::new(k).unwrap();
        group.reset().unwrap();
        group.enable().unwrap();
        map.touch_every_page();
        group.disable().unwrap();
        group.read(&mut r).unwrap();
        assert_eq!(r.values[0], k as u64, "page-faults for {k} pages");
        assert!(!r.multiplexed());
    }
}

#[test]
fn task_clock_stays_within_the_wall_time_of_the_region() {
    let mut group = Group::open(&software_trio(), &GroupOptions::default()).unwrap();
    let mut r = Reading::with_len(3);
    // Busy for `ns` of wall time, outside the region: counted, it would show.
    let spin = |ns: u64| {
        let start = wall_time_ns();
        while wall_time_ns() - start < ns {
            std::hint::spin_loop();
        }
    };
    group.reset().unwrap();
    spin(20_000_000);
    let t0 = wall_time_ns();
    group.enable().unwrap();
    let mut x = 1u64;
    for i in 0..2_000_000u64 {
        x = std::hint::black_box(x.wrapping_mul(i | 1));
    }
    group.disable().unwrap();
    let wall = wall_time_ns() - t0;
    spin(20_000_000);
    group.read(&mut r).unwrap();
    assert!(r.values[1] > 0);
    // task-clock runs on the kernel's scheduler clock and the wall time on CLOCK_MONOTONIC,
    // which time synchronisation may slew by a few percent: 10% of slack, while counting
    // the 40 ms of spinning outside would read several times the region's wall time.
    let slack = |ns: u64| ns as f64 <= 1.1 * wall as f64;
    assert!(
        slack(r.values[1]),
        "task-clock {} > wall {wall}",
        r.values[1]
    );
    assert!(slack(r.time_enabled) && r.time_running <= r.time_enabled);
}

#[test]
fn disabled_group_excludes_what_happens_outside() {
    let mut group = Group::open(&software_trio(), &GroupOptions::default()).unwrap();
    let mut r = Reading::with_len(3);
    group.reset().unwrap();
    // Faults while disabled must not count.
    let mut outside = sys::AnonMapping::new(50).unwrap();
    outside.touch_every_page();
    group.enable().unwrap();
    let mut inside = sys::AnonMapping::new(5).unwrap();
    inside.touch_every_page();
    group.disable().unwrap();
    let mut after = sys::AnonMapping::new(50).unwrap();
    after.touch_every_page();
    group.read(&mut r).unwrap();
    assert_eq!(r.values[0], 5);
    // The read itself does not change anything once disabled.
    let first = r.clone();
    group.read(&mut r).unwrap();
    assert_eq!(first, r);
}

#[test]
fn reset_zeroes_counts_not_times() {
    let mut group = Group::open(&software_trio(), &GroupOptions::default()).unwrap();
    let mut r = Reading::with_len(3);
    group.enable().unwrap();
    let mut m = sys::AnonMapping::new(3).unwrap();
    m.touch_every_page();
    group.disable().unwrap();
    group.reset().unwrap();
    group.read(&mut r).unwrap();
    assert_eq!(r.values, vec![0, 0, 0]);
    assert!(r.time_enabled > 0, "times survive a reset");
}

#[test]
fn scaling_and_flags() {
    let r = Reading {
        values: vec![100, 7],
        time_enabled: 1000,
        time_running: 250,
    };
    assert!(r.multiplexed());
    assert_eq!(r.scaled(0), Some(400.0));
    let never = Reading {
        values: vec![0],
        time_enabled: 1000,
        time_running: 0,
    };
    assert!(never.never_ran());
    assert_eq!(never.scaled(0), None);
    let full = Reading {
        values: vec![5],
        time_enabled: 10,
        time_running: 10,
    };
    assert_eq!(full.scaled(0), Some(5.0));
    assert_eq!(full.scaled(3), None);
}

#[test]
fn counters_split_software_and_wall_time() {
    let mut events = software_trio();
    events.push(Event::wall_time());
    let counters = Counters::open(&events, &GroupOptions::default()).unwrap();
    assert_eq!(
        counters.groups().len(),
        2,
        "task-clock alone, page-faults and context-switches together"
    );
    let names: Vec<Vec<String>> = counters.groups().iter().map(Group::names).collect();
    assert_eq!(
        names,
        [vec!["page-faults", "context-switches"], vec!["task-clock"]],
        "the clock's group last, so its bracket is innermost"
    );
    assert!(counters.wall_time());
    assert_eq!(counters.source_of("wall-time"), Some(Source::Clock));
    assert_eq!(counters.source_of("task-clock"), Some(Source::Read));
    assert_eq!(counters.source_of("nope"), None);
    // The three software groups and the clock in one pass.
    assert_eq!(
        counters.passes(),
        vec![Pass {
            groups: 0..2,
            wall_time: true,
            allocs: Vec::new(),
        }]
    );
    let software_only = Counters::open(&software_trio(), &GroupOptions::default()).unwrap();
    assert_eq!(
        software_only.passes(),
        vec![Pass {
            groups: 0..2,
            wall_time: false,
            allocs: Vec::new(),
        }]
    );
    let clock_only = Counters::open(&[Event::wall_time()], &GroupOptions::default()).unwrap();
    assert_eq!(
        clock_only.passes(),
        vec![Pass {
            groups: 0..0,
            wall_time: true,
            allocs: Vec::new(),
        }]
    );
    let nothing = Counters::open(&[], &GroupOptions::default()).unwrap();
    assert_eq!(nothing.passes().len(), 1);
}

#[test]
fn every_software_counter_reads_right_whatever_the_order() {
    // Grouped, `page-faults` behind a `task-clock` leader read 0 on Linux 6.18; behind a
    // leader of its own software PMU it reads right.
    let events = vec![
        sw("task-clock", raw::PERF_COUNT_SW_TASK_CLOCK),
        sw("context-switches", raw::PERF_COUNT_SW_CONTEXT_SWITCHES),
        sw("page-faults", raw::PERF_COUNT_SW_PAGE_FAULTS),
        sw("cpu-clock", raw::PERF_COUNT_SW_CPU_CLOCK),
    ];
    let mut counters = Counters::open(&events, &GroupOptions::default()).unwrap();
    let mut map = sys::AnonMapping::new(40).unwrap();
    warm_up();
    for g in counters.groups_mut() {
        g.reset().unwrap();
        g.enable().unwrap();
    }
    map.touch_every_page();
    for g in counters.groups_mut() {
        g.disable().unwrap();
    }
    let mut values = std::collections::HashMap::new();
    for g in counters.groups_mut() {
        let mut r = Reading::with_len(g.len());
        g.read(&mut r).unwrap();
        for (e, v) in g.events().iter().zip(&r.values) {
            values.insert(e.name.clone(), *v);
        }
    }
    // page-faults is a member behind context-switches, a leader of the same software PMU.
    assert_eq!(counters.groups().len(), 3);
    assert_eq!(values["page-faults"], 40);
    assert!(values["task-clock"] > 0);
    assert!(values["cpu-clock"] > 0);
}

#[test]
#[ignore = "needs root and tracefs mounted at /sys/kernel/tracing (.ci/run mounts it)"]
fn a_tracepoint_counts_exactly_the_system_calls_made() {
    let sysfs = crate::events::Sysfs::system();
    let events =
        crate::events::parse_list("syscalls:sys_enter_getpid,page-faults", &sysfs).unwrap();
    let mut counters = Counters::open(&events, &GroupOptions::default()).unwrap();
    // The tracepoint is a PMU of its own: it leads its own group, after the shared one.
    let names: Vec<Vec<String>> = counters.groups().iter().map(Group::names).collect();
    assert_eq!(
        names,
        [vec!["page-faults"], vec!["syscalls:sys_enter_getpid"]]
    );
    for k in [1u32, 10, 1000] {
        let group = &mut counters.groups_mut()[1];
        let (mut a, mut b) = (Reading::with_len(1), Reading::with_len(1));
        group.reset().unwrap();
        group.enable().unwrap();
        group.read(&mut a).unwrap();
        for _ in 0..k {
            // glibc >= 2.25 does not cache the pid: one getpid(2) each.
            std::hint::black_box(std::process::id());
        }
        group.read(&mut b).unwrap();
        group.disable().unwrap();
        assert_eq!(b.values[0] - a.values[0], u64::from(k), "k = {k}");
    }
}

#[test]
fn group_reads_carry_ids_in_order() {
    let mut group = Group::open(&software_trio(), &GroupOptions::default()).unwrap();
    group.enable().unwrap();
    let mut r = Reading::with_len(3);
    group.read_syscall(&mut r).unwrap();
    assert_eq!(group.ids.len(), 3);
    let ids = &group.buf[sys::GROUP_HEADER_WORDS..];
    assert_eq!(
        [ids[1], ids[3], ids[5]],
        [group.ids[0], group.ids[1], group.ids[2]]
    );
}

// ---- Hardware counters: these need a CPU PMU (`/sys/bus/event_source/devices/cpu*`),
// which this project's VMs lack. Run with `cargo test -- --ignored` on bare metal.

fn hw(names: &str) -> Vec<Event> {
    crate::events::parse_list(names, &crate::events::Sysfs::system()).unwrap()
}

#[test]
#[ignore = "needs a CPU PMU (hardware counters); the development VM has none"]
fn hardware_group_counts_a_loop_and_reports_its_source() {
    let mut group = Group::open(&hw("instructions,cycles"), &GroupOptions::default()).unwrap();
    let mut r = Reading::with_len(2);
    let mut per_k = Vec::new();
    for k in [100_000u64, 200_000] {
        group.reset().unwrap();
        group.enable().unwrap();
        let mut x = 0u64;
        for i in 0..k {
            x = std::hint::black_box(x.wrapping_add(i));
        }
        group.disable().unwrap();
        group.read(&mut r).unwrap();
        assert!(!r.never_ran());
        per_k.push(r.values[0]);
    }
    // Twice the loop, about twice the instructions.
    let ratio = per_k[1] as f64 / per_k[0] as f64;
    assert!((1.8..2.2).contains(&ratio), "instructions ratio {ratio}");
    if arch::SOURCE.is_some() && group.source() != Source::Read {
        assert_eq!(Some(group.source()), arch::SOURCE);
    }
}

#[test]
#[ignore = "needs a CPU PMU (hardware counters); the development VM has none"]
fn fast_path_matches_read_while_enabled() {
    let mut group = Group::open(&hw("instructions,cycles"), &GroupOptions::default()).unwrap();
    if group.source() == Source::Read {
        eprintln!("fast path not granted here (see `perfbench doctor`)");
        return;
    }
    group.reset().unwrap();
    group.enable().unwrap();
    let (mut a, mut b) = (Reading::with_len(2), Reading::with_len(2));
    group.read(&mut a).unwrap();
    group.read_syscall(&mut b).unwrap();
    group.disable().unwrap();
    // Counting continued between the two reads, but only by the cost of one read.
    assert!(b.values[0] >= a.values[0] && b.values[0] - a.values[0] < 100_000);
}

#[test]
#[ignore = "needs a CPU PMU (hardware counters); the development VM has none"]
fn more_events_than_counters_are_split_not_read_as_zero() {
    // More `instructions` counters than any PMU has (Intel 8, Zen 6, PMUv3 up to 31).
    let events: Vec<Event> = (0..40)
        .map(|i| Event {
            name: format!("instructions#{i}"),
            ..hw("instructions").remove(0)
        })
        .collect();
    let mut counters = Counters::open(&events, &GroupOptions::default()).unwrap();
    assert!(
        counters.groups().len() > 1,
        "40 events cannot share one group"
    );
    for group in counters.groups_mut() {
        let mut r = Reading::with_len(group.len());
        group.enable().unwrap();
        group.disable().unwrap();
        group.read(&mut r).unwrap();
        assert!(!r.never_ran(), "group {:?} never ran", group.names());
    }
}

#[test]
#[ignore = "needs a CPU PMU (hardware counters); the development VM has none"]
fn each_hardware_group_is_a_pass_and_the_clock_joins_the_first() {
    let mut events = hw("instructions");
    events.push(sw("page-faults", raw::PERF_COUNT_SW_PAGE_FAULTS));
    events.push(Event::wall_time());
    let counters = Counters::open(&events, &GroupOptions::default()).unwrap();
    let pass = |groups: std::ops::Range<usize>, wall_time| Pass {
        groups,
        wall_time,
        allocs: Vec::new(),
    };
    assert_eq!(counters.passes(), vec![pass(0..1, true), pass(1..2, false)]);
}

#[test]
#[ignore = "needs a CPU PMU (hardware counters); the development VM has none"]
fn pinned_groups_that_cannot_all_fit_report_unschedulable() {
    let options = GroupOptions {
        pinned: true,
        ..GroupOptions::default()
    };
    // Pin more groups than the PMU has counters; at least one must go into error state.
    let mut groups: Vec<Group> = (0..32)
        .map(|_| Group::open(&hw("instructions,cycles"), &options))
        .collect::<Result<_, _>>()
        .unwrap();
    for g in &groups {
        g.enable().unwrap();
    }
    let mut r = Reading::with_len(2);
    let mut errors = 0;
    for g in &mut groups {
        if matches!(g.read(&mut r), Err(CounterError::Unschedulable { .. })) {
            errors += 1;
        }
    }
    assert!(
        errors > 0,
        "32 pinned 2-event groups cannot all be on the PMU"
    );
}
