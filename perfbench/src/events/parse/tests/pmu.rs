//! PMU events and their terms on fake sysfs trees: Intel, AMD, hybrid and arm64 PMUs, and a
//! machine without a CPU PMU.

use super::*;

#[test]
pub(super) fn intel_pmu_terms() {
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
pub(super) fn intel_pmu_errors() {
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
pub(super) fn pmu_modifiers_after_the_slash() {
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
pub(super) fn generalized_events_on_the_plain_cpu_pmu() {
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
pub(super) fn amd_multi_range_event_field() {
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
pub(super) fn hybrid_pmus() {
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
pub(super) fn arm64_pmu() {
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
pub(super) fn no_cpu_pmu_explains_itself() {
    let fake = FakeSysfs::new();
    fake.pmu("software", 1);
    fake.pmu("tracepoint", 2);
    let e = err("cpu/instructions/", &fake.sysfs());
    assert!(e.message.contains("no CPU PMU"), "{e}");
    assert!(e.suggestions.is_empty());
    let e = err("cpu/instructions/", &Sysfs::new("/nonexistent/perfbench"));
    assert!(e.message.contains("PMUs on this machine: none"), "{e}");
}
