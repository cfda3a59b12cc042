//! perf's event names: the generalized hardware and software events, the cache events
//! (`L1-dcache-load-misses`), raw events (`r1a8`), and the list of every name this machine knows.

use super::*;

/// Generalized hardware events: id, then perf's spellings (the one `perf list` shows first).
pub(super) const HARDWARE: &[(u32, &[&str])] = &[
    (raw::PERF_COUNT_HW_CPU_CYCLES, &["cpu-cycles", "cycles"]),
    (raw::PERF_COUNT_HW_INSTRUCTIONS, &["instructions"]),
    (raw::PERF_COUNT_HW_CACHE_REFERENCES, &["cache-references"]),
    (raw::PERF_COUNT_HW_CACHE_MISSES, &["cache-misses"]),
    (
        raw::PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
        &["branch-instructions", "branches"],
    ),
    (raw::PERF_COUNT_HW_BRANCH_MISSES, &["branch-misses"]),
    (raw::PERF_COUNT_HW_BUS_CYCLES, &["bus-cycles"]),
    (
        raw::PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
        &["stalled-cycles-frontend", "idle-cycles-frontend"],
    ),
    (
        raw::PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
        &["stalled-cycles-backend", "idle-cycles-backend"],
    ),
    (raw::PERF_COUNT_HW_REF_CPU_CYCLES, &["ref-cycles"]),
];

/// Software events: id, then perf's spellings.
pub(super) const SOFTWARE: &[(u32, &[&str])] = &[
    (raw::PERF_COUNT_SW_CPU_CLOCK, &["cpu-clock"]),
    (raw::PERF_COUNT_SW_TASK_CLOCK, &["task-clock"]),
    (raw::PERF_COUNT_SW_PAGE_FAULTS, &["page-faults", "faults"]),
    (
        raw::PERF_COUNT_SW_CONTEXT_SWITCHES,
        &["context-switches", "cs"],
    ),
    (
        raw::PERF_COUNT_SW_CPU_MIGRATIONS,
        &["cpu-migrations", "migrations"],
    ),
    (raw::PERF_COUNT_SW_PAGE_FAULTS_MIN, &["minor-faults"]),
    (raw::PERF_COUNT_SW_PAGE_FAULTS_MAJ, &["major-faults"]),
    (raw::PERF_COUNT_SW_ALIGNMENT_FAULTS, &["alignment-faults"]),
    (raw::PERF_COUNT_SW_EMULATION_FAULTS, &["emulation-faults"]),
    (raw::PERF_COUNT_SW_DUMMY, &["dummy"]),
    (raw::PERF_COUNT_SW_BPF_OUTPUT, &["bpf-output"]),
    (raw::PERF_COUNT_SW_CGROUP_SWITCHES, &["cgroup-switches"]),
];

/// Cache spellings, indexed by `PERF_COUNT_HW_CACHE_*` (perf's `evsel__hw_cache`).
pub(super) const CACHES: &[&[&str]] = &[
    &["L1-dcache", "l1-d", "l1d", "L1-data"],
    &["L1-icache", "l1-i", "l1i", "L1-instruction"],
    &["LLC", "L2"],
    &["dTLB", "d-tlb", "Data-TLB"],
    &["iTLB", "i-tlb", "Instruction-TLB"],
    &["branch", "branches", "bpu", "btb", "bpc"],
    &["node"],
];

/// Cache operation spellings, indexed by `PERF_COUNT_HW_CACHE_OP_*` (perf's
/// `evsel__hw_cache_op`).
pub(super) const CACHE_OPS: &[&[&str]] = &[
    &["load", "loads", "read"],
    &["store", "stores", "write"],
    &[
        "prefetch",
        "prefetches",
        "speculative-read",
        "speculative-load",
    ],
];

/// Cache result spellings, indexed by `PERF_COUNT_HW_CACHE_RESULT_*` (perf's
/// `evsel__hw_cache_result`).
pub(super) const CACHE_RESULTS: &[&[&str]] =
    &[&["refs", "Reference", "ops", "access"], &["misses", "miss"]];

/// Which operations each cache supports, as bit sets of `1 << op` (perf's `hw_cache_stat`):
/// perf rejects the other pairs (e.g. `L1-icache-stores`), and so does perfbench.
pub(super) const CACHE_VALID_OPS: &[u8] = &[
    0b111, // L1-dcache: load, store, prefetch
    0b101, // L1-icache: load, prefetch
    0b111, // LLC
    0b111, // dTLB
    0b001, // iTLB: load
    0b001, // branch: load
    0b111, // node
];

/// The event names this machine offers, for `perfbench list` and suggestions: generalized
/// hardware events (all aliases), the valid cache events in perf's canonical spelling
/// (`L1-dcache-loads`, `L1-dcache-load-misses`, ...; [`parse`] also takes perf's other
/// spellings), software events (all aliases), `wall-time`, the allocation counters
/// (`alloc-count`, ...: they count where the suite installs perfbench's counting allocator),
/// then `pmu/event/` for every named
/// sysfs event, sorted by PMU and event. Without duplicates; every name parses.
///
/// ```
/// use perfbench::events::{known_names, parse, Sysfs};
///
/// let sysfs = Sysfs::system();
/// let names = known_names(&sysfs);
/// assert!(names.iter().any(|n| n == "L1-dcache-load-misses"));
/// assert!(names.iter().any(|n| n == "alloc-peak-bytes"));
/// assert!(names.iter().all(|n| parse(n, &sysfs).is_ok()));
/// ```
pub fn known_names(sysfs: &Sysfs) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    names.extend(
        HARDWARE
            .iter()
            .flat_map(|(_, n)| n.iter().map(|&s| s.to_owned())),
    );
    names.extend(cache_names());
    names.extend(
        SOFTWARE
            .iter()
            .flat_map(|(_, n)| n.iter().map(|&s| s.to_owned())),
    );
    names.push(WALL_TIME.to_owned());
    names.extend(AllocCounter::ALL.map(|a| a.name().to_owned()));
    for pmu in sysfs.pmus() {
        names.extend(pmu.events.keys().map(|e| format!("{}/{e}/", pmu.name)));
    }
    let mut seen = HashSet::new();
    names.retain(|n| seen.insert(n.clone()));
    names
}

