//! Generic benchmarks: `#[perfbench(types = [...])]` on a function with one type parameter, in
//! every accepted shape, alone and with `args` (a literal list or an expression), and how the
//! runner names, lists, filters, runs and reports them (`group/name/TYPE[/ARG]`).
//!
//! The command-line scenarios run this test binary again as a child process (the ignored
//! `child` test, run by name, which runs the perfbench runner with the arguments in
//! `PERFBENCH_TYPES_CHILD`), so that what the runner prints (`--list`, the terminal report) can
//! be read back.

use std::any::type_name;
use std::fmt::Debug;
use std::process::{Command, ExitCode};
use std::sync::Mutex;

use perfbench::__private::{Entry, Throughput, BENCHMARKS};
use perfbench::runner::{self, cli};
use perfbench::{black_box, perfbench, Bencher};
use perfbench_analysis::model::json::from_json;
use perfbench_analysis::model::{Outcome, Report};

const SUITE: &str = "attr_types";

fn entry(name: &str) -> &'static Entry {
    let mut found = BENCHMARKS.iter().filter(|e| e.name == name);
    let e = found
        .next()
        .unwrap_or_else(|| panic!("no benchmark named {name:?}"));
    assert!(found.next().is_none(), "{name:?} registered twice");
    e
}

/// (benchmark, `type_name::<T>()`, argument) of each call, in order.
static SEEN: Mutex<Vec<(&'static str, &'static str, String)>> = Mutex::new(Vec::new());

fn saw<T>(name: &'static str, arg: impl Debug) {
    let arg = format!("{arg:?}");
    SEEN.lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((name, type_name::<T>(), arg));
}

/// The calls `name` made, as (type, argument).
fn seen(name: &str) -> Vec<(&'static str, String)> {
    SEEN.lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .filter(|(n, _, _)| *n == name)
        .map(|(_, t, a)| (*t, a.clone()))
        .collect()
}

/// Runs every type and argument of `name` once, in smoke-test mode, and returns its calls.
fn run_all(name: &'static str) -> Vec<(&'static str, String)> {
    let e = entry(name);
    let args = e.arg_texts().len().max(1);
    for t in e.types {
        for i in 0..args {
            (t.run)(&mut Bencher::smoke_test(), i);
        }
    }
    seen(name)
}

/// What a generic sort benchmark needs: a value from a number.
trait Sample: Ord + Clone {
    fn sample(i: u32) -> Self;
}

impl Sample for u8 {
    fn sample(i: u32) -> Self {
        (i.wrapping_mul(2_654_435_761) >> 24) as u8
    }
}

impl Sample for u64 {
    fn sample(i: u32) -> Self {
        u64::from(i.wrapping_mul(2_654_435_761))
    }
}

impl Sample for String {
    fn sample(i: u32) -> Self {
        format!("{:x}", i.wrapping_mul(2_654_435_761))
    }
}

fn shuffled<T: Sample>(n: u32) -> Vec<T> {
    (0..n).map(T::sample).collect()
}

/// `fn f<T>(b: &mut Bencher)`: the example.
#[perfbench(types = [u8, u64, String])]
fn sort<T: Sample>(b: &mut Bencher) {
    saw::<T>("sort", ());
    let v = shuffled::<T>(100);
    b.iter_batched(|| v.clone(), |mut v| v.sort_unstable());
}

/// `fn f<T>() -> U`: measured as `b.iter(|| f::<T>())`.
#[perfbench(types = [u32, Vec<u8>, Option<&'static str>])]
fn default_value<T: Default>() -> T {
    saw::<T>("default_value", ());
    T::default()
}

/// `fn f<T>()`.
#[perfbench(types = [i16, (u8, String)])]
fn nothing_returned<T: Default>() {
    saw::<T>("nothing_returned", ());
    black_box(T::default());
}

