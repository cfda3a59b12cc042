//! Tests of [`parse`](super::parse), [`parse_list`](super::parse_list) and
//! [`known_names`](super::known_names) against fake sysfs trees of real kernels' layouts.

use super::*;
use crate::events::fixtures::FakeSysfs;

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
fn every_hardware_name_and_alias() {
    let fake = empty();
    let sysfs = fake.sysfs();
    let table: &[(&str, u32)] = &[
        ("cycles", raw::PERF_COUNT_HW_CPU_CYCLES),
        ("cpu-cycles", raw::PERF_COUNT_HW_CPU_CYCLES),
        ("instructions", raw::PERF_COUNT_HW_INSTRUCTIONS),
        ("cache-references", raw::PERF_COUNT_HW_CACHE_REFERENCES),
        ("cache-misses", raw::PERF_COUNT_HW_CACHE_MISSES),
        ("branches", raw::PERF_COUNT_HW_BRANCH_INSTRUCTIONS),
        (
            "branch-instructions",
            raw::PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
        ),
        ("branch-misses", raw::PERF_COUNT_HW_BRANCH_MISSES),
        ("bus-cycles", raw::PERF_COUNT_HW_BUS_CYCLES),
        (
            "stalled-cycles-frontend",
            raw::PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
        ),
        (
            "idle-cycles-frontend",
            raw::PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
        ),
        (
            "stalled-cycles-backend",
            raw::PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
        ),
        (
            "idle-cycles-backend",
            raw::PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
        ),
        ("ref-cycles", raw::PERF_COUNT_HW_REF_CPU_CYCLES),
    ];
    for &(name, id) in table {
        let event = parse(name, &sysfs).unwrap();
        assert_eq!(event.name, name);
        assert!(event.needs_pmu());
        assert_eq!(
            event.kind,
            EventKind::Perf(expect(raw::PERF_TYPE_HARDWARE, id.into())),
            "{name}"
        );
    }
    // Every spelling in the table is tested, and every id has one.
    assert_eq!(
        HARDWARE.iter().map(|(_, n)| n.len()).sum::<usize>(),
        table.len()
    );
    assert_eq!(HARDWARE.len(), raw::PERF_COUNT_HW_MAX as usize);
}

#[test]
fn every_software_name_and_alias() {
    let fake = empty();
    let sysfs = fake.sysfs();
    let table: &[(&str, u32)] = &[
        ("cpu-clock", raw::PERF_COUNT_SW_CPU_CLOCK),
        ("task-clock", raw::PERF_COUNT_SW_TASK_CLOCK),
        ("page-faults", raw::PERF_COUNT_SW_PAGE_FAULTS),
        ("faults", raw::PERF_COUNT_SW_PAGE_FAULTS),
        ("minor-faults", raw::PERF_COUNT_SW_PAGE_FAULTS_MIN),
        ("major-faults", raw::PERF_COUNT_SW_PAGE_FAULTS_MAJ),
        ("context-switches", raw::PERF_COUNT_SW_CONTEXT_SWITCHES),
        ("cs", raw::PERF_COUNT_SW_CONTEXT_SWITCHES),
        ("cpu-migrations", raw::PERF_COUNT_SW_CPU_MIGRATIONS),
        ("migrations", raw::PERF_COUNT_SW_CPU_MIGRATIONS),
        ("alignment-faults", raw::PERF_COUNT_SW_ALIGNMENT_FAULTS),
        ("emulation-faults", raw::PERF_COUNT_SW_EMULATION_FAULTS),
        ("dummy", raw::PERF_COUNT_SW_DUMMY),
        ("bpf-output", raw::PERF_COUNT_SW_BPF_OUTPUT),
        ("cgroup-switches", raw::PERF_COUNT_SW_CGROUP_SWITCHES),
    ];
    for &(name, id) in table {
        let event = parse(name, &sysfs).unwrap();
        assert!(!event.needs_pmu(), "{name}");
        let mut expected = expect(raw::PERF_TYPE_SOFTWARE, id.into());
        // Kernel-side events (context switches, migrations) count in kernel mode too.
        expected.kernel = expected.happens_in_kernel();
        assert_eq!(event.kind, EventKind::Perf(expected), "{name}");
    }
    assert_eq!(
        SOFTWARE.iter().map(|(_, n)| n.len()).sum::<usize>(),
        table.len()
    );
    assert_eq!(parse("task-clock", &sysfs).unwrap().unit(), "ns");
    assert_eq!(parse("cpu-clock", &sysfs).unwrap().unit(), "ns");
    assert_eq!(parse("page-faults", &sysfs).unwrap().unit(), "count");
}

