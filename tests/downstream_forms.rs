//! Every benchmark form of issue 17, written by a new user in a throwaway downstream crate that
//! depends on this checkout's `perfbench` by path, and driven as that user would drive it:
//! `cargo bench --bench forms -- --list`, a measured run with `--json`, a run with two FILTERs,
//! and the smoke test (`cargo test --benches`).
//!
//! The forms (README "Writing benchmarks", "Coming from criterion or divan"):
//! 1. `args` from any expression: a constant (`args = SIZES`), a range (`args = 1..4`), a
//!    function call (`args = sizes()`), string literals, and `String`s from an expression; the
//!    ids show each value's `Display`.
//! 2. Throughput per argument: `throughput = bytes(len)` / `elements(n * 2)` using the
//!    argument, and `b.throughput(Throughput::Bytes(n))` from the body (which wins over the
//!    attribute); each benchmark of the JSON report carries its own `{"bytes": N}`.
//! 3. Generic benchmarks: `types = [u8, u64, String]`, and `types` with `args` (`sort_n/u8/64`).
//! 4. Several FILTERs: `-- parse serialize` runs the benchmarks whose id contains either.
//! 5. `iter_batched`, `iter_batched_ref`, `iter_batched_with(.., BatchSize::SmallInput)` and
//!    `iter_batched_ref_with(.., BatchSize::PerIteration)`. Their routines check that each call
//!    gets a fresh input from `setup` (a reused, already sorted input panics the benchmark).
//!
//! The crate and its target directory live in `target/downstream-forms/` of this workspace, the
//! same paths in every run (files are rewritten only when their contents change), so that only
//! the first run compiles perfbench and its dependencies (in the bench profile for the runs, in
//! the dev profile for `cargo test --benches`). A lock file there serialises test processes,
//! which would otherwise overwrite each other's bench binary and reports.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;
use std::time::Instant;

mod throwaway;
use throwaway::{
    path_with, perfbench_tool_dir, serial, show, workspace_target, write_if_changed, Crate,
};

use perfbench_analysis::model::json::from_json;
use perfbench_analysis::model::{Outcome, Report, Throughput};

const WORKSPACE: &str = env!("CARGO_MANIFEST_DIR");
/// The bench target's name, and so the suite's and the default group's.
const SUITE: &str = "forms";

/// The throwaway crate's one bench target.
const BENCH: &str = r#"//! Written by perfbench-suites' tests/downstream_forms.rs: every form of issue 17.
use perfbench::{black_box, perfbench, BatchSize, Bencher, Throughput};
use std::str::FromStr;

// 1. `args` from any expression; the ids show each value's `Display`.

const SIZES: [usize; 3] = [8, 64, 512];

fn sizes() -> Vec<u32> {
    vec![1, 10, 100]
}

#[perfbench(args = SIZES)]
fn const_args(b: &mut Bencher, n: usize) {
    let v = vec![1u8; n];
    b.iter(|| v.iter().map(|&x| u32::from(x)).sum::<u32>());
}

#[perfbench(args = 1..4)]
fn range_args(n: u64) -> u64 {
    (0..n).map(|i| i * i).sum()
}

#[perfbench(args = sizes(), throughput = elements(n))]
fn call_args(b: &mut Bencher, n: u32) {
    b.iter(|| (0..black_box(n)).fold(0u32, |a, i| a.wrapping_add(i)));
}

#[perfbench(args = ["short", "a somewhat longer string"])]
fn str_args(s: &str) -> usize {
    s.split(' ').count()
}

#[perfbench(args = ["alpha", "beta"].map(String::from))]
fn string_args(b: &mut Bencher, s: String) {
    b.iter(|| s.bytes().map(u64::from).sum::<u64>());
}

// 2. Throughput per argument.

#[perfbench(args = [64, 65536], throughput = bytes(len))]
fn scan(b: &mut Bencher, len: usize) {
    let hay = vec![0u8; len];
    b.iter(|| hay.iter().position(|&x| x == 1));
}

#[perfbench(args = [16, 256])]
fn checksum(b: &mut Bencher, n: usize) {
    let data = vec![1u8; n];
    b.throughput(Throughput::Bytes(n as u64));
    b.iter(|| data.iter().map(|&x| u64::from(x)).sum::<u64>());
}

