//! criterion suites run unchanged on perfbench (`perfbench-criterion`), driven as their users
//! drive them: a throwaway crate whose `Cargo.toml` has the one line
//! `criterion = { package = "perfbench-criterion", ... }` (by path to this checkout, with
//! criterion's feature names that suites enable), and whose bench files are
//! `tests/fixtures/criterion/*.rs`, copied as they are:
//! - `api.rs`: every item of criterion's API that real suites use (builder methods, groups,
//!   every `BatchSize`, `iter_custom`, `to_async` on the futures and tokio executors, a custom
//!   `Measurement`, a `Profiler`, both forms of `criterion_group!`); `api_03.rs`: criterion 0.3's deprecated forms (`Benchmark`,
//!   `ParameterizedBenchmark`, `Fun`, `bench_function_over_inputs`, `bench_functions`);
//! - `real_*.rs`: bench files of published crates, byte for byte (fancy-regex, halfbrown with
//!   48 benchmarks, base64 with 88, tracing-subscriber, tracing's `empty_span` with the module
//!   it shares, `modules/shared.rs`, tinytemplate's on criterion 0.3's
//!   `bench_function_over_inputs`; the fixtures' README names them), with the dependencies
//!   their crates' manifests give;
//! - `faulty.rs`, `duplicate.rs` and `broken.rs`: a panicking benchmark, a benchmark whose id
//!   changes from process to process, a target function that panics outside its closures when
//!   measured, two benchmarks with one id, and a target function that always fails;
//! - `custom_main.rs`: a hand-written `main` calling the groups and `final_summary`.
//!
//! What is checked: `--list` gives criterion's ids (for the published suites, exactly what real
//! criterion listed: `real_*.ids`); `cargo test --bench NAME` runs every body once; a measured
//! run reports every benchmark with the settings the suite gave (sample size, throughput);
//! halfbrown's 48 benchmarks are measured, saved as a baseline and compared with it;
//! `--simulate` counts exactly (fancy-regex's suite and every batch size: the same
//! instructions in two runs); the faults are reported and the sound benchmark is measured all
//! the same (exit 1), and a duplicate id is refused before anything runs (exit 2); tracing's
//! suite, whose target function may run only once per process, is measured, saved, paired,
//! simulated and profiled; filters are regular expressions, in every mode.
//!
//! The crate lives in `target/criterion-suites/` of this workspace, the same paths in every run,
//! so only the first run compiles perfbench; a lock file serialises test processes.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::time::Instant;

// Not every helper is used here.
#[allow(dead_code)]
mod throwaway;
use throwaway::{
    path_with, perfbench_tool_dir, serial, show, workspace_target, write_if_changed, Crate,
};

use perfbench_analysis::model::json::from_json;
use perfbench_analysis::model::{Outcome, Report, Throughput};

const WORKSPACE: &str = env!("CARGO_MANIFEST_DIR");

/// `api.rs`'s ids, in definition order: criterion's ids.
const API_IDS: &[&str] = &[
    "fib 10",
    "sum/256",
    "sum/64",
    "sum/512",
    "sum/three/u64",
    "sum/string id",
    "unfinished/nothing",
    "batched/sort/small",
    "batched/sort/large",
    "batched/sort/per_iteration",
    "batched/sort/num_batches",
    "batched/sort/num_iterations",
    "batched/sort_ref",
    "batched/with_setup",
    "batched/large_drop",
    "batched/custom",
    "generic/cube",
    "async/futures",
    "async/tokio",
    "async/batched",
    "async/custom",
    "ticks",
];

/// `api_03.rs`'s ids, in definition order: what criterion 0.3.6 lists for it.
const API_03_IDS: &[&str] = &[
    "shifts/left",
    "shifts/right",
    "alone",
    "sum/iter/64",
    "sum/iter/512",
    "sum/fold/64",
    "sum/fold/512",
    "one value",
    "fill/8",
    "fill/64",
    "fib/recursive",
    "fib/iterative",
];

