//! `--simulate` end to end, under the real Valgrind: copies of `tests/fixtures/sim_fixture.rs`
//! (the `sim-fixture` binary) run with `--simulate`, one of them with one instruction more in
//! one body, others panicking or aborting (see the fixture's documentation).
//!
//! These tests need Valgrind (`.ci/run` installs it). Where it is not installed they print why
//! and pass, except under CI (`CI` set), where a missing Valgrind fails them. The exact counts
//! need optimised code (a debug build moves the batched body's input with extra instructions):
//! that test is `#[ignore]`d in debug builds, and CI runs it with
//! `cargo test --release --test simulate`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use perfbench_analysis::model::json::from_json;
use perfbench_analysis::model::{Outcome, Report, Source, Verdict};

const FIXTURE: &str = env!("CARGO_BIN_EXE_sim-fixture");

/// Whether Valgrind can run here; prints why not (and fails under CI, which installs it).
fn valgrind_here() -> bool {
    let ok = Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "Valgrind is not installed, and CI must install it (.ci/run)"
        );
        eprintln!("skipped: Valgrind is not installed here (apt-get install valgrind)");
    }
    ok
}

struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("perfbench-sim-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch { dir }
    }

    /// A copy of the fixture at `<dir>/<variant>/sim-fixture`: the variant is its directory's
    /// name (`base`, `plus`, `panic`, `abort`).
    fn copy(&self, variant: &str) -> PathBuf {
        let path = self.dir.join(variant).join("sim-fixture");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::copy(FIXTURE, &path).unwrap();
        path
    }

    /// Runs `exe --bench ARGS` with its target directory in the scratch directory.
    fn run(&self, exe: &Path, args: &[&str]) -> Output {
        let mut tries = 0;
        loop {
            let out = Command::new(exe)
                .arg("--bench")
                .args(args)
                .env("CARGO_TARGET_DIR", self.dir.join("target"))
                .env("NO_COLOR", "1")
                .output();
            match out {
                // A copy just written can be busy for a moment: another test's thread that
                // forked meanwhile holds its file open until that child executes.
                Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < 50 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                out => return out.unwrap(),
            }
        }
    }

    fn json(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn report(path: &Path) -> Report {
    from_json(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Counter `name` of benchmark `id`: its samples.
fn samples(r: &Report, id: &str, name: &str) -> Vec<f64> {
    let b = r.bench(id).unwrap_or_else(|| panic!("no benchmark {id}"));
    let c = b
        .counter(name)
        .unwrap_or_else(|| panic!("{id}: no counter {name}"));
    // The allocation counters are the counting allocator's under Callgrind too.
    let source = if c.unit == "bytes" || name.ends_with("alloc-count") {
        Source::Allocator
    } else {
        Source::Callgrind
    };
    assert_eq!(c.source, source, "{id} {name}");
    c.per_iteration.clone()
}

/// Every sample of counter `name` of `id` is exactly `want`.
fn assert_exact(r: &Report, id: &str, name: &str, want: f64) {
    let s = samples(r, id, name);
    assert!(!s.is_empty());
    assert!(
        s.iter().all(|&v| v == want),
        "{id} {name}: {s:?}, want {want}"
    );
}

/// Makes the processes of run `i` get process ids of 3, 4 or 5 digits in turn, where this
/// process may (root: CI): a process id is in the Callgrind dump's header, and Valgrind's
/// gdbserver put it in `/proc/self/maps`, which the Rust runtime reads at startup; an id of
/// another length once changed a branch-miss count (CI, when the ids wrapped from 32768 to 300).
/// Elsewhere it says why not; the runs then take the ids they get.
fn steer_pids(i: usize) {
    let last = [500, 5_000, 20_000][i % 3];
    if let Err(e) = std::fs::write("/proc/sys/kernel/ns_last_pid", last.to_string()) {
        if i == 0 {
            eprintln!("process ids not steered (/proc/sys/kernel/ns_last_pid: {e})");
        }
    }
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "exact counts of the batched body need optimised code: CI runs `cargo test --release --test simulate`"
)]
fn simulated_counts_are_exact_and_the_same_every_run() {
    if !valgrind_here() {
        return;
    }
    let s = Scratch::new("exact");
    let exe = s.copy("base");
    let mut runs = Vec::new();
    let mut printed = Vec::new();
    for i in 0..10 {
        steer_pids(i);
        let json = s.json(&format!("run{i}.json"));
        let out = s.run(
            &exe,
            &[
                "--simulate",
                "--json",
                json.to_str().unwrap(),
                "--format",
                "terse",
            ],
        );
        assert!(out.status.success(), "{}", text(&out));
        printed.push(text(&out));
        runs.push(report(&json));
    }
    let r = &runs[0];
    assert_eq!(
        r.machine.simulator.as_ref().map(|s| s.tool.as_str()),
        Some("callgrind")
    );
    // Bodies of exactly k instructions read exactly k, and no branch (nor allocation).
    for k in [0u32, 3, 37, 1001, 4099] {
        let id = format!("sim-fixture/k{k}");
        assert_exact(r, &id, "instructions", f64::from(k));
        assert_exact(r, &id, "branches", 0.0);
        assert_exact(r, &id, "alloc-count", 0.0);
    }
    // A threaded body: the threads' counts summed.
    assert_exact(r, "sim-fixture/threaded/1", "instructions", 37.0);
    assert_exact(r, "sim-fixture/threaded/2", "instructions", 74.0);
    // Each records its thread count, and the terse line of the one on 2 threads says what its
    // figures are; a body that is not threaded records none.
    for n in [1, 2] {
        let b = r.bench(&format!("sim-fixture/threaded/{n}")).unwrap();
        assert_eq!(b.threads, Some(n), "{}", b.id);
    }
    assert_eq!(r.bench("sim-fixture/k37").unwrap().threads, None);
    let line = printed[0]
        .lines()
        .find(|l| l.starts_with("sim-fixture/threaded/2 "))
        .unwrap_or_else(|| panic!("no line for threaded/2 in\n{}", printed[0]));
    assert!(
        line.ends_with("on 2 threads (counters summed over the threads; wall-time per thread)"),
        "{line}"
    );
    // The allocation counters under Callgrind: three allocations of 48 bytes, freed at once.
    for (name, want) in [
        ("alloc-count", 3.0),
        ("alloc-bytes", 144.0),
        ("dealloc-count", 3.0),
        ("realloc-count", 0.0),
        ("alloc-peak-bytes", 48.0),
    ] {
        assert_exact(r, "sim-fixture/allocs", name, want);
    }
    // The batched body's 37, its costly setup (about 100,000 instructions) not counted.
    assert_exact(r, "sim-fixture/batched_costly_setup", "instructions", 37.0);
    for which in 0..6 {
        let id = format!("sim-fixture/batched_sizes/{which}");
        assert_exact(r, &id, "instructions", 37.0);
    }
    // The loop: 3 instructions and one conditional branch per pass; the sizes differ by
    // exactly the extra passes.
    let at = |n: u32, name: &str| samples(r, &format!("sim-fixture/asm_loop/{n}"), name)[0];
    for (small, big) in [(100, 200), (200, 300)] {
        assert_eq!(at(big, "instructions") - at(small, "instructions"), 300.0);
        assert_eq!(at(big, "branches") - at(small, "branches"), 100.0);
    }
    for n in [100, 200, 300] {
        let id = format!("sim-fixture/asm_loop/{n}");
        assert_exact(r, &id, "instructions", at(n, "instructions"));
        assert_exact(r, &id, "branches", f64::from(n));
    }
    // Code that is not deterministic shows its spread, never a false exactness.
    let h = samples(r, "sim-fixture/hashmap_random_state", "instructions");
    assert!(h.iter().any(|&v| v != h[0]), "{h:?}");
    // Ten runs: every sample of every deterministic counter of every benchmark identical.
    for (i, other) in runs.iter().enumerate().skip(1) {
        for b in r
            .benchmarks
            .iter()
            .filter(|b| !b.id.contains("random_state"))
        {
            for c in &b.counters {
                assert_eq!(
                    samples(other, &b.id, &c.name),
                    c.per_iteration,
                    "run {i}: {} {}",
                    b.id,
                    c.name
                );
            }
        }
    }
}

#[test]
fn one_instruction_more_regresses_and_nothing_else_moves() {
    if !valgrind_here() {
        return;
    }
    let s = Scratch::new("verdict");
    let (base, plus) = (s.copy("base"), s.copy("plus"));
    // Ten rounds: the `HashMap` benchmark's counts differ from round to round, and its verdict
    // is `unchanged` unless one side's floor lies beyond the other's whole range, which five
    // rounds of the same spread allow about once in 200 comparisons (ten: not once in 200,000
    // simulated), and this test makes eight.
    let quiet: &[&str] = &[
        "--simulate",
        "--format",
        "terse",
        "--counters",
        "instructions,branches",
        "--rounds",
        "10",
    ];
    let saved = s.run(&base, &[quiet, &["--save-baseline", "main"]].concat());
    assert!(saved.status.success(), "{}", text(&saved));
    // One more instruction in one body: that benchmark regressed, exit 1.
    let json = s.json("plus.json");
    let out = s.run(
        &plus,
        &[
            quiet,
            &["--baseline", "main", "--fail-on-regression"],
            &["--json", json.to_str().unwrap()],
        ]
        .concat(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let r = report(&json);
    for b in &r.benchmarks {
        for c in &b.counters {
            let change = c
                .change
                .unwrap_or_else(|| panic!("{} {}: no change", b.id, c.name));
            let want = if b.id == "sim-fixture/k37" && c.name == "instructions" {
                assert_eq!(change.ratio, Some(38.0 / 37.0));
                Verdict::Regressed
            } else {
                Verdict::Unchanged
            };
            assert_eq!(change.verdict, want, "{} {}", b.id, c.name);
        }
    }
    // The unchanged build against its own baseline: exit 0, every time.
    for _ in 0..3 {
        let out = s.run(
            &base,
            &[quiet, &["--baseline", "main", "--fail-on-regression"]].concat(),
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("0 regressed, 0 improved"), "{}", text(&out));
    }
    // A simulated baseline is not compared with a counted run: a note, no change.
    let json = s.json("counted.json");
    let out = s.run(
        &base,
        &[
            "--baseline",
            "main",
            "--quick",
            "--counters",
            "wall-time",
            "k3",
            "--json",
            json.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("baseline `main` was simulated under Callgrind"),
        "{}",
        text(&out)
    );
    assert!(report(&json)
        .benchmarks
        .iter()
        .flat_map(|b| &b.counters)
        .all(|c| c.change.is_none()));
}

#[test]
fn a_panic_or_a_crash_loses_one_benchmark_only() {
    if !valgrind_here() {
        return;
    }
    let s = Scratch::new("crash");
    for (variant, outcome, says) in [
        (
            "panic",
            Outcome::Panicked,
            "deliberate panic under Callgrind",
        ),
        ("abort", Outcome::Failed, "killed by signal 6"),
    ] {
        let exe = s.copy(variant);
        let json = s.json(&format!("{variant}.json"));
        let out = s.run(
            &exe,
            &[
                "--simulate",
                "--counters",
                "instructions",
                "--json",
                json.to_str().unwrap(),
                "misbehave",
                "k3",
                "sort_fixed",
            ],
        );
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        let r = report(&json);
        let bad = r.bench("sim-fixture/misbehave").unwrap();
        assert_eq!(bad.outcome, outcome, "{}", text(&out));
        let error = bad.error.as_deref().unwrap();
        assert!(error.contains(says), "{error}");
        if variant == "abort" {
            // The end of the process's own output comes with it.
            assert!(error.contains("the fixture aborts now"), "{error}");
        }
        for id in [
            "sim-fixture/k3",
            "sim-fixture/k37",
            "sim-fixture/sort_fixed",
        ] {
            assert_eq!(r.bench(id).unwrap().outcome, Outcome::Measured, "{id}");
        }
        assert_exact(&r, "sim-fixture/k3", "instructions", 3.0);
    }
}

#[test]
fn usage_and_environment_errors_exit_2_with_what_to_do() {
    if !valgrind_here() {
        return;
    }
    let s = Scratch::new("errors");
    let exe = s.copy("base");
    // Valgrind not on PATH.
    let out = Command::new(&exe)
        .args(["--bench", "--simulate", "k3"])
        .env("CARGO_TARGET_DIR", s.dir.join("target"))
        .env("PATH", s.dir.join("nothing-here"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Valgrind is not on PATH") && stderr.contains("apt-get install valgrind"),
        "{stderr}"
    );
    // A counter that is not simulated.
    let out = s.run(
        &exe,
        &["--simulate", "--counters", "instructions,wall-time"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("`wall-time` is not simulated"));
    // --simulate with --paired.
    let out = s.run(&exe, &["--simulate", "--paired", "main"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    // The child's flag outside Valgrind.
    let out = s.run(
        &exe,
        &[
            "--perfbench-simulated",
            s.dir.to_str().unwrap(),
            "--exact",
            "sim-fixture/k3",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("run with --simulate instead"));
}

/// The files of directory `dir` whose names end with `suffix`, by name, with their bytes.
fn files_ending(dir: &Path, suffix: &str) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    files.sort();
    files
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "the call tree's caller is inlined only in optimised code: CI runs `cargo test --release --test simulate`"
)]
fn flame_graphs_are_exact_per_call_path_and_the_same_every_run() {
    if !valgrind_here() {
        return;
    }
    let s = Scratch::new("flame");
    let exe = s.copy("base");
    let flames = s.dir.join("target/perfbench/report/sim-fixture/flame");
    let mut runs = Vec::new();
    for i in 0..2 {
        steer_pids(i);
        let json = s.json(&format!("flame{i}.json"));
        let out = s.run(
            &exe,
            &[
                "--simulate",
                "--counters",
                "instructions,branches",
                "--json",
                json.to_str().unwrap(),
                "flame",
                "k37",
            ],
        );
        assert!(out.status.success(), "{}", text(&out));
        // The terminal names each benchmark's flame graph, which the run wrote.
        let stdout = String::from_utf8_lossy(&out.stdout);
        let named: Vec<&str> = stdout
            .lines()
            .filter_map(|l| l.trim().strip_prefix("flame graph  "))
            .collect();
        assert_eq!(named.len(), 3, "{}", text(&out));
        for file in &named {
            assert!(Path::new(file).starts_with(&flames), "{file}");
            assert!(Path::new(file).is_file(), "{file}");
        }
        runs.push((report(&json), files_ending(&flames, ".svg")));
    }
    // Two runs, the same pictures, byte for byte.
    assert_eq!(runs[0].1, runs[1].1);
    let (r, svgs) = &runs[0];
    let names: Vec<&str> = svgs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names
            .iter()
            .filter(|n| n.ends_with(".instructions.svg"))
            .count(),
        3,
        "{names:?}"
    );
    let svg = |suffix: &str| {
        let (_, bytes) = svgs
            .iter()
            .find(|(n, _)| n.ends_with(suffix))
            .unwrap_or_else(|| panic!("no {suffix} in {names:?}"));
        String::from_utf8(bytes.clone()).unwrap()
    };

    // The call tree: flame_parent 18 of its own, flame_leaf_a 103 (one conditional branch),
    // flame_leaf_b 201. The folded stacks hold counts over all the samples' iterations.
    let b = r.bench("sim-fixture/flame").unwrap();
    let flame = b.flame.as_ref().expect("a flame");
    let instructions = b.counter("instructions").unwrap();
    let iterations: u64 = instructions.iterations.iter().sum();
    assert_eq!(flame.iterations, iterations);
    let per_iteration = instructions.per_iteration[0];
    assert!(instructions
        .per_iteration
        .iter()
        .all(|&v| v == per_iteration));
    // The body's own: the call, and what the loop around it costs beyond the empty one's.
    let root = per_iteration as u64 - 322;
    let at = |n: u64| n * iterations;
    let mut want = String::new();
    if root > 0 {
        want.push_str(&format!("sim-fixture/flame {}\n", at(root)));
    }
    want.push_str(&format!(
        "sim-fixture/flame;flame_parent {}\n\
         sim-fixture/flame;flame_parent;flame_leaf_a {}\n\
         sim-fixture/flame;flame_parent;flame_leaf_b {}\n",
        at(18),
        at(103),
        at(201)
    ));
    assert_eq!(flame.folded("instructions").unwrap(), want);
    // Every path's counts add up to the counter's, exactly.
    assert_eq!(flame.total("instructions"), Some(at(per_iteration as u64)));
    let branches = b.counter("branches").unwrap().per_iteration[0];
    assert_eq!(flame.total("branches"), Some(at(branches as u64)));
    assert!(flame
        .folded("branches")
        .unwrap()
        .contains(&format!("flame_parent;flame_leaf_a {}\n", at(1))));
    // The picture: each frame's tooltip has its inclusive count per iteration.
    let picture = svg("-sim-fixture_flame.instructions.svg");
    for (frame, count) in [
        ("sim-fixture/flame", per_iteration as u64),
        ("flame_parent", 322),
        ("flame_leaf_a", 103),
        ("flame_leaf_b", 201),
    ] {
        assert!(
            picture.contains(&format!("<title>{frame} ({count} instructions, ")),
            "{frame} {count}: {picture}"
        );
    }
    // perfbench's own frames are left out, and the empty body's region with them.
    assert!(!picture.contains("perfbench::"), "{picture}");
    assert!(!picture.contains("run_simulated"), "{picture}");

    // A body of 37 `nop`s inlined into the loop: a root of exactly 37 and nothing above it.
    let k37 = r.bench("sim-fixture/k37").unwrap().flame.as_ref().unwrap();
    assert_eq!(
        k37.folded("instructions").unwrap(),
        format!("sim-fixture/k37 {}\n", 37 * k37.iterations)
    );
    assert_eq!(k37.counters, ["instructions"]); // no branch: no branches graph

    // A demangled name with `<`, `&` and `>` stays text in the picture, and its subtree counts
    // twice the call tree.
    let named = svg("-sim-fixture_flame_names.instructions.svg");
    assert!(
        named.contains("<title>&lt;&amp;str as sim_fixture::Hostile&gt;::call_tree_twice ("),
        "{named}"
    );
    assert!(
        named.contains("<title>flame_parent (644 instructions, "),
        "{named}"
    );
    assert!(!named.contains("<&str"), "{named}");

    // The benchmark's page shows its instructions graph and links each.
    let pages = s.dir.join("target/perfbench/report/sim-fixture");
    let (_, page) = files_ending(&pages, "-sim-fixture_flame.html").remove(0);
    let page = String::from_utf8(page).unwrap();
    let first = names
        .iter()
        .find(|n| n.ends_with("-sim-fixture_flame.instructions.svg"))
        .unwrap();
    assert!(
        page.contains(&format!("<img class=\"flame\" src=\"flame/{first}\"")),
        "{page}"
    );
    assert!(
        page.contains("-sim-fixture_flame.branches.svg\">branches</a>"),
        "{page}"
    );
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "the call tree's caller is inlined only in optimised code: CI runs `cargo test --release --test simulate`"
)]
fn the_function_one_instruction_longer_is_the_one_grown_in_the_differential_flame_graph() {
    if !valgrind_here() {
        return;
    }
    let s = Scratch::new("flame-change");
    let (base, plus) = (s.copy("base"), s.copy("leaf-plus"));
    let args: &[&str] = &[
        "--simulate",
        "--counters",
        "instructions,branches",
        "flame",
        "k37",
    ];
    let saved = s.run(&base, &[args, &["--save-baseline", "main"]].concat());
    assert!(saved.status.success(), "{}", text(&saved));
    // The baseline keeps its counts per call path, for comparisons later and elsewhere.
    let stored = report(
        &s.dir
            .join("target/perfbench/baselines/main/sim-fixture.json"),
    );
    assert!(stored.bench("sim-fixture/flame").unwrap().flame.is_some());
    // `flame_leaf_a` one instruction longer per call, against the baseline.
    let json = s.json("plus.json");
    let out = s.run(
        &plus,
        &[
            args,
            &["--baseline", "main", "--json", json.to_str().unwrap()],
        ]
        .concat(),
    );
    assert!(out.status.success(), "{}", text(&out));
    let r = report(&json);
    let verdict = |id: &str, counter: &str| {
        let b = r.bench(id).unwrap();
        b.counter(counter).unwrap().change.unwrap().verdict
    };
    assert_eq!(
        verdict("sim-fixture/flame", "instructions"),
        Verdict::Regressed
    );
    assert_eq!(
        verdict("sim-fixture/flame_names", "instructions"),
        Verdict::Regressed
    );
    assert_eq!(verdict("sim-fixture/flame", "branches"), Verdict::Unchanged);
    assert_eq!(
        verdict("sim-fixture/k37", "instructions"),
        Verdict::Unchanged
    );
    // The terminal names each changed benchmark's differential graph.
    let stdout = String::from_utf8_lossy(&out.stdout);
    let changes: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.trim().strip_prefix("flame graph of the change"))
        .map(str::trim)
        .collect();
    assert_eq!(changes.len(), 2, "{}", text(&out));
    let flames = s.dir.join("target/perfbench/report/sim-fixture/flame");
    let drawn = files_ending(&flames, ".change.svg");
    let names: Vec<&str> = drawn.iter().map(|(n, _)| n.as_str()).collect();
    // Only the counter that changed, of the benchmarks that changed.
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(
        names
            .iter()
            .all(|n| n.ends_with(".instructions.change.svg")),
        "{names:?}"
    );
    for file in &changes {
        assert!(names.iter().any(|n| file.ends_with(n)), "{file}: {names:?}");
    }
    for (name, bytes) in &drawn {
        let picture = String::from_utf8(bytes.clone()).unwrap();
        let calls = if name.contains("flame_names") { 2 } else { 1 };
        // Every frame's tooltip: `flame_leaf_a` grew by its calls per iteration, and nothing
        // else changed of its own.
        let titles: Vec<&str> = picture
            .split("<title>")
            .skip(1)
            .filter_map(|t| t.split("</title>").next())
            .filter(|t| !t.starts_with("all ("))
            .collect();
        assert!(titles.len() >= 4, "{titles:?}");
        for t in &titles {
            if t.starts_with("flame_leaf_a (") {
                let want = format!("flame_leaf_a ({} instructions, ", 104 * calls);
                assert!(t.starts_with(&want), "{t}");
                assert!(t.contains("%; +") && !t.ends_with("; +0.00%)"), "{t}");
            } else {
                assert!(t.ends_with("; 0.00%)"), "{name}: {t}");
            }
        }
        // Drawn red: the one frame.
        assert_eq!(
            picture.matches("fill=\"rgb(255,").count(),
            1,
            "{name}: {picture}"
        );
        assert!(picture.contains("against main"), "{picture}");
    }
}
