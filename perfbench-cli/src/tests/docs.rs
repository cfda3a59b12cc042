//! Every command line in README.md and the guide (`docs/`): the `sh` and `console` blocks are
//! split into commands, and each `perfbench` command, each benchmark command line
//! (`cargo bench ... -- ARGS`, a bench executable run by path) and each `cargo install` must
//! parse as the tool and the harness parse them; any other program must be one of the system
//! tools the pages name (a new one fails the test until it is added here).

use std::fs;
use std::path::{Path, PathBuf};

use crate::parse_args;

/// Programs the pages run that are not perfbench's: their lines are not checked.
const SYSTEM: [&str; 15] = [
    "apt-get", "bash", "cat", "docker", "echo", "for", "git", "grep", "jq", "ls", "perf", "setcap",
    "sysctl", "taskset", "tee",
];

/// README.md and the book's pages.
fn pages() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut pages = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// The command lines of a page's `sh` blocks, and of its `console` blocks the lines after a
/// `$ ` prompt, with their line numbers.
fn command_lines(text: &str) -> Vec<(usize, String)> {
    let mut block: Option<&str> = None;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if let Some(info) = t.strip_prefix("```") {
            block = match block {
                None => Some(info.trim()),
                Some(_) => None,
            };
            continue;
        }
        match block {
            Some("sh") => out.push((i + 1, line.to_owned())),
            Some("console") => {
                if let Some(cmd) = t.strip_prefix("$ ") {
                    out.push((i + 1, cmd.to_owned()));
                }
            }
            _ => {}
        }
    }
    out
}

/// A shell line's commands as words: quotes removed, a `#` comment dropped, split at `&&`,
/// `||`, `;` and `|`; leading `VAR=value` assignments, `sudo` and `do` dropped.
fn commands(line: &str) -> Vec<Vec<String>> {
    let mut commands = vec![Vec::new()];
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = line.chars().peekable();
    let end_word = |word: &mut String, in_word: &mut bool, commands: &mut Vec<Vec<String>>| {
        if *in_word {
            commands.last_mut().unwrap().push(std::mem::take(word));
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, '#') if !in_word => break,
            (None, ' ' | '\t') => end_word(&mut word, &mut in_word, &mut commands),
            (None, ';' | '|' | '&') => {
                end_word(&mut word, &mut in_word, &mut commands);
                if chars.peek() == Some(&c) {
                    chars.next();
                }
                commands.push(Vec::new());
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    end_word(&mut word, &mut in_word, &mut commands);
    commands
        .into_iter()
        .map(|words| {
            let skip = words
                .iter()
                .take_while(|w| {
                    w.as_str() == "sudo"
                        || w.as_str() == "do"
                        || w.split_once('=').is_some_and(|(name, _)| {
                            !name.is_empty()
                                && name.chars().all(|c| c.is_ascii_uppercase() || c == '_')
                        })
                })
                .count();
            words[skip..].to_vec()
        })
        .filter(|words| !words.is_empty() && words[0] != "done")
        .collect()
}

/// Checks one command; `Err` says what is wrong with it. Returns whether it was a perfbench
/// command line (the tool's or a benchmark's) rather than a system tool's.
fn check(words: &[String]) -> Result<bool, String> {
    let program = words[0].as_str();
    let rest = &words[1..];
    let after_dashes = || rest.iter().position(|w| w == "--").map(|i| &rest[i + 1..]);
    let bench_args = |name: &str, args: &[String]| {
        let line = std::iter::once(name.to_owned()).chain(args.iter().cloned());
        perfbench::runner::cli::parse(name, line)
            .map(|_| true)
            .map_err(|e| format!("the harness refuses it: {e}"))
    };
    match program {
        "perfbench" => parse_args(rest.iter().map(Into::into))
            .map(|_| true)
            .map_err(|e| format!("the tool refuses it: {}", e.0)),
        "cargo" => match rest.first().map(String::as_str) {
            Some("bench") => match after_dashes() {
                Some(args) => {
                    let mut line = vec!["--bench".to_owned()];
                    line.extend(args.iter().cloned());
                    bench_args("suite", &line)
                }
                None => Ok(true),
            },
            // `cargo run --example NAME -- --bench ...`: a benchmark binary's own flags.
            Some("run") => match after_dashes() {
                Some(args) => bench_args("example", args),
                None => Ok(true),
            },
            Some("test") => Ok(true),
            Some("install") => {
                let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
                let package = match rest.iter().position(|w| w == "--path") {
                    Some(i) => rest.get(i + 1).cloned().unwrap_or_default(),
                    None => rest.last().cloned().unwrap_or_default(),
                };
                if root.join(&package).join("Cargo.toml").is_file() {
                    Ok(true)
                } else {
                    Err(format!("no package `{package}` in this workspace"))
                }
            }
            other => Err(format!("an unexpected cargo subcommand {other:?}")),
        },
        p if p.starts_with("target/") => bench_args(p, rest),
        p if SYSTEM.contains(&p) => Ok(false),
        p => Err(format!(
            "an unknown program `{p}` (add it to SYSTEM if it is one)"
        )),
    }
}

#[test]
fn a_shell_line_splits_into_commands_as_the_shell_would() {
    let words = |s: &str| commands(s);
    assert_eq!(
        words("git checkout main   && cargo bench -- --save-baseline main  # keep it"),
        [
            vec!["git", "checkout", "main"],
            vec!["cargo", "bench", "--", "--save-baseline", "main"]
        ]
    );
    assert_eq!(
        words("RUSTFLAGS=\"-C x=y\" cargo bench --bench '*' | grep callgrind"),
        [
            vec!["cargo", "bench", "--bench", "*"],
            vec!["grep", "callgrind"]
        ]
    );
    assert_eq!(
        words("for run in 1 2; do cargo bench; done"),
        [vec!["for", "run", "in", "1", "2"], vec!["cargo", "bench"]]
    );
    assert_eq!(words("sudo sysctl -w k=1"), [vec!["sysctl", "-w", "k=1"]]);
    // A misspelt flag is refused, so the test below can fail.
    assert!(check(&commands("cargo bench -- --save-basline main")[0]).is_err());
    assert!(check(&commands("perfbench comapre a b")[0]).is_err());
    assert!(check(&commands("cargo install perfbench-clu")[0]).is_err());
    assert!(check(&commands("frobnicate now")[0]).is_err());
}

#[test]
fn documented_command_lines_parse() {
    let mut wrong = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = fs::read_to_string(&page).unwrap();
        let name = page.file_name().unwrap().to_string_lossy().into_owned();
        for (line, text) in command_lines(&text) {
            for words in commands(&text) {
                match check(&words) {
                    Ok(ours) => checked += usize::from(ours),
                    Err(e) => wrong.push(format!("{name}:{line}: `{}`: {e}", words.join(" "))),
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // README's quickstart block alone has six; fewer means the blocks were not found.
    assert!(
        checked >= 30,
        "only {checked} perfbench command lines found"
    );
}
