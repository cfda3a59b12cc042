//! The README and the guide (`docs/`, an mdBook): every relative link leads to a file that
//! exists, and every `#anchor` into a Markdown page to one of its headings; the book's
//! `SUMMARY.md` lists every page; README stays the front door (at most 200 lines, no history);
//! every code block names its language, and every page with a Rust block is a doctest of
//! `src/lib.rs`. The command lines of the `sh` blocks are parsed by perfbench-cli's
//! `tests::docs`.

use std::fs;
use std::path::{Path, PathBuf};

const WORKSPACE: &str = env!("CARGO_MANIFEST_DIR");

/// The Markdown files checked: README, CONTRIBUTING and the book's pages.
fn pages() -> Vec<PathBuf> {
    let root = Path::new(WORKSPACE);
    let mut pages = vec![root.join("README.md"), root.join("CONTRIBUTING.md")];
    let mut docs: Vec<PathBuf> = fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// GitHub's (and mdBook's) anchor of a heading: lower case, punctuation dropped, spaces as `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// A Markdown text split at its fenced code blocks: the lines outside them, and the info
/// string of each block's opening fence (` ```lang `, ` ````lang `). A block ends at a fence of
/// as many backticks with nothing after them, so a block may show a shorter fence inside.
fn split_fences(text: &str) -> (Vec<&str>, Vec<String>) {
    let mut open: Option<usize> = None;
    let (mut prose, mut infos) = (Vec::new(), Vec::new());
    for line in text.lines() {
        let t = line.trim_start();
        let ticks = t.chars().take_while(|&c| c == '`').count();
        if ticks < 3 {
            if open.is_none() {
                prose.push(line);
            }
            continue;
        }
        match open {
            Some(n) if ticks == n && t[ticks..].trim().is_empty() => open = None,
            Some(_) => {}
            None => {
                open = Some(ticks);
                infos.push(t[ticks..].trim().to_owned());
            }
        }
    }
    (prose, infos)
}

/// The anchors of a Markdown text's headings (outside code blocks).
fn anchors(text: &str) -> Vec<String> {
    split_fences(text)
        .0
        .into_iter()
        .filter(|line| line.starts_with('#'))
        .map(|line| slug(line.trim_start_matches('#')))
        .collect()
}

/// The targets of the inline links `[text](target)` of a Markdown text, outside code.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in split_fences(text).0 {
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            match after.find(')') {
                Some(j) => {
                    out.push(after[..j].to_owned());
                    rest = &after[j..];
                }
                None => break,
            }
        }
    }
    out
}

#[test]
fn every_relative_link_and_anchor_leads_somewhere() {
    let mut broken = Vec::new();
    for page in pages() {
        let text = fs::read_to_string(&page).unwrap();
        for target in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = match target.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (target.as_str(), None),
            };
            let path = if file.is_empty() {
                page.clone()
            } else {
                page.parent().unwrap().join(file)
            };
            if !path.exists() {
                broken.push(format!("{}: {target} (no such file)", page.display()));
                continue;
            }
            if let (Some(a), true) = (anchor, path.extension().is_some_and(|e| e == "md")) {
                let target_text = fs::read_to_string(&path).unwrap();
                if !anchors(&target_text).iter().any(|h| h == a) {
                    broken.push(format!("{}: {target} (no such heading)", page.display()));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_books_summary_lists_every_page() {
    let docs = Path::new(WORKSPACE).join("docs");
    let summary = fs::read_to_string(docs.join("SUMMARY.md")).unwrap();
    let listed = links(&summary);
    for page in pages().iter().filter(|p| p.starts_with(&docs)) {
        let name = page.file_name().unwrap().to_str().unwrap();
        if name == "SUMMARY.md" {
            continue;
        }
        assert!(
            listed.iter().any(|l| l == name),
            "docs/SUMMARY.md does not list {name}"
        );
    }
    for l in &listed {
        assert!(
            docs.join(l).is_file(),
            "docs/SUMMARY.md lists {l}, which does not exist"
        );
    }
}

#[test]
fn the_readme_is_a_front_door() {
    let readme = fs::read_to_string(Path::new(WORKSPACE).join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= 200,
        "README.md has {lines} lines; the guide (docs/) holds the rest"
    );
    for word in ["session", "DESIGN.md", "before this change"] {
        assert!(
            !readme.contains(word),
            "README.md says `{word}`: history belongs in CHANGELOG.md"
        );
    }
    let hash_like = readme
        .split(|c: char| !c.is_ascii_alphanumeric())
        .find(|w| {
            w.len() == 7
                && w.chars().all(|c| c.is_ascii_hexdigit())
                && w.chars().any(|c| c.is_ascii_digit())
                && w.chars().any(|c| c.is_ascii_alphabetic())
        });
    assert_eq!(hash_like, None, "README.md names a commit");
}

/// The languages a fenced block may name, and what checks each: `rust` blocks are doctests of
/// `src/lib.rs`; `sh` and `console` blocks are parsed by the tool's test
/// `documented_command_lines_parse` (perfbench-cli); the rest are shown, not run.
const FENCES: [&str; 8] = [
    "rust", "sh", "console", "text", "toml", "json", "yaml", "markdown",
];

#[test]
fn every_code_block_names_its_language_and_every_rust_block_is_compiled() {
    let lib = fs::read_to_string(Path::new(WORKSPACE).join("src/lib.rs")).unwrap();
    let mut wrong = Vec::new();
    for page in pages() {
        let text = fs::read_to_string(&page).unwrap();
        let relative = page.strip_prefix(WORKSPACE).unwrap().display().to_string();
        for info in split_fences(&text).1 {
            let lang = info.split(',').next().unwrap_or("");
            if !FENCES.contains(&lang) {
                wrong.push(format!("{relative}: a block fenced as `{info}`"));
            }
            if lang == "rust" && !lib.contains(&format!("include_str!(\"../{relative}\")")) {
                wrong.push(format!(
                    "{relative} has a Rust block, and src/lib.rs does not include the page as a doctest"
                ));
            }
        }
    }
    wrong.dedup();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