// The body's call wins over the attribute.
#[perfbench(args = [4, 32], throughput = elements(n))]
fn words(b: &mut Bencher, n: u64) {
    let data: Vec<u64> = (0..n).collect();
    b.throughput(Throughput::Bytes(n * 8));
    b.iter(|| data.iter().sum::<u64>());
}

#[perfbench(args = [3, 5], throughput = elements(n * 2))]
fn pairs(n: u64) -> u64 {
    (0..n * 2).product()
}

// 3. Generic benchmarks.

fn descending<T: FromStr>(n: usize) -> Vec<T> {
    (0..n).rev().filter_map(|i| T::from_str(&(i % 256).to_string()).ok()).collect()
}

#[perfbench(types = [u8, u64, String])]
fn sort<T: Ord + Clone + FromStr>(b: &mut Bencher) {
    let v: Vec<T> = descending(100);
    b.iter_batched(|| v.clone(), |mut v| v.sort());
}

#[perfbench(types = [u8, u64, String], args = [64, 512])]
fn sort_n<T: Ord + Clone + FromStr>(b: &mut Bencher, n: usize) {
    let v: Vec<T> = descending(n);
    b.iter_batched_ref(|| v.clone(), |v| v.sort());
}

#[perfbench(types = [u8, Vec<u8>], args = [4, 16])]
fn fill<T: Default + Clone>(n: usize) -> Vec<T> {
    vec![T::default(); n]
}

// 4. Several FILTERs: `-- parse serialize` selects `parse/*`, `serialize/*` and `codec/reparse`.

#[perfbench(group = "parse")]
fn int() -> u64 {
    black_box("123456789").parse().unwrap()
}

#[perfbench(group = "parse")]
fn float() -> f64 {
    black_box("3.14159").parse().unwrap()
}

#[perfbench(group = "serialize", name = "int")]
fn serialize_int() -> String {
    black_box(123_456_789u64).to_string()
}

#[perfbench(group = "codec")]
fn reparse() -> u64 {
    black_box(42u64).to_string().parse().unwrap()
}

#[perfbench(group = "codec")]
fn roundtrip() -> usize {
    black_box("7").len()
}

// 5. Batched inputs. Each routine gets a fresh, unsorted input from `setup`: one that was
// already sorted (reused) fails the assertion and panics the benchmark.

fn unsorted(n: u32) -> Vec<u32> {
    (0..n).map(|i| i.wrapping_mul(2_654_435_761) % n).collect()
}

fn sort_fresh(v: &mut Vec<u32>) {
    assert!(!v.windows(2).all(|w| w[0] <= w[1]), "the input was used before");
    v.sort_unstable();
}

#[perfbench]
fn batched(b: &mut Bencher) {
    b.iter_batched(|| unsorted(64), |mut v| {
        sort_fresh(&mut v);
        v
    });
}

#[perfbench]
fn batched_ref(b: &mut Bencher) {
    b.iter_batched_ref(|| unsorted(64), sort_fresh);
}

#[perfbench]
fn batched_small_input(b: &mut Bencher) {
    b.iter_batched_with(
        || unsorted(64),
        |mut v| {
            sort_fresh(&mut v);
            v
        },
        BatchSize::SmallInput,
    );
}

#[perfbench]
fn batched_ref_per_iteration(b: &mut Bencher) {
    b.iter_batched_ref_with(|| unsorted(64), sort_fresh, BatchSize::PerIteration);
}

perfbench::main!();
"#;

/// Every id, in `--list` order (the source order within the one module).
const IDS: &[&str] = &[
    "forms/const_args/8",
    "forms/const_args/64",
    "forms/const_args/512",
    "forms/range_args/1",
    "forms/range_args/2",
    "forms/range_args/3",
    "forms/call_args/1",
    "forms/call_args/10",
    "forms/call_args/100",
    "forms/str_args/short",
    "forms/str_args/a somewhat longer string",
    "forms/string_args/alpha",
    "forms/string_args/beta",
    "forms/scan/64",
    "forms/scan/65536",
    "forms/checksum/16",
    "forms/checksum/256",
    "forms/words/4",
    "forms/words/32",
    "forms/pairs/3",
    "forms/pairs/5",
    "forms/sort/u8",
    "forms/sort/u64",
    "forms/sort/String",
    "forms/sort_n/u8/64",
    "forms/sort_n/u8/512",
    "forms/sort_n/u64/64",
    "forms/sort_n/u64/512",
    "forms/sort_n/String/64",
    "forms/sort_n/String/512",
    "forms/fill/u8/4",
    "forms/fill/u8/16",
    "forms/fill/Vec<u8>/4",
    "forms/fill/Vec<u8>/16",
    "parse/int",
    "parse/float",
    "serialize/int",
    "codec/reparse",
    "codec/roundtrip",
    "forms/batched",
    "forms/batched_ref",
    "forms/batched_small_input",
    "forms/batched_ref_per_iteration",
];

