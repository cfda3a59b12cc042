//! Each `compile_fail` doctest of `src/misuse.rs` must fail for the reason it documents: every
//! `// error...` comment is the start of an error reported on that line, and no error is
//! reported on another line. (rustdoc only checks that a `compile_fail` case fails.)
//!
//! Builds a scratch crate against perfbench, so it is ignored by default:
//! `cargo test -p perfbench-macros --test compile_fail_messages -- --ignored`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

struct Case {
    /// Line of the opening fence in `src/misuse.rs`.
    doc_line: usize,
    code: String,
    /// (line in `code`, start of the message) per `// error` comment.
    expected: Vec<(usize, String)>,
}

fn cases(source: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut current: Option<Case> = None;
    for (i, line) in source.lines().enumerate() {
        let Some(doc) = line.trim_start().strip_prefix("//!") else {
            continue;
        };
        let doc = doc.strip_prefix(' ').unwrap_or(doc);
        match &mut current {
            None if doc.starts_with("```compile_fail") => {
                current = Some(Case {
                    doc_line: i + 1,
                    code: String::new(),
                    expected: Vec::new(),
                })
            }
            None => {}
            Some(_) if doc == "```" => cases.push(current.take().unwrap()),
            Some(case) => {
                // rustdoc's hidden lines.
                let code = match doc.strip_prefix("# ") {
                    Some(hidden) => hidden,
                    None if doc == "#" => "",
                    None => doc,
                };
                let line_no = case.code.lines().count() + 1;
                if let Some(at) = code.find("// error") {
                    case.expected.push((line_no, code[at + 3..].to_owned()));
                }
                writeln!(case.code, "{code}").unwrap();
            }
        }
    }
    assert!(current.is_none(), "unclosed code block");
    cases
}

#[test]
#[ignore = "builds a scratch crate against perfbench; run with --ignored"]
fn compile_fail_doctests_fail_for_the_documented_reason() {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(manifest_dir.join("src/misuse.rs")).unwrap();
    let cases = cases(&source);
    assert!(cases.len() > 30, "found only {} cases", cases.len());
    for case in &cases {
        assert!(
            !case.expected.is_empty(),
            "misuse.rs:{}: no `// error` comment",
            case.doc_line
        );
    }

    let dir: PathBuf = Path::new(env!("CARGO_TARGET_TMPDIR")).join("compile_fail_messages");
    let bins = dir.join("src/bin");
    let _ = std::fs::remove_dir_all(&bins);
    std::fs::create_dir_all(&bins).unwrap();
    let perfbench = manifest_dir.join("../perfbench");
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"compile-fail-cases\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
             publish = false\n\n[dependencies]\nperfbench = {{ path = {:?} }}\n\n[workspace]\n",
            perfbench.display().to_string()
        ),
    )
    .unwrap();
    // The workspace's lock file: no registry access, the same versions.
    std::fs::copy(manifest_dir.join("../Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    std::fs::write(dir.join("src/main.rs"), "fn main() {}\n").unwrap();
    for (i, case) in cases.iter().enumerate() {
        std::fs::write(bins.join(format!("case_{i}.rs")), &case.code).unwrap();
    }

    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut failures = String::new();
    for (i, case) in cases.iter().enumerate() {
        let output = Command::new(&cargo)
            .current_dir(&dir)
            .env("CARGO_TARGET_DIR", dir.join("target"))
            .args(["build", "--quiet", "--message-format=short", "--bin"])
            .arg(format!("case_{i}"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        let prefix = format!("src/bin/case_{i}.rs:");
        // `LINE:COL: error...: message`
        let errors: Vec<(usize, &str)> = stderr
            .lines()
            .filter_map(|l| l.strip_prefix(&prefix))
            .filter_map(|l| {
                let (line, rest) = l.split_once(':')?;
                let (_col, message) = rest.split_once(": ")?;
                message
                    .starts_with("error")
                    .then(|| (line.parse().unwrap(), message))
            })
            .collect();
        let mut problems = Vec::new();
        if output.status.success() {
            problems.push("compiled".to_owned());
        }
        for (line, message) in &case.expected {
            if !errors
                .iter()
                .any(|(l, m)| l == line && m.starts_with(message.as_str()))
            {
                problems.push(format!("no `{message}` on line {line}"));
            }
        }
        for (line, message) in &errors {
            if !case.expected.iter().any(|(l, _)| l == line) {
                problems.push(format!("unexpected error on line {line}: {message}"));
            }
        }
        if !problems.is_empty() {
            writeln!(
                failures,
                "misuse.rs:{} ({}):\n  {}\n--- code\n{}--- compiler\n{}",
                case.doc_line,
                prefix.trim_end_matches(':'),
                problems.join("\n  "),
                case.code,
                stderr
            )
            .unwrap();
        }
    }
    assert!(failures.is_empty(), "{failures}");
}
