use super::*;
use crate::model::fixtures::{synthetic_report, written_by_43453b4};
use crate::model::{Outcome, Source, Throughput};

#[test]
fn compact_is_what_serde_json_writes() {
    let report = synthetic_report();
    assert_eq!(to_compact(&report), serde_json::to_string(&report).unwrap());
    assert_eq!(to_compact(&[1.5, f64::NAN]), "[1.5,null]");
}

#[test]
fn round_trip_is_exact() {
    let report = synthetic_report();
    let text = to_json(&report);
    let back = from_json(&text).unwrap();
    // NaN != NaN: compare the text of the round trip instead of the values.
    assert_eq!(to_json(&back), text);
    assert_eq!(back.benchmarks.len(), report.benchmarks.len());
    let fib = back.bench("math/fib_20").unwrap();
    let instr = fib.counter("instructions").unwrap();
    assert_eq!(instr.estimate.unwrap().slope, Some(4523.0));
    assert_eq!(instr.source, Source::Rdpmc);
    assert!(fib.counter("page-faults").unwrap().estimate.is_none());
    assert_eq!(back.benchmarks[2].outcome, Outcome::Panicked);
    assert_eq!(
        back.benchmarks[1].throughput,
        Some(Throughput::Bytes(32768))
    );
    assert_eq!(back.benchmarks[1].threads, Some(4));
    assert_eq!(back.benchmarks[0].threads, None);
    // Integers beyond 2^53 stay exact.
    let mut big = report.clone();
    big.benchmarks[0].counters[0].iterations[0] = u64::MAX;
    let back = from_json(&to_json(&big)).unwrap();
    assert_eq!(back.benchmarks[0].counters[0].iterations[0], u64::MAX);
}

#[test]
fn keeps_counter_order() {
    let mut report = synthetic_report();
    // Reverse alphabetical and "unsorted" on purpose.
    report.benchmarks[0].counters.reverse();
    let text = to_json(&report);
    let pos = |needle: &str| text.find(&format!("\"{needle}\": {{")).unwrap();
    assert!(pos("page-faults") < pos("branch-misses"));
    assert!(pos("branch-misses") < pos("cycles"));
    assert!(pos("cycles") < pos("instructions"));
    assert!(pos("instructions") < pos("wall-time"));
    let names: Vec<String> = from_json(&text).unwrap().benchmarks[0]
        .counters
        .iter()
        .map(|c| c.name.clone())
        .collect();
    assert_eq!(
        names,
        [
            "page-faults",
            "branch-misses",
            "cycles",
            "instructions",
            "wall-time"
        ]
    );
    // Top-level order is the document's, not alphabetical.
    assert!(text.find("\"schema_version\"").unwrap() < text.find("\"benchmarks\"").unwrap());
    assert!(text.find("\"suite\"").unwrap() < text.find("\"machine\"").unwrap());
}

#[test]
fn non_finite_numbers_are_null() {
    let mut report = synthetic_report();
    let c = &mut report.benchmarks[0].counters[0];
    c.per_iteration = vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1.0];
    c.overhead = f64::INFINITY;
    if let Some(e) = c.estimate.as_mut() {
        e.mean = f64::NAN;
        e.slope = Some(f64::INFINITY);
    }
    report.config.warm_up_time = f64::NAN;
    let text = to_json(&report);
    assert!(!text.contains("NaN") && !text.contains("inf"), "{text}");
    assert!(text.contains("\"per_iteration\": [null, null, null, 1.0]"));
    assert!(text.contains("\"warm_up_time\": null"));
    let back = from_json(&text).unwrap();
    let c = &back.benchmarks[0].counters[0];
    assert!(c.per_iteration[..3].iter().all(|x| x.is_nan()));
    assert!(c.overhead.is_nan());
    let e = c.estimate.unwrap();
    // `slope` is optional: a non-finite one reads back as "no fit".
    assert!(e.mean.is_nan() && e.slope.is_none());
    assert!(back.config.warm_up_time.is_nan());
}

