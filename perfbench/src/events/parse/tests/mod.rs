//! Tests of [`parse`](super::parse), [`parse_list`](super::parse_list) and
//! [`known_names`](super::known_names) against fake sysfs trees of real kernels' layouts.

use super::*;

use crate::events::fixtures::FakeSysfs;

mod names;
mod pmu;
mod suggest;
mod tracepoint;

/// A tree with no PMUs: generalized names must not need sysfs.
fn empty() -> FakeSysfs {
    FakeSysfs::new()
}

fn perf(name: &str, sysfs: &Sysfs) -> PerfEvent {
    match parse(name, sysfs) {
        Ok(Event {
            kind: EventKind::Perf(p),
            ..
        }) => p,
        other => panic!("{name}: {other:?}"),
    }
}

fn err(name: &str, sysfs: &Sysfs) -> EventError {
    match parse(name, sysfs) {
        Err(e) => e,
        Ok(event) => panic!("{name} parsed: {event:?}"),
    }
}

/// A user-space-only event of `type_` with `config`, as the default modifiers give.
fn expect(type_: u32, config: u64) -> PerfEvent {
    PerfEvent {
        type_,
        config,
        config1: 0,
        config2: 0,
        config3: 0,
        pmu: None,
        user: true,
        kernel: false,
        hypervisor: false,
        precise_ip: 0,
    }
}

fn on(pmu: &str, event: PerfEvent) -> PerfEvent {
    PerfEvent {
        pmu: Some(pmu.to_owned()),
        ..event
    }
}

#[test]
fn wall_time() {
    let fake = empty();
    let event = parse(" wall-time ", &fake.sysfs()).unwrap();
    assert_eq!(event, Event::wall_time());
    assert_eq!(event.unit(), "ns");
    let e = err("wall-time:u", &fake.sysfs());
    assert!(e.message.contains("no modifiers"), "{e}");
}

#[test]
fn modifiers() {
    let fake = empty();
    let sysfs = fake.sysfs();
    let mods = |name: &str| {
        let p = perf(name, &sysfs);
        (p.user, p.kernel, p.hypervisor, p.precise_ip)
    };
    assert_eq!(mods("cycles"), (true, false, false, 0));
    assert_eq!(mods("cycles:u"), (true, false, false, 0));
    assert_eq!(mods("cycles:k"), (false, true, false, 0));
    assert_eq!(mods("cycles:h"), (false, false, true, 0));
    assert_eq!(mods("cycles:uk"), (true, true, false, 0));
    assert_eq!(mods("cycles:ku"), (true, true, false, 0));
    assert_eq!(mods("cycles:ukh"), (true, true, true, 0));
    assert_eq!(mods("cycles:p"), (true, false, false, 1));
    assert_eq!(mods("cycles:pp"), (true, false, false, 2));
    assert_eq!(mods("cycles:ppp"), (true, false, false, 3));
    assert_eq!(mods("cycles:upp"), (true, false, false, 2));
    assert_eq!(mods("cycles:kpp"), (false, true, false, 2));
    assert_eq!(mods("task-clock:k"), (false, true, false, 0));
    assert_eq!(mods("LLC-loads:u"), (true, false, false, 0));

    assert!(err("cycles:pppp", &sysfs).message.contains("too many `p`"));
    let e = err("cycles:ux", &sysfs);
    assert!(e.message.contains("unknown modifier `x`"), "{e}");
    assert!(err("cycles:", &sysfs).message.contains("empty modifier"));
    assert!(err("cycles:u:k", &sysfs)
        .message
        .contains("unknown modifier `:`"));
    assert!(err("cycles:G", &sysfs).message.contains("`G`"));
    // Modifiers keep the name as written: `cycles` and `cycles:u` are different counters.
    assert_eq!(parse("cycles:u", &sysfs).unwrap().name, "cycles:u");
}