/// `fn f<T>(b: &mut Bencher, n: usize)` with literal `args`: one benchmark per type and value.
#[perfbench(types = [u8, String], args = [4, 16])]
fn sort_n<T: Sample>(b: &mut Bencher, n: u32) {
    saw::<T>("sort_n", n);
    let v = shuffled::<T>(n);
    b.iter_batched(|| v.clone(), |mut v| v.sort_unstable());
}

/// `fn f<T>(n: usize) -> U` with literal `args`: each iteration gets a `black_box`ed copy.
#[perfbench(types = [u16, u64], args = [1, 2 + 3])]
fn widen<T: From<u8>>(n: u8) -> T {
    saw::<T>("widen", n);
    T::from(n)
}

/// The argument's type is the type parameter: each literal is typed by the type in turn.
#[perfbench(types = [u32, i64], args = [1, 2])]
fn double<T: Copy + std::ops::Add<Output = T>>(n: T) -> T {
    saw::<T>("double", ());
    n + n
}

const SIZES: [usize; 2] = [8, 64];

/// `args = EXPR` with `types`: the expression's values, for each type.
#[perfbench(types = [u8, u64], args = SIZES, throughput = bytes(n))]
fn fill<T: Sample>(b: &mut Bencher, n: usize) {
    saw::<T>("fill", n);
    b.iter(|| vec![T::sample(1); n]);
}

/// `args = EXPR` without a bencher.
#[perfbench(types = [u8, u64], args = (1..3).map(|k| k * 10))]
fn sample_of<T: Sample>(n: u32) -> T {
    saw::<T>("sample_of", n);
    T::sample(n)
}

/// Nested generics and paths, as rustc prints them.
#[perfbench(types = [Vec<Vec<u8>>, std::collections::BTreeMap<String, Vec<u64>>, [u8; 4]])]
fn nested<T: Default>() -> T {
    saw::<T>("nested", ());
    T::default()
}

/// Every other option together with `types`, a lifetime and a `where` clause.
#[perfbench(
    types = [u8, u64],
    args = ["a", "bc"],
    name = "everything",
    group = "typed",
    counters = ["wall-time"],
    sample_size = 5,
    warm_up_time = 0.01,
    measurement_time = 0.02,
    throughput = elements(2),
    thresholds = ["wall-time=20"],
    ignore,
    crate = perfbench,
)]
fn every_option<'a, T>(b: &'a mut Bencher, s: &'a str)
where
    T: Sample,
{
    saw::<T>("everything", s);
    b.iter(|| T::sample(s.len() as u32));
}

#[test]
fn each_type_is_listed_with_its_runner() {
    assert_eq!(entry("sort").type_names(), ["u8", "u64", "String"]);
    assert!(!entry("sort").has_args());
    assert_eq!(
        entry("default_value").type_names(),
        ["u32", "Vec<u8>", "Option<&'static str>"]
    );
    assert_eq!(
        entry("nested").type_names(),
        [
            "Vec<Vec<u8>>",
            "std::collections::BTreeMap<String, Vec<u64>>",
            "[u8; 4]"
        ]
    );
    assert_eq!(
        entry("nothing_returned").type_names(),
        ["i16", "(u8, String)"]
    );
    // The entry's own runner is the first type's.
    let e = entry("sort");
    assert_eq!(e.run as usize, e.types[0].run as usize);
}

