//! The stream: a benchmark binary's run, measured in the binary and analysed by the tool
//! (`perfbench run-suite`, which the binary starts; see [`crate::runner::stream`]).
//!
//! Binary to tool, on the tool's standard input, one JSON object per line: first a [`Hello`]
//! (`{"perfbench_stream": 3, "perfbench": "0.1.0", "counters": [...], "benchmarks": [...]}`:
//! the run's default counters, and the selected benchmarks with what the analysis needs of
//! their attribute; also what `--perfbench-describe` prints), then one benchmark per line
//! ([`encode_benchmark`]: its samples, no statistics), then [`END`]. An input that ends
//! without that line (the binary crashed or was killed) is an error: the tool writes nothing.
//!
//! Tool to binary, on the tool's standard output: frames ([`write_frame`]), each `LENGTH\n`
//! and then `LENGTH` bytes of text to print: one once the tool is ready (after it took the
//! suite's lock and loaded the baseline), one after each benchmark, then any number until the
//! tool exits. The tool's standard error is the binary's. A tool that refuses the run (another
//! version, a missing baseline) says why on standard error and exits before its first frame.

use std::io::{BufRead, Write};

use super::json::push_throughput;
use super::json::{push_f64, push_identity, push_list, push_opt_str, push_str, push_strs};
use crate::harness::entry::Throughput;
use crate::harness::raw::RawBenchmark;

/// The version of the stream's messages.
pub const VERSION: u32 = 3;

/// The last line of a run that ended as it should.
pub const END: &str = "{\"perfbench_end\":true}";

/// The first line: the run's default counters and the selected benchmarks.
#[derive(Clone, Debug, PartialEq)]
pub struct Hello {
    /// The perfbench version of the binary (the tool serves its own version only).
    pub perfbench: String,
    /// The counters of the run, unless a benchmark's attribute names its own.
    pub counters: Vec<String>,
    /// The selected benchmarks, in the order they run.
    pub benchmarks: Vec<Description>,
}

/// A selected benchmark: its identity, and its attribute's options that outlive the
/// measurement (throughput, counters for `--simulate`, thresholds).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde_derive::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Description {
    /// `group/name[/params]`.
    pub id: String,
    /// The group.
    pub group: String,
    /// The function's name (or the `name` option).
    pub name: String,
    /// What follows the name in the id.
    pub params: Option<String>,
    /// The attribute's throughput.
    pub throughput: Option<Throughput>,
    /// The attribute's `counters`, if any.
    pub counters: Option<Vec<String>>,
    /// The attribute's `thresholds`: counter name and fraction.
    pub thresholds: Vec<(String, f64)>,
}

impl Hello {
    /// The line, without its newline.
    pub fn encode(&self) -> String {
        let mut out = format!("{{\"perfbench_stream\":{VERSION},\"perfbench\":");
        push_str(&mut out, &self.perfbench);
        out.push_str(",\"counters\":");
        push_strs(&mut out, &self.counters);
        out.push_str(",\"benchmarks\":[");
        push_list(&mut out, &self.benchmarks, |out, b| {
            push_identity(out, &b.id, &b.group, &b.name, b.params.as_deref());
            out.push_str(",\"throughput\":");
            push_throughput(out, b.throughput);
            out.push_str(",\"counters\":");
            match &b.counters {
                None => out.push_str("null"),
                Some(names) => push_strs(out, names),
            }
            out.push_str(",\"thresholds\":[");
            push_list(out, &b.thresholds, |out, (name, t)| {
                out.push('[');
                push_str(out, name);
                out.push(',');
                push_f64(out, *t);
                out.push(']');
            });
            out.push_str("]}");
        });
        out.push_str("]}");
        out
    }
}

/// Why a first line was not taken.
#[derive(Clone, Debug, PartialEq)]
pub enum HelloError {
    /// A stream of another version, or from another perfbench version: the other side's.
    Version {
        /// Its stream version, when it has one.
        stream: Option<u32>,
        /// Its perfbench version, when it says.
        perfbench: Option<String>,
    },
    /// Not a first line of this version.
    Decode(super::DecodeError),
}

/// Reads a first line: refused as [`HelloError::Version`] unless it is of this stream
/// version and this perfbench version, then read strictly.
#[cfg(feature = "serde")]
pub fn decode_hello(line: &str) -> Result<Hello, HelloError> {
    /// Just the versions, whatever else the line has.
    #[derive(serde_derive::Deserialize)]
    struct Versions {
        perfbench_stream: Option<u32>,
        perfbench: Option<String>,
    }
    #[derive(serde_derive::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Wire {
        #[allow(dead_code)] // checked through `Versions`
        perfbench_stream: u32,
        perfbench: String,
        counters: Vec<String>,
        benchmarks: Vec<Description>,
    }
    const WHAT: &str = "the stream's first line";
    let v: Versions = super::decode(WHAT, line).map_err(HelloError::Decode)?;
    if v.perfbench_stream != Some(VERSION) || v.perfbench.as_deref() != Some(super::PERFBENCH) {
        return Err(HelloError::Version {
            stream: v.perfbench_stream,
            perfbench: v.perfbench,
        });
    }
    let w: Wire = super::decode(WHAT, line).map_err(HelloError::Decode)?;
    Ok(Hello {
        perfbench: w.perfbench,
        counters: w.counters,
        benchmarks: w.benchmarks,
    })
}

