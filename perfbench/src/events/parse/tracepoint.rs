//! Tracepoints (`syscalls:sys_enter_read`), checked against tracefs.

use super::*;

/// `system:name[:modifiers]` when `input` has that shape and `system` is no event name (so
/// `cycles:u` stays a modified event, and `foo:u` an unknown one).
pub(super) fn tracepoint_parts(input: &str) -> Option<(&str, &str, Option<&str>)> {
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
pub(super) fn parse_tracepoint(
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
