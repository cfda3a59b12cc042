//! Real output from a real run, validated against the checked-in schemas: the JSON report a
//! bench binary writes (`schema/report-v1.schema.json`) and `perfbench compare --format json`
//! on it (`schema/compare-v1.schema.json`). The unit tests check that those files are what the
//! types generate; this checks that what a run writes is what the files describe.

use std::process::ExitCode;

use perfbench::runner::{self, cli};
use perfbench::{black_box, perfbench, Bencher};
use perfbench_analysis::schema_validator::Validator;
use serde_json::Value;

#[perfbench(sample_size = 10, measurement_time = 0.05, warm_up_time = 0.01)]
fn add() -> u64 {
    black_box(2u64) + black_box(3)
}

#[perfbench(args = [16, 256], throughput = elements(256), sample_size = 10, measurement_time = 0.05, warm_up_time = 0.01)]
fn sum(b: &mut Bencher, n: u64) {
    let v: Vec<u64> = (0..n).collect();
    b.iter(|| v.iter().sum::<u64>());
}

#[perfbench(sample_size = 10, measurement_time = 0.05, warm_up_time = 0.01)]
fn panics(_b: &mut Bencher) {
    panic!("a deliberate panic, for the report's `error`");
}

fn schema(name: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../perfbench-analysis/schema")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_real_report_and_its_comparison_match_their_schemas() {
    let dir = std::env::temp_dir().join(format!("perfbench-real-schema-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("real.json");
    let args = cli::parse(
        "real",
        [
            "real",
            "--bench",
            "--format",
            "terse",
            "--sampling",
            "linear",
            "--json",
        ]
        .into_iter()
        .chain([path.to_str().unwrap()]),
    )
    .unwrap();
    // A panicking benchmark makes the run exit 1, after writing the report.
    assert_eq!(runner::run("real", &args), ExitCode::from(1));
    let text = std::fs::read_to_string(&path).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    let ids: Vec<&str> = doc["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 4, "{ids:?}");
    assert!(doc["benchmarks"][0]["counters"]["wall-time"]["estimate"].is_object());

    let report_schema = schema("report-v1.schema.json");
    let v = Validator::new(&report_schema);
    v.assert_well_formed();
    assert_eq!(v.validate(&doc), Vec::<String>::new());

    // The report compared with itself by `perfbench compare`.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_perfbench"))
        .args(["compare", "--format", "json"])
        .args([&path, &path])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let cmp_doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(cmp_doc["summary"]["regressed"], 0);
    let compare_schema = schema("compare-v1.schema.json");
    let v = Validator::new(&compare_schema);
    v.assert_well_formed();
    assert_eq!(v.validate(&cmp_doc), Vec::<String>::new());
    std::fs::remove_dir_all(&dir).unwrap();
}
