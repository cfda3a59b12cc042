//! PMU events (`cpu/event=0x3c,umask=0/`, `cpu_core/instructions/`): their terms resolved
//! through the PMU's sysfs formats and aliases.

use super::*;

/// A PMU event `pmu/terms/[:]modifiers`.
pub(super) fn parse_pmu_event(input: &str, sysfs: &Sysfs) -> Result<EventKind, EventError> {
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
pub(super) fn unknown_pmu(
    input: &str,
    name: &str,
    terms: &str,
    suffix: &str,
    sysfs: &Sysfs,
) -> EventError {
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
pub(super) struct PmuSpec<'a> {
    pub(super) input: &'a str,
    pub(super) pmu: &'a Pmu,
    pub(super) terms: &'a [&'a str],
    pub(super) suffix: &'a str,
}

/// What a PMU event's terms resolved to.
pub(super) enum Resolved {
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
    pub(super) fn resolve(&self) -> Result<(u32, [u64; 4]), EventError> {
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
    pub(super) fn apply(
        &self,
        resolved: &mut Resolved,
        index: usize,
        term: &str,
    ) -> Result<(), EventError> {
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
    pub(super) fn hardware_alias(&self, term: &str) -> Option<(&str, &str)> {
        let (_, spellings) = HARDWARE.iter().find(|(_, s)| s.contains(&term))?;
        spellings.iter().find_map(|&s| {
            let (name, value) = self.pmu.events.get_key_value(s)?;
            Some((name.as_str(), value.as_str()))
        })
    }

    /// A generalized event on this PMU: plain on `cpu` (which `PERF_TYPE_HARDWARE` already
    /// means), with the PMU's extended type on the other core PMUs.
    pub(super) fn generalized_on_pmu(
        &self,
        term: &str,
        type_: u32,
        id: u64,
    ) -> Result<Resolved, EventError> {
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
    pub(super) fn expand(
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
    pub(super) fn assign(
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
    pub(super) fn unknown_term(&self, key: &str, index: usize) -> EventError {
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
    pub(super) fn terms_help(&self) -> String {
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

    pub(super) fn error(&self, message: String) -> EventError {
        EventError::new(self.input, message)
    }
}
