//! `cargo bench -- --profile FILTER` as a user runs it: the fixture suite profiled, its
//! perf.data files where they are promised, opened by the real `perf` (where installed; `CI`
//! requires it), and nothing else written; and the flame graph of a suite built with frame
//! pointers, as docs/profile.md asks.
//!
//! Plain `cargo test --test profile` runs it: the flame graph's test builds its fixture itself
//! with `RUSTFLAGS="-C force-frame-pointers=yes"`, in a target directory of its own
//! (`target/frame-pointers`, a minute or two the first time), and the `perfbench` tool that
//! draws the graph in the test's profile.

use std::path::{Path, PathBuf};
use std::process::Command;

#[allow(dead_code)]
mod throwaway;

const FIXTURE: &str = env!("CARGO_BIN_EXE_html-fixture");

/// A `perfbench` tool that is not there: the runs of the html fixture draw no flame graph, and
/// say how to.
const NO_TOOL: &str = "/nonexistent/perfbench-tool";

fn run(target: &Path, args: &[&str]) -> std::process::Output {
    run_exe(Path::new(FIXTURE), NO_TOOL.as_ref(), target, args)
}

fn run_exe(exe: &Path, tool: &Path, target: &Path, args: &[&str]) -> std::process::Output {
    Command::new(exe)
        .arg("--bench")
        .args(args)
        .env("CARGO_TARGET_DIR", target)
        .env("PERFBENCH_TOOL", tool)
        .env("NO_COLOR", "1")
        .output()
        .expect("run the fixture")
}

fn text(o: &std::process::Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn profile_mode_writes_a_perf_data_per_selected_benchmark_and_nothing_else() {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("profile-mode");
    let _ = std::fs::remove_dir_all(&target);
    let o = run(&target, &["--profile", "--quick", "work", "sum"]);
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    for id in ["html-fixture/work", "html-fixture/sum"] {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("{id}: ")))
            .unwrap_or_else(|| panic!("no line for {id}:\n{}", text(&o)));
        assert!(
            line.contains("samples of cpu-clock in the measured region"),
            "{line}"
        );
        let n: u64 = line
            .split_whitespace()
            .nth(1)
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        assert!(n > 50, "{line}");
    }
    // The hottest functions follow each benchmark's line, as percentages.
    assert!(out
        .lines()
        .any(|l| l.trim_start().ends_with('%') || l.contains("%  ")));
    let work = target.join("perfbench/profile/html-fixture/work/perf.data");
    let sum = target.join("perfbench/profile/html-fixture/sum/perf.data");
    assert!(work.is_file() && sum.is_file(), "{}", text(&o));
    // The stacks beside each, and without a tool, no flame graph but the command that draws it.
    for id in ["work", "sum"] {
        let dir = target.join("perfbench/profile/html-fixture").join(id);
        let folded = std::fs::read_to_string(dir.join("stacks.folded")).unwrap();
        assert!(
            folded
                .lines()
                .all(|l| l.starts_with(&format!("html-fixture/{id}"))),
            "{folded}"
        );
        assert!(!dir.join("flame.svg").exists());
    }
    assert!(out.contains("no flame graph: "), "{}", text(&o));
    assert!(
        out.contains("draw it with\n    perfbench flame "),
        "{}",
        text(&o)
    );
    assert!(
        out.contains("html-fixture/work/flame.svg --title html-fixture/work"),
        "{}",
        text(&o)
    );
    // Not selected, not profiled; no report, no HTML, no latest run.
    assert!(!target.join("perfbench/profile/html-fixture/named").exists());
    assert!(!target.join("perfbench/html-fixture.json").exists());
    assert!(!target.join("perfbench/report").exists());

    // perfbench's own reader: every record decodes, every sample has an ip and a time within
    // the SAMPLE_TIME feature's span.
    use perfbench::profile::perfdata::PerfData;
    use perfbench::profile::record::{self, Record, SampleFormat};
    let data = PerfData::read(&work).unwrap();
    let (first, last) = data.features.sample_time.expect("SAMPLE_TIME");
    let attr_bytes = &data.attrs[0].0;
    // perf_event_attr: type, size (u32 each), config, sample_period, then sample_type.
    let sample_type = u64::from_ne_bytes(attr_bytes[24..32].try_into().unwrap());
    let format = SampleFormat {
        sample_type,
        ..SampleFormat::default()
    };
    let mut samples = 0;
    for r in record::split(&data.data) {
        let r = r.unwrap();
        if let Record::Sample(s) = record::parse(&format, r).unwrap() {
            samples += 1;
            assert!(s.ip.is_some_and(|ip| ip != 0));
            assert!(s.time.is_some_and(|t| (first..=last).contains(&t)));
            assert_eq!(s.identifier, Some(data.attrs[0].1[0]));
        }
    }
    assert!(samples > 50, "{samples} samples");

    let perf_ok = Command::new("perf")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !perf_ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install linux-perf"
        );
        eprintln!("skipped the perf checks: perf is not installed here");
        return;
    }
    let report = Command::new("perf")
        .args(["report", "--stdio", "--no-children", "-i"])
        .arg(&work)
        .output()
        .unwrap();
    let r = String::from_utf8_lossy(&report.stdout);
    assert!(report.status.success(), "{r}");
    assert!(r.contains("of event 'html-fixture/work'"), "{r}");
    // The work loop is the benchmark's closure, inlined into the harness's measuring loop.
    assert!(
        r.contains("html_fixture") || r.contains("Body for T"),
        "{r}"
    );
}