/// A benchmark as one line of JSON: its identity, outcome and samples (no statistics),
/// counters keyed by name in their order, non-finite values as `null`, floats that read back
/// exactly; `"threads": N` after the throughput only for a threaded body. The stream's lines
/// and the paired worker's `done` answer carry it.
///
/// ```
/// use perfbench::harness::raw::{Outcome, RawBenchmark};
/// use perfbench::protocol::stream::encode_benchmark;
///
/// let b = RawBenchmark {
///     id: "g/\"odd\"".into(), group: "g".into(), name: "\"odd\"".into(), params: None,
///     throughput: None, threads: None, outcome: Outcome::Panicked,
///     error: Some("boom\n".into()), counters: Vec::new(),
/// };
/// assert_eq!(
///     encode_benchmark(&b),
///     r#"{"id":"g/\"odd\"","group":"g","name":"\"odd\"","params":null,"throughput":null,"outcome":"panicked","error":"boom\n","counters":{}}"#
/// );
/// let threaded = RawBenchmark { threads: Some(4), ..b };
/// assert!(encode_benchmark(&threaded).contains(r#""throughput":null,"threads":4,"outcome""#));
/// ```
pub fn encode_benchmark(b: &RawBenchmark) -> String {
    let mut out = String::with_capacity(256 + b.counters.len() * 2048);
    push_identity(&mut out, &b.id, &b.group, &b.name, b.params.as_deref());
    out.push_str(",\"throughput\":");
    push_throughput(&mut out, b.throughput);
    if let Some(n) = b.threads {
        out.push_str(",\"threads\":");
        out.push_str(&n.to_string());
    }
    out.push_str(",\"outcome\":");
    push_str(&mut out, b.outcome.as_str());
    out.push_str(",\"error\":");
    push_opt_str(&mut out, b.error.as_deref());
    out.push_str(",\"counters\":{");
    push_list(&mut out, &b.counters, |out, c| {
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
        out.push('}');
    });
    out.push_str("}}");
    out
}

/// Reads what [`encode_benchmark`] wrote, strictly.
#[cfg(feature = "serde")]
pub fn decode_benchmark(line: &str) -> Result<RawBenchmark, super::DecodeError> {
    super::decode::<wire::Benchmark>("a benchmark's samples", line).map(Into::into)
}

/// The line that follows the first: a benchmark, or the end of the run.
#[cfg(feature = "serde")]
pub fn decode_line(line: &str) -> Result<Option<RawBenchmark>, super::DecodeError> {
    if line.trim_end() == END {
        Ok(None)
    } else {
        decode_benchmark(line).map(Some)
    }
}

/// The wire form of a benchmark line (serde), converted to the harness's types.
#[cfg(feature = "serde")]
pub(crate) mod wire {
    use serde::de::{Deserializer, MapAccess, Visitor};
    use serde_derive::Deserialize;

    use crate::counters::Source;
    use crate::harness::entry::Throughput;
    use crate::harness::raw::{Outcome, RawBenchmark, RawCounter};
    use crate::protocol::json::nullable;

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub(crate) struct Benchmark {
        id: String,
        group: String,
        name: String,
        params: Option<String>,
        throughput: Option<Throughput>,
        #[serde(default)]
        threads: Option<u32>,
        outcome: Outcome,
        error: Option<String>,
        #[serde(deserialize_with = "in_order")]
        counters: Vec<RawCounter>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Counter {
        unit: String,
        source: Source,
        multiplexed: bool,
        #[serde(deserialize_with = "nullable::vec")]
        per_iteration: Vec<f64>,
        iterations: Vec<u64>,
        rounds: Vec<u32>,
        #[serde(deserialize_with = "nullable::f64")]
        overhead: f64,
    }

    /// The counters object, in the order its members were written.
    fn in_order<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<RawCounter>, D::Error> {
        struct InOrder;
        impl<'de> Visitor<'de> for InOrder {
            type Value = Vec<RawCounter>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("counters keyed by name")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some((name, c)) = map.next_entry::<String, Counter>()? {
                    out.push(RawCounter {
                        name,
                        unit: c.unit,
                        source: c.source,
                        multiplexed: c.multiplexed,
                        per_iteration: c.per_iteration,
                        iterations: c.iterations,
                        rounds: c.rounds,
                        overhead: c.overhead,
                    });
                }
                Ok(out)
            }
        }
        d.deserialize_map(InOrder)
    }

    impl From<Benchmark> for RawBenchmark {
        fn from(b: Benchmark) -> RawBenchmark {
            RawBenchmark {
                id: b.id,
                group: b.group,
                name: b.name,
                params: b.params,
                throughput: b.throughput,
                threads: b.threads,
                outcome: b.outcome,
                error: b.error,
                counters: b.counters,
            }
        }
    }
}

/// Writes one frame of text for the benchmark binary to print.
pub fn write_frame(out: &mut dyn Write, text: &str) -> std::io::Result<()> {
    write!(out, "{}\n{text}", text.len())?;
    out.flush()
}

/// The next frame's text; `None` at the end of the input (or on a malformed frame).
pub fn read_frame(input: &mut dyn BufRead) -> Option<String> {
    let mut len = String::new();
    if input.read_line(&mut len).ok()? == 0 {
        return None;
    }
    let len: usize = len.trim_end().parse().ok()?;
    let mut text = vec![0; len];
    input.read_exact(&mut text).ok()?;
    Some(String::from_utf8_lossy(&text).into_owned())
}
