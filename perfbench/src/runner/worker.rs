//! The worker of a paired run (`--perfbench-worker SUITE`): a benchmark binary serving the
//! paired driver (in the `perfbench` tool) over its standard input and output. Its requests are
//! words and its answers JSON written by hand, so a benchmark build needs no JSON library to
//! serve them.
//!
//! Its messages (the greeting, the requests, the answers) are typed in
//! [`crate::protocol::worker`].

use std::io::{BufRead, BufReader, Write};
use std::process::ExitCode;

use super::{
    default_events, driver, for_each_body, jobs, open_available, own_events, panic_message,
    raw_result, Job, NEVER_CALLED,
};
use crate::events::{self, Event, Sysfs};
use crate::harness::bencher::Bencher;
use crate::harness::raw::{Outcome, RawBenchmark};
use crate::harness::sampler::{Command as SampleCommand, Plan, Remote, Sampler};
use crate::machine::Machine;
use crate::protocol::worker::{Answer, Hello, Listed, Request};
use crate::sys;

/// The variable a worker finds its build's own path in: it runs from a copy (see
/// the tool's `runner::paired`), so `std::env::current_exe()` names the copy.
pub const WORKER_EXE_VAR: &str = "PERFBENCH_WORKER_EXE";

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
            Ok(_) => Request::decode(&line).map(Some).map_err(|e| e.to_string()),
            Err(e) => Err(format!("cannot read the driver's request: {e}")),
        }
    }
}

type Shared = std::rc::Rc<std::cell::RefCell<Conn>>;

/// The sampler's view of the driver ([`Remote`]).
struct Link(Shared);

impl Remote for Link {
    fn ready(&mut self, ns_per_iter: f64) -> Result<(), String> {
        self.0
            .borrow_mut()
            .send(Answer::Ready(ns_per_iter).encode())
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
        self.0.borrow_mut().send(Answer::Sampled.encode())
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
    if let Err(e) = conn.borrow_mut().send(Hello::ours(suite).encode()) {
        eprintln!("error: worker: {e}");
        return ExitCode::from(2);
    }
    let mut worker = Worker {
        conn,
        all: jobs(suite),
        sysfs: Sysfs::system(),
        defaults: None,
    };
    let served = if driver().is_some() {
        worker.serve_driven()
    } else {
        worker.serve_functions()
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: worker: {e}");
            ExitCode::from(2)
        }
    }
}

/// A `run` request.
struct RunRequest {
    warm_up_ns: u64,
    counters: Option<String>,
    id: String,
}

/// A worker between requests.
struct Worker {
    conn: Shared,
    /// The suite's benchmarks.
    all: Vec<Job>,
    sysfs: Sysfs,
    /// The machine's default counters, once a benchmark needed them.
    defaults: Option<Vec<Event>>,
}

impl Worker {
    fn send(&self, answer: String) -> Result<(), String> {
        self.conn.borrow_mut().send(answer)
    }

    /// The next `run` request, after answering those that need no benchmark (`list`, one it
    /// cannot read, one out of place); `None` when the driver says `quit` or closes the pipe.
    fn next_run(&self) -> Result<Option<RunRequest>, String> {
        loop {
            let received = self.conn.borrow_mut().recv();
            let answer = match received {
                Ok(Some(Request::Run {
                    warm_up_ns,
                    counters,
                    id,
                })) => {
                    return Ok(Some(RunRequest {
                        warm_up_ns,
                        counters,
                        id,
                    }))
                }
                Ok(Some(Request::Quit)) | Ok(None) => return Ok(None),
                Ok(Some(Request::List)) => list(&self.all),
                Ok(Some(other)) => worker_error(
                    Outcome::Failed,
                    format!("unexpected request outside a benchmark: {other:?}"),
                ),
                // A request it cannot read is answered as a failure; the driver decides.
                Err(e) if e.contains("not a request") => worker_error(Outcome::Failed, e),
                Err(e) => return Err(e),
            };
            self.send(answer)?;
        }
    }

    /// A suite of functions: each `run` calls the benchmark's function.
    fn serve_functions(&mut self) -> Result<(), String> {
        while let Some(request) = self.next_run()? {
            let answer = match self.all.iter().position(|p| p.id == request.id) {
                Some(i) => {
                    let p = self.all[i].clone();
                    let (run, arg) = (p.run, p.arg);
                    self.run_one(&p, &request, &mut |b| run(b, arg))
                }
                None => no_benchmark(&request.id),
            };
            self.send(answer)?;
        }
        Ok(())
    }

