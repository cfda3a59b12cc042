//! Paired runs end to end, with real workers: copies of `tests/fixtures/paired_fixture.rs` (the
//! `paired-fixture` binary) act as the two builds, one of them made slower, panicking or
//! crashing through the environment (see the fixture's documentation). And the other run of
//! two builds in fresh processes: a change confirmed before it is reported.
//!
//! One `#[test]` per scenario; they take a lock in turn, so no two measurements share the
//! machine's cores.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, MutexGuard};

use perfbench_analysis::model::json::from_json;
use perfbench_analysis::model::{Change, Method, Outcome, Report, Verdict};

const FIXTURE: &str = env!("CARGO_BIN_EXE_paired-fixture");

/// Short runs: the fixture's bodies are tiny, and the verdicts asked for are large.
const QUICK: &[&str] = &[
    "--sample-size",
    "12",
    "--rounds",
    "4",
    "--warm-up-time",
    "0.02",
    "--measurement-time",
    "0.1",
    "--counters",
    "wall-time",
];

/// `spin` measured and saved as baseline `main`.
const SAVE_MAIN: &[&str] = &[
    "--bench",
    "spin",
    "--save-baseline",
    "main",
    "--discard-baseline",
];

struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("perfbench-paired-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch { dir }
    }

    /// A copy of the fixture at `<dir>/<sub>/fixture`: a build of its own.
    fn copy(&self, sub: &str) -> PathBuf {
        let path = self.dir.join(sub).join("fixture");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::copy(FIXTURE, &path).unwrap();
        path
    }

    /// Runs `exe` with `args`, its target directory (reports, baselines) in the scratch
    /// directory and the environment `env`.
    fn run(&self, exe: &Path, args: &[&str], env: &[(&str, &Path)]) -> Output {
        let mut cmd = Command::new(exe);
        cmd.args(args)
            .env("CARGO_TARGET_DIR", self.dir.join("target"))
            .env("NO_COLOR", "1")
            .env_remove("PAIRED_FIXTURE_SLOW")
            .env_remove("PAIRED_FIXTURE_PANIC")
            .env_remove("PAIRED_FIXTURE_ABORT");
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    }

    fn report(&self, name: &str) -> Report {
        let text = std::fs::read_to_string(self.dir.join(name)).expect("report written");
        from_json(&text).expect("report reads")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn args<'a>(first: &[&'a str]) -> Vec<&'a str> {
    first.iter().chain(QUICK).copied().collect()
}

