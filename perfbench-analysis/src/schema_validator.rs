//! A JSON Schema validator for perfbench's generated schemas, shared by the unit tests
//! (`src/model/schema.rs`) and the integration tests that check real output.

#![allow(dead_code)]

use serde_json::Value;

/// A validator for the subset of JSON Schema (draft 2020-12) that schemars generates for these
/// types: `type`, `enum`, `const`, `required`, `properties`, `additionalProperties` (boolean or
/// schema), `items`, `minimum`, `oneOf`, `anyOf` and local `$ref`s (`#/$defs/NAME`), with the
/// standard semantics (object keywords apply only to objects, `integer` is any number without
/// a fraction). Annotations (`description`, `default`, `format`, ...) constrain nothing. Any
/// other keyword is an error, so a schema cannot silently use something this test does not
/// check. The `jsonschema` crate would do the same at the cost of 64 more crates in dev builds.
pub struct Validator<'a> {
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
    pub fn new(root: &'a Value) -> Self {
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
    pub fn check(&self, schema: &'a Value, v: &Value, path: &str, errors: &mut Vec<String>) {
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
    pub fn validate(&self, doc: &Value) -> Vec<String> {
        let mut errors = Vec::new();
        self.check(self.root, doc, "$", &mut errors);
        errors
    }

    /// Walks every definition: an unsupported keyword or a dangling `$ref` shows up even where
    /// real output does not reach.
    pub fn assert_well_formed(&self) {
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