/// The throughput each benchmark must carry in the report; every other one carries none.
fn expected_throughput(id: &str) -> Option<Throughput> {
    use Throughput::{Bytes, Elements};
    Some(match id {
        "forms/call_args/1" => Elements(1),
        "forms/call_args/10" => Elements(10),
        "forms/call_args/100" => Elements(100),
        "forms/scan/64" => Bytes(64),
        "forms/scan/65536" => Bytes(65536),
        "forms/checksum/16" => Bytes(16),
        "forms/checksum/256" => Bytes(256),
        // `b.throughput` wins over `throughput = elements(n)`.
        "forms/words/4" => Bytes(32),
        "forms/words/32" => Bytes(256),
        "forms/pairs/3" => Elements(6),
        "forms/pairs/5" => Elements(10),
        _ => return None,
    })
}

/// The same in the report's JSON text: `{"bytes": N}` or `{"elements": N}`, else `null`.
fn throughput_json(t: Option<Throughput>) -> String {
    match t {
        Some(Throughput::Bytes(n)) => format!("{{\"bytes\":{n}}}"),
        Some(Throughput::Elements(n)) => format!("{{\"elements\":{n}}}"),
        None => "null".to_owned(),
    }
}

/// `(group, name, params)` of an id.
fn parts(id: &str) -> (&str, &str, Option<&str>) {
    let mut it = id.splitn(3, '/');
    (it.next().unwrap(), it.next().unwrap(), it.next())
}

// ---------------------------------------------------------------------------------------------
// The throwaway crate.

/// The crate, built once per test process; the lock serialises processes, the mutex the tests
/// of this one (runs must not share the machine's cores, nor the suite's report).
struct Downstream {
    /// The crate; its `PATH` has this checkout's `perfbench` tool first: the crate's lean bench
    /// binary hands its runs to it.
    krate: Crate,
    _lock: perfbench_analysis::baseline::SuiteLock,
}

static CRATE: OnceLock<Downstream> = OnceLock::new();

