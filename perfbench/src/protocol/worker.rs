//! The paired worker: a benchmark binary started with `--perfbench-worker SUITE` serves a
//! paired run's driver (`--paired`, `perfbench ab`; in the tool) over its standard input and
//! output ([`crate::runner::worker`]).
//!
//! The worker first writes a [`Hello`] (`{"perfbench_worker": 4, "perfbench": "0.1.0",
//! "suite": "..."}`), then answers each [`Request`] (one line of words) with one [`Answer`]
//! (one line of JSON):
//!
//! | request | answer |
//! | --- | --- |
//! | `list` | `{"benchmarks": [{"id": ..., "group": ..., "name": ..., "params": ..., "ignore": false}, ...]}` |
//! | `run WARM_UP_NS COUNTERS ID` | after the warm-up: `{"ready": NS_PER_ITER}` |
//! | `sample N` | `{"sampled": true}` once one sample of `N` iterations (every pass, with its calibration run) is taken |
//! | `finish` | `{"done": BENCHMARK}`: the samples ([`super::stream::encode_benchmark`]) |
//! | `quit` | none; the worker exits |
//!
//! In `run`, `ID` is the benchmark's id and `COUNTERS` the `--counters` list, each as the hex
//! digits of its UTF-8 bytes (`-` for no `--counters`), so that no id needs quoting. Any request
//! may instead be answered by `{"error": "...", "outcome": "failed"|"panicked"}` (the benchmark
//! failed or panicked; the worker goes on serving). Whatever a benchmark prints goes to standard
//! error: the worker keeps standard output for the protocol.

use super::json::{push_f64, push_identity, push_list, push_str};
use super::stream::encode_benchmark;
use crate::harness::raw::{Outcome, RawBenchmark};

/// The version of the worker's messages. A driver only talks to workers of its own version.
pub const VERSION: u64 = 4;

/// The worker's greeting.
#[derive(Clone, Debug, PartialEq)]
pub struct Hello {
    /// Its worker protocol version.
    pub version: u64,
    /// Its perfbench version.
    pub perfbench: String,
    /// The suite it serves.
    pub suite: String,
}

impl Hello {
    /// This perfbench's greeting for `suite`.
    pub fn ours(suite: &str) -> Hello {
        Hello {
            version: VERSION,
            perfbench: super::PERFBENCH.to_owned(),
            suite: suite.to_owned(),
        }
    }

    /// The line, without its newline.
    pub fn encode(&self) -> String {
        let mut out = format!("{{\"perfbench_worker\":{},\"perfbench\":", self.version);
        push_str(&mut out, &self.perfbench);
        out.push_str(",\"suite\":");
        push_str(&mut out, &self.suite);
        out.push('}');
        out
    }

    /// Reads a greeting of any version (the driver then compares `version` with its own:
    /// another version's greeting must read, to say which it is).
    #[cfg(feature = "serde")]
    pub fn decode(line: &str) -> Result<Hello, super::DecodeError> {
        #[derive(serde_derive::Deserialize)]
        struct Wire {
            perfbench_worker: u64,
            perfbench: String,
            #[serde(default)]
            suite: String,
        }
        let w: Wire = super::decode("a worker's greeting", line)?;
        Ok(Hello {
            version: w.perfbench_worker,
            perfbench: w.perfbench,
            suite: w.suite,
        })
    }
}

/// A request of the driver.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// The benchmarks of the suite.
    List,
    /// Start benchmark `id` and warm it up for `warm_up_ns`, with the `--counters` list
    /// `counters` (the worker's defaults without).
    Run {
        /// Warm-up nanoseconds.
        warm_up_ns: u64,
        /// The `--counters` list.
        counters: Option<String>,
        /// The benchmark's id.
        id: String,
    },
    /// Take one sample of `N` iterations.
    Sample(u64),
    /// End the benchmark and send its samples.
    Finish,
    /// Exit.
    Quit,
}

impl Request {
    /// The line, without its newline.
    pub fn encode(&self) -> String {
        match self {
            Request::List => "list".to_owned(),
            Request::Run {
                warm_up_ns,
                counters,
                id,
            } => format!(
                "run {warm_up_ns} {} {}",
                counters.as_deref().map_or("-".to_owned(), to_hex),
                to_hex(id)
            ),
            Request::Sample(n) => format!("sample {n}"),
            Request::Finish => "finish".to_owned(),
            Request::Quit => "quit".to_owned(),
        }
    }

    /// Reads a request; what is not one of this version is refused, quoted.
    pub fn decode(line: &str) -> Result<Request, super::DecodeError> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let bad = || super::DecodeError {
            what: "a driver's request",
            problem: format!(
                "not a request of worker protocol {VERSION}: {}",
                line.trim_end()
            ),
        };
        match words.as_slice() {
            ["list"] => Ok(Request::List),
            ["run", warm, counters, id] => Ok(Request::Run {
                warm_up_ns: warm.parse().map_err(|_| bad())?,
                counters: match *counters {
                    "-" => None,
                    hex => Some(from_hex(hex).ok_or_else(bad)?),
                },
                id: from_hex(id).ok_or_else(bad)?,
            }),
            ["sample", n] => Ok(Request::Sample(n.parse().map_err(|_| bad())?)),
            ["finish"] => Ok(Request::Finish),
            ["quit"] => Ok(Request::Quit),
            _ => Err(bad()),
        }
    }
}

