//! The lean build, end to end: a throwaway downstream crate depends on this checkout's
//! `perfbench` with its default features (the lean build: no `analysis`), and its bench binary
//! is run without the tool and with it (`PERFBENCH_TOOL`, this package's `perfbench`).
//!
//! - The lean dependency tree has no serde, serde_json, plotters or inferno (what makes the build
//!   small).
//! - Without the tool (none installed, building one turned off): `--bench` prints each counter's
//!   median and interval and says in one line why the rest is missing and how to get it;
//!   `--save-baseline` then exits 2; `--list` and `--test` (what `cargo test --benches` runs)
//!   work.
//! - With it: a run prints every benchmark and its summary, writes the JSON report (estimates
//!   computed by the tool), the HTML report and, with `--save-baseline`, the baseline with the
//!   bench executable; a second run compares with that baseline (the attribute's thresholds
//!   reach the tool) and prints the report as JSON with `--format json`; a panicking benchmark
//!   makes the run exit 1; a missing baseline stops it with exit 2 before measuring.
//! - The runs the tool drives itself, the lean binary handing them over: `--paired main` (the
//!   lean binary and the baseline's saved copy as the workers) and `--simulate` (the lean binary
//!   under Callgrind; skipped with a printed reason where Valgrind is not installed); and the
//!   smoke test's `--test --json PATH`, which the tool writes. `--profile` needs the feature
//!   `profile` and says so.
//!
//! The crate is built in the dev profile under this workspace's `target/lean-build` (the same
//! path in every run, so that later runs build incrementally), offline, with the workspace's
//! lock file.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use perfbench_analysis::model::{file, json, Outcome};

/// This workspace's `perfbench` crate (this package is `perfbench-cli`, beside it).
fn perfbench_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join("perfbench")
}

const BENCH: &str = r#"//! Written by perfbench's tests/lean_build.rs.
use perfbench::{black_box, perfbench, Bencher};

#[perfbench(counters = ["wall-time", "page-faults"], thresholds = ["wall-time=40"])]
fn mix() -> u64 {
    let mut x = 0u64;
    for i in 0..black_box(2000u64) {
        x = black_box(x.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(i));
    }
    x
}

#[perfbench(args = [64, 4096], throughput = bytes(len), counters = ["wall-time"])]
fn sum(b: &mut Bencher, len: usize) {
    let data = vec![7u8; len];
    b.iter(|| data.iter().map(|&x| u64::from(x)).sum::<u64>());
}

#[perfbench(counters = ["wall-time"])]
fn sometimes_panics() -> u64 {
    if std::env::var_os("LEAN_PANIC").is_some() {
        panic!("asked to panic");
    }
    if std::env::var_os("LEAN_ABORT").is_some() {
        std::process::abort();
    }
    black_box(1)
}

perfbench::main!();
"#;

fn cargo() -> Command {
    let mut c = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    // What `cargo test` set for this test (the package's manifest, features, ...) is not the
    // throwaway crate's.
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy().into_owned();
        if key.starts_with("CARGO_") && key != "CARGO_HOME" {
            c.env_remove(&key);
        }
    }
    c.env("CARGO_TERM_COLOR", "never")
        .env("CARGO_NET_OFFLINE", "true");
    c
}

/// The workspace's target directory (the parent of `CARGO_TARGET_TMPDIR`).
fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("lean-build")
}

struct Lean {
    dir: PathBuf,
    target: PathBuf,
    exe: PathBuf,
}

