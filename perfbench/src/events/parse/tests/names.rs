//! perf's names: every hardware, software and cache spelling, raw events, and the list of known
//! names.

use super::*;

#[test]
pub(super) fn every_hardware_name_and_alias() {
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
pub(super) fn every_software_name_and_alias() {
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
pub(super) const TEST_CACHES: [(&str, u64); 22] = [
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

pub(super) const TEST_OPS: [(&str, u64); 10] = [
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

pub(super) const TEST_RESULTS: [(&str, u64); 6] = [
    ("refs", 0),
    ("Reference", 0),
    ("ops", 0),
    ("access", 0),
    ("misses", 1),
    ("miss", 1),
];

/// Whether perf accepts `op` on `cache` (its `hw_cache_stat` table).
pub(super) fn op_valid(cache: u64, op: u64) -> bool {
    match cache {
        1 => op != 1,     // L1-icache: no stores
        4 | 5 => op == 0, // iTLB, branch: loads only
        _ => true,
    }
}

/// Checks `name` parses to the cache event (cache, op, result), or is rejected if perf rejects
/// the pair; names that are generalized hardware events (`branches`) win over cache events.
pub(super) fn check_cache(sysfs: &Sysfs, name: &str, cache: u64, op: u64, result: u64) -> usize {
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
pub(super) fn every_cache_event_spelling() {
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
pub(super) fn cache_events_canonical_names() {
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
pub(super) fn malformed_cache_names_are_unknown() {
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
pub(super) fn raw_events() {
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
pub(super) fn known_names_cover_every_kind() {
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
        "alloc-count",
        "alloc-peak-bytes",
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
    // Hardware names, 32 cache names, software names, wall-time, the 5 allocation counters,
    // 9 sysfs events.
    assert_eq!(names.len(), 14 + 32 + 15 + 1 + 5 + 9);
}
