//! Parsing perf-style event names into [`Event`]s (the syntax is documented on [`parse`]),
//! the names `perfbench list` shows, and suggestions for misspelled names.
//!
//! Generalized events parse to `PERF_TYPE_HARDWARE`/`PERF_TYPE_HW_CACHE` without consulting
//! sysfs, even on hybrid machines: extending them to each core PMU (see [`extended_hw_config`])
//! is the counters layer's job. Parsing never opens an event.
//!
//! Its parts: `names` (perf's generalized, software, cache and raw event names), `modifiers`
//! (`:u`, `:k`, `:p`...), `tracepoint` (`subsystem:event`), `pmu` (`pmu/term=value,.../`) and
//! `suggest` (the names closest to a misspelling); this module parses a name and a list.

use std::collections::HashSet;
use std::fmt;

use super::sysfs::{is_tracepoint_name, ConfigWord, Pmu, Sysfs, TracepointError};
use super::{AllocCounter, Event, EventKind, PerfEvent, WALL_TIME};

use crate::sys::raw;

mod modifiers;
mod names;
mod pmu;
mod suggest;
mod tracepoint;

use modifiers::*;
pub use names::*;
use pmu::*;
use suggest::*;
use tracepoint::*;

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

/// A name without a PMU: `wall-time`, generalized, cache, software or raw, then `:modifiers`.
fn parse_plain(input: &str, sysfs: &Sysfs) -> Result<EventKind, EventError> {
    if let Some((system, name, mods)) = tracepoint_parts(input) {
        return parse_tracepoint(input, system, name, mods, sysfs);
    }
    let (base, mods) = match input.split_once(':') {
        Some((base, mods)) => (base, Some(mods)),
        None => (input, None),
    };
    if let Some(counter) = AllocCounter::from_name(base) {
        return match mods {
            None => Ok(EventKind::Alloc(counter)),
            Some(_) => Err(EventError::new(
                input,
                format!("`{base}` takes no modifiers (`{input}`)"),
            )),
        };
    }
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

#[cfg(test)]
mod tests;
