//! Real output against `perfbench/schema/report-v1.schema.json`.
//!
//! The validator below implements the subset of JSON Schema (draft 2020-12) the schema file
//! uses: `type`, `enum`, `required`, `properties`, `additionalProperties` (boolean or schema),
//! `items`, `minimum` and local `$ref`s (`#/$defs/NAME`), with the standard semantics (object
//! keywords apply only to objects, `integer` is any number without a fraction). It rejects any
//! other keyword, so the schema cannot silently use something this test does not check. The
//! `jsonschema` crate would do the same at the cost of 64 more crates in dev builds (140 with
//! its default features).

use super::json::tests::synthetic_suite;
use super::json::to_json;
use super::value::{parse, Value};

const SCHEMA: &str = include_str!("../../schema/report-v1.schema.json");

/// Keywords that carry no constraint.
const ANNOTATIONS: &[&str] = &["$schema", "$id", "title", "description", "$defs"];

struct Validator<'a> {
    root: &'a Value,
}

fn numbers_equal(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

fn has_type(v: &Value, ty: &str) -> bool {
    match ty {
        "null" => *v == Value::Null,
        "boolean" => matches!(v, Value::Bool(_)),
        "string" => matches!(v, Value::String(_)),
        "array" => matches!(v, Value::Array(_)),
        "object" => matches!(v, Value::Object(_)),
        "number" => v.as_f64().is_some(),
        "integer" => match *v {
            Value::UInt(_) | Value::Int(_) => true,
            Value::Float(x) => x.fract() == 0.0,
            _ => false,
        },
        _ => false,
    }
}

impl<'a> Validator<'a> {
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
    fn check(&self, schema: &'a Value, v: &Value, path: &str, errors: &mut Vec<String>) {
        let Value::Object(keywords) = schema else {
            errors.push(format!("{path}: schema is not an object"));
            return;
        };
        for (key, arg) in keywords {
            match key.as_str() {
                k if ANNOTATIONS.contains(&k) => {}
                "$ref" => match arg {
                    Value::String(r) => match self.resolve(r) {
                        Ok(target) => self.check(target, v, path, errors),
                        Err(e) => errors.push(e),
                    },
                    _ => errors.push(format!("{path}: $ref is not a string")),
                },
                "type" => {
                    let ok = match arg {
                        Value::String(t) => has_type(v, t),
                        Value::Array(ts) => ts
                            .iter()
                            .any(|t| matches!(t, Value::String(t) if has_type(v, t))),
                        _ => false,
                    };
                    if !ok {
                        errors.push(format!(
                            "{path}: {} is not of type {}",
                            v.kind(),
                            arg.to_pretty()
                        ));
                    }
                }
                "enum" => {
                    let ok = matches!(arg, Value::Array(opts) if opts.iter().any(|o| numbers_equal(o, v)));
                    if !ok {
                        errors.push(format!(
                            "{path}: {} is not one of {}",
                            v.to_pretty(),
                            arg.to_pretty()
                        ));
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
                    if let Value::Array(items) = v {
                        for (i, item) in items.iter().enumerate() {
                            self.check(arg, item, &format!("{path}[{i}]"), errors);
                        }
                    }
                }
                "required" => {
                    if let (Value::Object(_), Value::Array(names)) = (v, arg) {
                        for name in names {
                            if let Value::String(name) = name {
                                if v.get(name).is_none() {
                                    errors.push(format!("{path}: missing required `{name}`"));
                                }
                            }
                        }
                    }
                }
                "properties" => {
                    if let Value::Object(members) = v {
                        for (k, member) in members {
                            if let Some(sub) = arg.get(k) {
                                self.check(sub, member, &format!("{path}.{k}"), errors);
                            }
                        }
                    }
                }
                "additionalProperties" => {
                    if let Value::Object(members) = v {
                        let declared = schema.get("properties");
                        for (k, member) in members {
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
                }
                other => errors.push(format!("{path}: unsupported keyword `{other}`")),
            }
        }
    }
}

fn validate(doc: &Value) -> Vec<String> {
    let schema = parse(SCHEMA).expect("the schema file is valid JSON");
    let v = Validator { root: &schema };
    let mut errors = Vec::new();
    v.check(&schema, doc, "$", &mut errors);
    errors
}

fn real_output() -> Value {
    parse(&to_json(&synthetic_suite())).unwrap()
}

#[test]
fn real_output_matches_the_schema() {
    let errors = validate(&real_output());
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn schema_only_uses_checked_keywords_and_resolves() {
    // Walk every schema in the file: an unsupported keyword or dangling $ref shows up as an
    // error even where the real output does not reach (e.g. `change`).
    let schema = parse(SCHEMA).unwrap();
    let v = Validator { root: &schema };
    let Some(Value::Object(defs)) = schema.get("$defs") else {
        panic!("no $defs");
    };
    for (name, def) in defs {
        let mut errors = Vec::new();
        v.check(def, &Value::Null, name, &mut errors);
        assert!(
            !errors
                .iter()
                .any(|e| e.contains("unsupported") || e.contains("dangling")),
            "{errors:#?}"
        );
    }
}

/// Applies `f` to the first benchmark's first counter object.
fn with_counter(f: impl FnOnce(&mut Vec<(String, Value)>)) -> Value {
    let mut doc = real_output();
    let Value::Object(top) = &mut doc else {
        unreachable!()
    };
    let (_, Value::Array(benches)) = top.iter_mut().find(|(k, _)| k == "benchmarks").unwrap()
    else {
        unreachable!()
    };
    let Value::Object(bench) = &mut benches[0] else {
        unreachable!()
    };
    let (_, Value::Object(counters)) = bench.iter_mut().find(|(k, _)| k == "counters").unwrap()
    else {
        unreachable!()
    };
    let Value::Object(counter) = &mut counters[0].1 else {
        unreachable!()
    };
    f(counter);
    doc
}

#[test]
fn the_validator_catches_violations() {
    // Missing required member.
    let doc = with_counter(|c| c.retain(|(k, _)| k != "unit"));
    let errors = validate(&doc);
    assert!(
        errors.iter().any(|e| e.contains("missing required `unit`")),
        "{errors:#?}"
    );
    // Wrong enum value.
    let doc = with_counter(|c| c[1].1 = Value::String("magic".into()));
    assert!(validate(&doc).iter().any(|e| e.contains("is not one of")));
    // Unknown member.
    let doc = with_counter(|c| c.push(("surprise".into(), Value::Null)));
    assert!(validate(&doc)
        .iter()
        .any(|e| e.contains("unexpected member `surprise`")));
    // Negative iteration count, float where an integer goes.
    let doc = with_counter(|c| c[4].1 = Value::Array(vec![Value::Int(-1), Value::Float(1.5)]));
    let errors = validate(&doc);
    assert!(
        errors.iter().any(|e| e.contains("below the minimum")),
        "{errors:#?}"
    );
    assert!(
        errors.iter().any(|e| e.contains("iterations[1]")),
        "{errors:#?}"
    );
    // A valid `change` passes, an invalid verdict does not.
    let change = |verdict: &str| {
        Value::Object(vec![
            ("baseline".into(), Value::Float(1.0)),
            ("ratio".into(), Value::Null),
            ("ci_low".into(), Value::Null),
            ("ci_high".into(), Value::Null),
            ("p_value".into(), Value::Float(0.5)),
            ("verdict".into(), Value::String(verdict.into())),
        ])
    };
    let doc = with_counter(|c| c.push(("change".into(), change("unchanged"))));
    assert_eq!(validate(&doc), Vec::<String>::new());
    let doc = with_counter(|c| c.push(("change".into(), change("worse"))));
    assert!(!validate(&doc).is_empty());
}

#[test]
fn non_finite_output_still_matches() {
    let mut suite = synthetic_suite();
    for b in &mut suite.benchmarks {
        for c in &mut b.counters {
            c.per_iteration.push(f64::NAN);
            c.overhead = f64::INFINITY;
            if let Some(e) = c.estimate.as_mut() {
                e.mean = f64::NAN;
            }
        }
    }
    suite.machine.paranoid = None;
    let errors = validate(&parse(&to_json(&suite)).unwrap());
    assert!(errors.is_empty(), "{errors:#?}");
}