impl Lean {
    fn build() -> Lean {
        let dir = std::env::temp_dir().join(format!("perfbench-lean-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("benches")).unwrap();
        fs::write(
            dir.join("Cargo.toml"),
            format!(
                "[package]\nname = \"lean-demo\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
                 publish = false\n\n[dev-dependencies]\n\
                 perfbench = {{ path = {:?} }}\n\n\
                 [[bench]]\nname = \"lean\"\nharness = false\n\n[workspace]\n",
                perfbench_dir()
            ),
        )
        .unwrap();
        fs::write(dir.join("benches/lean.rs"), BENCH).unwrap();
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        fs::copy(workspace.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
        let target = target_dir();
        let tree = cargo()
            .current_dir(&dir)
            .env("CARGO_TARGET_DIR", &target)
            .args([
                "tree", "--edges", "all", "--prefix", "none", "--target", "all",
            ])
            .output()
            .unwrap();
        let tree = format!(
            "{}{}",
            String::from_utf8_lossy(&tree.stdout),
            String::from_utf8_lossy(&tree.stderr)
        );
        assert!(tree.contains("perfbench v"), "cargo tree:\n{tree}");
        for heavy in [
            "serde ",
            "serde_json ",
            "serde_derive ",
            "plotters ",
            "inferno ",
        ] {
            assert!(
                !tree.lines().any(|l| l.starts_with(heavy)),
                "the lean build compiles {heavy}:\n{tree}"
            );
        }
        let out = cargo()
            .current_dir(&dir)
            .env("CARGO_TARGET_DIR", &target)
            .args(["build", "--benches", "--message-format", "json"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "building the lean crate failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The bench executable, from cargo's messages.
        let exe = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| l.contains("\"name\":\"lean\"") && l.contains("\"executable\":\""))
            .filter_map(|l| l.split("\"executable\":\"").nth(1))
            .filter_map(|rest| rest.split('"').next())
            .map(PathBuf::from)
            .next()
            .expect("cargo names the bench executable");
        Lean { dir, target, exe }
    }

    fn reports(&self) -> PathBuf {
        self.target.join("perfbench")
    }

    /// The bench binary with `args`, the tool named by `PERFBENCH_TOOL` (or none at all).
    fn run(&self, tool: bool, args: &[&str], panic: bool) -> Output {
        self.run_with(tool, args, if panic { Some("LEAN_PANIC") } else { None })
    }

    /// The bench binary with `args` in the crate, and no tool named or to be found on `PATH`.
    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(&self.exe);
        c.current_dir(&self.dir)
            .args(args)
            .env("CARGO_TARGET_DIR", &self.target)
            .env_remove("PERFBENCH_TOOL")
            .env_remove("PERFBENCH_BUILD_TOOL")
            .env_remove("LEAN_PANIC")
            .env_remove("LEAN_ABORT")
            .env_remove("CARGO_HOME")
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", &self.dir)
            .env("NO_COLOR", "1");
        c
    }

    /// The bench binary with `args`, no tool installed, building one allowed, and `env` set.
    fn run_without_tool(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        self.command(args)
            .envs(env.iter().copied())
            .output()
            .unwrap()
    }

    /// [`Lean::run`], with the environment variable `var` set.
    fn run_with(&self, tool: bool, args: &[&str], var: Option<&str>) -> Output {
        let mut c = self.command(args);
        if tool {
            c.env("PERFBENCH_TOOL", env!("CARGO_BIN_EXE_perfbench"));
        } else {
            // No tool, and none may be built: the run prints estimates only.
            c.env("PERFBENCH_BUILD_TOOL", "0");
        }
        if let Some(var) = var {
            c.env(var, "1");
        }
        c.output().unwrap()
    }
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A quick run with a fixed plan: every benchmark takes exactly its 10 samples in 2 rounds.
const QUICK: &[&str] = &[
    "--bench",
    "--quick",
    "--precision",
    "0",
    "--rounds",
    "2",
    "--sample-size",
    "10",
];

#[test]
fn a_lean_bench_binary_measures_and_the_tool_analyses() {
    let lean = Lean::build();
    let _ = fs::remove_dir_all(lean.reports());
    let ids = [
        "lean/mix",
        "lean/sum/64",
        "lean/sum/4096",
        "lean/sometimes_panics",
    ];

    // Without the tool: none installed, and building one forbidden, or impossible (a cache
    // directory that cannot be made, a cargo that is not there). Each run prints each counter's
    // median and interval, and one line that says why the rest is missing and how to get it.
    let empty_cache = lean.dir.join("empty-cache");
    let empty = empty_cache.to_str().unwrap();
    let cases: [(&[(&str, &str)], &str); 3] = [
        (&[("PERFBENCH_BUILD_TOOL", "0")], "PERFBENCH_BUILD_TOOL=0"),
        (
            &[("PERFBENCH_CACHE_DIR", "/proc/perfbench-cannot-be-here")],
            "cannot create the `perfbench` tool's cache directory /proc/perfbench-cannot-be-here",
        ),
        (
            &[
                ("PERFBENCH_CACHE_DIR", empty),
                ("CARGO", "/nonexistent/cargo"),
            ],
            "cannot run cargo to build the `perfbench` tool",
        ),
    ];
    for (env, why) in cases {
        let o = lean.run_without_tool(QUICK, env);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{env:?}: {out}\n{err}");
        for id in ids {
            assert!(out.lines().any(|l| l == id), "{id}:\n{out}");
        }
        let wall_lines = out
            .lines()
            .filter(|l| l.trim_start().starts_with("wall-time"));
        assert_eq!(wall_lines.clone().count(), 4, "{out}");
        for line in wall_lines {
            assert!(
                line.contains('[') && line.ends_with("(10 samples)"),
                "{line}"
            );
        }
        assert_eq!(
            out.lines().filter(|l| l.ends_with("(10 samples)")).count(),
            5,
            "{out}"
        );
        let notes: Vec<&str> = err
            .lines()
            .filter(|l| l.contains("estimates only"))
            .collect();
        assert_eq!(notes.len(), 1, "{err}");
        assert!(
            notes[0].contains(why) && notes[0].contains("`cargo install --path "),
            "{err}"
        );
        assert!(!lean.reports().join("lean.json").exists());
    }
    // What only the tool does was asked for: said, and not a success.
    let mut args = QUICK.to_vec();
    args.extend(["--save-baseline", "main"]);
    let o = lean.run(false, &args, false);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}\n{err}");
    assert!(err.contains("need the tool"), "{err}");
    assert!(!lean.reports().join("baselines/main").exists());
    let o = lean.run(false, &["--list"], false);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    for id in ids {
        assert!(out.contains(&format!("{id}: benchmark")), "{out}");
    }
    let o = lean.run(false, &[], false);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains("test result: ok. 4 passed"), "{out}");

    // With it: a run that saves a baseline.
    let mut args = QUICK.to_vec();
    args.extend(["--save-baseline", "main"]);
    let o = lean.run(true, &args, false);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    for id in ids {
        assert!(out.contains(id.rsplit('/').next().unwrap()), "{id}: {out}");
    }
    assert!(out.contains("4 benchmarks: 4 measured"), "{out}");
    assert!(err.contains("saved baseline `main`"), "{err}");
    let report = file::load(&lean.reports().join("lean.json")).unwrap();
    assert_eq!(report.suite, "lean");
    assert_eq!(report.benchmarks.len(), 4);
    for b in &report.benchmarks {
        assert_eq!(b.outcome, Outcome::Measured, "{}", b.id);
        let wall = b.counter("wall-time").unwrap();
        assert_eq!(wall.per_iteration.len(), 10, "{}", b.id);
        assert_eq!(wall.rounds, [5, 5], "{}", b.id);
        let e = wall.estimate.expect("the tool computes the estimates");
        assert!(
            e.point > 0.0 && e.ci_low <= e.point && e.point <= e.ci_high,
            "{e:?}"
        );
    }
    assert!(report
        .bench("lean/mix")
        .unwrap()
        .counter("page-faults")
        .is_some());
    let baseline = lean.reports().join("baselines/main");
    assert!(baseline.join("lean.json").is_file() && baseline.join("lean.exe").is_file());
    assert!(lean.reports().join("report/index.html").is_file());

    // Compared with the baseline, as JSON on stdout.
    let mut args = QUICK.to_vec();
    args.extend(["--baseline", "main", "--format", "json"]);
    let o = lean.run(true, &args, false);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    let printed = json::from_json(&out).unwrap_or_else(|e| panic!("{e}:\n{out}"));
    assert_eq!(
        printed.baseline.as_ref().map(|b| b.name.as_str()),
        Some("main")
    );
    let mix = printed
        .bench("lean/mix")
        .unwrap()
        .counter("wall-time")
        .unwrap();
    let change = mix.change.expect("compared with the baseline");
    // The attribute's `thresholds = ["wall-time=40"]` reached the tool.
    assert_eq!(change.threshold, 0.40, "{change:?}");
    let sum = printed
        .bench("lean/sum/64")
        .unwrap()
        .counter("wall-time")
        .unwrap();
    assert_ne!(sum.change.unwrap().threshold, 0.40);

    // A panicking benchmark: exit 1, the others measured.
    let o = lean.run(true, QUICK, true);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(out.contains("asked to panic"), "{out}");
    let report = file::load(&lean.reports().join("lean.json")).unwrap();
    // In the order selected, though the panicking one finished first.
    let order: Vec<&str> = report.benchmarks.iter().map(|b| b.id.as_str()).collect();
    assert_eq!(order, ids);
    let panicked = report.bench("lean/sometimes_panics").unwrap();
    assert_eq!(panicked.outcome, Outcome::Panicked);
    assert_eq!(report.bench("lean/mix").unwrap().outcome, Outcome::Measured);

    // Paired with the baseline's saved copy: the tool drives both as workers.
    let mut args = QUICK.to_vec();
    args.extend(["--paired", "main", "--json"]);
    let paired_json = lean.dir.join("paired.json");
    args.push(paired_json.to_str().unwrap());
    let o = lean.run(true, &args, false);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    let paired = file::load(&paired_json).unwrap();
    assert_eq!(paired.benchmarks.len(), 4);
    let mix = paired
        .bench("lean/mix")
        .unwrap()
        .counter("wall-time")
        .unwrap();
    let change = mix.change.expect("a paired verdict");
    assert_eq!(
        change.method,
        perfbench_analysis::stats::Method::Paired,
        "{out}"
    );

    // The smoke test's report, written by the tool.
    let smoke_json = lean.dir.join("smoke.json");
    let o = lean.run(
        true,
        &["--test", "--json", smoke_json.to_str().unwrap()],
        false,
    );
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains("test result: ok. 4 passed"), "{out}");
    let smoke = file::load(&smoke_json).unwrap();
    assert_eq!(smoke.benchmarks.len(), 4);
    assert!(smoke
        .benchmarks
        .iter()
        .all(|b| b.outcome == Outcome::Tested));

    // Profile mode samples in the benchmark binary: it needs the feature.
    let o = lean.run(true, &["--bench", "--profile"], false);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("`profile` feature"), "{err}");

