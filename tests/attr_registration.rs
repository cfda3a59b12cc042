//! Registration across modules and files, and what `Entry::run` does for each accepted
//! function shape.

mod attr_support;

use std::cell::Cell;

use perfbench::__private::{Entry, BENCHMARKS};
use perfbench::{perfbench, Bencher};

fn entry(name: &str) -> &'static Entry {
    BENCHMARKS
        .iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no benchmark named {name:?}"))
}

/// Runs argument number `arg` of `name` in smoke-test mode; returns the iterations run.
fn run(name: &str, arg: usize) -> u64 {
    let mut b = Bencher::smoke_test();
    (entry(name).run)(&mut b, arg);
    b.iterations_run()
}

#[test]
fn registers_functions_of_other_files_and_modules() {
    let e = entry("in_other_file");
    assert_eq!(e.module_path, "attr_registration::attr_support");
    assert!(e.file.ends_with("attr_support/mod.rs"), "{}", e.file);
    assert_eq!(e.line, attr_support::IN_OTHER_FILE_LINE);
    assert_eq!(e.group, Some("support"));
    let before = attr_support::CALLS.get();
    assert_eq!(run("in_other_file", 0), 1);
    assert_eq!(attr_support::CALLS.get(), before + 1);

    let e = entry("deeper");
    assert_eq!(e.module_path, "attr_registration::attr_support::nested");
    assert_eq!(run("deeper", 0), 1);
}

#[test]
fn every_benchmark_of_the_binary_is_registered_once() {
    let mut names: Vec<&str> = BENCHMARKS.iter().map(|e| e.name).collect();
    names.sort_unstable();
    let before = names.len();
    names.dedup();
    assert_eq!(names.len(), before, "{names:?}");
    assert_eq!(
        names,
        [
            "deeper",
            "in_other_file",
            "plain",
            "returns",
            "square",
            "takes_arg",
            "takes_bencher",
        ]
    );
    // `registered()` sees the same set.
    assert_eq!(perfbench::harness::entry::registered().len(), names.len());
}

// Per thread: the tests run in parallel, each on its own thread.
thread_local! {
    static PLAIN_CALLS: Cell<u64> = const { Cell::new(0) };
    static BENCHER_CALLS: Cell<u64> = const { Cell::new(0) };
    static LAST_ARG: Cell<usize> = const { Cell::new(usize::MAX) };
    static SQUARED: Cell<u64> = const { Cell::new(0) };
}

/// `fn f()`: measured as `b.iter(|| f())`.
#[perfbench]
fn plain() {
    PLAIN_CALLS.set(PLAIN_CALLS.get() + 1);
}

#[test]
fn plain_function_runs_through_iter() {
    let before = PLAIN_CALLS.get();
    assert_eq!(run("plain", 0), 1);
    assert_eq!(PLAIN_CALLS.get(), before + 1);
}

/// `fn f() -> T`.
#[perfbench]
fn returns() -> Vec<u32> {
    vec![1, 2, 3]
}

#[test]
fn returning_function_runs_through_iter_and_stays_callable() {
    assert_eq!(run("returns", 0), 1);
    assert_eq!(returns(), [1, 2, 3]);
}

/// `fn f(b: &mut Bencher)`: called with the runner's bencher.
#[perfbench]
fn takes_bencher(b: &mut perfbench::Bencher) {
    BENCHER_CALLS.set(BENCHER_CALLS.get() + 1);
    b.iter(|| 1 + 1);
    b.iter_batched(|| vec![3, 2, 1], |mut v| v.sort_unstable());
}

#[test]
fn bencher_function_gets_the_bencher() {
    let before = BENCHER_CALLS.get();
    assert_eq!(run("takes_bencher", 0), 2);
    assert_eq!(BENCHER_CALLS.get(), before + 1);
}

/// `fn f(b: &mut Bencher, n: T)` with `args`.
#[perfbench(args = [64, 1024, 16384])]
fn takes_arg(b: &mut Bencher, n: usize) {
    LAST_ARG.set(n);
    b.iter(|| n);
}

#[test]
fn run_passes_the_ith_arg() {
    assert_eq!(entry("takes_arg").args, ["64", "1024", "16384"]);
    for (i, n) in [64, 1024, 16384].into_iter().enumerate() {
        assert_eq!(run("takes_arg", i), 1);
        assert_eq!(LAST_ARG.get(), n);
    }
}

#[test]
#[should_panic(expected = "perfbench: `takes_arg` has 3 args; there is no arg #3")]
fn run_panics_past_the_last_arg() {
    run("takes_arg", 3);
}

/// `fn f(n: T) -> U` with `args` (no bencher): each iteration calls `f(black_box(value))`.
#[perfbench(args = [3, 5])]
fn square(n: u64) -> u64 {
    SQUARED.set(n * n);
    n * n
}

#[test]
fn arg_without_bencher_runs_through_iter() {
    assert_eq!(run("square", 0), 1);
    assert_eq!(SQUARED.get(), 9);
    assert_eq!(run("square", 1), 1);
    assert_eq!(SQUARED.get(), 25);
    // Still an ordinary function.
    assert_eq!(square(4), 16);
}

#[test]
fn original_functions_stay_callable() {
    let mut b = Bencher::smoke_test();
    takes_arg(&mut b, 7);
    assert_eq!(LAST_ARG.get(), 7);
    takes_bencher(&mut b);
    plain();
    assert_eq!(attr_support::nested::deeper(), "deeper");
    attr_support::in_other_file(&mut b);
}