#[test]
fn lists() {
    let fake = FakeSysfs::intel();
    let sysfs = fake.sysfs();
    let names = |list: &str| -> Vec<String> {
        parse_list(list, &sysfs)
            .unwrap()
            .into_iter()
            .map(|e| e.name)
            .collect()
    };
    assert_eq!(names("instructions"), ["instructions"]);
    assert_eq!(
        names(" instructions , cycles:u,wall-time "),
        ["instructions", "cycles:u", "wall-time"]
    );
    assert_eq!(
        names("cpu/event=0x3c,umask=0x0/u,instructions,cpu/event=0xc0,edge/,task-clock"),
        [
            "cpu/event=0x3c,umask=0x0/u",
            "instructions",
            "cpu/event=0xc0,edge/",
            "task-clock"
        ]
    );
    let events = parse_list("cpu/event=0x3c,umask=0x1/,r01c2", &sysfs).unwrap();
    assert_eq!(events[0].perf().unwrap().config, 0x13c);
    assert_eq!(events[1].perf().unwrap().type_, raw::PERF_TYPE_RAW);

    for list in ["", "  ", "\n"] {
        assert!(parse_list(list, &sysfs)
            .unwrap_err()
            .message
            .contains("no counters"));
    }
    for list in [
        "cycles,",
        ",cycles",
        "cycles,,instructions",
        "cycles, ,instructions",
    ] {
        let e = parse_list(list, &sysfs).unwrap_err();
        assert!(e.message.contains("empty counter name"), "{list}: {e}");
    }
    let e = parse_list("cycles,instrucions,branches", &sysfs).unwrap_err();
    assert_eq!(e.input, "instrucions");
    assert_eq!(e.suggestions, ["instructions", "cpu/instructions/"]);
    let e = parse_list("cycles, cycles", &sysfs).unwrap_err();
    assert!(e.message.contains("listed twice"), "{e}");
    let e = parse_list("cycles,cpu-cycles", &sysfs).unwrap_err();
    assert!(e.message.contains("same counter"), "{e}");
    assert_eq!(e.input, "cpu-cycles");
    let e = parse_list("cpu/event=0x3c/,cpu/cpu-cycles/", &sysfs).unwrap_err();
    assert!(e.message.contains("same counter"), "{e}");
    let e = parse_list("wall-time,wall-time", &sysfs).unwrap_err();
    assert!(e.message.contains("listed twice"), "{e}");
    // Different privilege filters are different counters.
    assert_eq!(names("cycles:u,cycles:k"), ["cycles:u", "cycles:k"]);
    // An unclosed PMU event swallows the rest of the list and fails as one item.
    let e = parse_list("cpu/event=0x3c,instructions", &sysfs).unwrap_err();
    assert!(e.message.contains("missing closing"), "{e}");
}

#[test]
fn error_display() {
    let fake = empty();
    let sysfs = fake.sysfs();
    let e = err("instrucions", &sysfs);
    assert_eq!(e.input, "instrucions");
    assert_eq!(
        e.to_string(),
        "unknown counter `instrucions` (`perfbench list` shows the known ones); \
         did you mean: instructions?"
    );
    let e = err("zzzzzzzz", &sysfs);
    assert!(!e.to_string().contains("did you mean"), "{e}");
    let e = EventError {
        input: "x".into(),
        message: "bad".into(),
        suggestions: vec!["a".into(), "b".into(), "c".into()],
    };
    assert_eq!(e.to_string(), "bad; did you mean: a, b, c?");
    let boxed: Box<dyn std::error::Error> = Box::new(e);
    assert!(boxed.to_string().starts_with("bad"));
}

#[test]
fn extended_config() {
    assert_eq!(extended_hw_config(4, 1), 0x4_0000_0001);
    assert_eq!(extended_hw_config(10, 0x10000), 0xa_0001_0000);
    assert_eq!(extended_hw_config(0, 5), 5);
    assert_eq!(extended_hw_config(8, 0x7_0000_0001), 0x8_0000_0001);
    assert_eq!(extended_hw_config(u32::MAX, 0), 0xffff_ffff_0000_0000);
}

#[test]
fn odd_input_never_panics() {
    let fake = FakeSysfs::intel();
    let sysfs = fake.sysfs();
    let pieces = [
        "",
        "/",
        ",",
        ":",
        "=",
        "cpu",
        "event",
        "0x",
        "u",
        "é",
        "\u{0}",
        "L1-dcache-",
        "99999999999999999999",
        "r",
    ];
    // Every 3-piece combination, deterministic and exhaustive.
    for a in pieces {
        for b in pieces {
            for c in pieces {
                let input = format!("{a}{b}{c}");
                if input.contains(',') {
                    let _ = parse_list(&input, &sysfs);
                }
                if let Err(e) = parse(&input, &sysfs) {
                    assert!(!e.message.is_empty(), "{input:?}");
                    assert!(e.suggestions.len() <= MAX_SUGGESTIONS, "{input:?}");
                }
            }
        }
    }
}

#[test]
fn system_sysfs() {
    let sysfs = Sysfs::system();
    let event = parse("task-clock", &sysfs).unwrap();
    assert_eq!(
        event.kind,
        EventKind::Perf(expect(
            raw::PERF_TYPE_SOFTWARE,
            raw::PERF_COUNT_SW_TASK_CLOCK.into()
        ))
    );
    assert!(sysfs.pmus().iter().any(|p| p.name == "software"));
    let names = known_names(&sysfs);
    assert!(names.iter().any(|n| n == "task-clock"));
    // Every sysfs event this machine lists parses (or fails with a message, never a panic).
    for name in names.iter().filter(|n| n.ends_with('/')) {
        if let Err(e) = parse(name, &sysfs) {
            assert!(e.message.contains(name.as_str()), "{e}");
        }
    }
}

#[test]
fn kernel_side_software_events_count_in_kernel_mode_by_default() {
    let sysfs = Sysfs::system();
    for name in ["context-switches", "cs", "cpu-migrations", "migrations"] {
        let e = parse(name, &sysfs).unwrap();
        let p = e.perf().unwrap();
        assert!(p.happens_in_kernel() && p.kernel && p.user, "{name}: {p:?}");
    }
    // An explicit modifier is obeyed.
    let p = parse("context-switches:u", &sysfs).unwrap();
    assert!(!p.perf().unwrap().kernel);
    // Other software events stay user-only.
    let p = parse("page-faults", &sysfs).unwrap();
    assert!(!p.perf().unwrap().kernel && !p.perf().unwrap().happens_in_kernel());
}
