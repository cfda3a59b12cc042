//! Parsing perf-style event names into [`Event`]s (the syntax is documented on [`parse`]),
//! the names `perfbench list` shows, and suggestions for misspelled names.
//!
//! Generalized events parse to `PERF_TYPE_HARDWARE`/`PERF_TYPE_HW_CACHE` without consulting
//! sysfs, even on hybrid machines: extending them to each core PMU (see [`extended_hw_config`])
//! is the counters layer's job. Parsing never opens an event.

use std::collections::HashSet;
use std::fmt;

use super::sysfs::{is_tracepoint_name, ConfigWord, Pmu, Sysfs, TracepointError};
use super::{Event, EventKind, PerfEvent, WALL_TIME};
use crate::sys::raw;

/// Generalized hardware events: id, then perf's spellings (the one `perf list` shows first).
const HARDWARE: &[(u32, &[&str])] = &[
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
const SOFTWARE: &[(u32, &[&str])] = &[
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
const CACHES: &[&[&str]] = &[
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
const CACHE_OPS: &[&[&str]] = &[
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
const CACHE_RESULTS: &[&[&str]] = &[&["refs", "Reference", "ops", "access"], &["misses", "miss"]];

/// Which operations each cache supports, as bit sets of `1 << op` (perf's `hw_cache_stat`):
/// perf rejects the other pairs (e.g. `L1-icache-stores`), and so does perfbench.
const CACHE_VALID_OPS: &[u8] = &[
    0b111, // L1-dcache: load, store, prefetch
    0b101, // L1-icache: load, prefetch
    0b111, // LLC
    0b111, // dTLB
    0b001, // iTLB: load
    0b001, // branch: load
    0b111, // node
];

/// The most `p` modifiers perf accepts (`attr.precise_ip` is 0..=3).
const MAX_PRECISE: u8 = 3;

/// Most suggestions an [`EventError`] carries.
const MAX_SUGGESTIONS: usize = 3;

/// `PERF_PMU_TYPE_SHIFT`: where the extended PMU type goes in a generalized event's config.
const PMU_TYPE_SHIFT: u32 = 32;

/// An event name that could not be parsed, with what was wrong and close known names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventError {
    /// The offending name, as given (trimmed); for a list, the offending item.
    pub input: String,
    /// What is wrong, in a sentence that names the input.
    pub message: String,
    /// Up to three close names the user may have meant, closest first.
    pub suggestions: Vec<String>,
}

impl EventError {
    fn new(input: &str, message: impl Into<String>) -> EventError {
        EventError {
            input: input.to_owned(),
            message: message.into(),
            suggestions: Vec::new(),
        }
    }

    fn suggesting(mut self, suggestions: Vec<String>) -> EventError {
        self.suggestions = suggestions;
        self
    }
}

impl fmt::Display for EventError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if !self.suggestions.is_empty() {
            write!(f, "; did you mean: {}?", self.suggestions.join(", "))?;
        }
        Ok(())
    }
}

impl std::error::Error for EventError {}

/// A generalized hardware or cache event's config for one PMU of a hybrid machine:
/// `(pmu_type << PERF_PMU_TYPE_SHIFT) | config`, with `PERF_PMU_TYPE_SHIFT` = 32.
///
/// Open it with `attr.type` = `PERF_TYPE_HARDWARE` (or `PERF_TYPE_HW_CACHE`) and this config to
/// count, say, `instructions` on the `cpu_core` PMU only (Linux 5.18+ for hybrid x86, 6.2+ for
/// arm64 PMUs). Only the low 32 bits of `config` are kept (`PERF_HW_EVENT_MASK`); a `pmu_type`
/// of 0 gives the plain, unextended config.
///
/// ```
/// use perfbench::events::extended_hw_config;
///
/// // `instructions` (PERF_COUNT_HW_INSTRUCTIONS = 1) on a PMU whose sysfs `type` is 8.
/// assert_eq!(extended_hw_config(8, 1), (8 << 32) | 1);
/// assert_eq!(extended_hw_config(0, 1), 1);
/// ```
pub fn extended_hw_config(pmu_type: u32, config: u64) -> u64 {
    (u64::from(pmu_type) << PMU_TYPE_SHIFT) | (config & u64::from(u32::MAX))
}

/// Parses one perf-style event name, resolving PMU events through `sysfs`. The event's
/// [`name`](Event::name) is `name` trimmed. perf's spellings and aliases are accepted:
///
/// - `wall-time` (not a perf event; takes no modifiers);
/// - generalized hardware events: `cycles`/`cpu-cycles`, `instructions`, `cache-references`,
///   `cache-misses`, `branches`/`branch-instructions`, `branch-misses`, `bus-cycles`,
///   `stalled-cycles-frontend`/`idle-cycles-frontend`, `stalled-cycles-backend`/
///   `idle-cycles-backend`, `ref-cycles`;
/// - hardware cache events `<cache>[-<op>][-<result>]` (`L1-dcache-load-misses`, `LLC-loads`,
///   `dTLB-store-misses`, ...; op and result in either order, op defaulting to loads and result
///   to accesses), with perf's aliases (`l1d`, `L2`, `d-tlb`, `read`, `miss`, `refs`, ...) and
///   perf's table of valid cache/op pairs (`L1-icache-stores` is rejected);
/// - software events: `cpu-clock`, `task-clock`, `page-faults`/`faults`, `minor-faults`,
///   `major-faults`, `context-switches`/`cs`, `cpu-migrations`/`migrations`,
///   `alignment-faults`, `emulation-faults`, `dummy`, `bpf-output`, `cgroup-switches`;
/// - raw events `rNNNN` (1 to 16 hex digits, `PERF_TYPE_RAW`);
/// - PMU events `pmu/term,term,.../` with the PMU's dynamic type: `name=value` terms (decimal or
///   `0x` hex) placed by the PMU's format fields, a bare format name meaning `name=1`, a named
///   event from the PMU's `events/` directory (expanded, then overridden by the other terms),
///   `config=`, `config1=`, `config2=`, `config3=`, or a single generalized event name
///   (`cpu_atom/branch-misses/`: the PMU's sysfs event of that name if it has one, otherwise the
///   generalized event with the PMU's type in the config's high bits, see
///   [`extended_hw_config`]);
/// - privilege modifiers after `:` (`cycles:u`) or after a PMU event's closing slash
///   (`cpu/event=0x3c/u` or `cpu/event=0x3c/:u`): `u` user, `k` kernel, `h` hypervisor, and
///   `p`, `pp`, `ppp` for `precise_ip`.
///
/// Without a `u`, `k` or `h` modifier an event counts user space only: perfbench measures the
/// benchmark's own code, and `perf_event_paranoid=2` (the common default) forbids counting the
/// kernel; with any of them, exactly those are counted. Names are matched case-sensitively,
/// like perf; errors suggest close names (including a differently cased one).
///
/// ```
/// use perfbench::events::{parse, Sysfs};
///
/// let sysfs = Sysfs::system();
/// let e = parse(" cycles:u ", &sysfs)?; // parsing needs no PMU: opening does
/// assert_eq!(e.name, "cycles:u");
/// assert!(e.perf().is_some_and(|p| p.user && !p.kernel));
///
/// let typo = parse("instrucions", &sysfs).unwrap_err();
/// assert!(typo.suggestions.contains(&"instructions".to_string()), "{typo}");
/// # Ok::<(), perfbench::events::EventError>(())
/// ```
pub fn parse(name: &str, sysfs: &Sysfs) -> Result<Event, EventError> {
    let name = name.trim();
    if name.is_empty() {
        return Err(EventError::new(name, "empty counter name"));
    }
    let kind = if name.contains('/') {
        parse_pmu_event(name, sysfs)?
    } else {
        parse_plain(name, sysfs)?
    };
    Ok(Event {
        name: name.to_owned(),
        kind,
    })
}

/// Parses a comma-separated list of event names (`instructions,cpu/event=0x3c,umask=0x0/u`):
/// commas between a PMU event's slashes separate its terms, not list items. Spaces around
/// items are ignored. An empty list, an empty item, or the same counter twice (by name, or by
/// what it counts, such as `cycles,cpu-cycles`) is an error.
///
/// ```
/// use perfbench::events::{parse_list, Sysfs};
///
/// let events = parse_list("instructions, branch-misses,wall-time", &Sysfs::system())?;
/// let names: Vec<&str> = events.iter().map(|e| e.name.as_str()).collect();
/// assert_eq!(names, ["instructions", "branch-misses", "wall-time"]);
/// assert!(parse_list("cycles,cpu-cycles", &Sysfs::system()).is_err()); // the same counter twice
/// # Ok::<(), perfbench::events::EventError>(())
/// ```
pub fn parse_list(list: &str, sysfs: &Sysfs) -> Result<Vec<Event>, EventError> {
    if list.trim().is_empty() {
        return Err(EventError::new(list.trim(), "no counters given"));
    }
    let mut events: Vec<Event> = Vec::new();
    for (position, item) in split_list(list).into_iter().enumerate() {
        let item = item.trim();
        if item.is_empty() {
            return Err(EventError::new(
                item,
                format!(
                    "empty counter name (item {} of `{}`)",
                    position + 1,
                    list.trim()
                ),
            ));
        }
        let event = parse(item, sysfs)?;
        if let Some(earlier) = events.iter().find(|e| e.name == event.name) {
            return Err(EventError::new(
                item,
                format!("counter `{}` is listed twice", earlier.name),
            ));
        }
        if let Some(earlier) = events.iter().find(|e| e.kind == event.kind) {
            return Err(EventError::new(
                item,
                format!(
                    "`{}` and `{}` are the same counter; list it once",
                    earlier.name, event.name
                ),
            ));
        }
        events.push(event);
    }
    Ok(events)
}

/// The event names this machine offers, for `perfbench list` and suggestions: generalized
/// hardware events (all aliases), the valid cache events in perf's canonical spelling
/// (`L1-dcache-loads`, `L1-dcache-load-misses`, ...; [`parse`] also takes perf's other
/// spellings), software events (all aliases), `wall-time`, then `pmu/event/` for every named
/// sysfs event, sorted by PMU and event. Without duplicates; every name parses.
///
/// ```
/// use perfbench::events::{known_names, parse, Sysfs};
///
/// let sysfs = Sysfs::system();
/// let names = known_names(&sysfs);
/// assert!(names.iter().any(|n| n == "L1-dcache-load-misses"));
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
    for pmu in sysfs.pmus() {
        names.extend(pmu.events.keys().map(|e| format!("{}/{e}/", pmu.name)));
    }
    let mut seen = HashSet::new();
    names.retain(|n| seen.insert(n.clone()));
    names
}