/// Held by each test for its whole run: no two measurements share the machine's cores.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    // A test that failed holding the lock leaves it poisoned; the others still run.
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// `--save-baseline` keeps the executable (with `--no-confirm`, from the run's one process);
/// `--paired` runs it beside this one, in fresh processes each round, and with
/// `--null-control` a third.
#[test]
fn a_saved_baseline_is_paired_with_this_build() {
    let _serial = serial();
    let s = Scratch::new("saved");
    let exe = s.copy("build");
    // `--no-confirm`: saved from this run's one process, nothing measured again.
    let line = ["--bench", "spin", "--save-baseline", "main", "--no-confirm"];
    let o = s.run(&exe, &args(&line), &[]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(!text(&o).contains("fresh process"), "{}", text(&o));
    let saved = s.dir.join("target/perfbench/baselines/main/fixture.exe");
    assert!(saved.is_file(), "{}", text(&o));
    let runs = s
        .report("target/perfbench/baselines/main/fixture.json")
        .runs();
    assert_eq!(runs, 1, "{}", text(&o));
    let json = s.dir.join("paired.json");
    let o = s.run(
        &exe,
        &args(&[
            "--bench",
            "spin",
            "--paired",
            "main",
            "--null-control",
            "--noise-threshold",
            "50",
            "--precision",
            "0",
            "--json",
            json.to_str().unwrap(),
        ]),
        &[],
    );
    assert!(o.status.success(), "{}", text(&o));
    let report = s.report("paired.json");
    assert_eq!(report.baseline.as_ref().unwrap().name, "main");
    let spin = report.bench("fixture/spin").expect("spin measured");
    let wall = spin.counter("wall-time").unwrap();
    // Four rounds of three pairs (`--precision 0`: no more, however the verdict stands).
    assert_eq!(wall.rounds, vec![3, 3, 3, 3], "{}", text(&o));
    let change = wall.change.expect("compared");
    assert_eq!(change.method, Method::Paired);
    assert_eq!(change.verdict, Verdict::Unchanged, "{}", text(&o));
    // Only what was asked for ran.
    assert!(report.bench("fixture/panics").is_none());
    // The paired run is also the suite's latest run, and its HTML report overlays the
    // baseline build's samples of this same run.
    assert!(s.dir.join("target/perfbench/fixture.json").is_file());
    let page = s
        .dir
        .join("target/perfbench/report/fixture/000-fixture_spin.html");
    let html = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
    assert!(html.contains("overlaid with 12 values of main"), "{html}");
    assert!(html.contains("(paired)"), "{html}");
}

/// A run compared with a baseline measures a regressed benchmark again in fresh processes before
/// it reports the regression, and keeps their figures (this build's in its report, the
/// baseline's build's in the baseline): a process that sat slow for its whole life is not a
/// regression (one more process says so, and a paired run of both builds), a slower build is
/// (four more, and the baseline's build until it has as many, and a paired run checks it), a
/// slowdown only a paired run sees is found by it, and with `--no-confirm` the first process's
/// change stands.
#[test]
fn a_regression_is_confirmed_in_fresh_processes() {
    let _serial = serial();
    let s = Scratch::new("confirm");
    let (base, slow) = (s.copy("base"), s.copy("slow"));
    // The baseline's floor from the fastest of three processes: two saves, the first of which
    // measured a second process (a baseline is never saved from one process alone).
    for save in 0..2 {
        let o = s.run(&base, &args(SAVE_MAIN), &[]);
        assert!(o.status.success(), "{}", text(&o));
        let second = "once more in a fresh process for the baseline";
        assert_eq!(text(&o).contains(second), save == 0, "{}", text(&o));
    }
    let baseline_runs = || {
        s.report("target/perfbench/baselines/main/fixture.json")
            .runs()
    };
    assert_eq!(baseline_runs(), 3);
    // Each run starts from the baseline as saved (as a CI job restores it from its cache).
    let saved = s.dir.join("target/perfbench/baselines/main/fixture.json");
    let as_saved = std::fs::read(&saved).unwrap();
    let json = s.dir.join("run.json");
    let judged = |exe: &Path, extra: &[&str], env: &[(&str, &Path)]| {
        std::fs::write(&saved, &as_saved).unwrap();
        // Processes of this debug build sit up to 15% apart, and a neighbour can slow one
        // throughout (by 100% on the project's VM, and the baseline's fastest as much): a
        // threshold of +200%, about halfway (in ratio) from the same work to ten times it.
        let mut line = vec![
            "--bench",
            "spin",
            "--baseline",
            "main",
            "--noise-threshold",
            "200",
        ];
        line.extend(["--json", json.to_str().unwrap()]);
        line.extend_from_slice(extra);
        let o = s.run(exe, &args(&line), env);
        assert!(o.status.success(), "{}", text(&o));
        let change = spin_change(&s);
        let again = s
            .report("run.json")
            .earlier_figures("fixture/spin", "wall-time")
            .len();
        let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
        (change.verdict, again, stdout, text(&o))
    };
    // The first process of the same build does ten times the work; fresh ones do not.
    let once = s.dir.join("once");
    let slow_once = [("PAIRED_FIXTURE_SLOW_ONCE", once.as_path())];
    let (verdict, again, stdout, all) = judged(&base, &[], &slow_once);
    assert_eq!((verdict, again), (Verdict::Unchanged, 1), "{all}");
    assert!(
        stdout.contains("Measuring 1 regressed benchmark again in fresh processes"),
        "{all}"
    );
    assert!(stdout.contains("fixture/spin  wall-time: +"), "{all}");
    assert!(
        stdout.contains("with 1 more of this build and 1 of the baseline's: unchanged"),
        "{all}"
    );
    // What the fresh processes left unchanged, a paired run of both builds settles: unchanged.
    assert!(
        stdout.contains("Pairing 1 benchmark the fresh processes left unchanged"),
        "{all}"
    );
    assert!(stdout.contains("paired ["), "{all}");
    assert_eq!(spin_change(&s).method, Method::Paired, "{all}");
    // The baseline's build measured in the first round (the machine as it is now), and kept.
    assert_eq!(baseline_runs(), 4, "{all}");
    std::fs::remove_file(&once).unwrap();
    // A slowdown the fresh processes do not see (this copy is slow as a paired run's worker
    // only): the paired run finds it, and its change stands.
    let slow_worker = [
        ("PAIRED_FIXTURE_SLOW_ONCE", once.as_path()),
        ("PAIRED_FIXTURE_SLOW_WORKER", base.as_path()),
    ];
    let (verdict, again, stdout, all) = judged(&base, &[], &slow_worker);
    assert_eq!((verdict, again), (Verdict::Regressed, 1), "{all}");
    assert!(stdout.contains("with the fresh processes, +"), "{all}");
    assert!(stdout.contains("]: regressed"), "{all}");
    assert_eq!(spin_change(&s).method, Method::Paired, "{all}");
    assert_eq!(baseline_runs(), 4, "{all}");
    std::fs::remove_file(&once).unwrap();
    let (verdict, again, stdout, all) = judged(&base, &["--no-confirm"], &slow_once);
    assert_eq!((verdict, again), (Verdict::Regressed, 0), "{all}");
    assert!(!stdout.contains("fresh process"), "{all}");
    assert_eq!(baseline_runs(), 3, "{all}");
    // A slower build is slower in every process: measured in four more, and the baseline's
    // build in two (the first round's, and one to keep up with its five); those two join the
    // baseline's runs.
    let (verdict, again, stdout, all) = judged(&slow, &[], &[("PAIRED_FIXTURE_SLOW", &slow)]);
    assert_eq!((verdict, again), (Verdict::Regressed, 4), "{all}");
    assert!(
        stdout.contains("with 4 more of this build and 2 of the baseline's: regressed"),
        "{all}"
    );
    // Checked by a paired run of both builds, which reads it ten times slower too: it stands,
    // with the paired change.
    assert!(
        stdout.contains("Pairing 1 benchmark the fresh processes confirmed regressed"),
        "{all}"
    );
    assert!(stdout.contains("]: regressed\n"), "{all}");
    assert_eq!(spin_change(&s).method, Method::Paired, "{all}");
    assert_eq!(baseline_runs(), 5, "{all}");
    // Started to stream to a tool that is not there: exit 2, saying so, nothing measured.
    let nowhere = s.dir.join("nobody.sock");
    let line = [
        "--bench",
        "spin",
        "--perfbench-stream",
        nowhere.to_str().unwrap(),
    ];
    let o = s.run(&base, &args(&line), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("cannot reach the perfbench tool at"),
        "{}",
        text(&o)
    );
    assert!(o.stdout.is_empty(), "{}", text(&o));
}

/// A baseline saved while its build sat slow (both processes of the save do ten times the work;
/// the executable the baseline keeps, a copy elsewhere, does not) reads the same build faster:
/// the baseline's build is measured again in one fresh process, its floor comes down, and the
/// change is unchanged; with `--no-confirm` it stands as the run read it. A baseline's build
/// that is slower in every process is measured again while it reads so, and the improvement
/// stands.
#[test]
fn a_run_that_reads_faster_measures_the_baselines_build_again() {
    let _serial = serial();
    let s = Scratch::new("faster");
    let base = s.copy("base");
    let o = s.run(&base, &args(SAVE_MAIN), &[("PAIRED_FIXTURE_SLOW", &base)]);
    assert!(o.status.success(), "{}", text(&o));
    let baseline_runs = || {
        s.report("target/perfbench/baselines/main/fixture.json")
            .runs()
    };
    assert_eq!(baseline_runs(), 2);
    let saved = s.dir.join("target/perfbench/baselines/main/fixture.json");
    let as_saved = std::fs::read(&saved).unwrap();
    let json = s.dir.join("run.json");
    // Processes of this debug build can sit half as fast as another on a busy machine: a
    // threshold of 80%, which the same work reads within in any two processes and a tenth of
    // it beyond (improved below -80%).
    let judged = |extra: &[&str]| {
        let mut line = vec!["--bench", "spin", "--baseline", "main"];
        line.extend(["--noise-threshold", "80"]);
        line.extend(["--json", json.to_str().unwrap()]);
        line.extend_from_slice(extra);
        let o = s.run(&base, &args(&line), &[]);
        assert!(o.status.success(), "{}", text(&o));
        let change = spin_change(&s);
        (
            change,
            String::from_utf8_lossy(&o.stdout).into_owned(),
            text(&o),
        )
    };
    // The same work against a baseline ten times slower: improved as the run reads it.
    let (change, stdout, all) = judged(&["--no-confirm"]);
    assert_eq!(change.verdict, Verdict::Improved, "{all}");
    assert!(!stdout.contains("fresh process"), "{all}");
    assert_eq!(baseline_runs(), 2, "{all}");
    // By default the baseline's build is measured again first; this build only where the run's
    // own process then reads slower near the threshold (one that sat slow).
    let (change, stdout, all) = judged(&[]);
    assert_eq!(change.verdict, Verdict::Unchanged, "{all}");
    assert!(
        stdout.contains("to confirm (0 regressed, 1 faster, measured in the baseline's build)"),
        "{all}"
    );
    let more = s.report("run.json").earlier_runs.len();
    let with = match more {
        0 => "with 1 more of the baseline's build: unchanged".to_owned(),
        m => format!("with {m} more of this build and 1 of the baseline's: unchanged"),
    };
    assert!(stdout.contains(&with), "{all}");
    if more == 0 {
        assert_eq!(change.method, Method::Separate, "{all}");
        assert!(!stdout.contains("Pairing"), "{all}");
    }
    assert_eq!(baseline_runs(), 3, "{all}");
    // A real improvement: the baseline's build does ten times the work in every process (the
    // executable the baseline keeps named slow). It reads improved in each fresh process of
    // it, measured again while it does: five in all, and it stands.
    std::fs::write(&saved, &as_saved).unwrap();
    let kept = s.dir.join("target/perfbench/baselines/main/fixture.exe");
    let line = [
        "--bench",
        "spin",
        "--baseline",
        "main",
        "--noise-threshold",
        "80",
    ];
    let o = s.run(&base, &args(&line), &[("PAIRED_FIXTURE_SLOW", &kept)]);
    assert!(o.status.success(), "{}", text(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("with 5 more of the baseline's build: improved"),
        "{}",
        text(&o)
    );
    assert_eq!(baseline_runs(), 7, "{}", text(&o));
}

/// A baseline saved while the machine sat slow (both processes of the save do ten times the
/// work; the executable the baseline keeps does not) hides a build that is as much slower: the
/// run reads it as the baseline, neither slower near the threshold nor faster. The baseline's
/// build is checked in one fresh process, its floor comes down, and the slowdown reads
/// regressed and is confirmed; with `--no-confirm` it reads unchanged. A check that leaves a
/// benchmark as it was says so in one line and is not kept in the baseline.
#[test]
fn a_slowdown_hidden_by_a_baseline_saved_slow_is_found_by_the_check() {
    let _serial = serial();
    let s = Scratch::new("check");
    let (base, slow) = (s.copy("base"), s.copy("slow"));
    let save = |name: &str, env: &[(&str, &Path)]| {
        let line = [
            "--bench",
            "spin",
            "--save-baseline",
            name,
            "--discard-baseline",
        ];
        let o = s.run(&base, &args(&line), env);
        assert!(o.status.success(), "{}", text(&o));
    };
    save("main", &[("PAIRED_FIXTURE_SLOW", &base)]);
    save("plain", &[]);
    let runs = |name: &str| {
        s.report(&format!("target/perfbench/baselines/{name}/fixture.json"))
            .runs()
    };
    assert_eq!((runs("main"), runs("plain")), (2, 2));
    let json = s.dir.join("run.json");
    // Processes of this debug build sit up to 15% apart: a threshold of +200%, whose near miss
    // (+100%) and faster read (-50%) the same work never reaches.
    let judged = |exe: &Path, baseline: &str, extra: &[&str], env: &[(&str, &Path)]| {
        let mut line = vec!["--bench", "spin", "--baseline", baseline];
        line.extend(["--noise-threshold", "200", "--json", json.to_str().unwrap()]);
        line.extend_from_slice(extra);
        let o = s.run(exe, &args(&line), env);
        assert!(o.status.success(), "{}", text(&o));
        let change = spin_change(&s);
        let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
        (change.verdict, stdout, text(&o))
    };
    // The same build against a baseline saved as it runs: checked, unchanged, one line.
    let (verdict, stdout, all) = judged(&base, "plain", &[], &[]);
    assert_eq!(verdict, Verdict::Unchanged, "{all}");
    assert!(
        stdout.contains(
            "Measuring 1 benchmark again in a fresh process of the baseline's build, to read \
             this run against the machine as it is now:\n  1 benchmark checked: unchanged \
             with 1 more of the baseline's build\n"
        ),
        "{all}"
    );
    assert_eq!(runs("plain"), 2, "{all}");
    // Ten times the work against the baseline saved at ten times the work.
    let slow_env = [("PAIRED_FIXTURE_SLOW", slow.as_path())];
    let (verdict, stdout, all) = judged(&slow, "main", &["--no-confirm"], &slow_env);
    assert_eq!(verdict, Verdict::Unchanged, "{all}");
    assert!(!stdout.contains("fresh process"), "{all}");
    let (verdict, stdout, all) = judged(&slow, "main", &[], &slow_env);
    assert_eq!(verdict, Verdict::Regressed, "{all}");
    assert!(
        stdout.contains("to read this run against the machine as it is now:\n"),
        "{all}"
    );
    assert!(stdout.contains("fixture/spin  wall-time: "), "{all}");
    assert!(stdout.contains("with 4 more of this build and"), "{all}");
    assert!(!stdout.contains("checked: unchanged"), "{all}");
    // Its fresh processes are kept in the baseline, as a confirmation's are.
    assert!(runs("main") > 2, "{all}");
}

/// `spin`'s wall-time change in the scratch directory's `run.json`.
fn spin_change(s: &Scratch) -> Change {
    let report = s.report("run.json");
    let wall = report.bench("fixture/spin").unwrap().counter("wall-time");
    wall.and_then(|c| c.change).expect("compared")
}

/// A build made ten times slower is regressed, and the run fails with
/// `--fail-on-regression` (the baseline's saved executable is another copy of the fixture).
#[test]
fn the_paired_change_catches_a_slower_build_and_not_the_same_one() {
    let _serial = serial();
    let s = Scratch::new("ab");
    let (base, slow) = (s.copy("base"), s.copy("slow"));
    let json = s.dir.join("slow.json");
    let o = s.run(
        &slow,
        &args(&[
            "--bench",
            "spin",
            "--save-baseline",
            "x",
            "--discard-baseline",
        ]),
        &[],
    );
    assert!(o.status.success(), "{}", text(&o));
    // The slow copy drives (as `--paired` would); its baseline is the other copy.
    std::fs::copy(
        &base,
        s.dir.join("target/perfbench/baselines/x/fixture.exe"),
    )
    .unwrap();
    let o = s.run(
        &slow,
        &args(&[
            "--bench",
            "spin",
            "--paired",
            "x",
            "--fail-on-regression",
            "--discard-baseline",
            "--json",
            json.to_str().unwrap(),
        ]),
        &[("PAIRED_FIXTURE_SLOW", &slow)],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let wall = s
        .report("slow.json")
        .bench("fixture/spin")
        .unwrap()
        .counter("wall-time")
        .unwrap()
        .change
        .unwrap();
    assert_eq!(wall.verdict, Verdict::Regressed, "{}", text(&o));
    let ratio = wall.ratio.unwrap();
    assert!((5.0..20.0).contains(&ratio), "ten times the work: {ratio}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("regressed"));
}

/// QUICK's settings for the `allocs` benchmark with the allocation count as the counter, and
/// `extra`: saved as baseline `x` from `exe`, and returned for the paired runs.
fn allocs_saved<'a>(s: &Scratch, exe: &Path, extra: &[&'a str]) -> Vec<&'a str> {
    let quick: Vec<&str> = ["--bench", "allocs", "--discard-baseline"]
        .into_iter()
        .chain(QUICK.iter().copied().take_while(|a| *a != "--counters"))
        .chain(["--counters", "alloc-count"])
        .chain(extra.iter().copied())
        .collect();
    let o = s.run(exe, &[&quick[..], &["--save-baseline", "x"]].concat(), &[]);
    assert!(o.status.success(), "{}", text(&o));
    quick
}

/// The allocation counters are paired like any other: one allocation more per iteration
/// (three against two) regresses `alloc-count` exactly, and the same build never does.
#[test]
fn allocation_counters_are_paired_too() {
    let _serial = serial();
    let s = Scratch::new("allocs");
    let (base, slow) = (s.copy("base"), s.copy("slow"));
    let quick = allocs_saved(&s, &base, &[]);
    for (copy, name, slower, code, verdict) in [
        (&base, "same.json", false, 0, Verdict::Unchanged),
        (&slow, "more.json", true, 1, Verdict::Regressed),
    ] {
        let json = s.dir.join(name);
        let env: Vec<(&str, &Path)> = if slower {
            vec![("PAIRED_FIXTURE_SLOW", slow.as_path())]
        } else {
            Vec::new()
        };
        let paired = ["--paired", "x", "--fail-on-regression", "--json"];
        let o = s.run(
            copy,
            &[&quick[..], &paired, &[json.to_str().unwrap()]].concat(),
            &env,
        );
        assert_eq!(o.status.code(), Some(code), "{}", text(&o));
        let report = s.report(name);
        let c = report
            .bench("fixture/allocs")
            .and_then(|b| b.counter("alloc-count"))
            .unwrap_or_else(|| panic!("alloc-count measured: {}", text(&o)))
            .clone();
        let want = if slower { 3.0 } else { 2.0 };
        assert!(c.per_iteration.iter().all(|&v| v == want), "{c:?}");
        assert_eq!(c.change.unwrap().verdict, verdict, "{}", text(&o));
    }
}

/// A benchmark whose paired interval still holds an edge of its threshold after the planned
/// rounds is measured in more rounds, up to four times the plan, unless even that many could
/// not move it off both edges; `--precision 0` keeps the plan. Exact counts make it certain:
/// a slow copy whose processes alternate two and three allocations (a ratio of 1 or 1.5 by
/// round) holds the edge of a 20% threshold after every round, and the cap's rounds would
/// narrow it clear of 0.8; the same two allocations on both sides is a ratio of exactly 1, both
/// edges of a threshold of 0, that no number of rounds can move.
#[test]
fn an_undecided_verdict_takes_more_rounds_up_to_the_cap() {
    let _serial = serial();
    let s = Scratch::new("undecided");
    let (base, slow) = (s.copy("base"), s.copy("slow"));
    let quick = allocs_saved(&s, &base, &[]);
    let turns = s.dir.join("turns");
    let alternate: [(&str, &Path); 2] = [
        ("PAIRED_FIXTURE_SLOW", &slow),
        ("PAIRED_FIXTURE_ALTERNATE", &turns),
    ];
    let at = |t: &'static str| ["--threshold", t];
    for (copy, env, extra, rounds) in [
        (&slow, &alternate[..], &at("alloc-count=20")[..], 16),
        (
            &slow,
            &alternate[..],
            &[&at("alloc-count=20")[..], &["--precision", "0"]].concat()[..],
            4,
        ),
        (&base, &[][..], &at("alloc-count=0")[..], 4),
    ] {
        let json = s.dir.join("undecided.json");
        let o = s.run(
            copy,
            &[
                &quick[..],
                extra,
                &["--paired", "x", "--json", json.to_str().unwrap()],
            ]
            .concat(),
            env,
        );
        assert!(o.status.success(), "{}", text(&o));
        let report = s.report("undecided.json");
        let c = report
            .bench("fixture/allocs")
            .and_then(|b| b.counter("alloc-count"))
            .unwrap_or_else(|| panic!("alloc-count measured: {}", text(&o)));
        assert_eq!(c.rounds.len(), rounds, "{extra:?}: {}", text(&o));
        let change = c.change.unwrap();
        let ratio = change.ratio.unwrap();
        if copy == &base {
            assert_eq!(ratio, 1.0);
            assert_eq!(change.verdict, Verdict::Unchanged, "{}", text(&o));
        } else {
            assert!((1.1..1.35).contains(&ratio), "{ratio}: {}", text(&o));
            let per: std::collections::BTreeSet<u64> =
                c.per_iteration.iter().map(|&v| v as u64).collect();
            assert_eq!(per, [2, 3].into(), "{}", text(&o));
        }
    }
}

/// A benchmark that panics in the new build is reported as panicked (exit 1), and the others
/// are still compared.
#[test]
fn a_panic_on_one_side_is_a_result_and_the_run_goes_on() {
    let _serial = serial();
    let s = Scratch::new("panic");
    let exe = s.copy("build");
    let o = s.run(
        &exe,
        &args(&["--bench", "--save-baseline", "main", "spin", "panics"]),
        &[],
    );
    assert!(o.status.success(), "{}", text(&o));
    let json = s.dir.join("p.json");
    let o = s.run(
        &exe,
        &args(&[
            "--bench",
            "spin",
            "panics",
            "--paired",
            "main",
            "--noise-threshold",
            "50",
            "--json",
            json.to_str().unwrap(),
        ]),
        &[("PAIRED_FIXTURE_PANIC", &exe)],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let report = s.report("p.json");
    let panicked = report.bench("fixture/panics").unwrap();
    assert_eq!(panicked.outcome, Outcome::Panicked);
    let error = panicked.error.as_deref().unwrap();
    assert!(
        error.contains("new build") && error.contains("deliberate panic"),
        "{error}"
    );
    let spin = report.bench("fixture/spin").unwrap();
    assert_eq!(spin.outcome, Outcome::Measured);
    assert!(spin.counter("wall-time").unwrap().change.is_some());
}

/// A worker that dies stops the run with exit 2 and a message naming the build, its exit
/// status and what it last wrote to standard error: never a verdict.
#[test]
fn a_build_that_crashes_stops_the_run_with_its_status() {
    let _serial = serial();
    let s = Scratch::new("abort");
    let exe = s.copy("build");
    let o = s.run(
        &exe,
        &args(&["--bench", "abort", "--save-baseline", "main"]),
        &[],
    );
    assert!(o.status.success(), "{}", text(&o));
    let o = s.run(
        &exe,
        &args(&["--bench", "abort", "--paired", "main"]),
        &[("PAIRED_FIXTURE_ABORT", &exe)],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("error: paired run: the new build"), "{err}");
    assert!(
        err.contains("SIGABRT") || err.contains("signal: 6"),
        "{err}"
    );
    assert!(err.contains("the fixture aborts now"), "{err}");
    assert!(!String::from_utf8_lossy(&o.stdout).contains("regressed"));
}

/// `--paired NAME` where baseline NAME has no saved executable: exit 2, naming the command
/// that saves one.
#[test]
fn a_baseline_without_an_executable_is_an_error() {
    let _serial = serial();
    let s = Scratch::new("noexe");
    let exe = s.copy("build");
    let o = s.run(
        &exe,
        &args(&["--bench", "spin", "--paired", "nothere"]),
        &[],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("baseline `nothere` has no saved executable")
            && err.contains("--save-baseline nothere"),
        "{err}"
    );
}