/// perf's spellings, written out independently of the tables under test.
const TEST_CACHES: [(&str, u64); 22] = [
    ("L1-dcache", 0),
    ("l1-d", 0),
    ("l1d", 0),
    ("L1-data", 0),
    ("L1-icache", 1),
    ("l1-i", 1),
    ("l1i", 1),
    ("L1-instruction", 1),
    ("LLC", 2),
    ("L2", 2),
    ("dTLB", 3),
    ("d-tlb", 3),
    ("Data-TLB", 3),
    ("iTLB", 4),
    ("i-tlb", 4),
    ("Instruction-TLB", 4),
    ("branch", 5),
    ("branches", 5),
    ("bpu", 5),
    ("btb", 5),
    ("bpc", 5),
    ("node", 6),
];
const TEST_OPS: [(&str, u64); 10] = [
    ("load", 0),
    ("loads", 0),
    ("read", 0),
    ("store", 1),
    ("stores", 1),
    ("write", 1),
    ("prefetch", 2),
    ("prefetches", 2),
    ("speculative-read", 2),
    ("speculative-load", 2),
];
const TEST_RESULTS: [(&str, u64); 6] = [
    ("refs", 0),
    ("Reference", 0),
    ("ops", 0),
    ("access", 0),
    ("misses", 1),
    ("miss", 1),
];

/// Whether perf accepts `op` on `cache` (its `hw_cache_stat` table).
fn op_valid(cache: u64, op: u64) -> bool {
    match cache {
        1 => op != 1,     // L1-icache: no stores
        4 | 5 => op == 0, // iTLB, branch: loads only
        _ => true,
    }
}

/// Checks `name` parses to the cache event (cache, op, result), or is rejected if perf rejects
/// the pair; names that are generalized hardware events (`branches`) win over cache events.
fn check_cache(sysfs: &Sysfs, name: &str, cache: u64, op: u64, result: u64) -> usize {
    if lookup(HARDWARE, name).is_some() {
        assert_eq!(perf(name, sysfs).type_, raw::PERF_TYPE_HARDWARE, "{name}");
        return 0;
    }
    if op_valid(cache, op) {
        assert_eq!(
            perf(name, sysfs),
            expect(raw::PERF_TYPE_HW_CACHE, cache | op << 8 | result << 16),
            "{name}"
        );
    } else {
        let e = err(name, sysfs);
        assert!(e.message.contains("perf defines no"), "{name}: {e}");
    }
    1
}

#[test]
fn every_cache_event_spelling() {
    let fake = empty();
    let sysfs = fake.sysfs();
    let mut checked = 0;
    for (cache_name, cache) in TEST_CACHES {
        checked += check_cache(&sysfs, cache_name, cache, 0, 0);
        for (op_name, op) in TEST_OPS {
            checked += check_cache(&sysfs, &format!("{cache_name}-{op_name}"), cache, op, 0);
            for (result_name, result) in TEST_RESULTS {
                for name in [
                    format!("{cache_name}-{op_name}-{result_name}"),
                    format!("{cache_name}-{result_name}-{op_name}"),
                ] {
                    checked += check_cache(&sysfs, &name, cache, op, result);
                }
            }
        }
        for (result_name, result) in TEST_RESULTS {
            let name = format!("{cache_name}-{result_name}");
            checked += check_cache(&sysfs, &name, cache, 0, result);
        }
    }
    // 22 caches x (1 + 10 + 10 x 6 x 2 + 6), less `branches` and `branch-misses`, which are
    // generalized hardware events.
    assert_eq!(checked, 22 * (1 + 10 + 120 + 6) - 2);
}

