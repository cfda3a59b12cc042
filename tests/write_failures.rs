//! A run whose files cannot be written, as on a full disk: the bench binary (the paired fixture,
//! a real `perfbench::main!()` suite) runs with a file size limit of 1 KiB (`ulimit -f 1`, with
//! `SIGXFSZ` ignored), so every write larger than that (the reports, the HTML pages, a baseline
//! and its executable copy; not the small run history) fails partway with `EFBIG`, the error a
//! write gets when the disk fills. The run must say what it could not write, exit 2, and leave every file it could not
//! write as the run before left it, byte for byte, with no temporary file behind.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const FIXTURE: &str = env!("CARGO_BIN_EXE_paired-fixture");

/// The file size limit of the second run, in KiB (`ulimit -f` counts 1024-byte blocks).
const LIMIT_KIB: usize = 1;
/// The same in bytes.
const LIMIT: usize = LIMIT_KIB * 1024;

/// Runs the fixture's `spin` benchmark with a short plan, saving baseline `main`, in `target`;
/// with `limited`, under the file size limit [`LIMIT_KIB`].
fn run(target: &Path, limited: bool) -> Output {
    let args = [
        "--bench",
        "spin",
        "--sample-size",
        "10",
        "--warm-up-time",
        "0.05",
        "--measurement-time",
        "0.2",
        "--save-baseline",
        "main",
    ];
    let mut cmd = if limited {
        // An ignored SIGXFSZ stays ignored across exec: writes past the limit fail with EFBIG
        // instead of killing the process.
        let mut c = Command::new("sh");
        c.arg("-c")
            .arg(format!(
                "trap '' XFSZ; ulimit -f {LIMIT_KIB}; exec \"$0\" \"$@\""
            ))
            .arg(FIXTURE);
        c
    } else {
        Command::new(FIXTURE)
    };
    cmd.args(args)
        .env("CARGO_TARGET_DIR", target)
        .env("NO_COLOR", "1")
        .output()
        .expect("run the fixture")
}

/// Every file below `dir`, by path relative to it, with its bytes.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("read_dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).expect("read");
                out.insert(path.strip_prefix(dir).unwrap().to_path_buf(), bytes);
            }
        }
    }
    out
}

#[test]
fn a_run_that_cannot_write_its_files_says_so_exits_2_and_keeps_the_files_before_it() {
    let dir = std::env::temp_dir().join(format!("perfbench-write-failures-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let target = dir.join("target");

    let first = run(&target, false);
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert_eq!(first.status.code(), Some(0), "{stderr}");
    let out = target.join("perfbench");
    let before = files(&out);
    let baseline = PathBuf::from("baselines/main/paired-fixture.json");
    let latest = PathBuf::from("paired-fixture.json");
    for path in [&baseline, &latest] {
        let len = before.get(path).map_or(0, Vec::len);
        // Larger than the limit, so the second run's writes of them fail partway.
        assert!(
            len > LIMIT,
            "{}: {len} bytes; files: {:?}",
            path.display(),
            before.keys()
        );
    }

    let second = run(&target, true);
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(2), "{stderr}");
    for said in [
        "error: cannot write the JSON report to",
        "error: cannot save baseline `main`",
        "File too large",
    ] {
        assert!(stderr.contains(said), "no {said:?} in:\n{stderr}");
    }
    // The measurement itself was not lost: its summary is on standard output.
    let stdout = String::from_utf8_lossy(&second.stdout);
    assert!(stdout.contains("spin"), "{stdout}");

    // Each file is the one from before, or a whole new one that fit under the limit (the run
    // history, a few hundred bytes, is still written): never half of one, never gone.
    let after = files(&out);
    for (path, bytes) in &before {
        let now = after.get(path);
        assert!(now.is_some(), "{} removed", path.display());
        let now = now.unwrap();
        if now != bytes {
            assert!(
                now.len() <= LIMIT,
                "{}: {} bytes written",
                path.display(),
                now.len()
            );
            if path.extension().is_some_and(|e| e == "json") {
                let text = std::str::from_utf8(now).expect("UTF-8");
                assert!(text.trim_end().ends_with('}'), "{}: {text}", path.display());
            }
        }
    }
    for path in [&baseline, &latest] {
        assert_eq!(after.get(path), before.get(path), "{}", path.display());
    }
    let temporaries: Vec<_> = after
        .keys()
        .filter(|path| path.extension().is_some_and(|e| e == "tmp"))
        .collect();
    assert!(temporaries.is_empty(), "left behind: {temporaries:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