/// The valid cache events in perf's canonical spelling, in `perf list` order.
fn cache_names() -> Vec<String> {
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

/// Splits a list at commas that are not between a PMU event's slashes.
fn split_list(list: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let mut in_pmu = false;
    let mut start = 0;
    for (i, c) in list.char_indices() {
        match c {
            '/' => in_pmu = !in_pmu,
            ',' if !in_pmu => {
                items.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&list[start..]);
    items
}

/// The privilege filter and precision a modifier string asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Modifiers {
    user: bool,
    kernel: bool,
    hypervisor: bool,
    precise_ip: u8,
}

impl Default for Modifiers {
    /// User space only: see the module docs.
    fn default() -> Modifiers {
        Modifiers {
            user: true,
            kernel: false,
            hypervisor: false,
            precise_ip: 0,
        }
    }
}

impl Modifiers {
    /// Parses `uk`, `ppp`, ...: with any of `u`, `k`, `h`, exactly those are counted.
    fn parse(mods: &str, input: &str) -> Result<Modifiers, EventError> {
        if mods.is_empty() {
            return Err(EventError::new(
                input,
                format!("empty modifier in `{input}` (modifiers: u, k, h, p)"),
            ));
        }
        let (mut user, mut kernel, mut hypervisor, mut precise) = (false, false, false, 0u8);
        for c in mods.chars() {
            match c {
                'u' => user = true,
                'k' => kernel = true,
                'h' => hypervisor = true,
                'p' => precise = precise.saturating_add(1),
                other => {
                    return Err(EventError::new(
                        input,
                        format!(
                            "unknown modifier `{other}` in `{input}` (modifiers: u = user, \
                             k = kernel, h = hypervisor, p/pp/ppp = precise)"
                        ),
                    ))
                }
            }
        }
        if precise > MAX_PRECISE {
            return Err(EventError::new(
                input,
                format!("too many `p` modifiers in `{input}` (at most {MAX_PRECISE}: `ppp`)"),
            ));
        }
        let any = user || kernel || hypervisor;
        Ok(Modifiers {
            user: user || !any,
            kernel,
            hypervisor,
            precise_ip: precise,
        })
    }

    fn event(self, type_: u32, config: [u64; 4], pmu: Option<&str>) -> EventKind {
        EventKind::Perf(PerfEvent {
            type_,
            config: config[0],
            config1: config[1],
            config2: config[2],
            config3: config[3],
            pmu: pmu.map(str::to_owned),
            user: self.user,
            kernel: self.kernel,
            hypervisor: self.hypervisor,
            precise_ip: self.precise_ip,
        })
    }
}

/// A name without a PMU: `wall-time`, generalized, cache, software or raw, then `:modifiers`.
fn parse_plain(input: &str, sysfs: &Sysfs) -> Result<EventKind, EventError> {
    if let Some((system, name, mods)) = tracepoint_parts(input) {
        return parse_tracepoint(input, system, name, mods, sysfs);
    }
    let (base, mods) = match input.split_once(':') {
        Some((base, mods)) => (base, Some(mods)),
        None => (input, None),
    };
    if base == WALL_TIME {
        return match mods {
            None => Ok(EventKind::WallTime),
            Some(_) => Err(EventError::new(
                input,
                format!("`{WALL_TIME}` takes no modifiers (`{input}`)"),
            )),
        };
    }
    let modifiers = match mods {
        Some(mods) => Modifiers::parse(mods, input)?,
        None => Modifiers::default(),
    };
    let (type_, config) = match generalized(base) {
        Some(Ok(found)) => found,
        Some(Err(why)) => return Err(EventError::new(input, why)),
        None => match raw_event(base) {
            Some(Ok(config)) => (raw::PERF_TYPE_RAW, config),
            Some(Err(why)) => return Err(EventError::new(input, why)),
            None => return Err(unknown_event(input, base, mods, sysfs)),
        },
    };
    let mut kind = modifiers.event(type_, [config, 0, 0, 0], None);
    if let (None, EventKind::Perf(p)) = (mods, &mut kind) {
        // Context switches and migrations happen in the kernel: user-only they read 0.
        if p.happens_in_kernel() {
            p.kernel = true;
        }
    }
    Ok(kind)
}

/// `system:name[:modifiers]` when `input` has that shape and `system` is no event name (so
/// `cycles:u` stays a modified event, and `foo:u` an unknown one).
fn tracepoint_parts(input: &str) -> Option<(&str, &str, Option<&str>)> {
    let mut parts = input.splitn(3, ':');
    let (system, name, mods) = (parts.next()?, parts.next()?, parts.next());
    let is_modifier = !name.is_empty() && name.chars().all(|c| "ukhp".contains(c));
    if !is_tracepoint_name(system)
        || !is_tracepoint_name(name)
        || (mods.is_none() && is_modifier)
        || system == WALL_TIME
        || generalized(system).is_some()
        || raw_event(system).is_some()
    {
        return None;
    }
    Some((system, name, mods))
}

/// A tracepoint `system:name[:modifiers]`, looked up in tracefs. Tracepoints fire in the
/// kernel, so without modifiers they count in kernel and user mode (user-only they would read 0),
/// which needs `perf_event_paranoid <= 1` or `CAP_PERFMON`, like `context-switches`.
fn parse_tracepoint(
    input: &str,
    system: &str,
    name: &str,
    mods: Option<&str>,
    sysfs: &Sysfs,
) -> Result<EventKind, EventError> {
    let modifiers = match mods {
        Some(mods) => Modifiers::parse(mods, input)?,
        // See `PerfEvent::happens_in_kernel`.
        None => Modifiers {
            kernel: true,
            ..Modifiers::default()
        },
    };
    let id = sysfs.tracepoint_id(system, name).map_err(|e| {
        let suffix = mods.map(|m| format!(":{m}")).unwrap_or_default();
        match e {
            TracepointError::NoTracefs { looked } => EventError::new(
                input,
                format!(
                    "`{input}` is a tracepoint, and no tracefs is mounted ({}); as root: \
                     `mount -t tracefs nodev /sys/kernel/tracing`",
                    looked
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
            TracepointError::Unreadable { root } => EventError::new(
                input,
                format!(
                    "`{input}` is a tracepoint, and {} is readable by root only: run as root, \
                     or give this user access to tracefs",
                    root.display()
                ),
            ),
            TracepointError::UnknownSystem { known } => {
                EventError::new(input, format!("no tracepoint system `{system}` in tracefs"))
                    .suggesting(
                        closest(system, known)
                            .into_iter()
                            .map(|s| format!("{s}:{name}{suffix}"))
                            .collect(),
                    )
            }
            TracepointError::UnknownEvent { known } => EventError::new(
                input,
                format!("no tracepoint `{name}` in system `{system}`"),
            )
            .suggesting(
                closest(name, known)
                    .into_iter()
                    .map(|n| format!("{system}:{n}{suffix}"))
                    .collect(),
            ),
        }
    })?;
    Ok(modifiers.event(raw::PERF_TYPE_TRACEPOINT, [id, 0, 0, 0], None))
}

/// The error for a name nothing matched, with the closest known names.
fn unknown_event(input: &str, base: &str, mods: Option<&str>, sysfs: &Sysfs) -> EventError {
    let suffix = mods.map(|m| format!(":{m}")).unwrap_or_default();
    let suggestions = closest(base, known_names(sysfs))
        .into_iter()
        .map(|name| {
            if name.ends_with('/') {
                format!("{name}{}", mods.unwrap_or_default())
            } else {
                format!("{name}{suffix}")
            }
        })
        .collect();
    EventError::new(
        input,
        format!("unknown counter `{input}` (`perfbench list` shows the known ones)"),
    )
    .suggesting(suggestions)
}

/// A generalized hardware, cache or software event: `(attr.type, attr.config)`. `None` if
/// `name` is none of these; an error for a cache event perf rejects (`L1-icache-stores`).
fn generalized(name: &str) -> Option<Result<(u32, u64), String>> {
    if let Some(id) = lookup(HARDWARE, name) {
        return Some(Ok((raw::PERF_TYPE_HARDWARE, u64::from(id))));
    }
    if let Some(id) = lookup(SOFTWARE, name) {
        return Some(Ok((raw::PERF_TYPE_SOFTWARE, u64::from(id))));
    }
    cache_event(name).map(|r| r.map(|config| (raw::PERF_TYPE_HW_CACHE, config)))
}

/// The id of `name` in a table of `(id, spellings)`.
fn lookup(table: &[(u32, &[&str])], name: &str) -> Option<u32> {
    table
        .iter()
        .find(|(_, spellings)| spellings.contains(&name))
        .map(|&(id, _)| id)
}

/// A cache event `<cache>[-<op>][-<result>]` (op and result in either order; op defaults to
/// load, result to access) as its config `cache | op << 8 | result << 16`. `None` if `name` is
/// not of that form.
fn cache_event(name: &str) -> Option<Result<u64, String>> {
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
fn match_spelling<'a>(s: &'a str, table: &[&[&str]]) -> Option<(usize, Option<&'a str>)> {
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
fn raw_event(name: &str) -> Option<Result<u64, String>> {
    let digits = name.strip_prefix('r')?;
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    Some(u64::from_str_radix(digits, 16).map_err(|_| {
        format!("raw event `{name}` has more than 16 hex digits (a config is 64 bits)")
    }))
}

/// A term value: decimal, or hex with `0x`.
fn parse_value(s: &str) -> Option<u64> {
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

/// A PMU event `pmu/terms/[:]modifiers`.
fn parse_pmu_event(input: &str, sysfs: &Sysfs) -> Result<EventKind, EventError> {
    let Some((pmu_name, rest)) = input.split_once('/') else {
        return Err(EventError::new(
            input,
            format!("`{input}` is not a PMU event"),
        ));
    };
    let Some((terms_text, suffix)) = rest.split_once('/') else {
        return Err(EventError::new(
            input,
            format!("missing closing `/` in `{input}` (PMU events are written `pmu/terms/`)"),
        ));
    };
    if suffix.contains('/') {
        return Err(EventError::new(
            input,
            format!("unexpected `/` after the closing `/` in `{input}`"),
        ));
    }
    if pmu_name.trim().is_empty() {
        return Err(EventError::new(
            input,
            format!("missing PMU name in `{input}` (PMU events are written `pmu/terms/`)"),
        ));
    }
    let modifiers = match suffix.strip_prefix(':').unwrap_or(suffix) {
        "" if suffix.is_empty() => Modifiers::default(),
        mods => Modifiers::parse(mods, input)?,
    };
    let pmu_name = pmu_name.trim();
    let Some(pmu) = sysfs.pmu(pmu_name) else {
        return Err(unknown_pmu(input, pmu_name, terms_text, suffix, sysfs));
    };
    let terms: Vec<&str> = terms_text.split(',').map(str::trim).collect();
    let spec = PmuSpec {
        input,
        pmu: &pmu,
        terms: &terms,
        suffix,
    };
    let (type_, config) = spec.resolve()?;
    Ok(modifiers.event(type_, config, Some(&pmu.name)))
}

/// The error for a PMU sysfs does not list, naming the ones it does.
fn unknown_pmu(input: &str, name: &str, terms: &str, suffix: &str, sysfs: &Sysfs) -> EventError {
    let pmus = sysfs.pmus();
    let names: Vec<String> = pmus.iter().map(|p| p.name.clone()).collect();
    let mut close = closest(name, names.clone());
    if name == "cpu" {
        // Hybrid machines have per-core-type PMUs instead of `cpu`.
        close.extend(pmus.iter().filter(|p| p.is_core()).map(|p| p.name.clone()));
        close.dedup();
    }
    let mut message = format!(
        "unknown PMU `{name}` in `{input}` (PMUs on this machine: {})",
        if names.is_empty() {
            "none".to_owned()
        } else {
            names.join(", ")
        }
    );
    if !pmus.iter().any(Pmu::is_core) {
        message.push_str(
            "; this machine exposes no CPU PMU (typical of virtual machines): \
             only software counters and wall-time work",
        );
    }
    EventError::new(input, message).suggesting(
        close
            .into_iter()
            .take(MAX_SUGGESTIONS)
            .map(|p| format!("{p}/{terms}/{suffix}"))
            .collect(),
    )
}

/// The terms of one PMU event, being resolved against its PMU.
struct PmuSpec<'a> {
    input: &'a str,
    pmu: &'a Pmu,
    terms: &'a [&'a str],
    suffix: &'a str,
}

/// What a PMU event's terms resolved to.
enum Resolved {
    /// Terms placed into the config words; `event` is the named sysfs event used, if any.
    Terms {
        config: [u64; 4],
        event: Option<String>,
    },
    /// A generalized event counted on this PMU: `(attr.type, attr.config)`.
    Generalized(u32, u64),
}

impl PmuSpec<'_> {
    /// `(attr.type, [config, config1, config2, config3])`.
    fn resolve(&self) -> Result<(u32, [u64; 4]), EventError> {
        if self.terms.iter().all(|t| t.is_empty()) {
            return Err(self.error(format!("no terms between the slashes of `{}`", self.input)));
        }
        let mut resolved = Resolved::Terms {
            config: [0; 4],
            event: None,
        };
        let mut seen: Vec<&str> = Vec::new();
        for (index, &term) in self.terms.iter().enumerate() {
            if term.is_empty() {
                return Err(self.error(format!("empty term in `{}`", self.input)));
            }
            let key = term.split_once('=').map_or(term, |(k, _)| k).trim();
            if seen.contains(&key) {
                return Err(self.error(format!("term `{key}` given twice in `{}`", self.input)));
            }
            seen.push(key);
            self.apply(&mut resolved, index, term)?;
        }
        Ok(match resolved {
            Resolved::Terms { config, .. } => (self.pmu.type_, config),
            Resolved::Generalized(type_, config) => (type_, [config, 0, 0, 0]),
        })
    }

    /// Applies one term the user wrote.
    fn apply(&self, resolved: &mut Resolved, index: usize, term: &str) -> Result<(), EventError> {
        let Resolved::Terms { config, event } = resolved else {
            return Err(self.error(format!(
                "a generalized event cannot be combined with other terms in `{}`",
                self.input
            )));
        };
        if let Some((key, value)) = term.split_once('=') {
            let (key, value) = (key.trim(), value.trim());
            return self.assign(config, key, value, None, index);
        }
        if ConfigWord::from_name(term).is_some() {
            return Err(self.error(format!("`{term}` needs a value (`{term}=0x...`)")));
        }
        if self.pmu.format(term).is_some() {
            return self.assign(config, term, "1", None, index);
        }
        if let Some(alias) = self.pmu.events.get(term) {
            return self.expand(config, event, term, alias);
        }
        if let Some((hw_alias, value)) = self.hardware_alias(term) {
            return self.expand(config, event, hw_alias, value);
        }
        if let Some(found) = generalized(term) {
            let (type_, id) = found.map_err(|why| self.error(why))?;
            if self.terms.len() > 1 {
                return Err(self.error(format!(
                    "generalized event `{term}` cannot be combined with other terms in `{}`",
                    self.input
                )));
            }
            *resolved = self.generalized_on_pmu(term, type_, id)?;
            return Ok(());
        }
        Err(self.unknown_term(term, index))
    }

    /// A named sysfs event standing for the generalized hardware event `term`, under one of
    /// perf's spellings (`cpu/cycles/` -> the PMU's `cpu-cycles` event): `(name, value)`.
    fn hardware_alias(&self, term: &str) -> Option<(&str, &str)> {
        let (_, spellings) = HARDWARE.iter().find(|(_, s)| s.contains(&term))?;
        spellings.iter().find_map(|&s| {
            let (name, value) = self.pmu.events.get_key_value(s)?;
            Some((name.as_str(), value.as_str()))
        })
    }

    /// A generalized event on this PMU: plain on `cpu` (which `PERF_TYPE_HARDWARE` already
    /// means), with the PMU's extended type on the other core PMUs.
    fn generalized_on_pmu(&self, term: &str, type_: u32, id: u64) -> Result<Resolved, EventError> {
        let pmu = self.pmu;
        if type_ == raw::PERF_TYPE_SOFTWARE {
            return if pmu.type_ == raw::PERF_TYPE_SOFTWARE {
                Ok(Resolved::Generalized(type_, id))
            } else {
                Err(self.error(format!(
                    "`{term}` is a software event, not an event of PMU `{}`; write `{term}`",
                    pmu.name
                )))
            };
        }
        if !pmu.is_core() {
            return Err(self.error(format!(
                "`{term}` is a generalized hardware event, and PMU `{}` is not a CPU PMU",
                pmu.name
            )));
        }
        let config = if pmu.name == "cpu" {
            id
        } else {
            extended_hw_config(pmu.type_, id)
        };
        Ok(Resolved::Generalized(type_, config))
    }

    /// Expands the named sysfs event `name` (value string `value`, e.g. `event=0x3c,umask=0x0`).
    fn expand(
        &self,
        config: &mut [u64; 4],
        event: &mut Option<String>,
        name: &str,
        value: &str,
    ) -> Result<(), EventError> {
        if let Some(earlier) = event {
            return Err(self.error(format!(
                "`{}` names two events, `{earlier}` and `{name}`; give each its own counter",
                self.input
            )));
        }
        *event = Some(name.to_owned());
        for term in value.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            let (key, value) = term.split_once('=').unwrap_or((term, "1"));
            self.assign(config, key.trim(), value.trim(), Some(name), 0)?;
        }
        Ok(())
    }

    /// Applies `key=value` (a format field or `configN`); `alias` is the sysfs event the term
    /// came from, `index` the position of the user's term (for suggestions).
    fn assign(
        &self,
        config: &mut [u64; 4],
        key: &str,
        value_text: &str,
        alias: Option<&str>,
        index: usize,
    ) -> Result<(), EventError> {
        let origin = match alias {
            Some(alias) => format!(" (from event `{alias}` of PMU `{}`)", self.pmu.name),
            None => String::new(),
        };
        let Some(value) = parse_value(value_text) else {
            let why = if value_text == "?" {
                "needs a value from the user, which perfbench does not support"
            } else {
                "needs a decimal or 0x-prefixed hex number"
            };
            return Err(self.error(format!(
                "term `{key}={value_text}`{origin} in `{}`: `{key}` {why}",
                self.input
            )));
        };
        if let Some(word) = ConfigWord::from_name(key) {
            config[word.index()] = value;
            return Ok(());
        }
        let Some(field) = self.pmu.format(key) else {
            return Err(match alias {
                Some(_) => self.error(format!(
                    "unknown term `{key}`{origin}; {}",
                    self.terms_help()
                )),
                None => self.unknown_term(key, index),
            });
        };
        let bits = field
            .place(value)
            .map_err(|too_wide| self.error(format!("{too_wide}{origin} in `{}`", self.input)))?;
        let word = &mut config[field.target.index()];
        *word = (*word & !field.mask()) | bits;
        Ok(())
    }

    /// The error for a term that is neither a format field, an event of the PMU, nor a
    /// generalized event, suggesting the input with the closest term instead.
    fn unknown_term(&self, key: &str, index: usize) -> EventError {
        let candidates = self
            .pmu
            .formats
            .iter()
            .map(|f| f.name.clone())
            .chain(self.pmu.events.keys().cloned())
            .collect();
        let suggestions = closest(key, candidates)
            .into_iter()
            .map(|replacement| {
                let mut terms: Vec<String> = self.terms.iter().map(|t| (*t).to_owned()).collect();
                if let Some(term) = terms.get_mut(index) {
                    *term = match term.split_once('=') {
                        Some((_, value)) => format!("{replacement}={value}"),
                        None => replacement,
                    };
                }
                format!("{}/{}/{}", self.pmu.name, terms.join(","), self.suffix)
            })
            .collect();
        self.error(format!(
            "PMU `{}` has no term or event `{key}` (in `{}`); {}",
            self.pmu.name,
            self.input,
            self.terms_help()
        ))
        .suggesting(suggestions)
    }

    /// What terms this PMU accepts, for error messages.
    fn terms_help(&self) -> String {
        let formats: Vec<String> = self
            .pmu
            .formats
            .iter()
            .map(|f| f.name.clone())
            .chain(ConfigWord::ALL.iter().map(|w| w.name().to_owned()))
            .collect();
        let mut help = format!("its format terms: {}", formats.join(", "));
        if !self.pmu.events.is_empty() {
            help.push_str(&format!(
                "; its events: `perfbench list` (e.g. {})",
                self.pmu
                    .events
                    .keys()
                    .take(3)
                    .map(|e| format!("`{}/{e}/`", self.pmu.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        help
    }

    fn error(&self, message: String) -> EventError {
        EventError::new(self.input, message)
    }
}

/// Up to [`MAX_SUGGESTIONS`] candidates close to `input` by edit distance, ignoring case (so a
/// wrongly cased name is always suggested), closest first. A `pmu/event/` candidate is also
/// compared by its bare event name. "Close" means within a third of the input's length.
fn closest(input: &str, candidates: Vec<String>) -> Vec<String> {
    let lower = input.to_lowercase();
    let input_len = input.chars().count();
    let limit = (input_len / 3).max(1);
    // Ranked by distance, then whole-name matches before bare-event matches, then by the
    // case-sensitive distance, then by name.
    let mut scored: Vec<(usize, bool, usize, String)> = candidates
        .into_iter()
        .filter(|c| c != input)
        .filter_map(|candidate| {
            let bare = candidate
                .strip_suffix('/')
                .and_then(|c| c.split_once('/'))
                .map(|(_, event)| event);
            let keys =
                std::iter::once((false, candidate.as_str())).chain(bare.map(|event| (true, event)));
            let (distance, via_bare, cased) = keys
                // Lengths further apart than the limit cannot be within it.
                .filter(|(_, key)| key.chars().count().abs_diff(input_len) <= limit)
                .map(|(via_bare, key)| {
                    (
                        edit_distance(&lower, &key.to_lowercase()),
                        via_bare,
                        edit_distance(input, key),
                    )
                })
                .min()?;
            (distance <= limit).then_some((distance, via_bare, cased, candidate))
        })
        .collect();
    crate::sorting::sort_by(&mut scored, Ord::cmp);
    let mut out: Vec<String> = Vec::new();
    for (_, _, _, candidate) in scored {
        if !out.contains(&candidate) {
            out.push(candidate);
        }
    }
    out.truncate(MAX_SUGGESTIONS);
    out
}

/// The optimal-string-alignment distance between `a` and `b`: insertions, deletions,
/// substitutions and swaps of two adjacent characters each cost 1.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Rows i-2, i-1 and i of the distance matrix.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        current[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            current[j] = (previous[j] + 1)
                .min(current[j - 1] + 1)
                .min(previous[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                current[j] = current[j].min(before[j - 2] + 1);
            }
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests;
