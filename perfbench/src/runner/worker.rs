//! The worker of a paired run (`--perfbench-worker SUITE`): a benchmark binary serving the
//! paired driver ([`crate::runner::paired`], in the `perfbench` tool or in a full build) over its
//! standard input and output. It compiles in every build, the lean one included: its requests
//! are words, its answers JSON written by hand ([`crate::harness::raw`]), so a lean build needs
//! no JSON library to serve them.
//!
//! # Protocol (version [`PROTOCOL`])
//! The worker first writes a greeting, `{"perfbench_worker": 2, "perfbench": "0.1.0", "suite":
//! "..."}`, then answers each request (one line of words) with one line of JSON:
//!
//! | request | answer |
//! | --- | --- |
//! | `list` | `{"benchmarks": [{"id": ..., "group": ..., "name": ..., "params": ..., "ignore": false}, ...]}` |
//! | `run WARM_UP_NS COUNTERS ID` | after the warm-up: `{"ready": NS_PER_ITER}` |
//! | `sample N` | `{"sampled": true}` once one sample of `N` iterations (every pass, with its calibration run) is taken |
//! | `finish` | `{"done": BENCHMARK}`: the samples, as a benchmark of the JSON report (estimates not computed) |
//! | `quit` | none; the worker exits |
//!
//! In `run`, `ID` is the benchmark's id and `COUNTERS` the `--counters` list, each as the hex
//! digits of its UTF-8 bytes (`-` for no `--counters`), so that no id needs quoting. Any request
//! may instead be answered by `{"error": "...", "outcome": "failed"|"panicked"}` (the benchmark
//! failed or panicked; the worker goes on serving). Whatever a benchmark prints goes to standard
//! error: the worker keeps standard output for the protocol. Version 1 (perfbench before the lean
//! build) wrote its requests as JSON.

use std::io::{BufRead, BufReader, Write};
use std::process::ExitCode;

use super::{
    default_events, open_available, own_events, panic_message, planned, raw_result, Planned,
    NEVER_CALLED,
};
use crate::events::{self, Event, Sysfs};
use crate::harness::bencher::Bencher;
use crate::harness::raw::{push_f64, push_list, push_str, Outcome, RawBenchmark};
use crate::harness::sampler::{Command as SampleCommand, Plan, Remote, Sampler};
use crate::machine::Machine;
use crate::sys;

/// The version of the worker protocol. A driver only talks to workers of its own version.
pub const PROTOCOL: u64 = 2;

/// The variable a worker finds its build's own path in: it runs from a copy (see
/// [`crate::runner::paired`]), so `std::env::current_exe()` names the copy.
pub const WORKER_EXE_VAR: &str = "PERFBENCH_WORKER_EXE";

/// `text` as the hex digits of its UTF-8 bytes (how `run` carries an id and a counter list).
///
/// ```
/// use perfbench::runner::worker::{from_hex, to_hex};
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

/// A request, as the worker reads it.
#[derive(Debug, PartialEq)]
enum Request {
    List,
    Run {
        warm_up_ns: u64,
        counters: Option<String>,
        id: String,
    },
    Sample(u64),
    Finish,
    Quit,
}

impl Request {
    fn parse(line: &str) -> Result<Request, String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let bad = || format!("not a request of protocol {PROTOCOL}: {}", line.trim_end());
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

/// The worker's end of the pipe: requests in on standard input, answers out on the original
/// standard output.
struct Conn {
    input: BufReader<std::io::Stdin>,
    output: std::fs::File,
}

impl Conn {
    fn send(&mut self, mut line: String) -> Result<(), String> {
        line.push('\n');
        self.output
            .write_all(line.as_bytes())
            .and_then(|()| self.output.flush())
            .map_err(|e| format!("cannot answer the driver: {e}"))
    }

    /// The next request; `None` at the end of input.
    fn recv(&mut self) -> Result<Option<Request>, String> {
        let mut line = String::new();
        match self.input.read_line(&mut line) {
            Ok(0) => Ok(None),
            Ok(_) => Request::parse(&line).map(Some),
            Err(e) => Err(format!("cannot read the driver's request: {e}")),
        }
    }
}

type Shared = std::rc::Rc<std::cell::RefCell<Conn>>;

/// The sampler's view of the driver ([`Remote`]).
struct Link(Shared);

impl Remote for Link {
    fn ready(&mut self, ns_per_iter: f64) -> Result<(), String> {
        let mut answer = String::from("{\"ready\":");
        push_f64(&mut answer, ns_per_iter);
        answer.push('}');
        self.0.borrow_mut().send(answer)
    }

