//! Unusual but accepted uses of `#[perfbench]`.

use perfbench::__private::{Entry, BENCHMARKS};
use perfbench::{perfbench, Bencher};

fn entry(name: &str) -> Option<&'static Entry> {
    BENCHMARKS.iter().find(|e| e.name == name)
}

fn run(name: &str, arg: usize) -> u64 {
    let mut b = Bencher::smoke_test();
    (entry(name).expect(name).run)(&mut b, arg);
    b.iterations_run()
}

/// A raw identifier: the name is shown without `r#`.
#[perfbench]
fn r#match() {}

/// Documented, with other attributes before and after, public, `const`.
#[inline(never)]
#[perfbench]
#[must_use]
pub const fn documented() -> u32 {
    7
}

/// Lifetime parameters are fine (they don't make the function generic over types).
#[perfbench(args = ["a", "bc"])]
fn with_lifetime<'a>(b: &'a mut Bencher, s: &'a str) {
    b.iter(|| s.len());
}

/// A non-Rust ABI.
#[perfbench]
extern "C" fn c_abi() -> i32 {
    1
}

/// `#[cfg]` after the attribute removes the registration along with the function.
#[perfbench]
#[cfg(any())]
fn compiled_out() {}

/// Parameters may be patterns; the argument may be a tuple or a struct.
#[perfbench(args = [(1, 2), (3, 4)])]
fn pattern_param((x, y): (u32, u32)) -> u32 {
    x + y
}

/// The argument type needn't be `Copy` when the function takes the bencher.
#[perfbench(args = [vec![1, 2, 3], Vec::new()])]
fn owned_arg(b: &mut Bencher, v: Vec<u8>) {
    b.iter(|| v.len());
}

#[test]
fn unusual_functions_register() {
    assert_eq!(run("match", 0), 1);
    assert_eq!(run("documented", 0), 1);
    assert_eq!(documented(), 7);
    assert_eq!(run("with_lifetime", 1), 1);
    assert_eq!(run("c_abi", 0), 1);
    assert!(entry("compiled_out").is_none());
    assert_eq!(entry("pattern_param").unwrap().args, ["(1, 2)", "(3, 4)"]);
    assert_eq!(run("pattern_param", 1), 1);
    assert_eq!(
        entry("owned_arg").unwrap().args,
        ["vec![1, 2, 3]", "Vec::new()"]
    );
    assert_eq!(run("owned_arg", 0), 1);
}

#[test]
fn inside_a_function_body() {
    // Items in a block register like any other (the block needn't run).
    #[perfbench(name = "in_block")]
    fn local() -> u8 {
        1
    }
    assert_eq!(run("in_block", 0), 1);
    assert_eq!(local(), 1);
}

/// Two attributes register the function twice, under two names.
#[perfbench(name = "twice_a")]
#[perfbench(name = "twice_b")]
fn twice() {}

#[test]
fn stacked_attributes_register_each() {
    assert!(entry("twice_a").is_some());
    assert!(entry("twice_b").is_some());
}

macro_rules! bench_from_macro {
    ($name:ident) => {
        #[perfbench]
        fn $name() {}
    };
}

bench_from_macro!(from_macro);

#[test]
fn generated_by_a_declarative_macro() {
    assert_eq!(run("from_macro", 0), 1);
}