/// What the published suites (`real_*.rs`) use besides criterion, as their crates' manifests
/// say (tests/fixtures/criterion/README.md names them).
const REAL_DEPENDENCIES: &str = "\
fancy-regex = \"=0.13.0\"
regex = \"1.10\"
halfbrown = \"=0.2.5\"
hashbrown = \"0.14\"
base64 = \"=0.22.1\"
rand = { version = \"0.8.5\", features = [\"small_rng\"] }
tracing-subscriber = \"=0.3.23\"
tracing = \"0.1.44\"
log = \"0.4.17\"
tinytemplate = \"=1.2.1\"
serde = \"1\"
serde_derive = \"1\"
";

/// The fixtures: every `tests/fixtures/criterion/*.rs`, by bench target name.
fn fixtures() -> Vec<(String, PathBuf)> {
    let dir = Path::new(WORKSPACE).join("tests/fixtures/criterion");
    let mut out: Vec<(String, PathBuf)> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .map(|p| (p.file_stem().unwrap().to_str().unwrap().to_owned(), p))
        .collect();
    out.sort();
    out
}

/// The fixtures whose every benchmark is sound.
fn sound_fixtures() -> Vec<String> {
    fixtures()
        .into_iter()
        .map(|(name, _)| name)
        .filter(|n| !["faulty", "duplicate", "broken"].contains(&n.as_str()))
        .collect()
}

struct Demo {
    krate: Crate,
    _lock: perfbench_analysis::baseline::SuiteLock,
}

static CRATE: OnceLock<Demo> = OnceLock::new();

fn demo() -> &'static Demo {
    CRATE.get_or_init(|| {
        let root = workspace_target().join("criterion-suites");
        fs::create_dir_all(&root).unwrap();
        let lock = perfbench_analysis::baseline::Store::new(&root)
            .lock("criterion-demo", |_| {})
            .unwrap();
        let dir = root.join("criterion-demo");
        fs::create_dir_all(dir.join("benches")).unwrap();
        fs::create_dir_all(dir.join("src")).unwrap();
        write_if_changed(&dir.join("src/lib.rs"), "");
        let shim = Path::new(WORKSPACE).join("perfbench-criterion");
        let mut manifest = format!(
            "[package]\nname = \"criterion-demo\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
             publish = false\n# The modules the bench files share are not bench targets.\n\
             autobenches = false\n\n[dev-dependencies]\n\
             # The one line a criterion suite changes, with features criterion suites enable.\n\
             criterion = {{ package = \"perfbench-criterion\", path = {:?}, \
             features = [\"html_reports\", \"cargo_bench_support\", \"profile\", \
             \"async_futures\", \"async_tokio\"] }}\n\
             tokio = {{ version = \"1\", default-features = false, features = [\"rt\"] }}\n\
             {REAL_DEPENDENCIES}",
            shim.display().to_string()
        );
        // Modules the bench files declare (`mod shared;`), beside them.
        for module in
            fs::read_dir(Path::new(WORKSPACE).join("tests/fixtures/criterion/modules")).unwrap()
        {
            let path = module.unwrap().path();
            let text = fs::read_to_string(&path).unwrap();
            write_if_changed(&dir.join("benches").join(path.file_name().unwrap()), &text);
        }
        for (name, source) in fixtures() {
            manifest.push_str(&format!(
                "\n[[bench]]\nname = \"{name}\"\nharness = false\n"
            ));
            let text = fs::read_to_string(&source).unwrap();
            write_if_changed(&dir.join(format!("benches/{name}.rs")), &text);
        }
        manifest
            .push_str("\n# Its own workspace, never a member of the one around it.\n[workspace]\n");
        write_if_changed(&dir.join("Cargo.toml"), &manifest);
        // The workspace's versions of what perfbench uses; cargo adds the published suites'
        // dependencies (from the registry, or its cache).
        if !dir.join("Cargo.lock").exists() {
            let lock_file = fs::read_to_string(Path::new(WORKSPACE).join("Cargo.lock")).unwrap();
            fs::write(dir.join("Cargo.lock"), lock_file).unwrap();
        }
        let d = Demo {
            krate: Crate {
                dir,
                target: root.join("target"),
                path: path_with(&perfbench_tool_dir()),
                // Cargo fetches the published suites' dependencies the lock file lacks.
                offline: false,
            },
            _lock: lock,
        };
        let started = Instant::now();
        let out = d.cargo(&["bench", "--benches", "--no-run"]);
        assert!(
            out.status.success(),
            "building the criterion suites failed\n{}",
            show(&out)
        );
        eprintln!(
            "criterion suites build (bench profile): {:.1} s",
            started.elapsed().as_secs_f64()
        );
        d
    })
}

impl Demo {
    fn cargo(&self, args: &[&str]) -> Output {
        self.krate.cargo(args)
    }

    /// `cargo bench --bench SUITE -- ARGS`.
    fn bench(&self, suite: &str, args: &[&str]) -> Output {
        let mut all = vec!["bench", "--bench", suite, "--"];
        all.extend_from_slice(args);
        let started = Instant::now();
        let out = self.cargo(&all);
        eprintln!(
            "cargo {}: {:.1} s",
            all.join(" "),
            started.elapsed().as_secs_f64()
        );
        out
    }

    fn json_path(&self, what: &str) -> PathBuf {
        self.krate.json_path(what)
    }
}

fn succeeded(out: Output, what: &str) -> Output {
    assert!(out.status.success(), "{what} failed\n{}", show(&out));
    out
}

/// The report at `path` (removed after reading).
fn report(path: &Path, out: &Output) -> Report {
    let text = fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("no report at {}: {e}\n{}", path.display(), show(out)));
    let _ = fs::remove_file(path);
    from_json(&text).unwrap_or_else(|e| panic!("the report does not parse: {e:?}\n{}", show(out)))
}

/// Flags of short runs: what is checked is that every benchmark goes through, not the figures.
const SHORT: &[&str] = &[
    "--quick",
    "--sample-size",
    "10",
    "--measurement-time",
    "0.05",
];

/// The ids of the benchmarks a report has measured, in its order.
fn measured_ids(r: &Report) -> Vec<&str> {
    r.benchmarks
        .iter()
        .filter(|b| b.outcome == Outcome::Measured)
        .map(|b| b.id.as_str())
        .collect()
}

/// The ids `--list` prints.
fn listed(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_suffix(": benchmark"))
        .map(str::to_owned)
        .collect()
}