/// The valid cache events in perf's canonical spelling, in `perf list` order.
pub(super) fn cache_names() -> Vec<String> {
    let mut names = Vec::new();
    for (cache, spellings) in CACHES.iter().enumerate() {
        for (op, op_spellings) in CACHE_OPS.iter().enumerate() {
            if CACHE_VALID_OPS[cache] & (1 << op) == 0 {
                continue;
            }
            names.push(format!("{}-{}", spellings[0], op_spellings[1]));
            names.push(format!(
                "{}-{}-{}",
                spellings[0], op_spellings[0], CACHE_RESULTS[1][0]
            ));
        }
    }
    names
}

/// A generalized hardware, cache or software event: `(attr.type, attr.config)`. `None` if
/// `name` is none of these; an error for a cache event perf rejects (`L1-icache-stores`).
pub(super) fn generalized(name: &str) -> Option<Result<(u32, u64), String>> {
    if let Some(id) = lookup(HARDWARE, name) {
        return Some(Ok((raw::PERF_TYPE_HARDWARE, u64::from(id))));
    }
    if let Some(id) = lookup(SOFTWARE, name) {
        return Some(Ok((raw::PERF_TYPE_SOFTWARE, u64::from(id))));
    }
    cache_event(name).map(|r| r.map(|config| (raw::PERF_TYPE_HW_CACHE, config)))
}

/// The id of `name` in a table of `(id, spellings)`.
pub(super) fn lookup(table: &[(u32, &[&str])], name: &str) -> Option<u32> {
    table
        .iter()
        .find(|(_, spellings)| spellings.contains(&name))
        .map(|&(id, _)| id)
}

/// A cache event `<cache>[-<op>][-<result>]` (op and result in either order; op defaults to
/// load, result to access) as its config `cache | op << 8 | result << 16`. `None` if `name` is
/// not of that form.
pub(super) fn cache_event(name: &str) -> Option<Result<u64, String>> {
    let (cache, mut rest) = match_spelling(name, CACHES)?;
    let (mut op, mut result) = (None, None);
    while let Some(tail) = rest {
        let as_op = op
            .is_none()
            .then(|| match_spelling(tail, CACHE_OPS))
            .flatten();
        let as_result = || {
            result
                .is_none()
                .then(|| match_spelling(tail, CACHE_RESULTS))
                .flatten()
        };
        if let Some((found, next)) = as_op {
            op = Some(found);
            rest = next;
        } else if let Some((found, next)) = as_result() {
            result = Some(found);
            rest = next;
        } else {
            return None;
        }
    }
    let op = op.unwrap_or(raw::PERF_COUNT_HW_CACHE_OP_READ as usize);
    let result = result.unwrap_or(raw::PERF_COUNT_HW_CACHE_RESULT_ACCESS as usize);
    if CACHE_VALID_OPS[cache] & (1 << op) == 0 {
        let valid: Vec<&str> = (0..CACHE_OPS.len())
            .filter(|o| CACHE_VALID_OPS[cache] & (1 << o) != 0)
            .map(|o| CACHE_OPS[o][1])
            .collect();
        return Some(Err(format!(
            "`{name}`: perf defines no {} events for {}; it has: {}",
            CACHE_OPS[op][1],
            CACHES[cache][0],
            valid.join(", ")
        )));
    }
    Some(Ok(cache as u64 | (op as u64) << 8 | (result as u64) << 16))
}

/// The longest spelling in `table` that `s` starts with, followed by the end or `-`: its index
/// and what follows the `-`.
pub(super) fn match_spelling<'a>(
    s: &'a str,
    table: &[&[&str]],
) -> Option<(usize, Option<&'a str>)> {
    table
        .iter()
        .enumerate()
        .flat_map(|(i, spellings)| spellings.iter().map(move |sp| (i, *sp)))
        .filter_map(|(i, sp)| {
            let rest = s.strip_prefix(sp)?;
            if rest.is_empty() {
                Some((i, sp.len(), None))
            } else {
                rest.strip_prefix('-').map(|r| (i, sp.len(), Some(r)))
            }
        })
        .max_by_key(|&(_, len, _)| len)
        .map(|(i, _, rest)| (i, rest))
}

/// A raw event `rNNNN` (1 to 16 hex digits) as its config; `None` if `name` is not of that form.
pub(super) fn raw_event(name: &str) -> Option<Result<u64, String>> {
    let digits = name.strip_prefix('r')?;
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    Some(u64::from_str_radix(digits, 16).map_err(|_| {
        format!("raw event `{name}` has more than 16 hex digits (a config is 64 bits)")
    }))
}

/// A term value: decimal, or hex with `0x`.
pub(super) fn parse_value(s: &str) -> Option<u64> {
    let s = s.trim();
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        if hex.is_empty() || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        u64::from_str_radix(hex, 16).ok()
    } else if !s.is_empty() && s.chars().all(|c| c.is_ascii_digit()) {
        s.parse().ok()
    } else {
        None
    }
}
