//! The library's `Group`: opening one from event names, and the brackets around a body through
//! `Group::read` and `Group::read_counts`.

use perfbench::counters::{CounterError, Group, GroupOptions, Reading};
use perfbench::events::{self, Event, Sysfs};
use perfbench::Source;

use crate::checks::Checks;

/// `Group::read`, `body(n)`, `Group::read`: a bracket through the library's general read
/// (with the times; the harness's own bracket reads counts only, see `phase_floor`).
#[inline(never)]
pub(crate) fn bracket_group(
    g: &mut Group,
    body: fn(u64),
    n: u64,
    a: &mut Reading,
    b: &mut Reading,
) -> Result<(Source, Source), CounterError> {
    let s0 = g.read(a)?;
    body(n);
    let s1 = g.read(b)?;
    Ok((s0, s1))
}

/// Opens `events` (named `names`) as one `Group` with the default options; a failure is a
/// failed check.
pub(crate) fn open_group(c: &mut Checks, events: &[Event], names: &[String]) -> Option<Group> {
    Group::open(events, &GroupOptions::default())
        .map_err(|e| c.check(false, format_args!("Group::open({names:?}): {e}")))
        .ok()
}

pub(crate) fn parse_all(c: &mut Checks, names: &[String], sysfs: &Sysfs) -> Option<Vec<Event>> {
    let mut out = Vec::new();
    for name in names {
        match events::parse(name, sysfs) {
            Ok(e) => out.push(e),
            Err(e) => {
                c.check(false, format_args!("events::parse({name}): {e}"));
                return None;
            }
        }
    }
    Some(out)
}

/// `Group::read_counts`, `body(n)`, `Group::read_counts`, as the harness's `Meter` brackets
/// now (counts only; the times are read once per sample, outside the brackets); the source
/// each read returns unused: the caller checks `fast_fallbacks` afterwards.
#[inline(never)]
pub(crate) fn bracket_floor(
    g: &mut Group,
    body: fn(u64),
    n: u64,
    a: &mut Reading,
    b: &mut Reading,
) -> bool {
    let first = g.read_counts(a).is_ok();
    body(n);
    g.read_counts(b).is_ok() && first
}