#[test]
fn document_shape() {
    let text = to_json(&synthetic_report());
    for needle in [
        "{\n  \"schema_version\": 1,\n  \"perfbench_version\": ",
        "\"perf_event_paranoid\": 2,",
        "\"pmus\": [\"cpu\", \"software\"],",
        "\"sources\": {\n      \"wall-time\": \"clock\",",
        "\"params\": null,",
        "\"params\": \"4096\",",
        "\"throughput\": {\n        \"bytes\": 32768\n      },\n      \"threads\": 4,\n      \"outcome\"",
        "\"throughput\": {\n        \"elements\": 10\n      },",
        "\"outcome\": \"panicked\",\n      \"error\": \"index out of bounds: \\\"len\\\" is 3\"",
        "\"outcome\": \"failed\",",
        "\"outcome\": \"measured\",\n      \"error\": null,",
        "\"estimate\": null",
        "\"multiplexed\": true",
        "\"slope\": 4523.0",
        "\"iterations\": [100, 200, 300,",
        "\"ipc\": {\n          \"per_sample\": [",
        "\"counters\": {},",
        "\"derived\": {}\n",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
    assert!(!text.ends_with('\n'));
    assert!(
        !text.contains("\"change\""),
        "no change without a comparison"
    );
    assert_eq!(
        text.matches("\"threads\"").count(),
        1,
        "`threads` only where the body was threaded"
    );
    // The layout changes only whitespace: the same document as serde_json's compact form.
    let squeeze = |s: &str| s.split_whitespace().collect::<String>();
    assert_eq!(
        squeeze(&text),
        squeeze(&serde_json::to_string(&synthetic_report()).unwrap())
    );
}

#[test]
fn arrays_of_objects_and_empty_containers_keep_their_layout() {
    #[derive(serde_derive::Serialize)]
    struct Doc {
        empty: Vec<u8>,
        nested: Vec<Vec<u8>>,
        objects: Vec<std::collections::BTreeMap<&'static str, u8>>,
    }
    let doc = Doc {
        empty: vec![],
        nested: vec![vec![1, 2], vec![]],
        objects: vec![[("a", 1)].into(), Default::default()],
    };
    assert_eq!(
        to_pretty(&doc),
        "{\n  \"empty\": [],\n  \"nested\": [\n    [1, 2],\n    []\n  ],\n  \"objects\": [\n    {\n      \"a\": 1\n    },\n    {}\n  ]\n}"
    );
}

#[test]
fn repeated_names_keep_the_first() {
    let mut report = synthetic_report();
    let mut dup = report.benchmarks[0].counters[1].clone();
    dup.unit = "other".into();
    report.benchmarks[0].counters.push(dup);
    let text = to_json(&report);
    let fib = &from_json(&text).unwrap().benchmarks[0];
    assert_eq!(fib.counters.len(), 5);
    assert_eq!(fib.counter("instructions").unwrap().unit, "count");
    // A hand-edited file with a repeated key: the first wins there too.
    let twice = text.replacen(
        "\"counters\": {\n",
        "\"counters\": {\n        \"wall-time\": {\"unit\": \"first\", \"source\": \"clock\", \"per_iteration\": [], \"iterations\": [], \"estimate\": null},\n",
        1,
    );
    let fib = &from_json(&twice).unwrap().benchmarks[0];
    assert_eq!(fib.counter("wall-time").unwrap().unit, "first");
}

fn err(text: &str) -> String {
    from_json(text).unwrap_err().to_string()
}

#[test]
fn malformed_input_is_an_error_that_names_the_problem() {
    let text = to_json(&synthetic_report());
    // Truncated anywhere: an error, never a panic (and never a partial report).
    for cut in (0..text.len()).step_by(7) {
        if text.is_char_boundary(cut) {
            assert!(from_json(&text[..cut]).is_err(), "cut at {cut}");
        }
    }
    let e = err(&text[..text.len() / 2]);
    assert!(e.starts_with("not valid JSON (line "), "{e}");
    assert!(e.contains("truncated: EOF while parsing"), "{e}");

    assert!(err("").contains("truncated: the document is empty"));
    assert!(err(" \n").contains("empty"));
    assert!(
        err("\u{a0}").starts_with("not valid JSON (line 1, column 1)"),
        "{}",
        err("\u{a0}")
    );
    assert!(from_json(&format!("\u{feff}{text}")).is_ok());
    assert_eq!(
        err("[1, 2]"),
        "expected a JSON object (a perfbench report), found an array"
    );
    assert!(err("\"x\"").contains("found a string"));
    assert!(err("{}").contains("missing field `schema_version`"));
    assert!(err("{\"a\": 1} x").starts_with("not valid JSON (line 1, column 10)"));
    // Deep nesting: skipped without recursion where unknown, refused where a type is known;
    // never a stack overflow.
    let deep = |inner: &str| format!("{}{inner}{}", "[".repeat(100_000), "]".repeat(100_000));
    let unknown = text.replacen("\"suite\"", &format!("\"x\": {}, \"suite\"", deep("")), 1);
    assert!(from_json(&unknown).is_ok());
    let e = err(&text.replacen(
        "\"benchmarks\": [",
        &format!("\"benchmarks\": [{}, ", deep("")),
        1,
    ));
    assert!(
        e.starts_with("benchmarks[0][0]: invalid type: sequence"),
        "{e}"
    );
    let e = err(&text.replacen("\"params\": null", &format!("\"params\": {}", deep("1")), 1));
    assert!(
        e.starts_with("benchmarks[0].params: invalid type: sequence"),
        "{e}"
    );

    let v2 = text.replacen("\"schema_version\": 1", "\"schema_version\": 2", 1);
    let e = err(&v2);
    assert!(e.contains("unsupported report schema_version 2"), "{e}");
    assert!(e.contains("reads version 1;"), "{e}");
    assert_eq!(
        from_json(&v2).unwrap_err(),
        ReportError::UnsupportedVersion { found: "2".into() }
    );
    let e = err(&text.replacen("\"schema_version\": 1", "\"schema_version\": \"1\"", 1));
    assert!(e.contains("schema_version \"1\""), "{e}");
    let e = err(&text.replacen("\"schema_version\": 1", "\"schema_version\": 0", 1));
    assert!(e.contains("schema_version 0"), "{e}");

    // A benchmark without counters names the benchmark and where it ends.
    let no_counters = text.replacen(
        "\"counters\": {\n        \"wall-time\"",
        "\"cntrs\": {\n        \"wall-time\"",
        1,
    );
    let e = err(&no_counters);
    assert!(
        e.starts_with("benchmarks[0]: missing field `counters` (line "),
        "{e}"
    );

    let e = err(&text.replacen("\"unit\": \"count\"", "\"unit\": 3", 1));
    assert!(
        e.starts_with("benchmarks[0].counters.instructions.unit: invalid type: integer `3`, expected a string (line "),
        "{e}"
    );
    // A key written with escapes is named decoded.
    let escaped = text
        .replacen("\"instructions\": {", "\"instr\\u0075ctions\": {", 1)
        .replacen("\"unit\": \"count\"", "\"unit\": 3", 1);
    let e = err(&escaped);
    assert!(
        e.starts_with("benchmarks[0].counters.instructions.unit: invalid type"),
        "{e}"
    );
    let e = err(&text.replacen("\"mean\"", "\"average\"", 1));
    assert!(
        e.starts_with("benchmarks[0].counters.wall-time.estimate: missing field `mean`"),
        "{e}"
    );
    let e = err(&text.replacen("\"source\": \"rdpmc\"", "\"source\": \"magic\"", 1));
    assert!(
        e.contains("counters.instructions.source: unknown variant `magic`"),
        "{e}"
    );
    let e = err(&text.replacen("\"iterations\": [100", "\"iterations\": [-100", 1));
    assert!(
        e.contains("counters.wall-time.iterations[0]: invalid value"),
        "{e}"
    );
    let e = err(&text.replacen("\"benchmarks\": [", "\"benchmarks\": [1, ", 1));
    assert!(
        e.starts_with("benchmarks[0]: invalid type: integer `1`"),
        "{e}"
    );
}

#[test]
fn tolerates_unknown_fields_and_minimal_documents() {
    let text = r#"{"schema_version": 1, "perfbench_version": "9.9.9", "suite": "s",
        "future": [1, {"x": null}],
        "machine": {"cpu": "c", "arch": "a", "kernel": "k", "new": {}},
        "benchmarks": [{"id": "g/f", "group": "g", "name": "f", "params": null,
            "outcome": "measured", "counters": {"instructions": {"unit": "count",
            "source": "read", "multiplexed": false, "per_iteration": [1, 2.5, null],
            "iterations": [1, 2, 3],
            "estimate": {"mean": 1, "median": 1, "stddev": 0, "mad": 0, "ci_low": 1,
                "ci_high": 1, "confidence": 0.95, "min": 1, "max": 1}}}}]}"#;
    let report = from_json(text).unwrap();
    let c = &report.benchmarks[0].counters[0];
    assert_eq!(c.iterations, [1, 2, 3]);
    assert_eq!(c.per_iteration[..2], [1.0, 2.5]);
    assert!(c.per_iteration[2].is_nan() && c.overhead.is_nan());
    let e = c.estimate.unwrap();
    assert_eq!((e.slope, e.outliers.total()), (None, 0));
    assert_eq!(
        (e.point, e.excluded),
        (1.0, 0),
        "no point: the mean, nothing left out"
    );
    assert!(report.benchmarks[0].derived.is_empty());
    assert_eq!(report.benchmarks[0].threads, None);
    assert_eq!(report.config, crate::model::Config::default());
}

#[test]
fn reports_of_earlier_versions_still_read() {
    let report = synthetic_report();
    let old = written_by_43453b4(&report);
    assert!(!old.contains("\"point\"") && !old.contains("\"excluded\""));
    assert!(!old.contains("\"threads\""));
    let back = from_json(&old).unwrap();
    assert!(back.benchmarks.iter().all(|b| b.threads.is_none()));
    for (b, orig) in back.benchmarks.iter().zip(&report.benchmarks) {
        for (c, o) in b.counters.iter().zip(&orig.counters) {
            let (Some(e), Some(o)) = (c.estimate, o.estimate) else {
                assert!(c.estimate.is_none() && o.estimate.is_none());
                continue;
            };
            // That version's headline was the slope, or the mean without linear sampling.
            assert_eq!(e.point, o.slope.unwrap_or(o.mean));
            assert_eq!(e.excluded, 0);
            assert_eq!(
                (e.median, e.ci_low, e.outliers),
                (o.median, o.ci_low, o.outliers)
            );
        }
    }
    // And what this version writes reads back as written.
    assert_eq!(
        to_json(&from_json(&to_json(&report)).unwrap()),
        to_json(&report)
    );
}
