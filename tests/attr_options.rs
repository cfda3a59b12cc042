//! Every `#[perfbench(...)]` option lands in the registered `Entry`.

use perfbench::__private::{Entry, Options, Throughput, BENCHMARKS};
use perfbench::{perfbench, Bencher};

/// The entry registered under `name` (exactly one).
fn entry(name: &str) -> &'static Entry {
    let mut found = BENCHMARKS.iter().filter(|e| e.name == name);
    let e = found
        .next()
        .unwrap_or_else(|| panic!("no benchmark named {name:?}"));
    assert!(found.next().is_none(), "{name:?} registered twice");
    e
}

#[perfbench]
fn no_options() {}

#[test]
fn without_options_everything_is_default() {
    let e = entry("no_options");
    assert_eq!(e.group, None);
    assert_eq!(e.args, [] as [&str; 0]);
    assert_eq!(e.options, Options::DEFAULT);
    assert_eq!(e.module_path, "attr_options");
    assert!(e.file.ends_with("attr_options.rs"), "{}", e.file);
}

#[perfbench(name = "custom name")]
fn renamed() {}

#[test]
fn name() {
    assert_eq!(entry("custom name").options, Options::DEFAULT);
    assert!(BENCHMARKS.iter().all(|e| e.name != "renamed"));
}

#[perfbench(group = "hashing")]
fn grouped() {}

#[test]
fn group() {
    let e = entry("grouped");
    assert_eq!(e.group, Some("hashing"));
    assert_eq!(e.options, Options::DEFAULT);
}

#[perfbench(counters = ["instructions", "branch-misses", "cpu_core/cycles/u", "wall-time"])]
fn counted() {}

#[test]
fn counters() {
    let e = entry("counted");
    const COUNTERS: &[&str] = &[
        "instructions",
        "branch-misses",
        "cpu_core/cycles/u",
        "wall-time",
    ];
    assert_eq!(e.options.counters, Some(COUNTERS));
    assert_eq!(
        e.options,
        Options {
            counters: Some(COUNTERS),
            ..Options::DEFAULT
        }
    );
}

const SAMPLES: u32 = 42;

#[perfbench(sample_size = 20)]
fn sampled() {}

#[perfbench(sample_size = SAMPLES)]
fn sampled_const() {}

#[test]
fn sample_size() {
    assert_eq!(entry("sampled").options.sample_size, Some(20));
    assert_eq!(entry("sampled_const").options.sample_size, Some(42));
    let only = Options {
        sample_size: Some(20),
        ..Options::DEFAULT
    };
    assert_eq!(entry("sampled").options, only);
}

const HALF: f64 = 0.5;

#[perfbench(warm_up_time = 3)]
fn warm_int() {}

#[perfbench(warm_up_time = 0.25)]
fn warm_float() {}

#[perfbench(warm_up_time = 0)]
fn warm_none() {}

#[perfbench(warm_up_time = HALF)]
fn warm_const() {}

#[test]
fn warm_up_time() {
    assert_eq!(entry("warm_int").options.warm_up_time, Some(3.0));
    assert_eq!(entry("warm_float").options.warm_up_time, Some(0.25));
    assert_eq!(entry("warm_none").options.warm_up_time, Some(0.0));
    assert_eq!(entry("warm_const").options.warm_up_time, Some(0.5));
    assert_eq!(entry("warm_int").options.measurement_time, None);
}

#[perfbench(measurement_time = 10)]
fn measured_int() {}

#[perfbench(measurement_time = 1.5e1)]
fn measured_float() {}

#[test]
fn measurement_time() {
    assert_eq!(entry("measured_int").options.measurement_time, Some(10.0));
    assert_eq!(entry("measured_float").options.measurement_time, Some(15.0));
    assert_eq!(entry("measured_int").options.warm_up_time, None);
}

const KIB: u64 = 1024;

#[perfbench(throughput = bytes(4096))]
fn bytes() {}

#[perfbench(throughput = elements(1000))]
fn elements() {}

#[perfbench(throughput = bytes(4 * KIB))]
fn bytes_const() {}

#[test]
fn throughput() {
    assert_eq!(
        entry("bytes").options.throughput,
        Some(Throughput::Bytes(4096))
    );
    assert_eq!(
        entry("elements").options.throughput,
        Some(Throughput::Elements(1000))
    );
    assert_eq!(
        entry("bytes_const").options.throughput,
        Some(Throughput::Bytes(4096))
    );
}

#[perfbench(ignore)]
fn ignored() {}

#[test]
fn ignore() {
    let e = entry("ignored");
    assert!(e.options.ignore);
    assert_eq!(
        e.options,
        Options {
            ignore: true,
            ..Options::DEFAULT
        }
    );
}

const N: usize = 7;

#[perfbench(args = [1, 2 + 3, N, N * 2])]
fn int_args(b: &mut Bencher, n: usize) {
    b.iter(|| n);
}

