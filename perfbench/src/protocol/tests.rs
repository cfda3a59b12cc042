//! One round trip per message (what the encoder writes, the decoder reads back exactly), and
//! the decoders' refusals: an unknown member, variant or version, named in the error.

use super::sim;
use super::stream::{self, Description, Hello, HelloError};
use super::worker::{self, Answer, Listed, Request};
use crate::counters::Source;
use crate::harness::entry::Throughput;
use crate::harness::raw::{Outcome, RawBenchmark, RawCounter};
use crate::harness::simulate::{Region, SimSample};

/// Floats equal bit for bit, NaN included.
fn same(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

fn benchmark() -> RawBenchmark {
    let counter = |name: &str, source, per_iteration: Vec<f64>| RawCounter {
        name: name.into(),
        unit: "count".into(),
        source,
        multiplexed: name.starts_with('c'),
        iterations: vec![1, u64::MAX, 7],
        rounds: vec![2, 1],
        overhead: 0.1 + 0.2,
        per_iteration,
    };
    RawBenchmark {
        id: "g/odd \"name\"\n/é".into(),
        group: "g".into(),
        name: "odd \"name\"\n".into(),
        params: Some("é".into()),
        throughput: Some(Throughput::Elements(u64::MAX)),
        threads: Some(u32::MAX),
        outcome: Outcome::Measured,
        error: None,
        // Not in alphabetical order: the order is kept.
        counters: vec![
            counter("wall-time", Source::Clock, vec![1.0 / 3.0, 1e300, 5e-324]),
            counter("cycles:u", Source::Rdpmc, vec![f64::NAN, -0.0]),
            counter("branch-misses", Source::Read, Vec::new()),
        ],
    }
}

fn assert_same_benchmark(a: &RawBenchmark, b: &RawBenchmark) {
    assert_eq!(
        (
            &a.id,
            &a.group,
            &a.name,
            &a.params,
            a.throughput,
            a.threads,
            a.outcome,
            &a.error
        ),
        (
            &b.id,
            &b.group,
            &b.name,
            &b.params,
            b.throughput,
            b.threads,
            b.outcome,
            &b.error
        )
    );
    assert_eq!(a.counters.len(), b.counters.len());
    for (x, y) in a.counters.iter().zip(&b.counters) {
        assert_eq!(
            (
                &x.name,
                &x.unit,
                x.source,
                x.multiplexed,
                &x.iterations,
                &x.rounds
            ),
            (
                &y.name,
                &y.unit,
                y.source,
                y.multiplexed,
                &y.iterations,
                &y.rounds
            )
        );
        assert!(same(&x.per_iteration, &y.per_iteration), "{}", x.name);
        assert_eq!(x.overhead.to_bits(), y.overhead.to_bits());
    }
}

#[test]
fn the_streams_first_line_round_trips() {
    let hello = Hello {
        perfbench: super::PERFBENCH.into(),
        counters: vec!["wall-time".into(), "odd \"counter\"".into()],
        benchmarks: vec![
            Description {
                id: "g/a/1".into(),
                group: "g".into(),
                name: "a".into(),
                params: Some("1".into()),
                throughput: Some(Throughput::Bytes(4096)),
                counters: Some(vec!["instructions".into()]),
                thresholds: vec![("wall-time".into(), 0.25), ("cycles".into(), 1e-3)],
            },
            Description {
                id: "g/b".into(),
                group: "g".into(),
                name: "b".into(),
                params: None,
                throughput: None,
                counters: None,
                thresholds: Vec::new(),
            },
        ],
    };
    assert_eq!(stream::decode_hello(&hello.encode()), Ok(hello));
}

#[test]
fn a_benchmark_line_round_trips_exactly() {
    let b = benchmark();
    let line = stream::encode_benchmark(&b);
    assert_same_benchmark(&stream::decode_benchmark(&line).unwrap(), &b);
    match stream::decode_line(&line) {
        Ok(Some(read)) => assert_same_benchmark(&read, &b),
        other => panic!("{other:?}"),
    }
    assert_eq!(stream::decode_line(stream::END), Ok(None));
    let failed = RawBenchmark {
        outcome: Outcome::Panicked,
        error: Some("boom".into()),
        counters: Vec::new(),
        ..b
    };
    assert_same_benchmark(
        &stream::decode_benchmark(&stream::encode_benchmark(&failed)).unwrap(),
        &failed,
    );
    // A body that is not threaded: no `threads` member, read back as none.
    let plain = RawBenchmark {
        threads: None,
        ..failed
    };
    let line = stream::encode_benchmark(&plain);
    assert!(!line.contains("threads"), "{line}");
    assert_same_benchmark(&stream::decode_benchmark(&line).unwrap(), &plain);
    for n in [1, 2, 64] {
        let threaded = RawBenchmark {
            threads: Some(n),
            ..plain.clone()
        };
        let line = stream::encode_benchmark(&threaded);
        assert!(line.contains(&format!("\"threads\":{n},")), "{line}");
        assert_eq!(stream::decode_benchmark(&line).unwrap().threads, Some(n));
    }
}

#[test]
fn frames_carry_any_text() {
    let mut out = Vec::new();
    for text in ["", "one line\n", "12\nlooks like a length\n", "é€😀"] {
        stream::write_frame(&mut out, text).unwrap();
    }
    let mut input = out.as_slice();
    for text in ["", "one line\n", "12\nlooks like a length\n", "é€😀"] {
        assert_eq!(stream::read_frame(&mut input).as_deref(), Some(text));
    }
    assert_eq!(stream::read_frame(&mut input), None);
}

#[test]
fn the_workers_greeting_round_trips() {
    let hello = worker::Hello::ours("suite \"x\"");
    assert_eq!(worker::Hello::decode(&hello.encode()), Ok(hello));
    // Another version's greeting reads, so that the driver can say which it is.
    let old = worker::Hello::decode(r#"{"perfbench_worker":2,"perfbench":"0.0.9","suite":"s"}"#);
    assert_eq!(old.map(|h| h.version), Ok(2));
}

#[test]
fn each_request_round_trips() {
    for r in [
        Request::List,
        Request::Run {
            warm_up_ns: 300_000_000,
            counters: Some("wall-time,cycles".into()),
            id: "g/odd \"id\"\n/é".into(),
        },
        Request::Run {
            warm_up_ns: 0,
            counters: None,
            id: "g/a".into(),
        },
        Request::Sample(12),
        Request::Finish,
        Request::Quit,
    ] {
        assert_eq!(
            Request::decode(&format!("{}\n", r.encode())),
            Ok(r.clone()),
            "{r:?}"
        );
    }
}

#[test]
fn each_answer_round_trips() {
    let listed = vec![
        Listed {
            id: "g/a/1".into(),
            group: "g".into(),
            name: "a".into(),
            params: Some("1".into()),
            ignore: false,
        },
        Listed {
            id: "g/b".into(),
            group: "g".into(),
            name: "b".into(),
            params: None,
            ignore: true,
        },
    ];
    for a in [
        Answer::Benchmarks(listed),
        Answer::Benchmarks(Vec::new()),
        Answer::Ready(1.0 / 3.0),
        Answer::Sampled,
        Answer::Error {
            outcome: Outcome::Panicked,
            error: "boom \"quoted\"\n".into(),
        },
        Answer::Error {
            outcome: Outcome::Failed,
            error: String::new(),
        },
    ] {
        assert_eq!(Answer::decode(&a.encode()), Ok(a.clone()), "{a:?}");
    }
    let b = benchmark();
    match Answer::decode(&Answer::Samples(b.clone()).encode()) {
        Ok(Answer::Samples(read)) => assert_same_benchmark(&read, &b),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_callgrind_childs_result_round_trips() {
    let region = |dump, iterations, pairs| Region {
        dump,
        iterations,
        pairs,
        allocs: (dump % 2 == 0).then_some([dump.into(), 48, 1, 0, u64::MAX]),
    };
    let result = sim::Result {
        outcome: Outcome::Measured,
        error: None,
        throughput: Some(Throughput::Bytes(64)),
        threads: Some(4),
        samples: vec![SimSample {
            n: 3,
            per_pair: true,
            body: [region(1, 3, 3), region(2, 6, 6)],
            empty: [region(3, 3, 3), region(4, 6, 6)],
        }],
    };
    assert_eq!(sim::Result::decode(&result.encode()), Ok(result));
    let failed = sim::Result {
        outcome: Outcome::Failed,
        error: Some("no \"iter\"".into()),
        throughput: None,
        threads: None,
        samples: Vec::new(),
    };
    assert!(!failed.encode().contains("threads"));
    assert_eq!(sim::Result::decode(&failed.encode()), Ok(failed));
}

#[test]
fn decoders_name_what_they_do_not_know() {
    let problem = |r: Result<(), super::DecodeError>| r.unwrap_err().to_string();
    // An unknown member of a benchmark line, and of one of its counters.
    let line = stream::encode_benchmark(&benchmark());
    let extra = line.replacen("{\"id\"", "{\"colour\":1,\"id\"", 1);
    assert!(problem(stream::decode_benchmark(&extra).map(drop)).contains("unknown field `colour`"));
    let extra = line.replacen("\"unit\"", "\"shade\":1,\"unit\"", 1);
    assert!(problem(stream::decode_benchmark(&extra).map(drop)).contains("unknown field `shade`"));
    // An unknown variant.
    let odd = line.replacen("\"measured\"", "\"exploded\"", 1);
    assert!(
        problem(stream::decode_benchmark(&odd).map(drop)).contains("unknown variant `exploded`")
    );
    let odd = line.replacen("\"rdpmc\"", "\"telepathy\"", 1);
    assert!(
        problem(stream::decode_benchmark(&odd).map(drop)).contains("unknown variant `telepathy`")
    );
    // A first line with a member it does not know, or of another version.
    let hello = Hello {
        perfbench: super::PERFBENCH.into(),
        counters: Vec::new(),
        benchmarks: Vec::new(),
    }
    .encode();
    let extra = hello.replacen("\"counters\"", "\"mood\":1,\"counters\"", 1);
    match stream::decode_hello(&extra) {
        Err(HelloError::Decode(e)) => {
            assert!(e.to_string().contains("unknown field `mood`"), "{e}")
        }
        other => panic!("{other:?}"),
    }
    let other = hello.replacen(
        &format!("\"perfbench_stream\":{}", stream::VERSION),
        "\"perfbench_stream\":1",
        1,
    );
    assert_eq!(
        stream::decode_hello(&other),
        Err(HelloError::Version {
            stream: Some(1),
            perfbench: Some(super::PERFBENCH.into())
        })
    );
    let other = hello.replacen(super::PERFBENCH, "0.0.1", 1);
    assert!(matches!(
        stream::decode_hello(&other),
        Err(HelloError::Version { perfbench: Some(v), .. }) if v == "0.0.1"
    ));
    // A worker's answer it does not know, or with a member too many.
    assert!(problem(Answer::decode("{\"smile\":true}").map(drop)).contains("{\"smile\":true}"));
    assert!(
        problem(Answer::decode("{\"ready\":1.0,\"late\":true}").map(drop))
            .contains("unknown field `late`")
    );
    assert!(
        problem(Request::decode("{\"cmd\": \"list\"}").map(drop)).contains("{\"cmd\": \"list\"}")
    );
    for bad in ["", "run 1 - 6", "run x - 61", "sample -1", "list now"] {
        assert!(Request::decode(bad).is_err(), "{bad:?}");
    }
    // The child's result of another version, or with a member too many.
    let result = sim::Result {
        outcome: Outcome::Measured,
        error: None,
        throughput: None,
        threads: None,
        samples: Vec::new(),
    }
    .encode();
    let version = format!("\"perfbench_sim\":{}", sim::VERSION);
    let other = result.replacen(&version, "\"perfbench_sim\":1", 1);
    assert!(problem(sim::Result::decode(&other).map(drop)).contains("version 1"));
    let extra = result.replacen("\"samples\"", "\"dumps\":[],\"samples\"", 1);
    assert!(problem(sim::Result::decode(&extra).map(drop)).contains("unknown field `dumps`"));
}

#[test]
fn hex_round_trips_any_text() {
    for text in ["", "a", "g/x y/\"z\"", "\n\t\u{1}", "é€😀"] {
        assert_eq!(
            worker::from_hex(&worker::to_hex(text)).as_deref(),
            Some(text)
        );
    }
    assert_eq!(worker::from_hex("zz"), None);
    assert_eq!(worker::from_hex("ff"), None, "not UTF-8");
}
