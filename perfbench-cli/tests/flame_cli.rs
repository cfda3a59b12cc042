//! `perfbench flame` as a user runs it on a profiled benchmark's `stacks.folded`: the SVG
//! written, hostile names kept as text, and a malformed file refused with the line, never a
//! panic.

use std::path::PathBuf;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_perfbench");

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("flame-cli-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("run perfbench")
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn folded_stacks_become_an_svg_whose_names_stay_text() {
    let dir = scratch("hostile");
    let folded = dir.join("stacks.folded");
    std::fs::write(
        &folded,
        "suite/x;<script>alert(1)</script> 30\nsuite/x;light 10\nsuite/x 2\n",
    )
    .unwrap();
    let svg = dir.join("flame.svg");
    let o = run(&[
        "flame".as_ref(),
        folded.as_os_str(),
        "-o".as_ref(),
        svg.as_os_str(),
        "--title".as_ref(),
        "suite/<x>".as_ref(),
        "--subtitle".as_ref(),
        "42 samples of cpu-clock in the measured region".as_ref(),
        "--count-name".as_ref(),
        "samples".as_ref(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(picture.starts_with("<?xml"), "{picture}");
    assert!(
        picture
            .contains("<title>&lt;script&gt;alert(1)&lt;/script&gt; (30 samples, 71.43%)</title>"),
        "{picture}"
    );
    assert!(picture.contains("<title>light (10 samples, 23.81%)</title>"));
    assert!(!picture.contains("<script>alert"), "{picture}");
    assert!(picture.contains("suite/&lt;x&gt;"), "{picture}");
    assert!(picture.contains("42 samples of cpu-clock in the measured region"));
    // inferno's own script only.
    assert_eq!(picture.matches("<script").count(), 1);

    // Without -o: the same picture on standard output.
    let o = run(&[
        "flame".as_ref(),
        folded.as_os_str(),
        "--title".as_ref(),
        "suite/<x>".as_ref(),
        "--subtitle".as_ref(),
        "42 samples of cpu-clock in the measured region".as_ref(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout), picture);
}

#[test]
fn a_malformed_file_is_refused_with_its_line_and_nothing_written() {
    let dir = scratch("malformed");
    let svg = dir.join("flame.svg");
    for (body, want) in [
        (
            "suite/x;a 3\nsuite/x;b three\n",
            "line 2: `suite/x;b three` is not `STACK COUNT`",
        ),
        ("suite/x;a\n", "line 1: `suite/x;a` is not `STACK COUNT`"),
        ("\n\n", "no stacks to draw"),
        ("\u{feff}\0\0\0 -5\n", "line 1"),
    ] {
        let folded = dir.join("stacks.folded");
        std::fs::write(&folded, body).unwrap();
        let o = run(&[
            "flame".as_ref(),
            folded.as_os_str(),
            "-o".as_ref(),
            svg.as_os_str(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{body:?}: {}", text(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(want), "{body:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(!svg.exists());
    }
    // A missing file, and no file at all.
    let o = run(&["flame".as_ref(), dir.join("nope").as_os_str()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot read"));
    let o = run(&["flame".as_ref()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("FOLDED stacks file is required"));
}