/// What real criterion's `--list` printed for a published suite (`real_*.ids`).
fn criterions_ids(suite: &str) -> Vec<String> {
    let path = Path::new(WORKSPACE).join(format!("tests/fixtures/criterion/{suite}.ids"));
    fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn list_gives_criterions_ids() {
    let d = demo();
    let _serial = serial();
    let out = succeeded(d.bench("api", &["--list"]), "--list");
    assert_eq!(listed(&out), API_IDS, "{}", show(&out));
    let out = succeeded(d.bench("custom_main", &["--list"]), "--list");
    assert_eq!(
        listed(&out),
        ["own main/add", "own main/mul"],
        "{}",
        show(&out)
    );
    let mut real = 0;
    for suite in sound_fixtures().iter().filter(|s| s.starts_with("real_")) {
        let out = succeeded(d.bench(suite, &["--list"]), "--list");
        assert_eq!(
            listed(&out),
            criterions_ids(suite),
            "{suite}\n{}",
            show(&out)
        );
        real += 1;
    }
    assert!(real >= 4, "only {real} published suites");
}

#[test]
fn cargo_test_runs_every_body_once() {
    let d = demo();
    let _serial = serial();
    for suite in sound_fixtures() {
        let ids = listed(&succeeded(d.bench(&suite, &["--list"]), "--list"));
        let out = succeeded(
            d.cargo(&["test", "--bench", &suite]),
            &format!("cargo test --bench {suite}"),
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        for id in &ids {
            assert!(
                stdout.contains(&format!("test {id} ... ok")),
                "{suite}: `{id}` did not pass\n{}",
                show(&out)
            );
        }
        assert!(
            stdout.contains(&format!("test result: ok. {} passed", ids.len())),
            "{suite}\n{}",
            show(&out)
        );
    }
}

#[test]
fn a_measured_run_keeps_the_suites_settings() {
    let d = demo();
    let _serial = serial();
    let json = d.json_path("api");
    let out = succeeded(
        // A fixed plan (`--precision 0`), so that every benchmark takes its planned samples.
        d.bench(
            "api",
            &[
                "--quick",
                "--precision",
                "0",
                "--json",
                json.to_str().unwrap(),
            ],
        ),
        "a measured run",
    );
    let r = report(&json, &out);
    let ids: Vec<&str> = r.benchmarks.iter().map(|b| b.id.as_str()).collect();
    assert_eq!(ids, API_IDS, "{}", show(&out));
    for b in &r.benchmarks {
        assert_eq!(b.outcome, Outcome::Measured, "{}: {:?}", b.id, b.error);
    }
    let bench = |id: &str| r.benchmarks.iter().find(|b| b.id == id).unwrap();
    // Throughput as the group set it before each benchmark (BytesDecimal: bytes; elements
    // and bytes: the elements).
    assert_eq!(bench("sum/64").throughput, Some(Throughput::Bytes(512)));
    assert_eq!(bench("sum/512").throughput, Some(Throughput::Bytes(4096)));
    assert_eq!(
        bench("sum/three/u64").throughput,
        Some(Throughput::Elements(3))
    );
    assert_eq!(
        bench("sum/string id").throughput,
        Some(Throughput::Bytes(1000))
    );
    assert_eq!(bench("fib 10").throughput, None);
    // perfbench's group, name and parameter of criterion's ids.
    let sum64 = bench("sum/64");
    assert_eq!((sum64.group.as_str(), sum64.name.as_str()), ("sum", "sum"));
    assert_eq!(sum64.params.as_deref(), Some("64"));
    assert_eq!(bench("fib 10").group, "api");
    // Sample sizes: the group's 20, the configured group's 10, `--quick`'s 30 otherwise.
    let samples = |id: &str| bench(id).counter("wall-time").unwrap().per_iteration.len();
    assert_eq!(samples("sum/64"), 20);
    assert_eq!(samples("batched/sort/small"), 20);
    assert_eq!(samples("generic/cube"), 10);
    assert_eq!(samples("ticks"), 10);
    assert_eq!(samples("fib 10"), 30);
    // iter_custom with criterion's wall time: the routine's own time, nothing else; with a
    // custom measurement, the counters bracket the routine's call (all of them).
    let names =
        |id: &str| -> Vec<String> { bench(id).counters.iter().map(|c| c.name.clone()).collect() };
    assert_eq!(names("batched/custom"), ["wall-time"]);
    assert_eq!(names("ticks"), names("fib 10"));
    assert!(names("fib 10").len() > 1, "{:?}", names("fib 10"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("batched/custom: the routine measures its own time"),
        "{}",
        show(&out)
    );
}

#[test]
fn simulated_counts_are_exact() {
    let d = demo();
    let _serial = serial();
    if Command::new("valgrind").arg("--version").output().is_err() {
        panic!("Valgrind is not installed: apt-get install valgrind (see CONTRIBUTING.md)");
    }
    let simulated = |suite: &str, filter: Option<&str>, run: &str| {
        let json = d.json_path(run);
        let mut args = vec!["--simulate", "--json", json.to_str().unwrap()];
        args.extend(filter);
        let out = succeeded(d.bench(suite, &args), "--simulate");
        let r = report(&json, &out);
        let counts: Vec<(String, f64)> = r
            .benchmarks
            .iter()
            .map(|b| {
                let n = b.counter("instructions").and_then(|c| c.estimate.as_ref());
                (b.id.clone(), n.map_or(f64::NAN, |e| e.point))
            })
            .collect();
        assert!(
            counts.iter().all(|(_, n)| *n > 0.0),
            "{counts:?}\n{}",
            show(&out)
        );
        counts
    };
    // A published suite: identical counts in two runs of one build.
    let first = simulated("real_fancy_regex", None, "fancy-1");
    assert_eq!(first.len(), criterions_ids("real_fancy_regex").len());
    assert_eq!(first, simulated("real_fancy_regex", None, "fancy-2"));
    let counts = [simulated("api", Some("batched/sort"), "batched")];
    assert_eq!(counts[0].len(), 6);
    // Every batch size reads the routine's own cost: the same sort of the same input.
    let first = counts[0][0].1;
    for (id, n) in counts[0]
        .iter()
        .filter(|(id, _)| id.starts_with("batched/sort/"))
    {
        assert_eq!(*n, first, "{id}: {n} instructions against {first}");
    }
}

#[test]
fn a_published_suite_is_measured_saved_and_compared() {
    let d = demo();
    let _serial = serial();
    let suite = "real_halfbrown";
    let ids = criterions_ids(suite);
    assert!(ids.len() >= 30, "{} benchmarks", ids.len());
    let json = d.json_path("saved");
    let mut args = SHORT.to_vec();
    args.extend(["--save-baseline", "crit", "--json", json.to_str().unwrap()]);
    let out = succeeded(d.bench(suite, &args), "--save-baseline");
    let r = report(&json, &out);
    assert_eq!(measured_ids(&r), ids, "{}", show(&out));
    let saved = d
        .krate
        .target
        .join(format!("perfbench/baselines/crit/{suite}.json"));
    assert!(saved.is_file(), "no baseline at {}", saved.display());

    let json = d.json_path("compared");
    let mut args = SHORT.to_vec();
    args.extend(["--baseline", "crit", "--json", json.to_str().unwrap()]);
    let out = succeeded(d.bench(suite, &args), "--baseline");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("compared with baseline `crit`"),
        "{}",
        show(&out)
    );
    let r = report(&json, &out);
    assert_eq!(r.benchmarks.len(), ids.len());
    for b in &r.benchmarks {
        let wall = b.counter("wall-time").unwrap();
        assert!(
            wall.change.is_some(),
            "{}: no change against the baseline",
            b.id
        );
    }
}

/// criterion 0.3's deprecated forms define criterion's ids and keep their settings.
#[test]
fn criterion_03s_forms_keep_their_ids_and_settings() {
    let d = demo();
    let _serial = serial();
    let out = succeeded(d.bench("api_03", &["--list"]), "--list");
    assert_eq!(listed(&out), API_03_IDS, "{}", show(&out));
    let json = d.json_path("api_03");
    let out = succeeded(
        d.bench(
            "api_03",
            &[
                "--quick",
                "--precision",
                "0",
                "--json",
                json.to_str().unwrap(),
            ],
        ),
        "a measured run",
    );
    let r = report(&json, &out);
    assert_eq!(measured_ids(&r), API_03_IDS, "{}", show(&out));
    let bench = |id: &str| r.benchmarks.iter().find(|b| b.id == id).unwrap();
    let samples = |id: &str| bench(id).counter("wall-time").unwrap().per_iteration.len();
    assert_eq!(samples("shifts/right"), 20);
    assert_eq!(samples("alone"), 30);
    assert_eq!(bench("shifts/left").throughput, Some(Throughput::Bytes(8)));
    assert_eq!(
        bench("sum/fold/512").throughput,
        Some(Throughput::Elements(512))
    );
    assert_eq!(bench("fill/8").throughput, None);
    let sum = bench("sum/iter/64");
    assert_eq!(
        (sum.group.as_str(), sum.name.as_str(), sum.params.as_deref()),
        ("sum", "iter", Some("64"))
    );
}

/// tracing's suite sets a global subscriber with `.expect(..)` in its target function, which
/// fails the second time it runs in a process: every way of running it must run its groups
/// once per process.
#[test]
fn groups_run_once_per_process_in_every_mode() {
    let d = demo();
    let _serial = serial();
    let suite = "real_tracing_empty_span";
    let ids = criterions_ids(suite);
    let measured = |args: &[&str], what: &str| {
        let json = d.json_path(what);
        let mut all = args.to_vec();
        all.extend(["--json", json.to_str().unwrap()]);
        let out = succeeded(d.bench(suite, &all), what);
        let r = report(&json, &out);
        assert_eq!(measured_ids(&r), ids, "{what}\n{}", show(&out));
        (r, out)
    };
    // Saved for `--paired` only: from this run's process alone (`--no-confirm`: no second).
    let mut args = SHORT.to_vec();
    args.extend(["--save-baseline", "once", "--no-confirm"]);
    measured(&args, "measured and saved");
    // Paired: every round's workers run the groups once each, serving the benchmarks in order.
    let mut args = SHORT.to_vec();
    args.extend(["--paired", "once"]);
    let (r, out) = measured(&args, "paired");
    for b in &r.benchmarks {
        assert!(
            b.counter("wall-time").is_some_and(|c| c.change.is_some()),
            "{}: no paired change\n{}",
            b.id,
            show(&out)
        );
    }
    measured(&["--simulate"], "simulated");
    let out = succeeded(
        d.bench(
            suite,
            &["--profile", "--quick", "--measurement-time", "0.05"],
        ),
        "--profile",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    for id in &ids {
        assert!(
            stdout.contains(&format!("{id}: ")) && stdout.contains("samples of"),
            "{id} was not profiled\n{}",
            show(&out)
        );
    }
}

/// criterion's filters are regular expressions, and so are a criterion suite's here, in every
/// mode: the tool, which starts the binary again for `--paired` and `--simulate`, selects
/// what the binary selected.
#[test]
fn filters_are_criterions_regular_expressions() {
    let d = demo();
    let _serial = serial();
    let suite = "real_tracing_empty_span";
    let list = |filters: &[&str]| {
        let mut args = vec!["--list"];
        args.extend_from_slice(filters);
        listed(&succeeded(d.bench(suite, &args), "--list"))
    };
    assert_eq!(
        list(&["^empty_span/(none|global)$"]),
        ["empty_span/none", "empty_span/global"]
    );
    assert_eq!(
        list(&["baseline_", "sco"]),
        ["empty_span/scoped", "empty_span/baseline_struct"]
    );
    assert_eq!(list(&["--exact", "empty_span/none"]), ["empty_span/none"]);
    assert!(list(&["^span"]).is_empty());
    let out = d.bench(suite, &["--list", "empty_span/(none"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code() == Some(2) && stderr.contains("is not a regular expression"),
        "{}",
        show(&out)
    );
    let measured = |extra: &[&str], what: &str| {
        let json = d.json_path(what);
        let mut args = SHORT.to_vec();
        args.extend_from_slice(extra);
        args.extend(["--json", json.to_str().unwrap()]);
        let out = succeeded(d.bench(suite, &args), what);
        let r = report(&json, &out);
        measured_ids(&r)
            .into_iter()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        measured(
            &["--save-baseline", "regex", "--no-confirm", "(none|global)$"],
            "saved"
        ),
        ["empty_span/none", "empty_span/global"]
    );
    assert_eq!(
        measured(&["--paired", "regex", "(none|scoped)$"], "paired"),
        ["empty_span/none", "empty_span/scoped"]
    );
    assert_eq!(
        measured(&["--simulate", "gl.bal$"], "simulated"),
        ["empty_span/global"]
    );
}

#[test]
fn faults_are_reported_and_the_rest_is_measured() {
    let d = demo();
    let _serial = serial();
    let json = d.json_path("faulty");
    let out = d.bench("faulty", &["--quick", "--json", json.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let r = report(&json, &out);
    let outcome = |id: &str| {
        let b = r.benchmarks.iter().find(|b| b.id == id).unwrap();
        (b.outcome, b.error.clone().unwrap_or_default())
    };
    let (o, e) = outcome("panics");
    assert_eq!(o, Outcome::Panicked);
    assert!(e.contains("the routine failed"), "{e}");
    // Listed under one id, defined under another when run.
    let fickle = r
        .benchmarks
        .iter()
        .find(|b| b.id.starts_with("fickle "))
        .expect("the fickle benchmark is reported");
    assert_eq!(fickle.outcome, Outcome::Failed);
    let e = fickle.error.clone().unwrap_or_default();
    assert!(e.contains("did not define it when run"), "{e}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("was not defined when the benchmarks were listed"),
        "{}",
        show(&out)
    );
    assert_eq!(outcome("sound").0, Outcome::Measured);
    // The code defining it panicked when measured: reported, with the panic's message.
    let (o, e) = outcome("after the setup");
    assert_eq!(o, Outcome::Failed);
    assert!(
        e.contains("did not define it when run; it panicked: the setup failed"),
        "{e}"
    );

    // A suite whose code fails before any benchmark is defined cannot be listed: exit 2, with
    // what failed.
    let out = d.bench("broken", &["--quick"]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("failed while its benchmarks were being listed")
            && stderr.contains("the input file is missing"),
        "{}",
        show(&out)
    );

    let out = d.bench("duplicate", &["--quick"]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("two benchmarks have the id `g/same`"),
        "{}",
        show(&out)
    );
}