#[test]
fn each_runner_calls_the_function_with_its_type() {
    assert_eq!(
        run_all("sort"),
        [
            ("u8", "()".to_owned()),
            ("u64", "()".to_owned()),
            ("alloc::string::String", "()".to_owned()),
        ]
    );
    let types = |calls: Vec<(&'static str, String)>| -> Vec<&'static str> {
        calls.into_iter().map(|(t, _)| t).collect()
    };
    assert_eq!(
        types(run_all("default_value")),
        ["u32", "alloc::vec::Vec<u8>", "core::option::Option<&str>"]
    );
    assert_eq!(
        types(run_all("nothing_returned")),
        ["i16", "(u8, alloc::string::String)"]
    );
    assert_eq!(
        types(run_all("nested")),
        [
            "alloc::vec::Vec<alloc::vec::Vec<u8>>",
            "alloc::collections::btree::map::BTreeMap<alloc::string::String, alloc::vec::Vec<u64>>",
            "[u8; 4]",
        ]
    );
    assert_eq!(types(run_all("double")), ["u32", "u32", "i64", "i64"]);
}

#[test]
fn types_combine_with_literal_args() {
    let e = entry("sort_n");
    assert_eq!(e.type_names(), ["u8", "String"]);
    assert_eq!(e.args, ["4", "16"]);
    let string = "alloc::string::String";
    assert_eq!(
        run_all("sort_n"),
        [
            ("u8", "4".to_owned()),
            ("u8", "16".to_owned()),
            (string, "4".to_owned()),
            (string, "16".to_owned()),
        ]
    );
    assert_eq!(entry("widen").args, ["1", "2 + 3"]);
    assert_eq!(
        run_all("widen"),
        [
            ("u16", "1".to_owned()),
            ("u16", "5".to_owned()),
            ("u64", "1".to_owned()),
            ("u64", "5".to_owned()),
        ]
    );
}

#[test]
fn types_combine_with_args_from_an_expression() {
    let e = entry("fill");
    assert!(e.has_args() && e.args.is_empty());
    assert_eq!(e.arg_texts(), ["8", "64"]);
    assert_eq!(
        run_all("fill"),
        [
            ("u8", "8".to_owned()),
            ("u8", "64".to_owned()),
            ("u64", "8".to_owned()),
            ("u64", "64".to_owned()),
        ]
    );
    assert_eq!(entry("sample_of").arg_texts(), ["10", "20"]);
    assert_eq!(
        run_all("sample_of"),
        [
            ("u8", "10".to_owned()),
            ("u8", "20".to_owned()),
            ("u64", "10".to_owned()),
            ("u64", "20".to_owned()),
        ]
    );
}

#[test]
fn types_with_every_other_option() {
    let e = entry("everything");
    assert_eq!(e.group, Some("typed"));
    assert_eq!(e.type_names(), ["u8", "u64"]);
    assert_eq!(e.args, ["a", "bc"]);
    assert!(e.options.ignore);
    assert_eq!(e.options.sample_size, Some(5));
    assert_eq!(e.options.counters, Some(&["wall-time"][..]));
    assert_eq!(e.options.throughput, Some(Throughput::Elements(2)));
    assert_eq!(e.options.thresholds, Some(&[("wall-time", 0.2)][..]));
    assert_eq!(
        run_all("everything"),
        [
            ("u8", "\"a\"".to_owned()),
            ("u8", "\"bc\"".to_owned()),
            ("u64", "\"a\"".to_owned()),
            ("u64", "\"bc\"".to_owned()),
        ]
    );
}

#[test]
fn ids_name_the_type_then_the_argument() {
    let planned = runner::jobs(SUITE);
    let of = |name: &str| -> Vec<(String, Option<String>, Option<&'static str>, usize)> {
        planned
            .iter()
            .filter(|p| p.entry.name == name)
            .map(|p| (p.id.clone(), p.params.clone(), p.type_name, p.arg))
            .collect()
    };
    let s = |t: &str| Some(t.to_owned());
    assert_eq!(
        of("sort"),
        [
            ("attr_types/sort/u8".into(), s("u8"), Some("u8"), 0),
            ("attr_types/sort/u64".into(), s("u64"), Some("u64"), 0),
            (
                "attr_types/sort/String".into(),
                s("String"),
                Some("String"),
                0
            ),
        ]
    );
    assert_eq!(
        of("sort_n"),
        [
            ("attr_types/sort_n/u8/4".into(), s("u8/4"), Some("u8"), 0),
            ("attr_types/sort_n/u8/16".into(), s("u8/16"), Some("u8"), 1),
            (
                "attr_types/sort_n/String/4".into(),
                s("String/4"),
                Some("String"),
                0
            ),
            (
                "attr_types/sort_n/String/16".into(),
                s("String/16"),
                Some("String"),
                1
            ),
        ]
    );
    let ids = |name: &str| -> Vec<String> { of(name).into_iter().map(|p| p.0).collect() };
    assert_eq!(
        ids("fill"),
        [
            "attr_types/fill/u8/8",
            "attr_types/fill/u8/64",
            "attr_types/fill/u64/8",
            "attr_types/fill/u64/64",
        ]
    );
    assert_eq!(
        ids("default_value"),
        [
            "attr_types/default_value/u32",
            "attr_types/default_value/Vec<u8>",
            "attr_types/default_value/Option<&'static str>",
        ]
    );
    assert_eq!(
        ids("everything"),
        [
            "typed/everything/u8/a",
            "typed/everything/u8/bc",
            "typed/everything/u64/a",
            "typed/everything/u64/bc",
        ]
    );
    // Each planned benchmark runs its own type's runner.
    for p in &planned {
        let expected = match p.type_name {
            Some(t) => p.entry.types.iter().find(|x| x.name == t).unwrap().run,
            None => p.entry.run,
        };
        assert_eq!(p.run as usize, expected as usize, "{}", p.id);
    }
}

/// Runs the runner in a child process with these arguments: (success, stdout).
fn run_child(args: &[&str]) -> (bool, String) {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("PERFBENCH_TYPES_CHILD", args.join("\u{1f}"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}:\n{stdout}\n{stderr}");
    let ok = if stdout.contains("CHILD EXIT ok") {
        true
    } else if stdout.contains("CHILD EXIT failed") {
        false
    } else {
        panic!("{args:?}: no exit line:\n{stdout}\n{stderr}")
    };
    (ok, stdout)
}

/// The runner with the arguments in `PERFBENCH_TYPES_CHILD`: the child process of the parent's
/// `run_child(args)`, which runs it by name. Run on its own, without the variable, it fails.
#[test]
#[ignore = "the child process of this file's command-line scenarios: they run it by name"]
fn child() {
    let args = std::env::var("PERFBENCH_TYPES_CHILD")
        .expect("PERFBENCH_TYPES_CHILD holds the runner's arguments: run_child sets it");
    let parsed = cli::parse(SUITE, std::iter::once(SUITE).chain(args.split('\u{1f}')))
        .expect("valid command line");
    let code = runner::run(SUITE, &parsed);
    let verdict = if code == ExitCode::SUCCESS {
        "ok"
    } else {
        "failed"
    };
    println!("\nCHILD EXIT {verdict}");
}

/// The ids `--list` printed.
fn listed(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter_map(|l| l.strip_suffix(": benchmark"))
        // libtest may print `test child ... ` before the child's first line.
        .map(|l| l.find("attr_types/").map_or(l, |at| &l[at..]))
        .collect()
}

#[test]
fn list_and_filters_see_the_types() {
    let (ok, out) = run_child(&["--list", "attr_types/sort"]);
    assert!(ok);
    assert_eq!(
        listed(&out),
        [
            "attr_types/sort/u8",
            "attr_types/sort/u64",
            "attr_types/sort/String",
            "attr_types/sort_n/u8/4",
            "attr_types/sort_n/u8/16",
            "attr_types/sort_n/String/4",
            "attr_types/sort_n/String/16",
        ]
    );
    // A type as the filter, as in `cargo bench -- u64`; several filters, as libtest.
    let (_, out) = run_child(&["--list", "/u64", "/Vec<"]);
    assert_eq!(
        listed(&out),
        [
            "attr_types/sort/u64",
            "attr_types/default_value/Vec<u8>",
            "attr_types/widen/u64/1",
            "attr_types/widen/u64/2 + 3",
            "attr_types/fill/u64/8",
            "attr_types/fill/u64/64",
            "attr_types/sample_of/u64/10",
            "attr_types/sample_of/u64/20",
            "attr_types/nested/Vec<Vec<u8>>",
        ]
    );
    let (_, out) = run_child(&["--list", "--exact", "attr_types/sort_n/String/16"]);
    assert_eq!(listed(&out), ["attr_types/sort_n/String/16"]);
    let (_, out) = run_child(&["--list", "--exact", "attr_types/sort"]);
    assert_eq!(listed(&out), [] as [&str; 0]);
    // Ignored benchmarks are listed only when asked for.
    let (_, out) = run_child(&["--list", "typed/"]);
    assert_eq!(listed(&out), [] as [&str; 0]);
    let (_, out) = run_child(&["--list", "--include-ignored", "typed/everything/u64"]);
    assert_eq!(
        out.lines()
            .filter(|l| l.ends_with(": benchmark"))
            .map(|l| l.find("typed/").map_or(l, |at| &l[at..]))
            .collect::<Vec<_>>(),
        [
            "typed/everything/u64/a: benchmark",
            "typed/everything/u64/bc: benchmark"
        ]
    );
}

#[test]
fn smoke_test_runs_each_type() {
    // `cargo test --benches`: no `--bench`, every selected body once.
    let (ok, out) = run_child(&["sort_n/"]);
    assert!(ok, "{out}");
    for id in [
        "attr_types/sort_n/u8/4",
        "attr_types/sort_n/u8/16",
        "attr_types/sort_n/String/4",
        "attr_types/sort_n/String/16",
    ] {
        assert!(out.contains(&format!("test {id} ... ok")), "{id}:\n{out}");
    }
    assert!(out.contains("4 passed"), "{out}");
}

#[test]
fn a_real_run_reports_each_type() {
    let path =
        std::env::temp_dir().join(format!("perfbench-attr-types-{}.json", std::process::id()));
    let (ok, out) = run_child(&[
        "--bench",
        "attr_types/sort_n/",
        "attr_types/sort/u64",
        "attr_types/fill/u64/",
        "--counters",
        "wall-time",
        "--sample-size",
        "10",
        "--warm-up-time",
        "0.01",
        "--measurement-time",
        "0.02",
        "--rounds",
        "2",
        "--discard-baseline",
        "--json",
        path.to_str().unwrap(),
    ]);
    assert!(ok, "{out}");
    let text = std::fs::read_to_string(&path).expect("report written");
    let _ = std::fs::remove_file(&path);
    let report: Report = from_json(&text).expect("report parses");
    let ids: Vec<&str> = report.benchmarks.iter().map(|b| b.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "attr_types/sort/u64",
            "attr_types/sort_n/u8/4",
            "attr_types/sort_n/u8/16",
            "attr_types/sort_n/String/4",
            "attr_types/sort_n/String/16",
            "attr_types/fill/u64/8",
            "attr_types/fill/u64/64",
        ]
    );
    for b in &report.benchmarks {
        assert_eq!(b.outcome, Outcome::Measured, "{}", b.id);
        assert_eq!(b.group, "attr_types");
        assert_eq!(
            format!("{}/{}/{}", b.group, b.name, b.params.as_deref().unwrap()),
            b.id
        );
        assert!(
            b.counter("wall-time").unwrap().estimate.is_some(),
            "{}",
            b.id
        );
        // The terminal report names each one.
        assert!(out.contains(&b.id), "{}:\n{out}", b.id);
    }
    let sort_u64 = report.bench("attr_types/sort/u64").unwrap();
    assert_eq!(
        (sort_u64.name.as_str(), sort_u64.params.as_deref()),
        ("sort", Some("u64"))
    );
    let string_16 = report.bench("attr_types/sort_n/String/16").unwrap();
    assert_eq!(string_16.name, "sort_n");
    assert_eq!(string_16.params.as_deref(), Some("String/16"));
    // The throughput follows the argument, for each type.
    let fill = report.bench("attr_types/fill/u64/64").unwrap();
    assert_eq!(fill.throughput, Some(Throughput::Bytes(64)));
}