    fn next(&mut self) -> Result<SampleCommand, String> {
        let request = self.0.borrow_mut().recv()?;
        match request.ok_or("the driver closed the pipe while sampling")? {
            Request::Sample(n) => Ok(SampleCommand::Sample(n)),
            Request::Finish => Ok(SampleCommand::Finish),
            other => Err(format!("unexpected request while sampling: {other:?}")),
        }
    }

    fn sampled(&mut self) -> Result<(), String> {
        self.0.borrow_mut().send("{\"sampled\":true}".to_owned())
    }
}

/// `--perfbench-worker`: serves a paired run's driver until it says `quit` or closes the pipe.
pub(crate) fn serve(suite: &str) -> ExitCode {
    let _ = std::io::stdout().flush();
    let output = match sys::take_stdout() {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: worker: cannot set up its pipe: {}", e.description());
            return ExitCode::from(2);
        }
    };
    let conn: Shared = std::rc::Rc::new(std::cell::RefCell::new(Conn {
        input: BufReader::new(std::io::stdin()),
        output,
    }));
    let mut hello = format!(
        "{{\"perfbench_worker\":{PROTOCOL},\"perfbench\":\"{}\",\"suite\":",
        env!("CARGO_PKG_VERSION")
    );
    push_str(&mut hello, suite);
    hello.push('}');
    if let Err(e) = conn.borrow_mut().send(hello) {
        eprintln!("error: worker: {e}");
        return ExitCode::from(2);
    }
    let all = planned(suite);
    let sysfs = Sysfs::system();
    let mut defaults: Option<Vec<Event>> = None;
    loop {
        let request = match conn.borrow_mut().recv() {
            Ok(Some(r)) => r,
            Ok(None) => return ExitCode::SUCCESS,
            // A request it cannot read is answered as a failure; the driver decides.
            Err(e) if e.starts_with("not a request") => {
                let answer = worker_error(Outcome::Failed, e);
                if conn.borrow_mut().send(answer).is_err() {
                    return ExitCode::from(2);
                }
                continue;
            }
            Err(e) => {
                eprintln!("error: worker: {e}");
                return ExitCode::from(2);
            }
        };
        let answer = match request {
            Request::List => list(&all),
            Request::Run {
                warm_up_ns,
                counters,
                id,
            } => {
                let defaults = defaults
                    .get_or_insert_with(|| default_events(&sysfs, Machine::cached()).0)
                    .clone();
                run_one(
                    &conn,
                    &all,
                    &id,
                    counters.as_deref(),
                    warm_up_ns,
                    &sysfs,
                    &defaults,
                )
            }
            Request::Quit => return ExitCode::SUCCESS,
            other => worker_error(
                Outcome::Failed,
                format!("unexpected request outside a benchmark: {other:?}"),
            ),
        };
        if let Err(e) = conn.borrow_mut().send(answer) {
            eprintln!("error: worker: {e}");
            return ExitCode::from(2);
        }
    }
}

/// The answer to `list`.
fn list(all: &[Planned]) -> String {
    let mut out = String::from("{\"benchmarks\":[");
    push_list(&mut out, all, |out, p| {
        super::stream::push_identity(out, p);
        out.push_str(if p.entry.options.ignore {
            ",\"ignore\":true}"
        } else {
            ",\"ignore\":false}"
        });
    });
    out.push_str("]}");
    out
}

/// The answer for a benchmark that failed or panicked.
fn worker_error(outcome: Outcome, error: impl Into<String>) -> String {
    let outcome = match outcome {
        Outcome::Panicked => "panicked",
        _ => "failed",
    };
    let mut out = String::from("{\"error\":");
    push_str(&mut out, &error.into());
    out.push_str(&format!(",\"outcome\":\"{outcome}\"}}"));
    out
}