    // Simulated under Callgrind, the tool driving the lean binary.
    if Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        let o = lean.run(true, &["--bench", "--simulate", "--quick", "mix"], false);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{out}\n{err}");
        let report = file::load(&lean.reports().join("lean.json")).unwrap();
        let instructions = report
            .bench("lean/mix")
            .unwrap()
            .counter("instructions")
            .unwrap();
        assert_eq!(instructions.source, perfbench::Source::Callgrind);
        let e = instructions.estimate.unwrap();
        assert!(
            e.point > 2000.0 && e.ci_low == e.ci_high,
            "exact counts: {e:?}"
        );
    } else {
        // As tests/simulate.rs: under CI (which installs Valgrind) a missing one fails.
        assert!(
            std::env::var_os("CI").is_none(),
            "Valgrind is not installed (CI is set)"
        );
        eprintln!("skipped --simulate: Valgrind is not installed here (apt-get install valgrind)");
    }

    // A binary that dies mid-run (a benchmark aborts the process): the tool writes nothing.
    let saved = fs::read(lean.reports().join("baselines/main/lean.json")).unwrap();
    let before = fs::read(lean.reports().join("lean.json")).unwrap();
    let mut args = QUICK.to_vec();
    args.extend(["--save-baseline", "main"]);
    let o = lean.run_with(true, &args, Some("LEAN_ABORT"));
    let (out, err) = text(&o);
    assert!(!o.status.success(), "{out}\n{err}");
    assert!(err.contains("ended before its run was over"), "{err}");
    assert_eq!(fs::read(lean.reports().join("lean.json")).unwrap(), before);
    assert_eq!(
        fs::read(lean.reports().join("baselines/main/lean.json")).unwrap(),
        saved
    );

    // A missing baseline stops the run before anything is measured.
    let before = fs::read(lean.reports().join("lean.json")).unwrap();
    let mut args = QUICK.to_vec();
    args.extend(["--baseline", "nosuch"]);
    let o = lean.run(true, &args, false);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}\n{err}");
    assert!(err.contains("no baseline `nosuch`"), "{err}");
    assert_eq!(fs::read(lean.reports().join("lean.json")).unwrap(), before);
    let _ = fs::remove_dir_all(&lean.dir);
}