#[test]
fn cache_events_canonical_names() {
    let fake = empty();
    let sysfs = fake.sysfs();
    let canonical = cache_names();
    // 16 valid (cache, op) pairs, each with an access and a miss event.
    assert_eq!(canonical.len(), 32);
    for name in [
        "L1-dcache-loads",
        "L1-dcache-load-misses",
        "L1-dcache-stores",
        "L1-dcache-store-misses",
        "L1-dcache-prefetches",
        "L1-icache-load-misses",
        "LLC-loads",
        "LLC-store-misses",
        "dTLB-load-misses",
        "iTLB-loads",
        "branch-loads",
        "branch-load-misses",
        "node-prefetch-misses",
    ] {
        assert!(canonical.iter().any(|c| c == name), "{name}");
    }
    for name in &canonical {
        assert_eq!(perf(name, &sysfs).type_, raw::PERF_TYPE_HW_CACHE, "{name}");
    }
    assert_eq!(
        perf("LLC-load-misses", &sysfs).config,
        2 | 1 << 16,
        "config = cache | op << 8 | result << 16"
    );
    assert_eq!(
        perf("dTLB-store-misses", &sysfs).config,
        3 | 1 << 8 | 1 << 16
    );
}

#[test]
fn malformed_cache_names_are_unknown() {
    let fake = empty();
    let sysfs = fake.sysfs();
    for name in [
        "L1-dcache-",
        "L1-dcache-loads-stores",
        "L1-dcache-misses-refs",
        "L1-dcache-load-misses-x",
        "L1-dcachex",
        "LLC--loads",
        "llc-loads",
        "L1-DCACHE-loads",
        "-LLC",
    ] {
        let e = err(name, &sysfs);
        assert!(e.message.starts_with("unknown counter"), "{name}: {e}");
    }
    let e = err("L1-icache-stores", &sysfs);
    assert!(e.message.contains("loads, prefetches"), "{e}");
    let e = err("iTLB-prefetch-misses:u", &sysfs);
    assert_eq!(e.input, "iTLB-prefetch-misses:u");
}

