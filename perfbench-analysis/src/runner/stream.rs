//! The tool's side of a benchmark binary's run: the lines it reads and the frames it sends,
//! typed in [`perfbench::protocol::stream`].

use std::io::BufRead;

use perfbench::protocol::stream::{self as wire, HelloError};
use perfbench::protocol::PERFBENCH;
use perfbench::runner::stream::TOOL_VAR;

use super::analyse::Description;
use crate::model::Benchmark;

pub(crate) use perfbench::protocol::stream::write_frame as send_frame;

/// What the first line of a benchmark binary's run says.
#[derive(Debug)]
pub(crate) struct Hello {
    /// The default counters of the run.
    pub(crate) counters: Vec<String>,
    /// The selected benchmarks.
    pub(crate) chosen: Vec<Description>,
}

/// Reads and checks the first line: a binary of another perfbench version is refused with the
/// command that fixes it.
pub(crate) fn read_hello(input: &mut dyn BufRead) -> Result<Hello, String> {
    let mut line = String::new();
    match input.read_line(&mut line) {
        Ok(0) => return Err("the benchmark binary sent nothing".into()),
        Ok(_) => {}
        Err(e) => return Err(format!("cannot read from the benchmark binary: {e}")),
    }
    match wire::decode_hello(&line) {
        Ok(hello) => Ok(Hello {
            counters: hello.counters,
            chosen: hello.benchmarks,
        }),
        Err(HelloError::Version { stream, perfbench }) => {
            let theirs = perfbench.as_deref().unwrap_or("(unknown)");
            let protocol = stream.map_or("none".to_owned(), |v| v.to_string());
            Err(format!(
                "the benchmark binary was built with perfbench {theirs} (stream version \
                 {protocol}), and this tool is perfbench {PERFBENCH} (stream version {}): run it \
                 with the tool of its version, `cargo install perfbench-cli --version ={theirs} \
                 --force` (or unset {TOOL_VAR}: the benchmark binary then finds or builds the \
                 tool of its version itself)",
                wire::VERSION
            ))
        }
        Err(HelloError::Decode(e)) => Err(e.to_string()),
    }
}

/// The next benchmark result; `None` at the end of the run ([`wire::END`]). An input that ends
/// before it is an error: the benchmark binary did not finish its run.
pub(crate) fn read_benchmark(input: &mut dyn BufRead) -> Result<Option<Benchmark>, String> {
    let mut line = String::new();
    match input.read_line(&mut line) {
        Ok(0) => Err(
            "the benchmark binary ended before its run was over (it crashed or was killed): no \
             report, baseline or history is written"
                .to_owned(),
        ),
        Ok(_) => wire::decode_line(&line)
            .map(|b| b.map(Benchmark::from))
            .map_err(|e| e.to_string()),
        Err(e) => Err(format!("cannot read from the benchmark binary: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use perfbench::harness::raw::{Outcome, RawBenchmark};
    use perfbench::protocol::stream::{encode_benchmark, Description, END};
    use perfbench::Throughput;

    #[test]
    fn a_run_is_over_only_at_its_end_line() {
        let mut input = format!("{END}\n").into_bytes();
        assert_eq!(read_benchmark(&mut input.as_slice()), Ok(None));
        input.clear();
        let e = read_benchmark(&mut input.as_slice()).unwrap_err();
        assert!(e.contains("ended before its run was over"), "{e}");
    }

    #[test]
    fn a_result_reads_as_the_reports_benchmark_without_estimates() {
        let raw = RawBenchmark {
            id: "g/a".into(),
            group: "g".into(),
            name: "a".into(),
            params: None,
            throughput: Some(Throughput::Bytes(8)),
            threads: Some(3),
            outcome: Outcome::Panicked,
            error: Some("boom".into()),
            counters: Vec::new(),
        };
        let line = format!("{}\n", encode_benchmark(&raw));
        let read = read_benchmark(&mut line.as_bytes()).unwrap().unwrap();
        assert_eq!(read.threads, Some(3));
        assert_eq!(read, Benchmark::from(raw));
        let e = read_benchmark(&mut "{\"id\":1}\n".as_bytes()).unwrap_err();
        assert!(e.contains("a benchmark's samples does not read"), "{e}");
    }

    #[test]
    fn the_tool_refuses_another_version_and_names_both() {
        let line =
            "{\"perfbench_stream\":1,\"perfbench\":\"9.9.9\",\"counters\":[],\"benchmarks\":[]}\n";
        let e = read_hello(&mut line.as_bytes()).unwrap_err();
        assert!(e.contains("9.9.9") && e.contains(PERFBENCH), "{e}");
        assert!(
            e.contains("cargo install perfbench-cli --version =9.9.9"),
            "{e}"
        );
        let e = read_hello(&mut "not json\n".as_bytes()).unwrap_err();
        assert!(e.contains("the stream's first line does not read"), "{e}");
        assert!(read_hello(&mut "".as_bytes()).is_err());
    }

    #[test]
    fn the_first_line_carries_the_counters_and_the_attributes_thresholds() {
        let a = Description {
            id: "g/a".into(),
            group: "g".into(),
            name: "a".into(),
            params: None,
            throughput: Some(Throughput::Bytes(64)),
            counters: Some(vec!["instructions".into()]),
            thresholds: vec![("wall-time".into(), 0.1)],
        };
        let b = Description {
            id: "g/b/1".into(),
            group: "g".into(),
            name: "b".into(),
            params: Some("1".into()),
            throughput: None,
            counters: None,
            thresholds: Vec::new(),
        };
        let line = wire::Hello {
            perfbench: PERFBENCH.into(),
            counters: vec!["wall-time".into()],
            benchmarks: vec![a.clone(), b.clone()],
        }
        .encode();
        let hello = read_hello(&mut format!("{line}\n").as_bytes()).unwrap();
        assert_eq!(hello.counters, ["wall-time"]);
        assert_eq!(hello.chosen, [a, b]);
        assert_eq!(hello.chosen[0].thresholds, [("wall-time".to_owned(), 0.1)]);
    }
}
