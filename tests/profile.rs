//! `cargo bench -- --profile FILTER` as a user runs it: the fixture suite profiled, its
//! perf.data files where they are promised, opened by the real `perf` (where installed; `CI`
//! requires it), and nothing else written.

use std::path::Path;
use std::process::Command;

const FIXTURE: &str = env!("CARGO_BIN_EXE_html-fixture");

fn run(target: &Path, args: &[&str]) -> std::process::Output {
    Command::new(FIXTURE)
        .arg("--bench")
        .args(args)
        .env("CARGO_TARGET_DIR", target)
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
