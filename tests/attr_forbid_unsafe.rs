//! `#[perfbench]` expands in a crate that forbids unsafe code, and under strict lints.
//!
//! The registration's `#[link_section]`, `#[used]` and `unsafe` blocks are written by linkme's
//! macros, and the attribute's own tokens carry its call-site span, never the user's: rustc
//! doesn't report `unsafe_code` (nor other lints) for code that comes from another crate's
//! macro. Handing the user's spans to such tokens would make the lint fire here.
#![forbid(unsafe_code)]
#![deny(
    missing_docs,
    unused,
    nonstandard_style,
    rust_2018_idioms,
    unreachable_pub,
    clippy::all,
    clippy::pedantic
)]

use perfbench::{perfbench, Bencher};

#[perfbench(crate = ::perfbench, throughput = bytes(1), sample_size = 10)]
fn plain() -> u32 {
    7
}

#[perfbench(args = [1, 2], counters = ["wall-time"], warm_up_time = 0.5)]
fn with_args(b: &mut Bencher, n: u32) {
    b.iter(|| n * 2);
}

#[perfbench(args = [3])]
fn no_bencher(n: u64) -> u64 {
    n + 1
}

#[perfbench(types = [u8, u64], args = [5, 6])]
fn generic<T: From<u8>>(b: &mut Bencher, n: u8) {
    b.iter(|| T::from(n));
}

#[test]
fn registers_under_forbid_unsafe_code() {
    let names: Vec<&str> = perfbench::__private::BENCHMARKS
        .iter()
        .map(|e| e.name)
        .collect();
    assert!(names.contains(&"plain"), "{names:?}");
    assert!(names.contains(&"with_args"), "{names:?}");
    assert!(names.contains(&"generic"), "{names:?}");
    let mut b = Bencher::smoke_test();
    for e in perfbench::__private::BENCHMARKS {
        let runs: Vec<fn(&mut Bencher, usize)> = if e.types.is_empty() {
            vec![e.run]
        } else {
            e.types.iter().map(|t| t.run).collect()
        };
        for run in runs {
            for i in 0..e.args.len().max(1) {
                run(&mut b, i);
            }
        }
    }
    // One each for `plain` and `no_bencher`, two for `with_args`, four for `generic`.
    assert_eq!(b.iterations_run(), 8);
}