    /// A driven suite ([`super::register_driven`]): its code runs once, and each `run` is
    /// served where the code defines the benchmark, so the driver's requests must follow the
    /// order of definition (a paired run's do: the benchmarks in the order listed, each once
    /// per worker). A request for a benchmark already passed is answered as a failure.
    fn serve_driven(&mut self) -> Result<(), String> {
        let mut pending = self.next_run()?;
        if pending.is_none() {
            return Ok(());
        }
        let mut broken = None;
        let all = self.all.clone();
        let missing = for_each_body(&all, &mut |p, body| {
            let Some(request) = pending.take_if(|r| r.id == p.id) else {
                return;
            };
            let answer = self.run_one(p, &request, body);
            match self.send(answer).and_then(|()| self.next_run()) {
                Ok(next) => pending = next,
                Err(e) => broken = Some(e),
            }
        });
        if let Some(e) = broken {
            return Err(e);
        }
        while let Some(request) = pending {
            let answer = match missing.iter().find(|(p, _)| p.id == request.id) {
                Some((_, why)) => worker_error(Outcome::Failed, why.clone()),
                None if all.iter().any(|p| p.id == request.id) => worker_error(
                    Outcome::Failed,
                    "this worker runs the suite's code once and serves each benchmark where \
                     the code defines it: the driver asked for it after a benchmark defined \
                     later",
                ),
                None => no_benchmark(&request.id),
            };
            self.send(answer)?;
            pending = self.next_run()?;
        }
        Ok(())
    }

    /// `run`: the benchmark's body once, its `iter*` call serving the driver; the answer to
    /// the last request it left unanswered (`finish`, or whichever request it failed in).
    fn run_one(
        &mut self,
        p: &Job,
        request: &RunRequest,
        body: &mut dyn FnMut(&mut Bencher),
    ) -> String {
        let sysfs = &self.sysfs;
        let events = match request.counters.as_deref() {
            Some(list) => events::parse_list(list, sysfs).map_err(|e| format!("--counters: {e}")),
            None => {
                let defaults = self
                    .defaults
                    .get_or_insert_with(|| default_events(sysfs, Machine::cached()).0);
                own_events(p, defaults, sysfs)
            }
        };
        let events = match events {
            Ok(ev) => ev,
            Err(e) => return worker_error(Outcome::Failed, e),
        };
        // As a plain run does: on a machine with several core types, measure on the CPUs
        // whose PMU serves the events (both builds alike), then put the thread back.
        let allowed = sys::thread_affinity().ok();
        let pinning = allowed
            .as_deref()
            .map(|allowed| crate::harness::affinity::plan(&events, sysfs, allowed));
        let pinned = match pinning.as_ref().and_then(|p| p.cpus.as_deref()) {
            Some(cpus) => sys::set_thread_affinity(cpus).is_ok(),
            None => false,
        };
        let events = pinning.map_or(events, |p| p.events);
        let answer = measure_in_worker(&self.conn, p, request.warm_up_ns, &events, body);
        if let (true, Some(allowed)) = (pinned, allowed.as_deref()) {
            let _ = sys::set_thread_affinity(allowed);
        }
        answer
    }
}

/// The answer to a `run` of a benchmark the suite does not have.
fn no_benchmark(id: &str) -> String {
    let mut quoted = String::new();
    crate::protocol::json::push_str(&mut quoted, id);
    worker_error(Outcome::Failed, format!("no benchmark {quoted}"))
}

/// The answer to `list`.
fn list(all: &[Job]) -> String {
    Answer::Benchmarks(
        all.iter()
            .map(|p| Listed {
                id: p.id.clone(),
                group: p.group.clone(),
                name: p.entry.name.to_owned(),
                params: p.params.clone(),
                ignore: p.entry.options.ignore,
            })
            .collect(),
    )
    .encode()
}

/// The answer for a benchmark that failed or panicked.
fn worker_error(outcome: Outcome, error: impl Into<String>) -> String {
    Answer::Error {
        outcome,
        error: error.into(),
    }
    .encode()
}

/// The measuring part of [`Worker::run_one`], with the events to open.
fn measure_in_worker(
    conn: &Shared,
    p: &Job,
    warm_up_ns: u64,
    events: &[Event],
    body: &mut dyn FnMut(&mut Bencher),
) -> String {
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
        precision: None,
    };
    let sampler = Sampler::remote(counters, plan, Box::new(Link(conn.clone())));
    let mut bencher = Bencher::measuring(Box::new(sampler));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(&mut bencher)));
    if let Err(payload) = outcome {
        return worker_error(Outcome::Panicked, panic_message(payload.as_ref()));
    }
    let throughput = bencher.throughput_set().or(p.entry.options.throughput);
    let threads = bencher.threads_set();
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
        threads,
        ..raw_result(p, Outcome::Measured)
    };
    Answer::Samples(measured).encode()
}
