//! What the measurement produces before any statistics: each benchmark's raw samples
//! ([`RawBenchmark`], [`RawCounter`]), and the few words of JSON a lean benchmark binary
//! (built without the `analysis` feature) writes them in for the `perfbench` tool.
//!
//! The analysis layers turn a raw benchmark into the report's
//! `model::Benchmark` (its estimates, derived metrics and changes) in the same way
//! whether it was measured in this process or arrived from a lean binary: the JSON written
//! here has the shape of the report's benchmark with no estimates, so the tool reads it with
//! the report's own types. Writing it needs no serde: a lean build compiles no JSON library.

use super::entry::Throughput;
use crate::counters::Source;

/// How a benchmark ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "analysis",
    derive(serde_derive::Serialize, serde_derive::Deserialize),
    serde(rename_all = "lowercase")
)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub enum Outcome {
    /// Measured: the counters hold values.
    Measured,
    /// Ran once as a smoke test (`--test`).
    Tested,
    /// The benchmark panicked; the benchmark's `error` has the message.
    Panicked,
    /// The benchmark could not be measured (a counter failed); its `error` says why.
    Failed,
}

impl Outcome {
    /// The name used in reports and JSON: `measured`, `tested`, `panicked` or `failed`.
    ///
    /// ```
    /// assert_eq!(perfbench::harness::raw::Outcome::Panicked.as_str(), "panicked");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Measured => "measured",
            Outcome::Tested => "tested",
            Outcome::Panicked => "panicked",
            Outcome::Failed => "failed",
        }
    }
}

/// One counter's samples as measured: per-iteration values with the bracket overhead
/// subtracted, no statistics yet.
#[derive(Clone, Debug, PartialEq)]
pub struct RawCounter {
    /// The counter's name as the user wrote it (`instructions`, `cycles:u`, `wall-time`).
    pub name: String,
    /// `ns` for time-like counters, `count` otherwise.
    pub unit: String,
    /// How the values were read.
    pub source: Source,
    /// Some sample's group was multiplexed: its counts are scaled estimates.
    pub multiplexed: bool,
    /// Per-iteration value of each sample.
    pub per_iteration: Vec<f64>,
    /// Iterations in each sample.
    pub iterations: Vec<u64>,
    /// Samples per round, in the order taken (empty: one round).
    pub rounds: Vec<u32>,
    /// The bracket overhead that was subtracted, per sample.
    pub overhead: f64,
}

/// One benchmark as measured (or as it failed): what the harness hands to the analysis.
#[derive(Clone, Debug, PartialEq)]
pub struct RawBenchmark {
    /// `group/name` or `group/name/params`.
    pub id: String,
    /// The group.
    pub group: String,
    /// The function's name (or the `name` option).
    pub name: String,
    /// What follows the name in the id, if anything.
    pub params: Option<String>,
    /// Declared (or set) throughput per iteration.
    pub throughput: Option<Throughput>,
    /// How it ended.
    pub outcome: Outcome,
    /// The message of a panicked or failed benchmark.
    pub error: Option<String>,
    /// Counters, in the order requested (empty unless measured).
    pub counters: Vec<RawCounter>,
}