#[test]
fn branch_stacks_on_a_software_event_are_refused_with_the_reason() {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("profile-branches");
    let o = run(
        &target,
        &[
            "--profile",
            "--profile-counter",
            "cpu-clock",
            "--branch-filter",
            "any,u",
            "sum",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("cannot sample branch stacks on cpu-clock"),
        "{err}"
    );
    assert!(err.contains("LBR on x86, BRBE on arm64"), "{err}");
    assert!(!target.join("perfbench/profile").exists());
}

#[test]
fn profile_mode_refuses_what_it_cannot_do() {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("profile-refusals");
    for (args, want) in [
        (
            &["--profile", "--save-baseline", "x"][..],
            "exclude each other",
        ),
        (&["--profile", "--simulate"][..], "exclude each other"),
        (&["--profile-counter", "cpu-clock"][..], "need `--profile`"),
        (
            &["--profile", "nothing-matches-this"][..],
            "no benchmark matches",
        ),
        (
            &["--profile", "--profile-counter", "wall-time", "sum"][..],
            "wall-time",
        ),
        (
            &["--profile", "--profile-counter", "no-such-event", "sum"][..],
            "no-such-event",
        ),
        (
            &["--profile", "--branch-filter", "any,bogus", "sum"][..],
            "bogus",
        ),
        (&["--branch-filter", "any"][..], "need `--profile`"),
    ] {
        let o = run(&target, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(want),
            "{args:?}: {}",
            text(&o)
        );
    }
}

/// The profile fixture built with frame pointers, in a target directory of its own beside the
/// workspace's.
fn fixture_with_frame_pointers() -> PathBuf {
    let target = throwaway::workspace_target().join("frame-pointers");
    let out = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("CARGO_TARGET_DIR", &target)
        .env("RUSTFLAGS", "-C force-frame-pointers=yes")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env("CARGO_TERM_COLOR", "never")
        .args(["build", "--quiet", "--bin", "profile-fixture"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", throwaway::show(&out));
    target.join("debug/profile-fixture")
}

/// Each stack of a stacks.folded file: its frames and its samples.
fn stacks(folded: &str) -> Vec<(Vec<&str>, u64)> {
    folded
        .lines()
        .map(|l| {
            let (stack, n) = l.rsplit_once(' ').expect("STACK COUNT");
            (stack.split(';').collect(), n.parse().expect("a count"))
        })
        .collect()
}

#[test]
fn a_suite_with_frame_pointers_gets_the_flame_graph_of_its_measured_region() {
    let exe = fixture_with_frame_pointers();
    let tool = throwaway::perfbench_tool_dir().join("perfbench");
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("profile-flame");
    let _ = std::fs::remove_dir_all(&target);
    let o = run_exe(&exe, &tool, &target, &["--profile", "--quick", "split"]);
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let dir = target.join("perfbench/profile/profile-fixture/split");
    let svg = dir.join("flame.svg");
    assert!(
        out.contains(&format!("  flame graph: {}", svg.display())),
        "{}",
        text(&o)
    );

    let folded = std::fs::read_to_string(dir.join("stacks.folded")).unwrap();
    let all = stacks(&folded);
    let total: u64 = all.iter().map(|s| s.1).sum();
    assert!(total > 50, "{folded}");
    // Sorted, each stack once.
    let lines: Vec<&str> = folded.lines().collect();
    assert!(lines.windows(2).all(|w| w[0] < w[1]), "{folded}");
    for (frames, _) in &all {
        // The root is the benchmark; nothing of the harness or what called it is left.
        assert_eq!(frames[0], "profile-fixture/split", "{folded}");
        for f in &frames[1..] {
            assert!(!f.contains("perfbench::"), "{f} in\n{folded}");
            assert!(
                *f != "main" && !f.starts_with("std::rt::"),
                "{f} in\n{folded}"
            );
        }
    }
    // Each function's samples, where the body called it.
    let under_body = |function: &str| -> u64 {
        all.iter()
            .filter(|(frames, _)| {
                frames
                    .iter()
                    .position(|f| *f == function)
                    .is_some_and(|i| i >= 2 && frames[i - 1].starts_with("profile_fixture::split"))
            })
            .map(|s| s.1)
            .sum()
    };
    let light = under_body("profile_fixture::light");
    let heavy = under_body("profile_fixture::heavy");
    assert!(
        light > 0 && heavy > 2 * light,
        "light {light}, heavy {heavy}:\n{folded}"
    );
    // Hardly a sample without the harness in its chain, with frame pointers.
    let broken: u64 = all
        .iter()
        .filter(|(frames, _)| frames.get(1).is_some_and(|f| f.starts_with("[call chain")))
        .map(|s| s.1)
        .sum();
    assert!(broken * 20 < total, "{broken} of {total}:\n{folded}");

    let picture = std::fs::read_to_string(&svg).unwrap();
    for name in ["profile_fixture::light", "profile_fixture::heavy"] {
        assert!(
            picture.contains(&format!("<title>{name} (")),
            "no {name} in {}",
            svg.display()
        );
    }
    assert!(picture.contains("profile-fixture/split"));
    assert!(picture.contains("samples of cpu-clock in the measured region"));
}
