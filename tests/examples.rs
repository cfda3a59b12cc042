//! The user examples (`examples/*.rs`) stay runnable and documented.
//!
//! `cargo test` runs every example that is a `perfbench::main!()` suite in smoke mode (each
//! body once), because the root `Cargo.toml` declares it with `test = true` and
//! `harness = false`; this test makes sure no such example is left out of that, and that each
//! one's `//!` header says what it is and how to run it. (That README's quickstart is
//! `examples/quickstart.rs` is checked by tests/new_user.rs.)

use std::fs;
use std::path::Path;

const WORKSPACE: &str = env!("CARGO_MANIFEST_DIR");

/// The `key = value` lines of each `[[example]]` table of the root `Cargo.toml`, by name.
fn declared_examples() -> Vec<(String, Vec<(String, String)>)> {
    let manifest = fs::read_to_string(Path::new(WORKSPACE).join("Cargo.toml")).unwrap();
    let mut tables = Vec::new();
    let mut current: Option<Vec<(String, String)>> = None;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            if let Some(t) = current.take() {
                tables.push(t);
            }
            if line == "[[example]]" {
                current = Some(Vec::new());
            }
        } else if let (Some(t), Some((k, v))) = (current.as_mut(), line.split_once('=')) {
            if !line.starts_with('#') {
                t.push((k.trim().to_owned(), v.trim().trim_matches('"').to_owned()));
            }
        }
    }
    tables.extend(current);
    tables
        .into_iter()
        .map(|t| {
            let name = t
                .iter()
                .find(|(k, _)| k == "name")
                .map(|(_, v)| v.clone())
                .expect("an [[example]] without a name");
            (name, t)
        })
        .collect()
}

#[test]
fn every_suite_example_runs_in_cargo_test_and_says_how_to_run_it() {
    let declared = declared_examples();
    let mut suites = Vec::new();
    for entry in fs::read_dir(Path::new(WORKSPACE).join("examples")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let source = fs::read_to_string(&path).unwrap();
        let header: Vec<&str> = source
            .lines()
            .take_while(|l| l.starts_with("//!"))
            .collect();
        assert!(
            header.len() >= 2,
            "examples/{name}.rs: a `//!` header says what it shows and how to run it"
        );
        assert!(
            header
                .iter()
                .any(|l| l.contains(&format!("cargo run --release --example {name}"))),
            "examples/{name}.rs: the header gives `cargo run --release --example {name} ...`"
        );
        if !source.contains("perfbench::main!()") {
            continue; // a program of its own (counters, criterion_adapter): built, not run
        }
        suites.push(name.clone());
        let table = declared
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| t)
            .unwrap_or_else(|| {
                panic!("examples/{name}.rs is a suite without an [[example]] entry in Cargo.toml")
            });
        for (key, want) in [("test", "true"), ("harness", "false")] {
            assert!(
                table.iter().any(|(k, v)| k == key && v == want),
                "Cargo.toml's [[example]] `{name}` needs `{key} = {want}` so that `cargo test` \
                 runs it in smoke mode"
            );
        }
    }
    // README's list of examples names each of them.
    let readme = fs::read_to_string(Path::new(WORKSPACE).join("README.md")).unwrap();
    for name in &suites {
        assert!(
            readme.contains(&format!("`{name}` (")),
            "README's list of examples does not describe `{name}`"
        );
    }
    assert!(suites.len() >= 5, "the suite examples: {suites:?}");
}