/// `run`: the benchmark function once, its `iter*` call serving the driver; the answer to the
/// last request it left unanswered (`finish`, or whichever request it failed in).
fn run_one(
    conn: &Shared,
    all: &[Planned],
    id: &str,
    counters: Option<&str>,
    warm_up_ns: u64,
    sysfs: &Sysfs,
    defaults: &[Event],
) -> String {
    let Some(p) = all.iter().find(|p| p.id == id) else {
        let mut quoted = String::new();
        push_str(&mut quoted, id);
        return worker_error(Outcome::Failed, format!("no benchmark {quoted}"));
    };
    let events = match counters {
        Some(list) => events::parse_list(list, sysfs).map_err(|e| format!("--counters: {e}")),
        None => own_events(p, defaults, sysfs),
    };
    let events = match events {
        Ok(ev) => ev,
        Err(e) => return worker_error(Outcome::Failed, e),
    };
    // As a plain run does: on a machine with several core types, measure on the CPUs whose
    // PMU serves the events (both builds alike), then put the thread back.
    let allowed = sys::thread_affinity().ok();
    let pinning = allowed
        .as_deref()
        .map(|allowed| crate::harness::affinity::plan(&events, sysfs, allowed));
    let pinned = match pinning.as_ref().and_then(|p| p.cpus.as_deref()) {
        Some(cpus) => sys::set_thread_affinity(cpus).is_ok(),
        None => false,
    };
    let events = pinning.map_or(events, |p| p.events);
    let answer = measure_in_worker(conn, p, warm_up_ns, &events);
    if let (true, Some(allowed)) = (pinned, allowed.as_deref()) {
        let _ = sys::set_thread_affinity(allowed);
    }
    answer
}

/// The measuring part of [`run_one`], with the events to open.
fn measure_in_worker(conn: &Shared, p: &Planned, warm_up_ns: u64, events: &[Event]) -> String {
    let counters = match open_available(events) {
        Ok((c, _dropped)) => c,
        Err(e) => return worker_error(Outcome::Failed, e.to_string()),
    };
    let plan = Plan {
        sample_size: 2,
        warm_up_ns,
        measurement_ns: 0,
        linear: false,
        rounds: 1,
    };
    let sampler = Sampler::remote(counters, plan, Box::new(Link(conn.clone())));
    let mut bencher = Bencher::measuring(Box::new(sampler));
    let (run, arg) = (p.run, p.arg);
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&mut bencher, arg)));
    if let Err(payload) = outcome {
        return worker_error(Outcome::Panicked, panic_message(payload.as_ref()));
    }
    let throughput = bencher.throughput_set().or(p.entry.options.throughput);
    let Some(sampler) = bencher.into_sampler() else {
        return worker_error(Outcome::Failed, NEVER_CALLED);
    };
    match sampler.round_result() {
        Ok(true) => {}
        Ok(false) => return worker_error(Outcome::Failed, NEVER_CALLED),
        Err(e) => return worker_error(Outcome::Failed, e),
    }
    let measured = RawBenchmark {
        counters: sampler.into_measured().unwrap_or_default(),
        throughput,
        ..raw_result(p, Outcome::Measured)
    };
    format!("{{\"done\":{}}}", measured.to_json())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_read_as_the_driver_writes_them() {
        let id = "g/odd \"id\"\n/é";
        let line = format!(
            "run 300000000 {} {}\n",
            to_hex("wall-time,cycles"),
            to_hex(id)
        );
        assert_eq!(
            Request::parse(&line),
            Ok(Request::Run {
                warm_up_ns: 300_000_000,
                counters: Some("wall-time,cycles".into()),
                id: id.into(),
            })
        );
        let line = format!("run 5 - {}", to_hex(id));
        assert!(matches!(
            Request::parse(&line),
            Ok(Request::Run { counters: None, .. })
        ));
        assert_eq!(Request::parse("sample 12\n"), Ok(Request::Sample(12)));
        for (line, want) in [
            ("list", Request::List),
            ("finish", Request::Finish),
            ("quit", Request::Quit),
        ] {
            assert_eq!(Request::parse(line), Ok(want));
        }
        for bad in [
            "",
            "run 1 - 6",
            "run x - 61",
            "sample -1",
            "{\"cmd\": \"list\"}",
            "list now",
        ] {
            assert!(Request::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn hex_round_trips_any_text() {
        for text in ["", "a", "g/x y/\"z\"", "\n\t\u{1}", "é€😀"] {
            assert_eq!(from_hex(&to_hex(text)).as_deref(), Some(text));
        }
        assert_eq!(from_hex("zz"), None);
        assert_eq!(from_hex("ff"), None, "not UTF-8");
    }
}
