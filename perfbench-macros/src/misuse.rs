//! Every misuse of `#[perfbench]` is a compile error at the offending tokens. Each case below
//! is a `compile_fail` doctest; the `// error:` comment on a line is the start of the message
//! reported there, which `tests/compile_fail_messages.rs` checks (`cargo test -p
//! perfbench-macros -- --ignored`), so that each case fails for the reason it shows.
//!
//! # Options
//!
//! An unknown option lists the known ones:
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(sample_szie = 10)] // error: unknown option `sample_szie`; the options are: args, types, name, group, counters, sample_size, warm_up_time, measurement_time, throughput, thresholds, threads, executor, ignore, crate
//! fn f() {}
//! # fn main() {}
//! ```
//!
//! An option given twice:
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(name = "a", name = "b")] // error: option `name` is given more than once
//! fn f() {}
//! # fn main() {}
//! ```
//!
//! Every problem is reported, not only the first:
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(sample_size = "x", bogus)] // error: `sample_size` takes a whole number
//! async fn f() {} // error: an `async fn` benchmark needs an executor to await it on
//! # fn main() {}
//! ```
//! (and ``unknown option `bogus` `` on the first line).
//!
//! A malformed attribute:
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(name = )] // error: unexpected end of input, expected an expression
//! fn f() {}
//! # fn main() {}
//! ```
//!
//! A flag with a value, an option without one:
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(ignore = true)] // error: `ignore` takes no value
//! fn f() {}
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(name)] // error: option `name` takes a value
//! fn f() {}
//! # fn main() {}
//! ```
//!
//! ## `args`
//! `args = EXPR` (any expression but a literal list) names each benchmark by the value's
//! `Display`:
//! ```compile_fail,E0277
//! use perfbench::{perfbench, Bencher};
//!
//! const PAIRS: [(u8, u8); 1] = [(1, 2)];
//!
//! #[perfbench(args = PAIRS)] // error[E0277]: the values of `args = EXPR` name the benchmarks through `Display`
//! fn f(b: &mut Bencher, p: (u8, u8)) {}
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::{perfbench, Bencher};
//!
//! #[perfbench(args = [])] // error: `args` is empty
//! fn f(b: &mut Bencher, n: u32) {}
//! # fn main() {}
//! ```
//! A value of the wrong type is reported at the value:
//! ```compile_fail,E0308
//! use perfbench::{perfbench, Bencher};
//!
//! #[perfbench(args = [1, "two"])] // error[E0308]: mismatched types
//! fn f(b: &mut Bencher, n: u32) {}
//! # fn main() {}
//! ```
//!
//! ## `types`
//! A generic function without `types`:
//! ```compile_fail
//! use perfbench::{perfbench, Bencher};
//!
//! #[perfbench]
//! fn f<T: Ord>(b: &mut Bencher) {} // error: `f` is generic over `T`: say which types to run it with
//! # fn main() {}
//! ```
//! `types` on a function that isn't generic:
//! ```compile_fail
//! use perfbench::{perfbench, Bencher};
//!
//! #[perfbench(types = [u8, u64])] // error: `types` given, but `f` has no type parameter to receive them
//! fn f(b: &mut Bencher) {}
//! # fn main() {}
//! ```
//! More than one type parameter (reported at the others):
//! ```compile_fail
//! use perfbench::{perfbench, Bencher};
//!
//! #[perfbench(types = [u8, u64])]
//! fn f<T, U>(b: &mut Bencher) {} // error: `f` has 2 type parameters (`T`, `U`); a benchmark has at most one
//! # fn main() {}
//! ```
//! Const generics (not supported, with or without `types`):
//! ```compile_fail
//! use perfbench::{perfbench, Bencher};
//!
//! #[perfbench(types = [u8])]
//! fn f<T, const N: usize>(b: &mut Bencher) {} // error: a benchmark can't be generic over constants
//! # fn main() {}
//! ```
//! An empty list, a type without the list, a value that isn't a type, a type listed twice:
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(types = [])] // error: `types` is empty
//! fn f<T: Default>() -> T { T::default() }
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(types = u8)] // error: `types` takes a list of types: `types = [u8, u64, String]`
//! fn f<T: Default>() -> T { T::default() }
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(types = [u8, 64])] // error: expected
//! fn f<T: Default>() -> T { T::default() }
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(types = [_])] // error: `_` is not a type to run the benchmark with
//! fn f<T: Default>() -> T { T::default() }
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(types = [Vec<u8>, u64, Vec < u8 >])] // error: type `Vec<u8>` is listed twice
//! fn f<T: Default>() -> T { T::default() }
//! # fn main() {}
//! ```
//! A type that does not meet the function's bounds is rustc's error, at the type in the list:
//! ```compile_fail,E0277
//! use perfbench::perfbench;
//!
//! #[perfbench(types = [u8, String])] // error[E0277]: the trait bound `String: Copy` is not satisfied
//! fn f<T: Copy + Default>() -> T { T::default() }
//! # fn main() {}
//! ```
//! An argument that does not fit the parameter for one of the types (here `String`), at the
//! argument:
//! ```compile_fail,E0308
//! use perfbench::{perfbench, Bencher};
//!
//! #[perfbench(types = [u8, String], args = [1])] // error[E0308]: mismatched types
//! fn f<T>(b: &mut Bencher, n: T) {}
//! # fn main() {}
//! ```
//!
//! ## `name`, `group`
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(name = fib)] // error: `name` takes a string literal
//! fn f() {}
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(group = "")] // error: `group` can't be empty
//! fn f() {}
//! # fn main() {}
//! ```
//!
//! ## `counters`
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(counters = "instructions")] // error: `counters` takes a list of counter names
//! fn f() {}
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(counters = ["cycles", "instructions", "cycles"])] // error: counter `cycles` is listed twice
//! fn f() {}
//! # fn main() {}
//! ```
//!
//! ## `thresholds`
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(thresholds = ["wall-time"])] // error: `thresholds` takes a list of "COUNTER=PCT" strings
//! fn f() {}
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(thresholds = ["wall-time=ten"])] // error: `ten` is not a percentage
//! fn f() {}
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(thresholds = ["wall-time=10", "wall-time=5"])] // error: counter `wall-time` has two thresholds
//! fn f() {}
//! # fn main() {}
//! ```
//!
//! ## `sample_size`, `warm_up_time`, `measurement_time`
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(sample_size = "x")] // error: `sample_size` takes a whole number
//! fn f() {}
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(sample_size = 0)] // error: `sample_size` must be at least 1
//! fn f() {}
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(warm_up_time = "1s")] // error: `warm_up_time` takes a number of seconds
//! fn f() {}
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(warm_up_time = -1)] // error: `warm_up_time` can't be negative
//! fn f() {}
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(measurement_time = 0)] // error: `measurement_time` must be more than 0 seconds
//! fn f() {}
//! # fn main() {}
//! ```
//!
//! ## `throughput`
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(throughput = kilos(3))] // error: unknown throughput unit
//! fn f() {}
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(throughput = bytes("4k"))] // error: a throughput count is a whole number
//! fn f() {}
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(throughput = 4096)] // error: `throughput` takes `bytes(N)` or `elements(N)`
//! fn f() {}
//! # fn main() {}
//! ```
//! A count that does not use the function's argument must be a constant (it is registered in a
//! `static`):
//! ```compile_fail,E0015
//! use perfbench::perfbench;
//!
//! fn len() -> u64 { 4096 }
//! #[perfbench(throughput = bytes(len()))] // error[E0015]: cannot call non-const function
//! fn f() {}
//! # fn main() {}
//! ```
//!
//! A throughput count computed from the argument must be a whole number:
//! ```compile_fail,E0277
//! use perfbench::{perfbench, Bencher};
//!
//! #[perfbench(args = ["a", "bc"], throughput = bytes(s))] // error[E0277]: a throughput count is a whole number
//! fn f(b: &mut Bencher, s: &str) {}
//! # fn main() {}
//! ```
//!
//! ## `crate`
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(crate = "perfbench")] // error: `crate` takes a path: `crate = ::my_perfbench`
//! fn f() {}
//! # fn main() {}
//! ```
//!
//! # Functions
//!
//! Not a function:
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench]
//! struct S; // error: `#[perfbench]` applies to functions
//! # fn main() {}
//! ```
//!
//! A parameter without `args` to fill it:
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench]
//! fn f(x: u32) {} // error: `f` takes a parameter but `#[perfbench]` has no `args = [...]` to fill it
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::{perfbench, Bencher};
//!
//! #[perfbench]
//! fn f(b: &mut Bencher, n: u32) {} // error: `f` takes an argument but `#[perfbench]` has no `args = [...]`
//! # fn main() {}
//! ```
//!
//! `args` without a parameter to receive them:
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(args = [1, 2])] // error: `args` given, but `f` has no parameter to receive them
//! fn f() {}
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::{perfbench, Bencher};
//!
//! #[perfbench(args = [1, 2])] // error: `args` given, but `f` only takes the `&mut Bencher`
//! fn f(b: &mut Bencher) {}
//! # fn main() {}
//! ```
//!
//! The bencher taken other than by `&mut`:
//! ```compile_fail
//! use perfbench::{perfbench, Bencher};
//!
//! #[perfbench]
//! fn f(b: Bencher) {} // error: take the bencher by mutable reference: `b: &mut Bencher`
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::{perfbench, Bencher};
//!
//! #[perfbench]
//! fn f(b: &Bencher) {} // error: take the bencher by mutable reference
//! # fn main() {}
//! ```
//!
//! The bencher second, too many parameters:
//! ```compile_fail
//! use perfbench::{perfbench, Bencher};
//!
//! #[perfbench(args = [1])]
//! fn f(n: u32, b: &mut Bencher) {} // error: with two parameters, the first must be the bencher
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::{perfbench, Bencher};
//!
//! #[perfbench(args = [1])]
//! fn f(b: &mut Bencher, n: u32, m: u32) {} // error: too many parameters
//! # fn main() {}
//! ```
//!
//! A function that takes the bencher and returns a value:
//! ```compile_fail
//! use perfbench::{perfbench, Bencher};
//!
//! #[perfbench]
//! fn f(b: &mut Bencher) -> u64 { 0 } // error: a benchmark that takes `&mut Bencher` returns nothing
//! # fn main() {}
//! ```
//!
//! Without a bencher, the argument is copied into each iteration, so it must be `Copy`
//! (reported at the parameter's type):
//! ```compile_fail,E0277
//! use perfbench::perfbench;
//!
//! #[perfbench(args = [String::from("x")])]
//! fn f(s: String) -> usize { s.len() } // error[E0277]: a benchmark argument without a `&mut Bencher` must be `Copy`; `String` is not
//! # fn main() {}
//! ```
//!
//! `threads` that are not counts, or on a function with parameters:
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(threads = [1, "two"])] // error: `"two"` is not a thread count
//! fn f() {}
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(threads = 4)] // error: `threads` takes a list of thread counts
//! fn f() {}
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(threads = [1, 2], args = [8])] // error: `threads` runs a function without parameters on N threads; with `args`
//! fn f(n: u64) -> u64 { n }
//! # fn main() {}
//! ```
//!
//! Generic without `types`, `async` without an executor (or with a bencher), an executor for a
//! plain `fn`, `unsafe`, methods:
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench]
//! fn f<T: Default>() -> T { T::default() } // error: `f` is generic over `T`: say which types to run it with, `#[perfbench(types = [u8, u64])]`
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench]
//! fn f<const N: usize>() -> usize { N } // error: a benchmark can't be generic over constants
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(args = [1])]
//! fn f(n: impl Into<u64>) -> u64 { n.into() } // error: a benchmark can't take `impl Trait`: name a concrete type, or a type parameter filled by `types = [...]`
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench]
//! async fn f() {} // error: an `async fn` benchmark needs an executor to await it on
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::{perfbench, Bencher};
//!
//! #[perfbench(executor = perfbench::harness::executor::FuturesExecutor)]
//! async fn f(b: &mut Bencher) {} // error: an `async fn` benchmark takes no `&mut Bencher`
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench(executor = perfbench::harness::executor::FuturesExecutor)] // error: `executor` is for an `async fn` benchmark
//! fn f() {}
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! #[perfbench]
//! unsafe fn f() {} // error: a benchmark can't be an `unsafe fn`
//! # fn main() {}
//! ```
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! struct S;
//! impl S {
//!     #[perfbench]
//!     fn f(&self) {} // error: a benchmark is a free function, not a method
//! }
//! # fn main() {}
//! ```
//!
//! Associated functions aren't supported either (the registration needs module scope); the
//! error is rustc's:
//! ```compile_fail
//! use perfbench::perfbench;
//!
//! struct S;
//! impl S {
//!     #[perfbench] // error: `const` items in this context need a name
//!     fn f() {} // error[E0425]: cannot find function `f` in this scope
//! }
//! # fn main() {}
//! ```