#[perfbench(args = ["short", "with spaces", ""])]
fn str_args(b: &mut Bencher, s: &str) {
    b.iter(|| s.len());
}

#[perfbench(args = [String::from("built at run time").len(), usize::MAX])]
fn runtime_args(b: &mut Bencher, n: usize) {
    b.iter(|| n);
}

#[test]
fn args_are_shown_as_written() {
    assert_eq!(entry("int_args").args, ["1", "2 + 3", "N", "N * 2"]);
    // String literals without their quotes.
    assert_eq!(entry("str_args").args, ["short", "with spaces", ""]);
    assert_eq!(
        entry("runtime_args").args,
        ["String::from(\"built at run time\").len()", "usize::MAX"]
    );
    assert_eq!(entry("int_args").options, Options::DEFAULT);
}

#[perfbench(crate = ::perfbench)]
fn explicit_crate() {}

mod reexport {
    pub use perfbench as bench;
}

#[perfbench(crate = crate::reexport::bench)]
fn renamed_crate() {}

#[test]
fn crate_path() {
    entry("explicit_crate");
    entry("renamed_crate");
}

#[perfbench(
    name = "everything",
    group = "all",
    args = [1, 2],
    counters = ["cycles"],
    sample_size = 5,
    warm_up_time = 1,
    measurement_time = 2.5,
    throughput = elements(2),
    thresholds = ["wall-time=10", "instructions=0.5%"],
    ignore,
    crate = perfbench,
)]
fn every_option(b: &mut Bencher, n: u64) {
    b.iter(|| n + 1);
}

#[test]
fn all_options_together() {
    let e = entry("everything");
    assert_eq!(e.group, Some("all"));
    assert_eq!(e.args, ["1", "2"]);
    assert_eq!(
        e.options,
        Options {
            counters: Some(&["cycles"]),
            sample_size: Some(5),
            warm_up_time: Some(1.0),
            measurement_time: Some(2.5),
            throughput: Some(Throughput::Elements(2)),
            thresholds: Some(&[("wall-time", 0.1), ("instructions", 0.005)]),
            ignore: true,
        }
    );
}

/// The values each `args = EXPR` benchmark was called with, by benchmark name.
static SEEN: std::sync::Mutex<Vec<(&'static str, String)>> = std::sync::Mutex::new(Vec::new());

fn saw(name: &'static str, value: impl std::fmt::Display) {
    SEEN.lock().unwrap().push((name, value.to_string()));
}

const SIZES: [usize; 3] = [8, 64, 512];

#[perfbench(args = SIZES)]
fn from_const(b: &mut Bencher, n: usize) {
    saw("from_const", n);
    b.iter(|| n + 1);
}

#[perfbench(args = 1..4)]
fn from_range(n: u32) -> u32 {
    saw("from_range", n);
    n * 2
}

fn words() -> Vec<String> {
    vec!["alpha".into(), "beta gamma".into()]
}

#[perfbench(args = words())]
fn from_call(b: &mut Bencher, w: String) {
    saw("from_call", &w);
    b.iter(|| w.len());
}

#[test]
fn args_from_any_expression() {
    for (name, texts) in [
        ("from_const", &["8", "64", "512"][..]),
        ("from_range", &["1", "2", "3"]),
        ("from_call", &["alpha", "beta gamma"]),
    ] {
        let e = entry(name);
        assert!(e.has_args() && e.args.is_empty(), "{name}");
        assert_eq!(e.arg_texts(), texts, "{name}");
        for i in 0..texts.len() {
            (e.run)(&mut Bencher::smoke_test(), i);
        }
        let seen: Vec<String> = SEEN
            .lock()
            .unwrap()
            .iter()
            .filter(|(n, _)| *n == name)
            .map(|(_, v)| v.clone())
            .collect();
        assert_eq!(seen, texts, "{name}: each index runs its own value");
        // An index past the values is a panic that names the benchmark.
        let past = std::panic::catch_unwind(|| (e.run)(&mut Bencher::smoke_test(), texts.len()));
        let msg = past.unwrap_err();
        let msg = msg.downcast_ref::<String>().unwrap();
        assert!(
            msg.contains(&format!("`args` of `{name}` has no value #{}", texts.len())),
            "{msg}"
        );
    }
    // The runner's ids show each value.
    let ids: Vec<String> = perfbench::runner::jobs("attr_options")
        .into_iter()
        .map(|p| p.id)
        .filter(|id| id.contains("from_"))
        .collect();
    assert_eq!(
        ids,
        [
            "attr_options/from_const/8",
            "attr_options/from_const/64",
            "attr_options/from_const/512",
            "attr_options/from_range/1",
            "attr_options/from_range/2",
            "attr_options/from_range/3",
            "attr_options/from_call/alpha",
            "attr_options/from_call/beta gamma",
        ]
    );
}