#[test]
fn raw_events() {
    let fake = empty();
    let sysfs = fake.sysfs();
    assert_eq!(perf("r01c2", &sysfs), expect(raw::PERF_TYPE_RAW, 0x1c2));
    assert_eq!(perf("r1a0", &sysfs), expect(raw::PERF_TYPE_RAW, 0x1a0));
    assert_eq!(perf("rFF", &sysfs).config, 0xff);
    assert_eq!(perf("r0", &sysfs).config, 0);
    assert_eq!(perf("rffffffffffffffff", &sysfs).config, u64::MAX);
    let with_mods = perf("r01c2:kp", &sysfs);
    assert_eq!((with_mods.user, with_mods.kernel), (false, true));
    assert_eq!(with_mods.precise_ip, 1);
    let e = err("r10000000000000000", &sysfs);
    assert!(e.message.contains("16 hex digits"), "{e}");
    for name in ["r", "rxyz", "r0x10", "r-1", "R01c2"] {
        assert!(
            err(name, &sysfs).message.starts_with("unknown counter"),
            "{name}"
        );
    }
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
fn intel_pmu_terms() {
    let fake = FakeSysfs::intel();
    let sysfs = fake.sysfs();
    let cpu = |config| on("cpu", expect(4, config));
    assert_eq!(perf("cpu/event=0x3c,umask=0x0/", &sysfs), cpu(0x3c));
    assert_eq!(perf("cpu/event=60,umask=1/", &sysfs), cpu(0x13c));
    assert_eq!(perf("cpu/ event=0x3c , umask=0X2 /", &sysfs), cpu(0x23c));
    assert_eq!(perf("cpu/instructions/", &sysfs), cpu(0xc0));
    assert_eq!(perf("cpu/ref-cycles/", &sysfs), cpu(0x0300));
    // `cycles` is not a sysfs event of `cpu`; its spelling `cpu-cycles` is.
    assert_eq!(perf("cpu/cycles/", &sysfs), cpu(0x3c));
    assert_eq!(perf("cpu/cpu-cycles/", &sysfs), cpu(0x3c));
    assert_eq!(perf("cpu/branches/", &sysfs), cpu(0xc4));
    // A bare format term means 1.
    assert_eq!(perf("cpu/event=0x3c,edge/", &sysfs), cpu(0x3c | 1 << 18));
    assert_eq!(
        perf("cpu/event=0x3c,cmask=2,inv/", &sysfs),
        cpu(0x3c | 2 << 24 | 1 << 23)
    );
    assert_eq!(perf("cpu/cmask=0xff/", &sysfs), cpu(0xff << 24));
    // A named event's terms, then the user's, which override them.
    assert_eq!(perf("cpu/ref-cycles,umask=0x1/", &sysfs), cpu(0x0100));
    assert_eq!(perf("cpu/umask=0x1,instructions/", &sysfs), cpu(0x1c0));
    assert_eq!(perf("cpu/instructions,edge/", &sysfs), cpu(0xc0 | 1 << 18));
    // Named events using bare terms and other words.
    assert_eq!(
        perf("cpu/cycles-ct/", &sysfs),
        cpu(0x3c | 1 << 32 | 1 << 33)
    );
    let mem_loads = perf("cpu/mem-loads/", &sysfs);
    assert_eq!((mem_loads.config, mem_loads.config1), (0x1cd, 3));
    // Direct config words.
    let direct = perf(
        "cpu/config=0x1234,config1=5,config2=0x6,config3=0xffffffffffffffff/",
        &sysfs,
    );
    assert_eq!(
        (
            direct.config,
            direct.config1,
            direct.config2,
            direct.config3
        ),
        (0x1234, 5, 6, u64::MAX)
    );
    assert_eq!(perf("cpu/config=0x1234,umask=0/", &sysfs).config, 0x34);
    // Not a hardware-event PMU type.
    let p = perf("cpu/instructions/", &sysfs);
    assert_eq!(p.pmu.as_deref(), Some("cpu"));
}

#[test]
fn intel_pmu_errors() {
    let fake = FakeSysfs::intel();
    let sysfs = fake.sysfs();
    let message = |name: &str| err(name, &sysfs).message;

    let e = err("cpu/event=0x100/", &sysfs);
    assert!(e.message.contains("too wide for `event`"), "{e}");
    assert!(e.message.contains("0xff"), "{e}");
    assert!(message("cpu/umask=0x1ff/").contains("too wide"));
    assert!(message("cpu/edge=2/").contains("too wide"));

    let e = err("cpu/evnt=0x3c,umask=1/u", &sysfs);
    assert!(e.message.contains("no term or event `evnt`"), "{e}");
    assert!(e.message.contains("cmask, edge, event"), "{e}");
    assert_eq!(e.suggestions, ["cpu/event=0x3c,umask=1/u"]);
    let e = err("cpu/instrucions/", &sysfs);
    assert_eq!(e.suggestions, ["cpu/instructions/"]);
    let e = err("cpu/Instructions/", &sysfs);
    assert_eq!(e.suggestions, ["cpu/instructions/"]);
    assert!(err("cpu/nothing-like-it/", &sysfs).suggestions.is_empty());

    let e = err("cpuu/instructions/", &sysfs);
    assert!(e.message.contains("unknown PMU `cpuu`"), "{e}");
    assert!(e.message.contains("cpu, software, tracepoint"), "{e}");
    assert!(!e.message.contains("no CPU PMU"), "{e}");
    assert_eq!(e.suggestions, ["cpu/instructions/"]);
    assert_eq!(
        err("CPU/instructions/u", &sysfs).suggestions,
        ["cpu/instructions/u"]
    );

    for (name, expected) in [
        ("cpu/event=0x3c", "missing closing `/`"),
        ("cpu/", "missing closing `/`"),
        ("/event=1/", "missing PMU name"),
        ("cpu//", "no terms"),
        ("cpu/event=1,,umask=1/", "empty term"),
        ("cpu/event=1,/", "empty term"),
        ("cpu/event=1//", "unexpected `/`"),
        ("cpu/event=1/u/", "unexpected `/`"),
        ("cpu/event=/", "needs a decimal or 0x-prefixed hex number"),
        ("cpu/event=0x/", "needs a decimal"),
        ("cpu/event=0xzz/", "needs a decimal"),
        ("cpu/event=-1/", "needs a decimal"),
        ("cpu/event=+1/", "needs a decimal"),
        ("cpu/event=99999999999999999999/", "needs a decimal"),
        ("cpu/config/", "`config` needs a value"),
        ("cpu/event=1,event=2/", "term `event` given twice"),
        ("cpu/instructions,ref-cycles/", "names two events"),
        ("cpu/needs-value/", "needs a value from the user"),
        ("cpu/task-clock/", "is a software event"),
        ("cpu/stalled-cycles-frontend,edge/", "cannot be combined"),
        ("cpu/L1-icache-stores/", "perf defines no"),
        ("cpu/event=1/x", "unknown modifier `x`"),
        ("cpu/event=1/:", "empty modifier"),
        ("tracepoint/cycles/", "not a CPU PMU"),
    ] {
        let got = message(name);
        assert!(got.contains(expected), "{name}: {got}");
    }
}

#[test]
fn pmu_modifiers_after_the_slash() {
    let fake = FakeSysfs::intel();
    let sysfs = fake.sysfs();
    let mods = |name: &str| {
        let p = perf(name, &sysfs);
        (p.user, p.kernel, p.hypervisor, p.precise_ip)
    };
    assert_eq!(mods("cpu/event=0x3c/"), (true, false, false, 0));
    assert_eq!(mods("cpu/event=0x3c/u"), (true, false, false, 0));
    assert_eq!(mods("cpu/event=0x3c/:u"), (true, false, false, 0));
    assert_eq!(mods("cpu/event=0x3c/k"), (false, true, false, 0));
    assert_eq!(mods("cpu/instructions/uk"), (true, true, false, 0));
    assert_eq!(mods("cpu/instructions/:ppp"), (true, false, false, 3));
    assert_eq!(perf("cpu/event=0x3c/u", &sysfs).config, 0x3c);
}

#[test]
fn generalized_events_on_the_plain_cpu_pmu() {
    let fake = FakeSysfs::intel();
    let sysfs = fake.sysfs();
    // No sysfs alias: the generalized event, on `cpu`, which needs no extended type.
    assert_eq!(
        perf("cpu/stalled-cycles-frontend/", &sysfs),
        on(
            "cpu",
            expect(
                raw::PERF_TYPE_HARDWARE,
                raw::PERF_COUNT_HW_STALLED_CYCLES_FRONTEND.into()
            )
        )
    );
    assert_eq!(
        perf("cpu/LLC-load-misses/", &sysfs),
        on("cpu", expect(raw::PERF_TYPE_HW_CACHE, 2 | 1 << 16))
    );
    let sw = perf("software/task-clock/", &sysfs);
    assert_eq!(
        (sw.type_, sw.config),
        (
            raw::PERF_TYPE_SOFTWARE,
            raw::PERF_COUNT_SW_TASK_CLOCK.into()
        )
    );
}

#[test]
fn amd_multi_range_event_field() {
    let fake = FakeSysfs::amd();
    let sysfs = fake.sysfs();
    // Zen's event select is 12 bits: 0-7 in config[7:0], 8-11 in config[35:32].
    assert_eq!(perf("cpu/event=0xc0/", &sysfs).config, 0xc0);
    assert_eq!(perf("cpu/event=0x1c0/", &sysfs).config, 1 << 32 | 0xc0);
    assert_eq!(
        perf("cpu/event=0xfff,umask=0xff/", &sysfs).config,
        0xf_0000_ffff
    );
    let e = err("cpu/event=0x1000/", &sysfs);
    assert!(e.message.contains("0xfff"), "{e}");
    assert!(err("amd_l3/cycles/", &sysfs)
        .message
        .contains("not a CPU PMU"));
    assert_eq!(perf("amd_l3/event=1,umask=2/", &sysfs).type_, 11);
}

#[test]
fn hybrid_pmus() {
    let fake = FakeSysfs::hybrid();
    let sysfs = fake.sysfs();
    // Plain generalized events stay PERF_TYPE_HARDWARE: the counters layer extends them.
    assert_eq!(
        perf("instructions", &sysfs),
        expect(
            raw::PERF_TYPE_HARDWARE,
            raw::PERF_COUNT_HW_INSTRUCTIONS.into()
        )
    );
    assert_eq!(
        perf("cpu_core/instructions/", &sysfs),
        on("cpu_core", expect(4, 0xc0))
    );
    assert_eq!(
        perf("cpu_atom/instructions/", &sysfs),
        on("cpu_atom", expect(10, 0xc0))
    );
    assert_eq!(
        perf("cpu_atom/cycles/", &sysfs),
        on("cpu_atom", expect(10, 0x3c))
    );
    assert_eq!(
        perf("cpu_atom/topdown-retiring/", &sysfs),
        on("cpu_atom", expect(10, 0x02c2))
    );
    assert_eq!(
        perf("cpu_core/topdown-retiring/", &sysfs),
        on("cpu_core", expect(4, 0x8000))
    );
    // Without a sysfs alias: the generalized event with the PMU's extended type.
    assert_eq!(
        perf("cpu_atom/branch-misses/", &sysfs),
        on(
            "cpu_atom",
            expect(
                raw::PERF_TYPE_HARDWARE,
                10 << 32 | u64::from(raw::PERF_COUNT_HW_BRANCH_MISSES)
            )
        )
    );
    assert_eq!(
        perf("cpu_core/L1-dcache-load-misses/k", &sysfs),
        PerfEvent {
            user: false,
            kernel: true,
            ..on(
                "cpu_core",
                expect(raw::PERF_TYPE_HW_CACHE, 4 << 32 | 1 << 16)
            )
        }
    );
    // `cpu` does not exist here: point to the core PMUs.
    let e = err("cpu/instructions/", &sysfs);
    assert!(e.message.contains("unknown PMU `cpu`"), "{e}");
    assert_eq!(
        e.suggestions,
        ["cpu_atom/instructions/", "cpu_core/instructions/"]
    );
    let list = parse_list("cpu_core/instructions/,cpu_atom/instructions/", &sysfs).unwrap();
    assert_eq!(list.len(), 2);
}

#[test]
fn arm64_pmu() {
    let fake = FakeSysfs::arm64();
    let sysfs = fake.sysfs();
    let arm = |config| on("armv8_pmuv3_0", expect(8, config));
    assert_eq!(perf("armv8_pmuv3_0/inst_retired/", &sysfs), arm(0x08));
    assert_eq!(perf("armv8_pmuv3_0/cpu_cycles/", &sysfs), arm(0x11));
    assert_eq!(perf("armv8_pmuv3_0/br_mis_pred/u", &sysfs), arm(0x10));
    assert_eq!(perf("armv8_pmuv3_0/event=0xffff/", &sysfs), arm(0xffff));
    let rdpmc = perf("armv8_pmuv3_0/inst_retired,rdpmc/", &sysfs);
    assert_eq!((rdpmc.config, rdpmc.config1), (0x08, 2));
    let long = perf("armv8_pmuv3_0/event=0x11,long,rdpmc/", &sysfs);
    assert_eq!((long.config, long.config1), (0x11, 3));
    assert!(err("armv8_pmuv3_0/event=0x10000/", &sysfs)
        .message
        .contains("too wide"));
    assert!(err("armv8_pmuv3_0/rdpmc=2/", &sysfs)
        .message
        .contains("too wide"));
    // `cycles` has no sysfs event of that spelling here (`cpu_cycles` is arm's own name).
    assert_eq!(
        perf("armv8_pmuv3_0/cycles/", &sysfs),
        on("armv8_pmuv3_0", expect(raw::PERF_TYPE_HARDWARE, 8 << 32))
    );
    // A bare sysfs event name suggests its PMU form.
    let e = err("inst_retired", &sysfs);
    assert_eq!(e.suggestions, ["armv8_pmuv3_0/inst_retired/"]);
    let e = err("inst_retired:u", &sysfs);
    assert_eq!(e.suggestions, ["armv8_pmuv3_0/inst_retired/u"]);
}

#[test]
fn no_cpu_pmu_explains_itself() {
    let fake = FakeSysfs::new();
    fake.pmu("software", 1);
    fake.pmu("tracepoint", 2);
    let e = err("cpu/instructions/", &fake.sysfs());
    assert!(e.message.contains("no CPU PMU"), "{e}");
    assert!(e.suggestions.is_empty());
    let e = err("cpu/instructions/", &Sysfs::new("/nonexistent/perfbench"));
    assert!(e.message.contains("PMUs on this machine: none"), "{e}");
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
fn suggestions() {
    let fake = FakeSysfs::intel();
    let sysfs = fake.sysfs();
    let suggest = |name: &str| err(name, &sysfs).suggestions;
    let first = |name: &str| suggest(name).first().cloned().unwrap_or_default();
    // The generalized name first, then the PMU's own event of that name.
    assert_eq!(
        suggest("instrucions"),
        ["instructions", "cpu/instructions/"]
    );
    assert_eq!(
        suggest("intsructions"),
        ["instructions", "cpu/instructions/"]
    );
    assert_eq!(
        suggest("Instructions"),
        ["instructions", "cpu/instructions/"]
    );
    assert_eq!(suggest("cycle"), ["cycles"]);
    assert_eq!(suggest("cycle:u"), ["cycles:u"]);
    assert_eq!(
        suggest("cycles:x").len(),
        0,
        "a bad modifier is not an unknown name"
    );
    assert_eq!(first("llc-loads"), "LLC-loads");
    assert_eq!(first("l1-dcache-load-misses"), "L1-dcache-load-misses");
    assert_eq!(first("task_clock"), "task-clock");
    assert_eq!(first("mem-loads"), "cpu/mem-loads/");
    assert!(suggest("zzzzzzzz").is_empty());
    assert!(suggest("x").is_empty());
    assert!(suggest("cpu-cycles-please").len() <= MAX_SUGGESTIONS);
    let many = suggest("L1-dcache-load-miss-");
    assert!(
        !many.is_empty() && many.len() <= MAX_SUGGESTIONS,
        "{many:?}"
    );
    assert_eq!(many[0], "L1-dcache-load-misses");
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
fn known_names_cover_every_kind() {
    let fake = FakeSysfs::hybrid();
    let sysfs = fake.sysfs();
    let names = known_names(&sysfs);
    for name in [
        "cycles",
        "cpu-cycles",
        "instructions",
        "branches",
        "idle-cycles-backend",
        "ref-cycles",
        "L1-dcache-load-misses",
        "LLC-loads",
        "task-clock",
        "cs",
        "faults",
        "dummy",
        "wall-time",
        "cpu_core/instructions/",
        "cpu_atom/topdown-retiring/",
    ] {
        assert!(names.iter().any(|n| n == name), "{name}");
    }
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), names.len());
    // Everything listed parses.
    for name in &names {
        assert!(parse(name, &sysfs).is_ok(), "{name}");
    }
    // Hardware names, 32 cache names, software names, wall-time, 9 sysfs events.
    assert_eq!(names.len(), 14 + 32 + 15 + 1 + 9);
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
fn edit_distances() {
    assert_eq!(edit_distance("", ""), 0);
    assert_eq!(edit_distance("abc", ""), 3);
    assert_eq!(edit_distance("", "abc"), 3);
    assert_eq!(edit_distance("cycle", "cycles"), 1);
    assert_eq!(edit_distance("instrucions", "instructions"), 1);
    assert_eq!(edit_distance("intsructions", "instructions"), 1);
    assert_eq!(edit_distance("kitten", "sitting"), 3);
    assert_eq!(edit_distance("ab", "ba"), 1);
    assert_eq!(edit_distance("ça", "ca"), 1);
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

#[test]
fn tracepoints_are_looked_up_in_tracefs_and_count_in_kernel_mode() {
    let fake = empty();
    fake.tracepoint("sched", "sched_switch", 321);
    fake.tracepoint("sched", "sched_wakeup", 322);
    fake.tracepoint("syscalls", "sys_enter_getpid", 309);
    let sysfs = fake.sysfs();
    let p = perf("sched:sched_switch", &sysfs);
    assert_eq!(
        p,
        PerfEvent {
            kernel: true,
            ..expect(raw::PERF_TYPE_TRACEPOINT, 321)
        }
    );
    assert!(p.happens_in_kernel());
    assert!(!parse("sched:sched_switch", &sysfs).unwrap().needs_pmu());
    // An explicit modifier is obeyed.
    let p = perf("syscalls:sys_enter_getpid:u", &sysfs);
    assert_eq!(p, expect(raw::PERF_TYPE_TRACEPOINT, 309));
    // Misspellings get the close names.
    let e = err("sched:sched_swich", &sysfs);
    assert_eq!(e.message, "no tracepoint `sched_swich` in system `sched`");
    assert_eq!(e.suggestions[0], "sched:sched_switch");
    let e = err("shed:sched_switch:k", &sysfs);
    assert_eq!(e.message, "no tracepoint system `shed` in tracefs");
    assert_eq!(e.suggestions, ["sched:sched_switch:k"]);
    // Path tricks never reach tracefs.
    for name in ["sched:..", "..:x", "sched:a/b", "a/b:c"] {
        let e = err(name, &sysfs);
        assert!(!e.message.contains("tracepoint"), "{name}: {e}");
    }
}

#[test]
fn modified_events_are_not_tracepoints() {
    let fake = empty();
    fake.tracepoint("cycles", "u", 1);
    let sysfs = fake.sysfs();
    assert_eq!(perf("cycles:u", &sysfs).type_, raw::PERF_TYPE_HARDWARE);
    let e = err("cylces:u", &sysfs);
    assert!(e.message.starts_with("unknown counter `cylces:u`"), "{e}");
    assert_eq!(e.suggestions[0], "cycles:u");
    assert!(err("wall-time:u", &sysfs)
        .message
        .contains("takes no modifiers"));
}

#[test]
fn a_tracepoint_without_tracefs_says_how_to_mount_it() {
    let fake = empty();
    let e = err("sched:sched_switch", &fake.sysfs());
    assert!(e.message.contains("no tracefs is mounted"), "{e}");
    assert!(
        e.message
            .contains("mount -t tracefs nodev /sys/kernel/tracing"),
        "{e}"
    );
}
