//! The shape of the source tree: no Rust file over 800 lines but those CONTRIBUTING.md lists
//! under "Files over 800 lines", each at most the length given there. The list only shrinks:
//! a new file over the limit, a listed file grown past its length, or a listed file back under
//! the limit (then taken off the list) fails, naming the file.

use std::fs;
use std::path::{Path, PathBuf};

const WORKSPACE: &str = env!("CARGO_MANIFEST_DIR");

/// Lines a source file may have unless CONTRIBUTING.md lists it.
const LIMIT: usize = 800;

/// Every `.rs` file under `dir`, but in build outputs and hidden directories other than `.ci`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if name == "target" || (name.starts_with('.') && name != ".ci") {
                continue;
            }
            rust_files(&path, out);
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// CONTRIBUTING.md's list: `(path, lines)` from lines such as
/// `` - `perfbench/src/sys.rs` (1490 lines): ... ``.
fn listed() -> Vec<(String, usize)> {
    let text = fs::read_to_string(Path::new(WORKSPACE).join("CONTRIBUTING.md")).unwrap();
    let section = text
        .split("\n## ")
        .find(|s| s.starts_with("Files over 800 lines"))
        .expect("CONTRIBUTING.md has a section `## Files over 800 lines`");
    section
        .lines()
        .filter_map(|l| l.strip_prefix("- `"))
        .map(|l| {
            let (path, rest) = l.split_once("` (").expect("- `PATH` (N lines): why");
            let lines = rest
                .split_once(" lines")
                .and_then(|(n, _)| n.parse().ok())
                .unwrap_or_else(|| panic!("{path}: no `(N lines)`"));
            (path.to_owned(), lines)
        })
        .collect()
}

#[test]
fn no_source_file_is_over_800_lines_unless_listed() {
    let root = Path::new(WORKSPACE);
    let mut files = Vec::new();
    rust_files(root, &mut files);
    assert!(files.len() > 100, "only {} Rust files found", files.len());
    let list = listed();
    assert!(
        !list.is_empty(),
        "the list in CONTRIBUTING.md is empty: drop the section"
    );
    let mut wrong = Vec::new();
    for path in &files {
        let rel = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let lines = fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("{rel}: {e}"))
            .lines()
            .count();
        match list.iter().find(|(p, _)| *p == rel) {
            None if lines > LIMIT => wrong.push(format!(
                "{rel}: {lines} lines; split it (one concept per file), or list it in \
                 CONTRIBUTING.md with why one concept needs them"
            )),
            Some((_, max)) if lines > *max => wrong.push(format!(
                "{rel}: {lines} lines, more than the {max} CONTRIBUTING.md allows it"
            )),
            Some(_) if lines <= LIMIT => wrong.push(format!(
                "{rel}: {lines} lines, under {LIMIT} now: take it off CONTRIBUTING.md's list"
            )),
            _ => {}
        }
    }
    for (p, _) in &list {
        if !root.join(p).is_file() {
            wrong.push(format!("{p}: listed in CONTRIBUTING.md but not there"));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}
