//! An event's modifiers (`:u`, `:k`, `:h`, `:p`, `:pp`, `:ppp`, `:D`...), as perf reads them.

use super::*;

/// The most `p` modifiers perf accepts (`attr.precise_ip` is 0..=3).
pub(super) const MAX_PRECISE: u8 = 3;

/// The privilege filter and precision a modifier string asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Modifiers {
    pub(super) user: bool,
    pub(super) kernel: bool,
    pub(super) hypervisor: bool,
    pub(super) precise_ip: u8,
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
    pub(super) fn parse(mods: &str, input: &str) -> Result<Modifiers, EventError> {
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

    pub(super) fn event(self, type_: u32, config: [u64; 4], pmu: Option<&str>) -> EventKind {
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