/// A benchmark as `list` answers it.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde_derive::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Listed {
    /// `group/name[/params]`.
    pub id: String,
    /// The group.
    pub group: String,
    /// The function's name.
    pub name: String,
    /// What follows the name in the id.
    pub params: Option<String>,
    /// Marked `ignore`.
    pub ignore: bool,
}

/// The worker's answer to a request.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// To `list`.
    Benchmarks(Vec<Listed>),
    /// To `run`, after the warm-up: nanoseconds per iteration.
    Ready(f64),
    /// To `sample`, once taken.
    Sampled,
    /// To `finish`: the samples.
    Samples(RawBenchmark),
    /// To any request: the benchmark failed or panicked (`outcome`), with its message.
    Error {
        /// `Failed` or `Panicked`.
        outcome: Outcome,
        /// The message.
        error: String,
    },
}

impl Answer {
    /// The line, without its newline.
    pub fn encode(&self) -> String {
        match self {
            Answer::Benchmarks(list) => {
                let mut out = String::from("{\"benchmarks\":[");
                push_list(&mut out, list, |out, b| {
                    push_identity(out, &b.id, &b.group, &b.name, b.params.as_deref());
                    out.push_str(if b.ignore {
                        ",\"ignore\":true}"
                    } else {
                        ",\"ignore\":false}"
                    });
                });
                out.push_str("]}");
                out
            }
            Answer::Ready(ns) => {
                let mut out = String::from("{\"ready\":");
                push_f64(&mut out, *ns);
                out.push('}');
                out
            }
            Answer::Sampled => "{\"sampled\":true}".to_owned(),
            Answer::Samples(b) => format!("{{\"done\":{}}}", encode_benchmark(b)),
            Answer::Error { outcome, error } => {
                let outcome = match outcome {
                    Outcome::Panicked => "panicked",
                    _ => "failed",
                };
                let mut out = String::from("{\"error\":");
                push_str(&mut out, error);
                out.push_str(&format!(",\"outcome\":\"{outcome}\"}}"));
                out
            }
        }
    }

    /// Reads an answer, strictly: one of the forms above, nothing else.
    #[cfg(feature = "serde")]
    pub fn decode(line: &str) -> Result<Answer, super::DecodeError> {
        #[derive(serde_derive::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Benchmarks {
            benchmarks: Vec<Listed>,
        }
        #[derive(serde_derive::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Ready {
            #[serde(deserialize_with = "super::json::nullable::f64")]
            ready: f64,
        }
        #[derive(serde_derive::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Sampled {
            #[allow(dead_code)] // always true
            sampled: bool,
        }
        #[derive(serde_derive::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Samples {
            done: super::stream::wire::Benchmark,
        }
        #[derive(serde_derive::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Error {
            error: String,
            outcome: Outcome,
        }
        const WHAT: &str = "a worker's answer";
        // Which answer it is: the one of the answers' keys it has (its members skimmed, not
        // built; the answer itself is then read from the text).
        let members: std::collections::BTreeMap<String, serde::de::IgnoredAny> =
            super::decode(WHAT, line)?;
        let key = ["benchmarks", "ready", "sampled", "done", "error"]
            .into_iter()
            .find(|k| members.contains_key(*k))
            .unwrap_or("");
        match key {
            "benchmarks" => {
                super::decode::<Benchmarks>(WHAT, line).map(|a| Answer::Benchmarks(a.benchmarks))
            }
            "ready" => super::decode::<Ready>(WHAT, line).map(|a| Answer::Ready(a.ready)),
            "sampled" => super::decode::<Sampled>(WHAT, line).map(|_| Answer::Sampled),
            "done" => super::decode::<Samples>(WHAT, line).map(|a| Answer::Samples(a.done.into())),
            "error" => super::decode::<Error>(WHAT, line).map(|a| Answer::Error {
                outcome: a.outcome,
                error: a.error,
            }),
            _ => Err(super::DecodeError {
                what: WHAT,
                problem: format!(
                    "not an answer of worker protocol {VERSION}: {}",
                    line.trim_end().chars().take(200).collect::<String>()
                ),
            }),
        }
    }
}

/// `text` as the hex digits of its UTF-8 bytes (how `run` carries an id and a counter list).
///
/// ```
/// use perfbench::protocol::worker::{from_hex, to_hex};
///
/// assert_eq!(to_hex("g/a b"), "672f612062");
/// assert_eq!(from_hex("672f612062").as_deref(), Some("g/a b"));
/// assert_eq!(from_hex("6"), None);
/// ```
pub fn to_hex(text: &str) -> String {
    text.bytes().map(|b| format!("{b:02x}")).collect()
}

/// The text [`to_hex`] gave `hex`; `None` when it is not such hex digits of UTF-8.
pub fn from_hex(hex: &str) -> Option<String> {
    if hex.len() % 2 != 0 || !hex.is_ascii() {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).ok())
        .collect();
    String::from_utf8(bytes?).ok()
}
