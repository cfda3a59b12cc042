//! The JSON schemas are generated from the types, and real output is checked against them.
//!
//! `perfbench/schema/report-v1.schema.json` is what [`report_schema`] generates (schemars,
//! JSON Schema draft 2020-12, the shape perfbench writes); a test fails when the checked-in file
//! and the types drift apart. `PERFBENCH_BLESS=1 cargo test -p perfbench --lib schema` rewrites
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
        format!("https://example.invalid/perfbench/schema/{file}").into(),
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

/// Compares `generated` with the checked-in file `name` under `perfbench/schema/`, or rewrites
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
         `PERFBENCH_BLESS=1 cargo test -p perfbench --lib schema` and commit the file",
        path.display()
    );
}

#[test]
fn the_checked_in_report_schema_is_generated_from_the_types() {
    check_schema_file(REPORT_SCHEMA_FILE, &report_schema());
}

/// A validator for the subset of JSON Schema (draft 2020-12) that schemars generates for these
/// types: `type`, `enum`, `const`, `required`, `properties`, `additionalProperties` (boolean or
/// schema), `items`, `minimum`, `oneOf`, `anyOf` and local `$ref`s (`#/$defs/NAME`), with the
/// standard semantics (object keywords apply only to objects, `integer` is any number without
/// a fraction). Annotations (`description`, `default`, `format`, ...) constrain nothing. Any
/// other keyword is an error, so a schema cannot silently use something this test does not
/// check. The `jsonschema` crate would do the same at the cost of 64 more crates in dev builds.
pub(crate) struct Validator<'a> {
    root: &'a Value,
}

/// Keywords that carry no constraint.
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "title",
    "description",
    "$defs",
    "default",
    "format",
];

fn has_type(v: &Value, ty: &str) -> bool {
    match ty {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "string" => v.is_string(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|x| x.fract() == 0.0),
        _ => false,
    }
}

fn same(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

impl<'a> Validator<'a> {
    pub(crate) fn new(root: &'a Value) -> Self {
        Validator { root }
    }

    fn resolve(&self, reference: &str) -> Result<&'a Value, String> {
        let name = reference
            .strip_prefix("#/$defs/")
            .ok_or_else(|| format!("unsupported $ref {reference}"))?;
        self.root
            .get("$defs")
            .and_then(|d| d.get(name))
            .ok_or_else(|| format!("dangling $ref {reference}"))
    }

    /// Every violation of `schema` by `v`, as `path: problem`.
    pub(crate) fn check(&self, schema: &'a Value, v: &Value, path: &str, errors: &mut Vec<String>) {
        let Some(keywords) = schema.as_object() else {
            if schema != &Value::Bool(true) {
                errors.push(format!("{path}: schema is not an object"));
            }
            return;
        };
        for (key, arg) in keywords {
            match key.as_str() {
                k if ANNOTATIONS.contains(&k) => {}
                "$ref" => match arg.as_str().map(|r| self.resolve(r)) {
                    Some(Ok(target)) => self.check(target, v, path, errors),
                    Some(Err(e)) => errors.push(e),
                    None => errors.push(format!("{path}: $ref is not a string")),
                },
                "type" => {
                    let ok = match arg {
                        Value::String(t) => has_type(v, t),
                        Value::Array(ts) => ts
                            .iter()
                            .any(|t| t.as_str().is_some_and(|t| has_type(v, t))),
                        _ => false,
                    };
                    if !ok {
                        errors.push(format!("{path}: {v} is not of type {arg}"));
                    }
                }
                "enum" => {
                    if !arg.as_array().is_some_and(|o| o.iter().any(|o| same(o, v))) {
                        errors.push(format!("{path}: {v} is not one of {arg}"));
                    }
                }
                "const" => {
                    if !same(arg, v) {
                        errors.push(format!("{path}: {v} is not {arg}"));
                    }
                }
                "minimum" => {
                    if let (Some(x), Some(min)) = (v.as_f64(), arg.as_f64()) {
                        if x < min {
                            errors.push(format!("{path}: {x} is below the minimum {min}"));
                        }
                    }
                }
                "items" => {
                    for (i, item) in v.as_array().into_iter().flatten().enumerate() {
                        self.check(arg, item, &format!("{path}[{i}]"), errors);
                    }
                }
                "required" => {
                    if let Some(members) = v.as_object() {
                        for name in arg
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(Value::as_str)
                        {
                            if !members.contains_key(name) {
                                errors.push(format!("{path}: missing required `{name}`"));
                            }
                        }
                    }
                }
                "properties" => {
                    for (k, member) in v.as_object().into_iter().flatten() {
                        if let Some(sub) = arg.get(k) {
                            self.check(sub, member, &format!("{path}.{k}"), errors);
                        }
                    }
                }
                "additionalProperties" => {
                    let declared = schema.get("properties");
                    for (k, member) in v.as_object().into_iter().flatten() {
                        if declared.and_then(|p| p.get(k)).is_some() {
                            continue;
                        }
                        match arg {
                            Value::Bool(true) => {}
                            Value::Bool(false) => {
                                errors.push(format!("{path}: unexpected member `{k}`"))
                            }
                            sub => self.check(sub, member, &format!("{path}.{k}"), errors),
                        }
                    }
                }
                "oneOf" | "anyOf" => {
                    let passing = arg
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter(|sub| {
                            let mut e = Vec::new();
                            self.check(sub, v, path, &mut e);
                            e.is_empty()
                        })
                        .count();
                    let ok = if key == "oneOf" {
                        passing == 1
                    } else {
                        passing >= 1
                    };
                    if !ok {
                        errors.push(format!(
                            "{path}: {v} matches {passing} of the {key} choices"
                        ));
                    }
                }
                other => errors.push(format!("{path}: unsupported keyword `{other}`")),
            }
        }
    }

    /// Every violation of the root schema by `doc`.
    pub(crate) fn validate(&self, doc: &Value) -> Vec<String> {
        let mut errors = Vec::new();
        self.check(self.root, doc, "$", &mut errors);
        errors
    }

    /// Walks every definition: an unsupported keyword or a dangling `$ref` shows up even where
    /// real output does not reach.
    pub(crate) fn assert_well_formed(&self) {
        let defs = self.root.get("$defs").and_then(Value::as_object);
        for (name, def) in defs.into_iter().flatten() {
            let mut errors = Vec::new();
            self.check(def, &Value::Null, name, &mut errors);
            let bad: Vec<&String> = errors
                .iter()
                .filter(|e| e.contains("unsupported") || e.contains("dangling"))
                .collect();
            assert!(bad.is_empty(), "{bad:#?}");
        }
    }
}

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
