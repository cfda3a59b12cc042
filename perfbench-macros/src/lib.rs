//! The `#[perfbench]` attribute, re-exported as [`perfbench::perfbench`]; see its
//! documentation there.
//!
//! Module map:
//! - `options`: the attribute's arguments, parsed and checked.
//! - `signature`: which function shapes are accepted.
//! - `arg_text`: how an `args` value or a `types` entry is shown in benchmark ids.
//! - `expand`: the generated registration (one `perfbench::__private::Entry` per function,
//!   in the `BENCHMARKS` distributed slice).
//! - `misuse`: no code; the `compile_fail` doctests, one per misuse.
//!
//! The generated code names only `perfbench::__private` (and `perfbench::Bencher`,
//! `perfbench::black_box`), never `linkme` directly, so users need no dependency but perfbench.
//!
//! [`perfbench::perfbench`]: https://docs.rs/perfbench/latest/perfbench/attr.perfbench.html
#![warn(missing_docs)]

use proc_macro::TokenStream;

mod arg_text;
mod expand;
mod misuse;
mod options;
mod signature;

/// Registers a benchmark function with the perfbench harness.
///
/// The function stays an ordinary function (it can still be called); the attribute adds a
/// registration, collected at link time, so the benchmarks of every module and file of the
/// target run without being listed anywhere. A bench target (`[[bench]] harness = false`) ends
/// with `perfbench::main!()`, which runs them.
///
/// ```
/// use perfbench::{black_box, perfbench, Bencher};
///
/// // Measured as `b.iter(|| fib_20())`: the result goes through `black_box`.
/// #[perfbench]
/// fn fib_20() -> u64 {
///     fib(black_box(20))
/// }
///
/// // One benchmark per value: `sum/64`, `sum/1024`, `sum/16384`.
/// #[perfbench(args = [64, 1024, 16384])]
/// fn sum(b: &mut Bencher, n: usize) {
///     let v: Vec<u64> = (0..n as u64).collect(); // setup, not measured
///     b.iter(|| v.iter().sum::<u64>());
/// }
///
/// #[perfbench(counters = ["instructions", "branch-misses", "wall-time"])]
/// fn sort(b: &mut Bencher) {
///     b.iter_batched(|| shuffled(1000), |mut v| v.sort_unstable());
/// }
///
/// fn fib(n: u64) -> u64 {
///     if n < 2 { n } else { fib(n - 1) + fib(n - 2) }
/// }
///
/// fn shuffled(n: u32) -> Vec<u32> {
///     (0..n).map(|i| i.wrapping_mul(2_654_435_761) % n).collect()
/// }
/// # fn main() {
/// #     let names: Vec<_> = perfbench::__private::BENCHMARKS.iter().map(|e| e.name).collect();
/// #     assert!(["fib_20", "sum", "sort"].iter().all(|n| names.contains(n)), "{names:?}");
/// # }
/// ```
///
/// # Functions
///
/// A benchmark function is a free function (not a method), not `unsafe`, `async` only with an
/// [`executor`](#executor), and generic only over one type parameter that [`types`](#types)
/// fills, of one of these shapes:
///
/// | signature | measured as |
/// | --- | --- |
/// | `fn f()`, `fn f() -> T` | `b.iter(\|\| f())`; the result is passed through [`black_box`] |
/// | `fn f(b: &mut Bencher)` | `f(b)`: the function calls one of `b`'s `iter*` methods once, setup before it is not measured |
/// | `fn f(b: &mut Bencher, n: T)` with `args` | `f(b, value)` for each value |
/// | `fn f(n: T) [-> U]` with `args` | `b.iter(\|\| f(black_box(value)))` for each value; `T` must be `Copy` |
/// | any of these with a type parameter, `fn f<T>(...)`, with `types` | the same with `f::<Type>`, for each type |
/// | `fn f() [-> T]` with `threads = [...]` | `b.iter_threads(n, \|\| f())` for each thread count `n` |
/// | `async fn f()`, `async fn f(n: T)` with `args`, with `executor = EXPR` | `b.to_async(EXPR).iter(\|\| f(..))`: each future awaited on the executor |
///
/// A function that takes the `Bencher` returns nothing: return the value from the closure
/// given to `b.iter` instead. Lifetime parameters are fine; `#[cfg(..)]` on the function applies
/// to its registration as well. Any misuse is a compile error that points at the offending
/// option or parameter.
///
/// # Options
///
/// Options are written `#[perfbench(option, option = value, ...)]`, each at most once.
/// `sample_size`, `warm_up_time`, `measurement_time` and the runner's counters are defaults for
/// this benchmark: the command line (`--sample-size`, ...) overrides them.
///
/// ## `args`
///
/// One benchmark per value, with id `name/value` (`sum/1024`). The values are expressions
/// of the function's argument type; a string literal's id shows its contents without quotes.
/// Each is built inside the benchmark when it runs, so they needn't be constants.
///
/// ```
/// use perfbench::{perfbench, Bencher};
///
/// #[perfbench(args = [64, 1024, 16384])]
/// fn sum(b: &mut Bencher, n: usize) {
///     let v: Vec<u64> = (0..n as u64).collect();
///     b.iter(|| v.iter().sum::<u64>());
/// }
///
/// // Without a bencher, each iteration calls the function with a `black_box`ed copy.
/// #[perfbench(args = ["short", "a somewhat longer string"])]
/// fn parse_len(s: &str) -> usize {
///     s.split(' ').count()
/// }
/// # fn main() {
/// #     let e = perfbench::__private::BENCHMARKS.iter().find(|e| e.name == "parse_len").unwrap();
/// #     assert_eq!(e.args, ["short", "a somewhat longer string"]);
/// # }
/// ```
///
/// Any other expression that yields the values (a constant, a range, a function call: anything
/// `IntoIterator`) is evaluated when the benchmarks are listed and again, outside the
/// measurement, for each one; the ids show each value's `Display` (`sizes/8`, `sizes/64`, ...).
///
/// ```
/// use perfbench::{perfbench, Bencher};
///
/// const SIZES: [usize; 3] = [8, 64, 512];
///
/// #[perfbench(args = SIZES)]
/// fn sizes(b: &mut Bencher, n: usize) {
///     let v = vec![1u8; n];
///     b.iter(|| v.iter().map(|&x| x as u32).sum::<u32>());
/// }
///
/// #[perfbench(args = (0..4).map(|k| 1u64 << (4 * k)))]
/// fn powers(n: u64) -> u32 {
///     n.count_ones()
/// }
/// # fn main() {
/// #     let e = perfbench::__private::BENCHMARKS.iter().find(|e| e.name == "powers").unwrap();
/// #     assert_eq!(e.arg_texts(), ["1", "16", "256", "4096"]);
/// # }
/// ```
///
/// ## `types`
///
/// One benchmark per type, for a function with one type parameter, which each type fills in
/// turn (`sort::<u8>`, `sort::<u64>`, ...). The id names the type as rustc prints it
/// (`sort/u8`, `sort/Vec<u8>`, `sort/&'static str`); with `args` too, there is one benchmark
/// per type and value, the type first (`sort_n/u8/64`), and the JSON report's `params` holds
/// what follows the name (`u8/64`). A type that does not meet the function's bounds is a
/// compile error at the type in the list.
///
/// ```
/// use perfbench::{perfbench, Bencher};
/// use std::str::FromStr;
///
/// // `sort/u8`, `sort/u64`, `sort/String`.
/// #[perfbench(types = [u8, u64, String])]
/// fn sort<T: Ord + Clone + FromStr>(b: &mut Bencher) {
///     let v: Vec<T> = (0..=255u8).rev().filter_map(|i| T::from_str(&i.to_string()).ok()).collect();
///     b.iter_batched(|| v.clone(), |mut v| v.sort());
/// }
///
/// // `fill/u8/64`, `fill/u8/4096`, `fill/Vec<u8>/64`, `fill/Vec<u8>/4096`.
/// #[perfbench(types = [u8, Vec<u8>], args = [64, 4096])]
/// fn fill<T: Default + Clone>(n: usize) -> Vec<T> {
///     vec![T::default(); n]
/// }
/// # fn main() {
/// #     let e = perfbench::__private::BENCHMARKS.iter().find(|e| e.name == "fill").unwrap();
/// #     assert_eq!(e.type_names(), ["u8", "Vec<u8>"]);
/// #     let ids: Vec<String> = perfbench::runner::jobs("doc").into_iter().map(|p| p.id).collect();
/// #     assert_eq!(ids, ["doc/sort/u8", "doc/sort/u64", "doc/sort/String", "doc/fill/u8/64",
/// #         "doc/fill/u8/4096", "doc/fill/Vec<u8>/64", "doc/fill/Vec<u8>/4096"]);
/// # }
/// ```
///
/// ## `name`
///
/// The benchmark's name (default: the function's name).
///
/// ```
/// use perfbench::perfbench;
///
/// #[perfbench(name = "vec push 1k")]
/// fn push() -> Vec<u32> {
///     (0..1000).collect()
/// }
/// # fn main() {
/// #     assert!(perfbench::__private::BENCHMARKS.iter().any(|e| e.name == "vec push 1k"));
/// # }
/// ```
///
/// ## `group`
///
/// The group the benchmark is reported in (default: its module).
///
/// ```
/// use perfbench::perfbench;
///
/// #[perfbench(group = "hashing")]
/// fn fnv() -> u64 {
///     b"perfbench".iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
/// }
/// ```
///
/// ## `counters`
///
/// The counters measured for this benchmark, perf-style names as `--counters` takes them
/// (`instructions`, `cycles:u`, `branch-misses`, `r01c2`, `page-faults`, `wall-time`, ...).
/// An unknown name is reported when the suite starts.
///
/// ```
/// use perfbench::{perfbench, Bencher};
///
/// #[perfbench(counters = ["instructions", "branch-misses", "wall-time"])]
/// fn sort(b: &mut Bencher) {
///     b.iter_batched(|| vec![3u32, 1, 2], |mut v| v.sort_unstable());
/// }
/// ```
///
/// ## `sample_size`
///
/// How many samples to take (a whole number, at least 1, or a `u32` constant).
///
/// ```
/// use perfbench::perfbench;
///
/// #[perfbench(sample_size = 20)]
/// fn slow() -> u64 {
///     (0..10_000u64).product()
/// }
/// ```
///
/// ## `warm_up_time`
///
/// Seconds of warm-up before measuring: an integer or float literal, or an `f64` constant.
///
/// ```
/// use perfbench::perfbench;
///
/// #[perfbench(warm_up_time = 0.5)]
/// fn cold_start() -> Vec<u8> {
///     vec![0; 4096]
/// }
/// ```
///
/// ## `measurement_time`
///
/// Seconds to spend measuring, spread over the samples (more than 0).
///
/// ```
/// use perfbench::perfbench;
///
/// #[perfbench(measurement_time = 10)]
/// fn noisy() -> u32 {
///     std::process::id()
/// }
/// ```
///
/// ## `throughput`
///
/// Work done per iteration, `bytes(N)` or `elements(N)` (N a `u64` constant), so that the
/// report shows a rate (bytes/s, elements/s, and per counter) next to the time. With `args`,
/// N may use the function's argument (`bytes(len)`, `elements(n * 2)`): it is computed for each
/// argument, with the parameter bound to a reference to the value, and must be an unsigned
/// integer. A body can also call [`Bencher::throughput`](../perfbench/struct.Bencher.html#method.throughput).
///
/// ```
/// use perfbench::{perfbench, Bencher};
///
/// #[perfbench(args = [64, 65536], throughput = bytes(len))]
/// fn search(b: &mut Bencher, len: usize) {
///     let hay = vec![0u8; len];
///     b.iter(|| hay.iter().position(|&x| x == 1));
/// }
/// # fn main() {}
/// ```
///
/// ```
/// use perfbench::{perfbench, Bencher};
///
/// #[perfbench(throughput = bytes(4096))]
/// fn checksum(b: &mut Bencher) {
///     let data = vec![1u8; 4096];
///     b.iter(|| data.iter().map(|&x| x as u64).sum::<u64>());
/// }
/// ```
///
/// ## `thresholds`
///
/// Per-counter thresholds for the comparison with a baseline or the previous run, as
/// `"COUNTER=PCT"` strings: a change smaller than PCT percent is never flagged for that counter
/// of this benchmark. They win over `--noise-threshold`; `--threshold COUNTER=PCT` on the
/// command line wins over them.
///
/// ```
/// use perfbench::{perfbench, Bencher};
///
/// #[perfbench(thresholds = ["wall-time=10", "instructions=0.1"])]
/// fn parse(b: &mut Bencher) {
///     b.iter(|| "12345".parse::<u64>());
/// }
/// ```
///
/// ## `threads`
///
/// Runs the function on N threads at once for every sample, for each N listed: one benchmark
/// per count, its id ending in the count (`contended/4`); `0` is the machine's available
/// parallelism. Each counter is per iteration summed over the threads, and `wall-time` is one
/// thread's time per call while the others run too (divan's `threads`). For a function without
/// parameters; a body that takes the bencher calls `b.iter_threads(n, || ...)` itself.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use perfbench::perfbench;
///
/// static HITS: AtomicU64 = AtomicU64::new(0);
///
/// #[perfbench(threads = [1, 2, 4, 0])]
/// fn contended() -> u64 {
///     HITS.fetch_add(1, Ordering::Relaxed)
/// }
/// # fn main() {}
/// ```
///
/// ## `executor`
///
/// What an `async fn` benchmark's futures are awaited on: any expression whose value is a
/// `perfbench::harness::executor::AsyncExecutor`, evaluated each time the benchmark runs
/// (outside the measurement): a tokio `Runtime` (feature `tokio`), `SmolExecutor` (feature
/// `smol`), `FuturesExecutor` (feature `futures`), or an executor of your own. An expression
/// rather than a fixed list of names: the runtime is configured as the benchmark needs
/// (current-thread or multi-thread, its worker count, its drivers), and no executor crate is
/// compiled that the suite does not name.
///
/// ```
/// use perfbench::harness::executor::FuturesExecutor;
/// use perfbench::perfbench;
///
/// async fn checksum(n: u64) -> u64 {
///     (0..n).map(|i| i * 7).sum()
/// }
///
/// #[perfbench(executor = FuturesExecutor, args = [64, 4096])]
/// async fn checksum_async(n: u64) -> u64 {
///     checksum(n).await
/// }
/// # fn main() {}
/// ```
///
/// ## `ignore`
///
/// Registered and listed, but skipped unless selected with `--include-ignored`.
///
/// ```
/// use perfbench::perfbench;
///
/// #[perfbench(ignore)]
/// fn takes_a_minute() {}
/// ```
///
/// ## `crate`
///
/// Where the perfbench crate is, for a dependency renamed in `Cargo.toml` or a re-export
/// (default: `::perfbench`).
///
/// ```
/// use perfbench::perfbench;
/// mod tools {
///     pub use perfbench as bench;
/// }
///
/// #[perfbench(crate = crate::tools::bench)]
/// fn renamed() {}
/// # fn main() {}
/// ```
///
/// [`black_box`]: std::hint::black_box
#[proc_macro_attribute]
pub fn perfbench(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(attr.into(), item.into()).into()
}

/// Collects every error found, so that one compilation reports them all.
#[derive(Default)]
struct Errors(Option<syn::Error>);

impl Errors {
    fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(first) => first.combine(error),
            None => self.0 = Some(error),
        }
    }

    fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}