fn downstream() -> &'static Downstream {
    CRATE.get_or_init(|| {
        let root = workspace_target().join("downstream-forms");
        fs::create_dir_all(&root).unwrap();
        // perfbench's own suite lock (a `flock` on `root/.forms-demo.lock`).
        let lock = perfbench_analysis::baseline::Store::new(&root)
            .lock("forms-demo", |_| {})
            .unwrap();
        let dir = root.join("forms-demo");
        fs::create_dir_all(dir.join("benches")).unwrap();
        let perfbench = Path::new(WORKSPACE).join("perfbench");
        write_if_changed(
            &dir.join("Cargo.toml"),
            &format!(
                "[package]\nname = \"forms-demo\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
                 publish = false\n\n[dev-dependencies]\nperfbench = {{ path = {:?} }}\n\
                 # Most real builds enable serde's `derive` somewhere; perfbench must build\n\
                 # with it on (its `serde::Serialize` would otherwise clash with the derive).\n\
                 serde = {{ version = \"1\", features = [\"derive\"] }}\n\n\
                 [[bench]]\nname = \"{SUITE}\"\nharness = false\n\n\
                 # Its own workspace, never a member of the one around it.\n\
                 [workspace]\n",
                perfbench.display().to_string()
            ),
        );
        // The workspace's versions of every dependency, and no registry access.
        let lock_file = fs::read_to_string(Path::new(WORKSPACE).join("Cargo.lock")).unwrap();
        write_if_changed(&dir.join("Cargo.lock"), &lock_file);
        write_if_changed(&dir.join(format!("benches/{SUITE}.rs")), BENCH);
        let d = Downstream {
            krate: Crate {
                dir,
                target: root.join("target"),
                path: path_with(&perfbench_tool_dir()),
                offline: true,
            },
            _lock: lock,
        };
        let started = Instant::now();
        let out = d.cargo(&["bench", "--bench", SUITE, "--no-run"]);
        assert!(
            out.status.success(),
            "building the throwaway crate failed\n{}",
            show(&out)
        );
        eprintln!(
            "throwaway crate build (bench profile): {:.1} s",
            started.elapsed().as_secs_f64()
        );
        d
    })
}

impl Downstream {
    fn cargo(&self, args: &[&str]) -> Output {
        self.krate.cargo(args)
    }

    /// `cargo bench --bench forms -- ARGS`, which must succeed.
    fn bench(&self, args: &[&str]) -> Output {
        let mut all = vec!["bench", "--bench", SUITE, "--"];
        all.extend_from_slice(args);
        let started = Instant::now();
        let out = self.cargo(&all);
        eprintln!(
            "cargo {}: {:.1} s",
            all.join(" "),
            started.elapsed().as_secs_f64()
        );
        assert!(
            out.status.success(),
            "`cargo {}` failed\n{}",
            all.join(" "),
            show(&out)
        );
        out
    }

    fn json_path(&self, what: &str) -> PathBuf {
        self.krate.json_path(what)
    }
}

/// The report at `path` (removed after reading), and its text.
fn report(path: &Path, out: &Output) -> (Report, String) {
    let text = fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("no report at {}: {e}\n{}", path.display(), show(out)));
    let _ = fs::remove_file(path);
    let report = from_json(&text)
        .unwrap_or_else(|e| panic!("the report does not parse: {e:?}\n{text}\n{}", show(out)));
    (report, text)
}

fn ids(report: &Report) -> Vec<&str> {
    report.benchmarks.iter().map(|b| b.id.as_str()).collect()
}

// ---------------------------------------------------------------------------------------------
// The tests.

