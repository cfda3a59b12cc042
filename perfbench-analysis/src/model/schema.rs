//! The JSON schemas are generated from the types, and real output is checked against them.
//!
//! `perfbench-analysis/schema/report-v1.schema.json` is what [`report_schema`] generates (schemars,
//! JSON Schema draft 2020-12, the shape perfbench writes); a test fails when the checked-in file
//! and the types drift apart. `PERFBENCH_BLESS=1 cargo test -p perfbench-analysis --lib schema` rewrites
//! the files after a deliberate change of the types.

use schemars::generate::SchemaSettings;
use schemars::transform::RecursiveTransform;
use schemars::{JsonSchema, Schema};
use serde_json::Value;

use super::json::to_pretty;
use super::Report;

/// The schema of `T` as perfbench writes it: draft 2020-12, for the serialized shape, with
/// every object closed (`additionalProperties: false` where the type lists its members), so a
/// member the writer adds without the types knowing fails validation.
pub(crate) fn schema_for<T: JsonSchema>(file: &str) -> Value {
    let mut settings = SchemaSettings::draft2020_12().for_serialize();
    settings
        .transforms
        .push(Box::new(RecursiveTransform(close_objects)));
    let mut schema = settings.into_generator().into_root_schema_for::<T>();
    schema.insert(
        "$id".into(),
        format!("https://example.invalid/perfbench-analysis/schema/{file}").into(),
    );
    schema.to_value()
}

fn close_objects(schema: &mut Schema) {
    if let Some(obj) = schema.as_object_mut() {
        if obj.contains_key("properties") && !obj.contains_key("additionalProperties") {
            obj.insert("additionalProperties".into(), Value::Bool(false));
        }
    }
}

/// The report's schema, as the checked-in file holds it.
pub(crate) fn report_schema() -> Value {
    schema_for::<Report>(REPORT_SCHEMA_FILE)
}

const REPORT_SCHEMA_FILE: &str = "report-v1.schema.json";

/// Compares `generated` with the checked-in file `name` under `perfbench-analysis/schema/`, or rewrites
/// the file when `PERFBENCH_BLESS=1`.
pub(crate) fn check_schema_file(name: &str, generated: &Value) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("schema")
        .join(name);
    let text = to_pretty(generated) + "\n";
    if std::env::var_os("PERFBENCH_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == text,
        "{} is not what the types generate; after a deliberate change run \
         `PERFBENCH_BLESS=1 cargo test -p perfbench-analysis --lib schema` and commit the file",
        path.display()
    );
}

#[test]
fn the_checked_in_report_schema_is_generated_from_the_types() {
    check_schema_file(REPORT_SCHEMA_FILE, &report_schema());
}

pub(crate) use crate::schema_validator::Validator;

fn checked_in() -> Value {
    let text = include_str!("../../schema/report-v1.schema.json");
    serde_json::from_str(text).expect("the schema file is valid JSON")
}

fn validate(doc: &Value) -> Vec<String> {
    Validator::new(&checked_in()).validate(doc)
}

fn real_output() -> Value {
    serde_json::from_str(&super::json::to_json(&super::fixtures::synthetic_report())).unwrap()
}

#[test]
fn real_output_matches_the_schema() {
    let schema = checked_in();
    let v = Validator::new(&schema);
    v.assert_well_formed();
    let errors = v.validate(&real_output());
    assert!(errors.is_empty(), "{errors:#?}");
}

/// Applies `f` to the first benchmark's first counter object.
fn with_counter(f: impl FnOnce(&mut serde_json::Map<String, Value>)) -> Value {
    let mut doc = real_output();
    let counter = doc["benchmarks"][0]["counters"]["wall-time"]
        .as_object_mut()
        .unwrap();
    f(counter);
    doc
}

#[test]
fn the_validator_catches_violations() {
    let doc = with_counter(|c| {
        c.remove("unit");
    });
    let errors = validate(&doc);
    assert!(
        errors.iter().any(|e| e.contains("missing required `unit`")),
        "{errors:#?}"
    );
    let doc = with_counter(|c| {
        c.insert("source".into(), "magic".into());
    });
    assert!(
        validate(&doc)
            .iter()
            .any(|e| e.contains("matches 0 of the oneOf")),
        "{:#?}",
        validate(&doc)
    );
    let doc = with_counter(|c| {
        c.insert("surprise".into(), Value::Null);
    });
    assert!(validate(&doc)
        .iter()
        .any(|e| e.contains("unexpected member `surprise`")));
    let doc = with_counter(|c| {
        c.insert("iterations".into(), serde_json::json!([-1, 1.5]));
    });
    let errors = validate(&doc);
    assert!(
        errors.iter().any(|e| e.contains("below the minimum")),
        "{errors:#?}"
    );
    assert!(
        errors.iter().any(|e| e.contains("iterations[1]")),
        "{errors:#?}"
    );
    // A real `change` passes, an invalid verdict does not.
    let mut report = super::fixtures::synthetic_report();
    let c = &mut report.benchmarks[0].counters[0];
    let values = c.per_iteration.clone();
    c.change = Some(crate::stats::compare(
        &values,
        &values,
        &crate::stats::CompareConfig::for_counter("wall-time"),
    ));
    let mut doc: Value = serde_json::from_str(&super::json::to_json(&report)).unwrap();
    assert_eq!(validate(&doc), Vec::<String>::new());
    doc["benchmarks"][0]["counters"]["wall-time"]["change"]["verdict"] = "worse".into();
    assert!(!validate(&doc).is_empty());
}

#[test]
fn non_finite_output_still_matches() {
    let mut report = super::fixtures::synthetic_report();
    for b in &mut report.benchmarks {
        for c in &mut b.counters {
            c.per_iteration.push(f64::NAN);
            c.overhead = f64::INFINITY;
            if let Some(e) = c.estimate.as_mut() {
                e.mean = f64::NAN;
            }
        }
    }
    report.machine.paranoid = None;
    let doc = serde_json::from_str(&super::json::to_json(&report)).unwrap();
    let errors = validate(&doc);
    assert!(errors.is_empty(), "{errors:#?}");
}