impl RawBenchmark {
    /// The benchmark as one line of JSON in the report's benchmark shape (counters keyed by
    /// name, `estimate: null`, non-finite values as `null`, floats that read back exactly).
    ///
    /// ```
    /// use perfbench::harness::raw::{Outcome, RawBenchmark};
    ///
    /// let b = RawBenchmark {
    ///     id: "g/\"odd\"".into(), group: "g".into(), name: "\"odd\"".into(), params: None,
    ///     throughput: None, outcome: Outcome::Panicked, error: Some("boom\n".into()),
    ///     counters: Vec::new(),
    /// };
    /// assert_eq!(
    ///     b.to_json(),
    ///     r#"{"id":"g/\"odd\"","group":"g","name":"\"odd\"","params":null,"throughput":null,"outcome":"panicked","error":"boom\n","counters":{}}"#
    /// );
    /// ```
    pub fn to_json(&self) -> String {
        let mut out = String::with_capacity(256 + self.counters.len() * 2048);
        push_identity(
            &mut out,
            &self.id,
            &self.group,
            &self.name,
            self.params.as_deref(),
        );
        out.push_str(",\"throughput\":");
        push_throughput(&mut out, self.throughput);
        out.push_str(",\"outcome\":");
        push_str(&mut out, self.outcome.as_str());
        out.push_str(",\"error\":");
        push_opt_str(&mut out, self.error.as_deref());
        out.push_str(",\"counters\":{");
        push_list(&mut out, &self.counters, |out, c| {
            push_str(out, &c.name);
            out.push_str(":{\"unit\":");
            push_str(out, &c.unit);
            out.push_str(",\"source\":");
            push_str(out, c.source.as_str());
            out.push_str(if c.multiplexed {
                ",\"multiplexed\":true"
            } else {
                ",\"multiplexed\":false"
            });
            out.push_str(",\"per_iteration\":[");
            push_list(out, &c.per_iteration, |out, &v| push_f64(out, v));
            out.push_str("],\"iterations\":[");
            push_list(out, &c.iterations, |out, n| out.push_str(&n.to_string()));
            out.push_str("],\"rounds\":[");
            push_list(out, &c.rounds, |out, n| out.push_str(&n.to_string()));
            out.push_str("],\"overhead\":");
            push_f64(out, c.overhead);
            out.push_str(",\"estimate\":null}");
        });
        out.push_str("}}");
        out
    }
}

/// `items` written by `each`, separated by commas (the brackets are the caller's).
pub(crate) fn push_list<T>(out: &mut String, items: &[T], each: impl Fn(&mut String, &T)) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        each(out, item);
    }
}

/// `{"id": ..., "group": ..., "name": ..., "params": ...` of a benchmark (the object left open
/// for more members).
pub(crate) fn push_identity(
    out: &mut String,
    id: &str,
    group: &str,
    name: &str,
    params: Option<&str>,
) {
    out.push_str("{\"id\":");
    push_str(out, id);
    out.push_str(",\"group\":");
    push_str(out, group);
    out.push_str(",\"name\":");
    push_str(out, name);
    out.push_str(",\"params\":");
    push_opt_str(out, params);
}

/// `s` as a JSON string: quotes, backslashes and control characters escaped, everything else
/// as it is (JSON text is UTF-8).
pub(crate) fn push_str(out: &mut String, s: &str) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `t` as the report writes it (`{"bytes": N}`, `{"elements": N}`), or `null`.
pub(crate) fn push_throughput(out: &mut String, t: Option<Throughput>) {
    match t {
        None => out.push_str("null"),
        Some(Throughput::Bytes(n)) => out.push_str(&format!("{{\"bytes\":{n}}}")),
        Some(Throughput::Elements(n)) => out.push_str(&format!("{{\"elements\":{n}}}")),
    }
}

/// `s` as a JSON string, or `null`.
pub(crate) fn push_opt_str(out: &mut String, s: Option<&str>) {
    match s {
        Some(s) => push_str(out, s),
        None => out.push_str("null"),
    }
}

/// `v` as a JSON number that reads back as the same `f64` (Rust's shortest round-trip form),
/// or `null` when it is not finite (JSON has no NaN or infinity).
pub(crate) fn push_f64(out: &mut String, v: f64) {
    if v.is_finite() {
        out.push_str(&format!("{v:?}"));
    } else {
        out.push_str("null");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_escape_what_json_needs_and_keep_the_rest() {
        let mut out = String::new();
        push_str(&mut out, "a\"b\\c\u{1}\u{1f}é€😀\u{7f}");
        assert_eq!(out, "\"a\\\"b\\\\c\\u0001\\u001fé€😀\u{7f}\"");
    }

    #[test]
    fn floats_are_numbers_or_null() {
        for (v, text) in [
            (1.0, "1.0"),
            (-0.0, "-0.0"),
            (1e300, "1e300"),
            (1.5e-7, "1.5e-7"),
            (f64::NAN, "null"),
            (f64::INFINITY, "null"),
        ] {
            let mut out = String::new();
            push_f64(&mut out, v);
            assert_eq!(out, text, "{v}");
        }
    }
}