#[test]
fn list_shows_every_expansion() {
    let d = downstream();
    let _serial = serial();
    let out = d.bench(&["--list"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let listed: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_suffix(": benchmark"))
        .collect();
    assert_eq!(listed, IDS, "the listed ids\n{}", show(&out));
    // Nothing else on stdout (libtest's format, which tools parse).
    assert_eq!(
        stdout.lines().filter(|l| !l.trim().is_empty()).count(),
        IDS.len(),
        "stray lines on stdout\n{}",
        show(&out)
    );
}

#[test]
fn a_measured_run_reports_every_form() {
    let d = downstream();
    let _serial = serial();
    let json = d.json_path("measured");
    let json_arg = json.to_str().unwrap();
    let out = d.bench(&[
        "--quick",
        "--precision",
        "0",
        "--counters",
        "wall-time",
        "--sample-size",
        "10",
        "--rounds",
        "2",
        "--warm-up-time",
        "0.01",
        "--measurement-time",
        "0.03",
        "--discard-baseline",
        "--json",
        json_arg,
    ]);
    let (report, text) = report(&json, &out);
    assert_eq!(report.suite, SUITE);
    assert_eq!(ids(&report), IDS, "the report's benchmarks\n{}", show(&out));

    let mut problems = Vec::new();
    for b in &report.benchmarks {
        let (group, name, params) = parts(&b.id);
        if (b.group.as_str(), b.name.as_str(), b.params.as_deref()) != (group, name, params) {
            problems.push(format!(
                "{}: group {:?}, name {:?}, params {:?}",
                b.id, b.group, b.name, b.params
            ));
        }
        if b.outcome != Outcome::Measured {
            problems.push(format!("{}: {:?} {:?}", b.id, b.outcome, b.error));
            continue;
        }
        let names: Vec<&str> = b.counters.iter().map(|c| c.name.as_str()).collect();
        if names != ["wall-time"] {
            problems.push(format!("{}: counters {names:?}", b.id));
        }
        match b.counter("wall-time") {
            Some(c) if c.per_iteration.len() == 10 && c.estimate.is_some() => {
                if !c.per_iteration.iter().all(|v| v.is_finite()) {
                    problems.push(format!("{}: wall-time {:?}", b.id, c.per_iteration));
                }
            }
            c => problems.push(format!(
                "{}: wall-time {:?}",
                b.id,
                c.map(|c| (&c.per_iteration, &c.estimate))
            )),
        }
        let want = expected_throughput(&b.id);
        if b.throughput != want {
            problems.push(format!(
                "{}: throughput {:?}, expected {want:?}",
                b.id, b.throughput
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{}\n\n{}",
        problems.join("\n"),
        show(&out)
    );

    // The JSON shape of each benchmark's throughput: `{"bytes": N}`, `{"elements": N}`, `null`.
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    for id in IDS {
        let key = format!("\"id\":{:?}", id.replace(' ', ""));
        let at = compact
            .find(&key)
            .unwrap_or_else(|| panic!("{key} not in the report:\n{text}"));
        let rest = &compact[at..];
        let field = "\"throughput\":";
        let start = rest.find(field).expect("a throughput field") + field.len();
        let value = &rest[start..start + rest[start..].find(",\"outcome\"").unwrap()];
        assert_eq!(
            value,
            throughput_json(expected_throughput(id)),
            "{id}'s throughput in the report's JSON"
        );
    }

    // The terminal output names every benchmark and shows a rate for those with throughput.
    let stdout = String::from_utf8_lossy(&out.stdout);
    for id in IDS {
        assert!(
            stdout.contains(id),
            "{id} not in the output\n{}",
            show(&out)
        );
    }
    assert!(
        stdout.contains("throughput"),
        "no throughput row\n{}",
        show(&out)
    );
}

#[test]
fn several_filters_select_the_union() {
    let d = downstream();
    let _serial = serial();
    let json = d.json_path("filtered");
    let out = d.bench(&[
        "parse",
        "serialize",
        "--quick",
        "--precision",
        "0",
        "--counters",
        "wall-time",
        "--sample-size",
        "10",
        "--rounds",
        "2",
        "--warm-up-time",
        "0.01",
        "--measurement-time",
        "0.03",
        "--discard-baseline",
        "--json",
        json.to_str().unwrap(),
    ]);
    let (report, _) = report(&json, &out);
    let want = ["parse/int", "parse/float", "serialize/int", "codec/reparse"];
    assert_eq!(ids(&report), want, "the filtered run\n{}", show(&out));
    assert!(
        report
            .benchmarks
            .iter()
            .all(|b| b.outcome == Outcome::Measured),
        "{}",
        show(&out)
    );
    // Selecting by type and by argument value works the same way.
    let out = d.bench(&["--list", "/u64", "const_args/64"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let listed: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_suffix(": benchmark"))
        .collect();
    assert_eq!(
        listed,
        [
            "forms/const_args/64",
            "forms/sort/u64",
            "forms/sort_n/u64/64",
            "forms/sort_n/u64/512"
        ],
        "--list with filters\n{}",
        show(&out)
    );
}

/// The ids of the `test ID ... ok` lines of a smoke test, and whether its summary says every
/// one passed.
fn smoke_passed(stdout: &str) -> (Vec<&str>, bool) {
    let ok: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("test ")?.strip_suffix(" ... ok"))
        .collect();
    let summary = format!("test result: ok. {} passed; 0 failed", IDS.len());
    (ok, stdout.contains(&summary))
}

#[test]
fn the_smoke_test_runs_every_body_once() {
    let d = downstream();
    let _serial = serial();
    // `cargo bench -- --test`: each body once, in the bench build.
    let out = d.bench(&["--test"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let (ok, passed) = smoke_passed(&stdout);
    assert_eq!(ok, IDS, "`--test`'s passing benchmarks\n{}", show(&out));
    assert!(passed, "`--test`'s summary\n{}", show(&out));

    // `cargo test --benches`, as the README tells a user: a dev-profile build, no `--bench`.
    let started = Instant::now();
    let out = d.cargo(&["test", "--benches"]);
    eprintln!(
        "cargo test --benches: {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert!(
        out.status.success(),
        "`cargo test --benches` failed\n{}",
        show(&out)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let (ok, passed) = smoke_passed(&stdout);
    assert_eq!(
        ok,
        IDS,
        "`cargo test --benches`' passing benchmarks\n{}",
        show(&out)
    );
    assert!(passed, "`cargo test --benches`' summary\n{}", show(&out));
}
