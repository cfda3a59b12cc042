//! `perfbench ab` as a user runs it, against builds that cannot be driven: shell scripts that
//! pose as bench executables and greet with another protocol version, say something else, hang
//! or crash. Each must stop the run with exit 2 and a message that says which build did what:
//! never a verdict. (Real builds are paired in the root package's `tests/paired.rs`.)

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_perfbench");

/// The greeting of a worker of this protocol, for scripts that speak it at first.
const HELLO: &str = r#"{"perfbench_worker":4,"perfbench":"0.1.0","suite":"fake"}"#;

struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("perfbench-ab-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    /// An executable shell script `name` with `body`.
    fn script(&self, name: &str, body: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn ab(old: &Path, new: &Path, extra: &[&str]) -> Output {
    Command::new(BIN)
        .arg("ab")
        .arg(old)
        .arg(new)
        .args(extra)
        .env("NO_COLOR", "1")
        .output()
        .expect("run perfbench")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Fails the test unless the run stopped with exit 2, printed no verdict, and said `wanted`.
fn stops(o: &Output, wanted: &[&str]) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    for w in wanted {
        assert!(err.contains(w), "`{w}` not in:\n{err}");
    }
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        !out.contains("regressed") && !out.contains("unchanged"),
        "{out}"
    );
}

#[test]
fn another_protocol_version_is_refused_by_name() {
    let s = Scratch::new("version");
    let old = s.script(
        "old",
        r#"echo '{"perfbench_worker":99,"perfbench":"9.9.9","suite":"fake"}'; sleep 10"#,
    );
    let new = s.script("new", &format!("echo '{HELLO}'; sleep 10"));
    let o = ab(&old, &new, &[]);
    stops(
        &o,
        &[
            "the base build",
            "speaks worker protocol 99 (perfbench 9.9.9)",
            &format!("speaks {}", perfbench::protocol::worker::VERSION),
            "same perfbench version",
            "help: rebuild both executables with perfbench 0.1.0",
        ],
    );
}

#[test]
fn something_that_is_not_a_worker_is_refused() {
    let s = Scratch::new("stranger");
    let old = s.script("old", "echo 'hello, I am a shell script'");
    let o = ab(&old, &old, &[]);
    stops(
        &o,
        &["is not a perfbench worker", "hello, I am a shell script"],
    );
    // One that exits at once, as a bench executable of an older perfbench would on the unknown
    // `--perfbench-worker` flag.
    let gone = s.script(
        "gone",
        "echo 'error: unknown option `--perfbench-worker`' >&2; exit 2",
    );
    let o = ab(&gone, &gone, &[]);
    stops(
        &o,
        &[
            "exited before greeting",
            "exit status: 2",
            "unknown option `--perfbench-worker`",
        ],
    );
}

#[test]
fn a_build_that_hangs_is_stopped_after_the_timeout() {
    let s = Scratch::new("hang");
    let silent = s.script("silent", "sleep 30");
    let start = Instant::now();
    let o = ab(&silent, &silent, &["--worker-timeout", "1"]);
    stops(&o, &["did not greet within 1 s"]);
    // Greets, then never answers a request (3 s: time enough to start a shell and greet on a
    // loaded machine).
    let mute = s.script("mute", &format!("echo '{HELLO}'; sleep 30"));
    let o = ab(&mute, &mute, &["--worker-timeout", "3"]);
    stops(&o, &["the base build", "did not answer within 3 s"]);
    assert!(
        start.elapsed() < Duration::from_secs(25),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn a_build_that_crashes_mid_protocol_is_named_with_its_status_and_last_words() {
    let s = Scratch::new("crash");
    let old = s.script(
        "old",
        &format!("echo '{HELLO}'; read line; echo 'worker: out of memory' >&2; exit 3"),
    );
    let o = ab(&old, &old, &[]);
    stops(
        &o,
        &[
            "the base build",
            "exited without answering",
            "exit status: 3",
            "worker: out of memory",
        ],
    );
    // An answer that is not the protocol.
    let garbled = s.script(
        "garbled",
        &format!("echo '{HELLO}'; read line; echo 'garbage'"),
    );
    let o = ab(&garbled, &garbled, &[]);
    stops(&o, &["not the worker protocol: garbage"]);
}

#[test]
fn usage_errors() {
    let o = Command::new(BIN).args(["ab", "only-one"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("ab needs two bench executables"),
        "{}",
        stderr(&o)
    );
    let o = Command::new(BIN)
        .args(["ab", "a", "b", "--save-baseline", "x"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("`--save-baseline` does not apply"),
        "{}",
        stderr(&o)
    );
    let o = Command::new(BIN)
        .args(["ab", "a", "b", "--sample-size", "zero"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--sample-size"), "{}", stderr(&o));
    let o = Command::new(BIN).args(["ab", "--help"]).output().unwrap();
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains("Usage: perfbench ab"));
    // A path that does not exist.
    let o = Command::new(BIN)
        .args(["ab", "/nonexistent/old", "/nonexistent/new"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("cannot copy the base build /nonexistent/old"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn two_builds_of_different_suites_are_refused() {
    let s = Scratch::new("suites");
    let list = |id: &str| {
        format!(
            "echo '{HELLO}'; read line; echo '{{\"benchmarks\":[{{\"id\":\"{id}\",\"group\":\"g\",\"name\":\"n\",\"ignore\":false}}]}}'; read line"
        )
    };
    let old = s.script("old", &list("parser/parse"));
    let new = s.script("new", &list("emitter/emit"));
    let o = ab(&old, &new, &[]);
    stops(
        &o,
        &[
            "no selected benchmark in common (base: 1, new: 1)",
            "same suite",
        ],
    );
}
